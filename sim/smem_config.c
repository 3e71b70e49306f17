/* smem_config.c -- shared-memory configurations and join windows.  See
 * smem_config.h. */
#include "smem_config.h"

#include "error.h"

uint32_t sim_smem_rule_config(const GpuModel *m, uint64_t want)
{
    for (uint32_t i = 0; i < m->n_smem_carveouts; i++)
        if (!(m->smem_rule_skips & (1u << i)) &&
            (uint64_t)m->smem_carveouts_kib[i] * 1024 >= want)
            return m->smem_carveouts_kib[i] * 1024;
    return m->smem_per_sm_bytes;
}

static bool listed(const GpuModel *m, uint32_t bytes)
{
    for (uint32_t i = 0; i < m->n_smem_carveouts; i++)
        if ((uint64_t)m->smem_carveouts_kib[i] * 1024 == bytes)
            return true;
    return false;
}

bool sim_smem_window(const GpuModel *m, const SimKernelSpec *k,
                     uint32_t blocks_per_sm, uint32_t block_smem,
                     SimSmemWindow *out, GError **error)
{
    /* The driver configures the smallest carveout that holds the blocks
     * the kernel can keep resident per SM (FINDINGS.md §3, checked against
     * ncu's "Shared Memory Configuration Size"). */
    const uint32_t need =
        sim_smem_rule_config(m, (uint64_t)blocks_per_sm * block_smem);
    uint32_t pref = 0;
    if (k->has_carveout_pct)
        pref = sim_smem_rule_config(
            m, ((uint64_t)m->smem_per_sm_bytes * k->carveout_pct + 99) / 100);
    uint32_t own = k->has_carveout_pct ? MAX(need, pref) : need;
    if (k->smem_config_bytes) {
        if (!listed(m, k->smem_config_bytes)) {
            g_autoptr(GString) l = g_string_new(NULL);
            for (uint32_t i = 0; i < m->n_smem_carveouts; i++)
                g_string_append_printf(l, "%s%u", i ? ", " : "",
                                       m->smem_carveouts_kib[i]);
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "field 'smem_config_bytes': %u is not a "
                        "shared-memory configuration of %s (%s KiB)",
                        k->smem_config_bytes, m->name ? m->name : "?", l->str);
            return false;
        }
        if (k->smem_config_bytes < block_smem) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "field 'smem_config_bytes': %u bytes hold no block "
                        "(%u bytes of shared memory with the reservation)",
                        k->smem_config_bytes, block_smem);
            return false;
        }
        own = k->smem_config_bytes;
    }
    out->own = own;
    if (k->has_carveout_pct) {
        out->lo = MIN(MIN(need, pref), own);
        out->hi = own;
    } else {
        out->lo = own;
        out->hi = m->smem_per_sm_bytes;
    }
    return true;
}
