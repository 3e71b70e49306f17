/* transform.c -- what-if rewrites of a workload.  See transform.h. */
#include "transform.h"

#include <math.h>
#include <string.h>

#include "error.h"
#include "jitter.h"

static SimTime scale(SimTime t, double f)
{
    return (SimTime)llround((double)t * f);
}

void sim_scenario_scale_host(SimScenario *sc, double f)
{
    g_return_if_fail(f > 0);
    for (guint pi = 0; pi < sc->processes->len; pi++) {
        SimProcessSpec *p = g_ptr_array_index(sc->processes, pi);
        for (uint32_t i = 0; i < p->n_ops; i++) {
            SimOp *op = &p->ops[i];
            if (op->kind == SIM_OP_HOST_GAP)
                op->u.gap_ns = scale(op->u.gap_ns, f);
            if (op->kind == SIM_OP_GRAPH)
                op->api_ns = SIM_TIME_NEVER; /* the model's (see .h) */
            else if (op->api_ns != SIM_TIME_NEVER)
                op->api_ns = scale(op->api_ns, f);
            if (op->at_ns)
                op->at_ns = MAX((SimTime)1, scale(op->at_ns, f));
        }
    }
}

void sim_scenario_unprofile_graphs(SimScenario *sc, SimTime kernel_ns)
{
    /* sc->graphs holds each graph once, however many ops launch it */
    for (guint gi = 0; gi < sc->graphs->len; gi++) {
        SimGraph *g = g_ptr_array_index(sc->graphs, gi);
        g->unprofiled = true;
        for (uint32_t i = 0; i < g->n_nodes; i++) {
            SimKernelSpec *k = &g->nodes[i].op.u.kernel;
            if (g->nodes[i].op.kind == SIM_OP_KERNEL && k->duration_ns)
                k->duration_ns =
                    k->duration_ns > kernel_ns ? k->duration_ns - kernel_ns : 1;
        }
    }
}

/* One request of a profiled loop: the ops from just after a device
 * synchronize up to and including the next one.  Every segment kept has
 * n_work > 0: a synchronize with nothing on the device since the previous
 * one (a profile's trailing syncs) waits for no request. */
typedef struct {
    uint32_t from, to;           /* ops [from, to) */
    uint32_t n_work;             /* kernels, copies and graphs in it */
    double gpu_ns;               /* kernel and copy time in it */
    double t[SIM_JIT_N_CLASSES]; /* kernel, copy and host time in it */
} Segment;

/* Add @op's time to its jitter classes in @s, and count it if it is device
 * work. */
static void seg_add(Segment *s, const SimOp *op)
{
    s->n_work += op->kind == SIM_OP_KERNEL || op->kind == SIM_OP_COPY ||
                 op->kind == SIM_OP_GRAPH;
    if (op->kind == SIM_OP_KERNEL) {
        s->gpu_ns += (double)op->u.kernel.duration_ns;
        s->t[SIM_JIT_KERNEL] +=
            (double)(op->u.kernel.duration_ns ? op->u.kernel.duration_ns
                                              : op->u.kernel.block_time_ns);
    } else if (op->kind == SIM_OP_COPY) {
        s->gpu_ns += (double)op->u.copy.duration_ns;
        s->t[SIM_JIT_COPY] += (double)op->u.copy.duration_ns;
    } else if (op->kind == SIM_OP_HOST_GAP) {
        s->t[SIM_JIT_HOST] += (double)op->u.gap_ns;
    } else if (op->kind == SIM_OP_GRAPH) {
        /* its nodes' device work; the launch's host time is counted below */
        for (uint32_t n = 0; n < op->u.graph->n_nodes; n++) {
            const SimOp *x = &op->u.graph->nodes[n].op;
            double t =
                (double)(x->kind == SIM_OP_KERNEL ? x->u.kernel.duration_ns
                                                  : x->u.copy.duration_ns);
            s->gpu_ns += t;
            s->t[x->kind == SIM_OP_KERNEL ? SIM_JIT_KERNEL : SIM_JIT_COPY] += t;
        }
    }
    if (op->api_ns != SIM_TIME_NEVER)
        s->t[SIM_JIT_HOST] += (double)op->api_ns;
}

/* The requests' spread as jitter rows: each request's time per class over
 * the kept one's (1 where the kept one has none).  The warm-up request is
 * left out, as it is left out of the choice. */
static void request_rows(SimProcessSpec *p, const Segment *rest, uint32_t n,
                         const Segment *pick)
{
    if (!p->jitter)
        p->jitter = g_new0(SimJitter, 1);
    if (p->jitter->n_rows)
        return; /* the scenario's own rows win */
    p->jitter->rows = g_new(double, (size_t)n *SIM_JIT_N_CLASSES);
    p->jitter->n_rows = n;
    for (uint32_t i = 0; i < n; i++)
        for (int c = 0; c < SIM_JIT_N_CLASSES; c++)
            p->jitter->rows[(size_t)i * SIM_JIT_N_CLASSES + c] =
                pick->t[c] > 0 ? CLAMP(rest[i].t[c] / pick->t[c], 1e-3, 100)
                               : 1.0;
}

static int cmp_seg(const void *a, const void *b)
{
    const Segment *x = a, *y = b;
    return x->gpu_ns < y->gpu_ns ? -1 : x->gpu_ns > y->gpu_ns;
}

bool sim_scenario_loop_request(SimScenario *sc, uint32_t iterations,
                               uint32_t *first, GError **error)
{
    for (guint pi = 0; pi < sc->processes->len; pi++) {
        SimProcessSpec *p = g_ptr_array_index(sc->processes, pi);
        g_autoptr(GArray) segs = g_array_new(FALSE, FALSE, sizeof(Segment));
        Segment cur = {0};
        for (uint32_t i = 0; i < p->n_ops; i++) {
            const SimOp *op = &p->ops[i];
            seg_add(&cur, op);
            if (op->kind == SIM_OP_DEVICE_SYNC) {
                cur.to = i + 1;
                /* a synchronize with no device work since the last one
                 * ends no request: kept, it would be a near-free row of
                 * the spread and shift the median pick.  Its host time is
                 * in no request. */
                if (cur.n_work)
                    g_array_append_val(segs, cur);
                cur = (Segment){.from = i + 1, .to = i + 1};
            }
        }
        if (segs->len < 2) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s: process '%s' has %u device synchronizes "
                        "that end device work (kernels, copies or graphs "
                        "since the previous one); --loop-request needs at "
                        "least two (a warm-up and a request)",
                        sc->source, p->name, segs->len);
            return false;
        }
        /* the median request by GPU work, the first one left out */
        Segment *rest = &g_array_index(segs, Segment, 1);
        qsort(rest, segs->len - 1, sizeof(Segment), cmp_seg);
        const Segment *pick = &rest[(segs->len - 1) / 2];
        request_rows(p, rest, segs->len - 1, pick);
        uint32_t n = pick->to - pick->from;
        if (first)
            first[pi] = pick->from;
        SimOp *ops = g_new(SimOp, (size_t)1 << g_bit_storage(n));
        memcpy(ops, p->ops + pick->from, n * sizeof(SimOp));
        /* recorded call times refer to the whole run: drop them */
        for (uint32_t i = 0; i < n; i++)
            ops[i].at_ns = 0;
        g_free(p->ops);
        p->ops = ops;
        p->n_ops = n;
        p->iterations = iterations;
        p->arrivals.kind = SIM_ARRIVALS_NONE;
    }
    return true;
}

void sim_scenario_set_poisson(SimScenario *sc, double rate_per_s,
                              uint32_t count)
{
    for (guint pi = 0; pi < sc->processes->len; pi++) {
        SimProcessSpec *p = g_ptr_array_index(sc->processes, pi);
        g_free(p->arrivals.times_ns);
        p->arrivals = (SimArrivals){.kind = SIM_ARRIVALS_POISSON,
                                    .rate_per_s = rate_per_s,
                                    .count = count};
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

bool sim_scenario_set_spread(SimScenario *sc, const double *lat, uint32_t n,
                             GError **error)
{
    g_autofree double *sorted = g_memdup2(lat, (gsize)n * sizeof *lat);
    for (uint32_t i = 0; i < n; i++)
        if (!(lat[i] > 0)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "request spread: latency %u is %g; every latency "
                        "must be positive",
                        i + 1, lat[i]);
            return false;
        }
    qsort(sorted, n, sizeof *sorted, cmp_double);
    double med = sorted[(n - 1) / 2];
    for (guint pi = 0; pi < sc->processes->len; pi++) {
        SimProcessSpec *p = g_ptr_array_index(sc->processes, pi);
        if (!p->jitter)
            p->jitter = g_new0(SimJitter, 1);
        g_free(p->jitter->rows);
        p->jitter->rows = g_new(double, (size_t)n *SIM_JIT_N_CLASSES);
        p->jitter->n_rows = n;
        /* in measured order: the rows are drawn by hash, not in turn */
        for (uint32_t i = 0; i < n; i++)
            for (int c = 0; c < SIM_JIT_N_CLASSES; c++)
                p->jitter->rows[(size_t)i * SIM_JIT_N_CLASSES + c] =
                    CLAMP(lat[i] / med, 1e-3, 100);
    }
    return true;
}
