/* retarget.c -- move a workload to another GPU.  See retarget.h. */
#include "retarget.h"

#include <math.h>

#include "error.h"
#include "occupancy.h"

static double copy_bw(const GpuModel *m, SimCopyDir d)
{
    return d == SIM_COPY_H2D   ? m->h2d_bandwidth_gbps
           : d == SIM_COPY_D2H ? m->d2h_bandwidth_gbps
                               : m->d2d_bandwidth_gbps;
}

/* Cut @k's shared memory to @to's per-block maximum, dynamic first.
 * Returns whether it had to. */
static bool clamp_smem(SimKernelSpec *k, const GpuModel *to)
{
    uint64_t max = to->max_smem_per_block_bytes;
    uint64_t total = (uint64_t)k->static_smem_bytes + k->dynamic_smem_bytes;
    if (total <= max)
        return false;
    uint64_t cut = total - max;
    uint64_t from_dyn = MIN(cut, (uint64_t)k->dynamic_smem_bytes);
    k->dynamic_smem_bytes -= (uint32_t)from_dyn;
    k->static_smem_bytes -= (uint32_t)(cut - from_dyn);
    return true;
}

/* How shared memory that does not fit the target is handled. */
typedef struct {
    bool fit_smem;    /* give such kernels the target's maximum */
    uint32_t clamped; /* kernels that got it */
} Fit;

/* Rescale one kernel or copy op's work from @from to @to. */
static bool retarget_op(SimOp *op, const GpuModel *from, const GpuModel *to,
                        const SimScenario *sc, const SimProcessSpec *p,
                        uint32_t i, Fit *fit, GError **error)
{
    const double clk = (double)from->sm_clock_mhz / to->sm_clock_mhz;
    if (op->kind == SIM_OP_COPY && op->u.copy.duration_ns) {
        double r = copy_bw(from, op->u.copy.dir) / copy_bw(to, op->u.copy.dir);
        op->u.copy.duration_ns =
            (SimTime)MAX(1.0, llround((double)op->u.copy.duration_ns * r));
        return true;
    }
    if (op->kind != SIM_OP_KERNEL)
        return true;
    SimKernelSpec *k = &op->u.kernel;
    /* The configuration the driver chose is the recording GPU's: the
     * target's rule decides anew (smem_config.c).  The preference is the
     * program's and stays. */
    k->smem_config_bytes = 0;
    if (k->block_time_ns) {
        k->block_time_ns =
            (SimTime)MAX(1.0, llround((double)k->block_time_ns * clk));
        fit->clamped += fit->fit_smem && clamp_smem(k, to);
        return true;
    }
    SimOccupancy occ;
    GError *err = NULL;
    if (!sim_occupancy(from, k, &occ, &err) || occ.blocks_per_sm == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_NOFIT,
                    "%s: process '%s' op %u: kernel '%s' does not fit on %s, "
                    "the GPU it was recorded on: %s",
                    sc->source, p->name, i, k->name, from->name,
                    err ? err->message : "no block fits an SM");
        g_clear_error(&err);
        return false;
    }
    uint64_t per_wave = (uint64_t)from->sm_count * occ.blocks_per_sm;
    uint64_t waves = (sim_kernel_blocks(k) + per_wave - 1) / per_wave;
    double block = (double)k->duration_ns / (double)waves * clk;
    k->block_time_ns = (SimTime)MAX(1.0, llround(block));
    k->duration_ns = 0;
    fit->clamped += fit->fit_smem && clamp_smem(k, to);
    return true;
}

bool sim_scenario_retarget(SimScenario *sc, const GpuModel *from,
                           const GpuModel *to, bool fit_smem,
                           uint32_t *n_clamped, GError **error)
{
    Fit fit = {fit_smem, 0};
    /* A graph launched by several ops is rescaled once. */
    g_autoptr(GHashTable) done = g_hash_table_new(NULL, NULL);
    for (guint pi = 0; pi < sc->processes->len; pi++) {
        SimProcessSpec *p = g_ptr_array_index(sc->processes, pi);
        for (uint32_t i = 0; i < p->n_ops; i++) {
            SimOp *op = &p->ops[i];
            if (op->kind != SIM_OP_GRAPH) {
                if (!retarget_op(op, from, to, sc, p, i, &fit, error))
                    return false;
                continue;
            }
            if (!g_hash_table_add(done, op->u.graph))
                continue;
            for (uint32_t n = 0; n < op->u.graph->n_nodes; n++)
                if (!retarget_op(&op->u.graph->nodes[n].op, from, to, sc, p, i,
                                 &fit, error))
                    return false;
        }
    }
    g_free(sc->gpu);
    sc->gpu = g_strdup(to->name);
    if (n_clamped)
        *n_clamped = fit.clamped;
    return true;
}
