/* replay.c -- identity replay of imported traces.  See replay.h. */
#include "replay.h"

#include <math.h>
#include <string.h>

#include "engine.h"
#include "error.h"

void sim_replay_stats_clear(SimReplayStats *s)
{
    g_free(s->gpu);
    g_free(s->formats);
    memset(s, 0, sizeof *s);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A record's recorded start and end (graph nodes: the node's); false if
 * it has none. */
static bool rec_times(const SimImportProcess *p, const SimOpRecord *o,
                      SimTime *start, SimTime *end)
{
    if (!p->rec_end_ns || p->rec_end_ns[o->op_index] == SIM_TIME_NEVER)
        return false;
    if (o->node == SIM_NO_INDEX) {
        *start = p->rec_start_ns[o->op_index];
        *end = p->rec_end_ns[o->op_index];
        return true;
    }
    if (!p->rec_node_end_ns || !p->rec_node_end_ns[o->op_index])
        return false;
    *start = p->rec_node_start_ns[o->op_index][o->node];
    *end = p->rec_node_end_ns[o->op_index][o->node];
    return true;
}

/* The recorded-duration field of an op, if it has one. */
static SimTime *op_time(SimOp *op)
{
    if (op->kind == SIM_OP_KERNEL && op->u.kernel.duration_ns)
        return &op->u.kernel.duration_ns;
    if (op->kind == SIM_OP_COPY && op->u.copy.duration_ns)
        return &op->u.copy.duration_ns;
    return NULL;
}

int sim_workload_infer_solo(SimScenario *sc, const SimImportReport *rep,
                            const GpuModel *m, int max_rounds,
                            GError **error)
{
    SimOptions so;
    sim_options_init(&so);
    for (int round = 0; round < max_rounds; round++) {
        g_autoptr(SimResult) r = sim_engine_run(m, sc, &so, error);
        if (!r)
            return -1;
        double worst = 0;
        for (guint i = 0; i < r->ops->len; i++) {
            const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord, i);
            if (o->iteration != 0 || o->proc >= rep->n_procs)
                continue;
            const SimImportProcess *p = &rep->procs[o->proc];
            SimTime rs, re;
            if (!rec_times(p, o, &rs, &re))
                continue;
            SimProcessSpec *ps = g_ptr_array_index(sc->processes, o->proc);
            SimOp *op = &ps->ops[o->op_index];
            if (o->node != SIM_NO_INDEX)
                op = &op->u.graph->nodes[o->node].op;
            SimTime *t = op_time(op);
            if (!t)
                continue;
            double rec = (double)(re - rs);
            double sim = (double)(o->end_ns - o->start_ns);
            if (rec <= 0 || sim <= 0)
                continue;
            double ratio = rec / sim;
            worst = MAX(worst, fabs(ratio - 1));
            double nt = MAX(1.0, (double)*t * ratio);
            *t = (SimTime)llround(nt);
        }
        if (worst < 1e-3)
            return round;
    }
    return max_rounds;
}

bool sim_identity_replay(char *const *paths, int n_paths,
                         const SimImportOptions *opt, bool infer_solo,
                         SimReplayStats *out, GError **error)
{
    memset(out, 0, sizeof *out);
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc =
        sim_workload_load_report(paths, n_paths, opt, &rep, error);
    if (!sc)
        return false;
    if (!rep->timed) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s: no recorded timeline to compare with", paths[0]);
        return false;
    }
    const char *model = opt->gpu_model ? opt->gpu_model
                        : sc->gpu      ? sc->gpu
                                       : "h100-sxm";
    g_autoptr(GpuModel) m = sim_gpu_model_find(model, opt->models_dir, error);
    if (!m)
        return false;
    if (infer_solo) {
        out->solo_rounds = sim_workload_infer_solo(sc, rep, m, 40, error);
        if (out->solo_rounds < 0)
            return false;
    }
    SimOptions so;
    sim_options_init(&so);
    g_autoptr(SimResult) r = sim_engine_run(m, sc, &so, error);
    if (!r)
        return false;
    SimTime rec_lo = SIM_TIME_NEVER, rec_hi = 0;
    SimTime sim_lo = SIM_TIME_NEVER, sim_hi = 0;
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord, i);
        const SimImportProcess *p = &rep->procs[o->proc];
        SimTime rs, re;
        if (!rec_times(p, o, &rs, &re))
            continue;
        rec_lo = MIN(rec_lo, rs);
        rec_hi = MAX(rec_hi, re);
        sim_lo = MIN(sim_lo, o->start_ns);
        sim_hi = MAX(sim_hi, o->end_ns);
    }
    if (rec_hi <= rec_lo) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s: no GPU op with a recorded start and end", paths[0]);
        return false;
    }
    double span = (double)(rec_hi - rec_lo);
    g_autoptr(GArray) errs = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord, i);
        const SimImportProcess *p = &rep->procs[o->proc];
        SimTime rs, re;
        if (!rec_times(p, o, &rs, &re))
            continue;
        double e = fabs((double)o->end_ns - (double)re) / span;
        g_array_append_val(errs, e);
        if (e > out->worst_end_err) {
            out->worst_end_err = e;
            out->worst_op = o->op_index;
        }
        out->kernels++;
    }
    qsort(errs->data, errs->len, sizeof(double), cmp_double);
    out->median_end_err =
        errs->len ? g_array_index(errs, double, errs->len / 2) : 0;
    out->ops = r->ops->len;
    out->rec_span_ms = span / 1e6;
    out->sim_span_ms = (double)(sim_hi - sim_lo) / 1e6;
    out->makespan_err = (out->sim_span_ms - out->rec_span_ms) /
                        out->rec_span_ms;
    out->gpu = g_strdup(m->name);
    out->formats = g_strdup(rep->formats);
    return true;
}
