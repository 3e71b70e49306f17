/* engine_metrics.c -- the GPU-wide utilization metrics
 * (gpu-scheduling-rules.md §9).
 *
 *  - GPU-Util as nvidia-smi reports it: the share of each sampling period in
 *    which at least one kernel was executing (started, not finished; a kernel
 *    preempted by time-slicing still counts, as it does for NVML);
 *  - SM-active (DCGM SM_ACTIVE): the mean over SMs of the share of time with
 *    at least one warp of the context holding the GPU resident;
 *  - achieved occupancy (DCGM SM_OCCUPANCY): mean resident warps over the
 *    maximum, averaged over SMs and time.
 * Integrals are updated only when something changes: O(1) per change.
 */
#include <string.h>

#include "bounds.h"
#include "engine_internal.h"

void met_init(Engine *E)
{
    uint32_t S = E->m->sm_count;
    E->met.phys_warps = g_new0(uint32_t, S);
    E->met.since = g_new0(SimTime, S);
}

void met_free(Engine *E)
{
    g_free(E->met.phys_warps);
    g_free(E->met.since);
}

void met_sm_warps(Engine *E, uint32_t sm, uint32_t warps)
{
    Metrics *M = &E->met;
    uint32_t old = M->phys_warps[sm];
    if (old == warps)
        return;
    SimTime dt = E->now - M->since[sm];
    M->warp_time += (double)old * (double)dt;
    if (old > 0)
        M->active_time += (double)dt;
    M->phys_warps[sm] = warps;
    M->since[sm] = E->now;
    if (E->opt.record_timeline) {
        SimSmSample s = {E->now, sm, warps};
        g_array_append_val(E->res->sm_timeline, s);
    }
}

void met_kernel_started(Engine *E)
{
    if (E->met.executing++ == 0)
        E->met.busy_since = E->now;
}

void met_kernel_ended(Engine *E)
{
    g_assert(E->met.executing > 0);
    if (--E->met.executing == 0) {
        GArray *b = E->res->busy;
        SimTime s = E->met.busy_since, e = E->now;
        /* Merge with the previous interval when they touch. */
        if (b->len >= 2 && g_array_index(b, SimTime, b->len - 1) >= s)
            g_array_index(b, SimTime, b->len - 1) = e;
        else if (e > s) {
            g_array_append_val(b, s);
            g_array_append_val(b, e);
        }
    }
}

/* Close the integrals at the end of the run and derive the metrics. */
void met_finish(Engine *E)
{
    SimResult *r = E->res;
    uint32_t S = E->m->sm_count;
    for (uint32_t i = 0; i < S; i++)
        met_sm_warps(E, i, 0);
    SimTime T = r->makespan_ns;
    if (T == 0)
        return;
    r->sm_active = E->met.active_time / ((double)S * (double)T);
    r->achieved_occupancy =
        E->met.warp_time / ((double)S * E->m->max_warps_per_sm * (double)T);
    double busy = 0;
    for (guint i = 0; i + 1 < r->busy->len; i += 2)
        busy += (double)(g_array_index(r->busy, SimTime, i + 1) -
                         g_array_index(r->busy, SimTime, i));
    r->gpu_util = busy / (double)T;
    /* nvidia-smi's view: one sample per period, each the busy share of that
     * period (the last, partial period over its own length). */
    /* At most the samples limit: a long run samples more coarsely rather
     * than keeping samples without bound (nvml_period_ns says which). */
    uint64_t max_samples = sim_limit(SIM_BOUND_SAMPLES);
    if (T / MAX(r->nvml_period_ns, 1) >= max_samples)
        r->nvml_period_ns = T / max_samples + 1;
    SimTime P = r->nvml_period_ns;
    guint j = 0;
    r->gpu_util_max_sample = 0;
    for (SimTime t0 = 0; t0 < T; t0 += P) {
        SimTime t1 = MIN(t0 + P, T);
        double b = 0;
        while (j + 1 < r->busy->len &&
               g_array_index(r->busy, SimTime, j + 1) <= t0)
            j += 2;
        for (guint k = j; k + 1 < r->busy->len; k += 2) {
            SimTime s = g_array_index(r->busy, SimTime, k);
            SimTime e = g_array_index(r->busy, SimTime, k + 1);
            if (s >= t1)
                break;
            b += (double)(MIN(e, t1) - MAX(s, t0));
        }
        double u = b / (double)(t1 - t0);
        g_array_append_val(r->util_samples, u);
        r->gpu_util_max_sample = MAX(r->gpu_util_max_sample, u);
    }
}
