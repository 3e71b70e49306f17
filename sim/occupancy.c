/* occupancy.c -- the CUDA occupancy calculator.  See occupancy.h.
 *
 * A transcription of the rules of cuda_occupancy.h (CUDA 12.6) as summarised
 * in gpu-scheduling-rules.md §3.2, with the per-architecture numbers taken
 * from the GpuModel rather than from switch statements on the compute
 * capability.  Two deliberate differences from the header:
 *  - regs_per_thread 0 means "unknown" (a trace without register counts) and
 *    is treated as 32, not as a kernel that uses no registers;
 *  - the shared-memory limit always uses the largest carveout (the header's
 *    default preference); a kernel's configuration and preferred carveout
 *    act in the engine (smem_config.c, engine_sm.c).
 * Partitioned global caching (cc 5.2/5.3/6.1 special modes) and the cc >= 9.0
 * barrier limit are not modelled (§3.2: rarely binding).
 *
 * Everything is integer arithmetic in uint64_t, so absurd inputs (a block of
 * 2^32 threads) are rejected instead of wrapping.
 */
#include "occupancy.h"

#include "error.h"

#define WARP_SIZE 32u
#define REGS_UNKNOWN_DEFAULT 32u

static uint64_t div_round_up(uint64_t x, uint64_t y)
{
    return (x + y - 1) / y;
}

static uint64_t round_up(uint64_t x, uint64_t y)
{
    return y * div_round_up(x, y);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

bool sim_block_needs(const GpuModel *m, const SimKernelSpec *k,
                     SimBlockNeeds *out, GError **error)
{
    g_return_val_if_fail(m != NULL && k != NULL && out != NULL, false);
    const char *gpu = m->name ? m->name : "?";

    uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    if (threads == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "block %ux%ux%u has no threads", k->block[0], k->block[1],
                    k->block[2]);
        return false;
    }
    if (threads > m->max_threads_per_block) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_NOFIT,
                    "threads per block: %llu exceeds the maximum of %u on %s",
                    (unsigned long long)threads, m->max_threads_per_block, gpu);
        return false;
    }

    uint32_t regs =
        k->regs_per_thread ? k->regs_per_thread : REGS_UNKNOWN_DEFAULT;
    if (regs > m->max_regs_per_thread) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_NOFIT,
                    "registers per thread: %u exceeds the maximum of %u on %s",
                    regs, m->max_regs_per_thread, gpu);
        return false;
    }

    uint64_t warps = div_round_up(threads, WARP_SIZE);
    uint64_t regs_per_warp =
        round_up((uint64_t)regs * WARP_SIZE, m->reg_alloc_unit_regs);
    /* The hardware check assumes a block takes registers in every
     * sub-partition at once, so its warps are rounded up to a multiple of
     * the sub-partition count (cuda_occupancy.h "regsAssumedPerCTA"). */
    uint64_t regs_per_block =
        regs_per_warp * round_up(warps, m->reg_subpartitions);
    if (regs_per_block > m->max_regs_per_block) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_NOFIT,
                    "registers per block: %llu (%u per thread, %llu per warp "
                    "x %llu warps rounded up to a multiple of %u) exceeds "
                    "the maximum of %u on %s",
                    (unsigned long long)regs_per_block, regs,
                    (unsigned long long)regs_per_warp,
                    (unsigned long long)warps, m->reg_subpartitions,
                    m->max_regs_per_block, gpu);
        return false;
    }

    if (k->static_smem_bytes > SIM_STATIC_SMEM_MAX_BYTES) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_NOFIT,
                    "static shared memory per block: %u bytes exceeds the "
                    "%u-byte (48 KiB) static limit of every architecture; "
                    "shared memory above it must be dynamic",
                    k->static_smem_bytes, SIM_STATIC_SMEM_MAX_BYTES);
        return false;
    }
    uint64_t smem = (uint64_t)k->static_smem_bytes + k->dynamic_smem_bytes;
    if (smem > m->max_smem_per_block_bytes) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_NOFIT,
                    "shared memory per block: %llu bytes (%u static + %u "
                    "dynamic) exceeds the maximum of %u bytes on %s",
                    (unsigned long long)smem, k->static_smem_bytes,
                    k->dynamic_smem_bytes, m->max_smem_per_block_bytes, gpu);
        return false;
    }
    uint64_t smem_alloc = round_up(smem + m->smem_reserved_per_block_bytes,
                                   m->smem_alloc_granularity_bytes);

    /* All three fit in 32 bits: warps <= 4096 / 32, regs_per_warp <=
     * 1024 * 32 rounded, smem_alloc <= 1 MiB + reservation. */
    out->warps = (uint32_t)warps;
    out->regs_per_warp = (uint32_t)regs_per_warp;
    out->smem_bytes = (uint32_t)smem_alloc;
    return true;
}

bool sim_occupancy(const GpuModel *m, const SimKernelSpec *k, SimOccupancy *out,
                   GError **error)
{
    g_return_val_if_fail(out != NULL, false);
    SimBlockNeeds n;
    if (!sim_block_needs(m, k, &n, error))
        return false;

    out->needs = n;
    out->limit[SIM_LIMIT_WARPS] = m->max_warps_per_sm / n.warps;
    out->limit[SIM_LIMIT_BLOCKS] = m->max_blocks_per_sm;

    /* Registers are allocated per sub-partition: a warp lives in one, so
     * what is left over in each sub-partition is lost to the others. */
    uint32_t regs_per_sub = m->regs_per_sm / m->reg_subpartitions;
    uint32_t warps_per_sub = regs_per_sub / n.regs_per_warp;
    out->limit[SIM_LIMIT_REGS] = warps_per_sub * m->reg_subpartitions / n.warps;

    out->limit[SIM_LIMIT_SMEM] = n.smem_bytes
                                     ? m->smem_per_sm_bytes / n.smem_bytes
                                     : m->max_blocks_per_sm;

    uint32_t best = UINT32_MAX;
    for (int l = 0; l < SIM_LIMIT_N; l++)
        best = min_u32(best, out->limit[l]);
    out->limiter = SIM_LIMIT_WARPS;
    for (int l = 0; l < SIM_LIMIT_N; l++)
        if (out->limit[l] == best) {
            out->limiter = (SimOccLimit)l;
            break;
        }
    out->blocks_per_sm = best;
    if (best == 0) {
        /* Only a model whose per-block maxima exceed its per-SM resources
         * can get here; the loader's consistency checks rule that out for
         * the shipped models. */
        g_set_error(error, SIM_ERROR, SIM_ERROR_NOFIT,
                    "no block fits on an SM of %s: limited by %s",
                    m->name ? m->name : "?", sim_occ_limit_name(out->limiter));
        return false;
    }
    out->active_warps = best * n.warps;
    out->occupancy = (double)out->active_warps / m->max_warps_per_sm;
    return true;
}

const char *sim_occ_limit_name(SimOccLimit l)
{
    switch (l) {
    case SIM_LIMIT_WARPS: return "warps";
    case SIM_LIMIT_BLOCKS: return "blocks";
    case SIM_LIMIT_REGS: return "registers";
    case SIM_LIMIT_SMEM: return "shared memory";
    case SIM_LIMIT_N: break;
    }
    g_return_val_if_reached("?");
}
