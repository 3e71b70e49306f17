/* replay.c -- identity replay of imported traces.  See replay.h. */
#include "replay.h"

#include <math.h>
#include <string.h>

#include "engine.h"
#include "error.h"
#include "infer_sample.h"

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

/* Per recorded op of one process (a graph op: per node; slot of op j's
 * node n: slot[j] + n): the damping of its updates, the sign of its last
 * error and its time in the best round so far. */
typedef struct {
    uint32_t *slot; /* n_ops + 1 */
    float *alpha;   /* its updates scale by (recorded / simulated)^alpha */
    int8_t *sign;   /* sign of (recorded - simulated) last round, 0: none */
    SimTime *best;
} InferProc;

/* The recorded-duration field of record @o's op or graph node. */
static SimTime *rec_op_time(SimScenario *sc, const SimOpRecord *o)
{
    SimProcessSpec *ps = g_ptr_array_index(sc->processes, o->proc);
    SimOp *op = &ps->ops[o->op_index];
    if (o->node != SIM_NO_INDEX)
        op = &op->u.graph->nodes[o->node].op;
    return op_time(op);
}

/* One round's comparison of @r with the recording: per op, the ratio
 * recorded / simulated; the worst |ratio - 1| into @worst, and as the
 * round's score the summed |recorded - simulated| over the summed
 * recorded time (a weighted mean error).  With @update, scale each op's
 * time by its damped ratio: an op whose error changed sign since the last
 * round overshot, so its step halves (down to 1/64). */
static double infer_round(SimScenario *sc, const SimImportReport *rep,
                          const SimResult *r, InferProc *ip, bool update,
                          double *worst)
{
    double err = 0, total = 0;
    *worst = 0;
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord, i);
        if (o->iteration != 0 || o->proc >= rep->n_procs)
            continue;
        const SimImportProcess *p = &rep->procs[o->proc];
        SimTime rs, re;
        if (!rec_times(p, o, &rs, &re))
            continue;
        SimTime *t = rec_op_time(sc, o);
        if (!t)
            continue;
        double rec = (double)(re - rs);
        double sim = (double)(o->end_ns - o->start_ns);
        if (rec <= 0 || sim <= 0)
            continue;
        double ratio = rec / sim;
        *worst = MAX(*worst, fabs(ratio - 1));
        err += fabs(rec - sim);
        total += rec;
        if (!update)
            continue;
        InferProc *q = &ip[o->proc];
        uint32_t k =
            q->slot[o->op_index] + (o->node != SIM_NO_INDEX ? o->node : 0);
        int8_t sign = (ratio > 1) - (ratio < 1);
        float *alpha = &q->alpha[k];
        if (sign && q->sign[k] == -sign)
            *alpha = MAX(*alpha / 2, 1.0f / 64);
        q->sign[k] = sign;
        double step = *alpha == 1 ? ratio : pow(ratio, *alpha);
        double nt = MAX(1.0, (double)*t * step);
        *t = (SimTime)llround(nt);
    }
    return total > 0 ? err / total : 0;
}

/* Save (@save) or restore every recorded op's time to or from ->best. */
static void infer_snapshot(SimScenario *sc, InferProc *ip, bool save)
{
    for (guint p = 0; p < sc->processes->len; p++) {
        SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        for (uint32_t j = 0; j < ps->n_ops; j++) {
            SimOp *op = &ps->ops[j];
            uint32_t n = sim_op_gpu_count(op);
            for (uint32_t i = 0; i < n; i++) {
                SimTime *t = op_time(
                    op->kind == SIM_OP_GRAPH ? &op->u.graph->nodes[i].op : op);
                if (!t)
                    continue;
                if (save)
                    ip[p].best[ip[p].slot[j] + i] = *t;
                else
                    *t = ip[p].best[ip[p].slot[j] + i];
            }
        }
    }
}

bool sim_infer_settled(double s0, double s1, double s2)
{
    double g1 = s0 - s1, g2 = s1 - s2;
    if (!(isfinite(g1) && g1 > 0 && g2 > 0 && g2 < g1))
        return false; /* fewer than 3 rounds, not improving, or not
                         shrinking: no series to sum */
    double q = g2 / g1;
    return g2 * q / (1 - q) < SIM_INFER_MIN_GAIN * s2;
}

/* The rounds (sim_workload_infer_solo_run); with @accept >= 0, round 0
 * is the result if it scores at most @accept (the times a sample
 * inferred, infer_sample.h).  The best round's score into @best_score_out. */
static int infer_rounds(SimScenario *sc, const SimImportReport *rep,
                        const GpuModel *m, int max_rounds, uint32_t sm_sample,
                        double accept, SimResult **final,
                        double *best_score_out, GError **error)
{
    SimOptions so;
    sim_options_init(&so);
    so.sm_sample = sm_sample;
    guint np = sc->processes->len;
    InferProc *ip = g_new0(InferProc, np);
    for (guint p = 0; p < np; p++) {
        const SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        ip[p].slot = g_new(uint32_t, ps->n_ops + 1);
        uint32_t n = 0;
        for (uint32_t j = 0; j < ps->n_ops; j++) {
            ip[p].slot[j] = n;
            n += sim_op_gpu_count(&ps->ops[j]);
        }
        ip[p].slot[ps->n_ops] = n;
        ip[p].alpha = g_new(float, MAX(n, 1));
        for (uint32_t j = 0; j < n; j++)
            ip[p].alpha[j] = 1;
        ip[p].sign = g_new0(int8_t, MAX(n, 1));
        ip[p].best = g_new0(SimTime, MAX(n, 1));
    }
    SimResult *best = NULL;
    double best_score = INFINITY;
    double last[3] = {INFINITY, INFINITY, INFINITY}; /* scores, newest last */
    int round = 0, stall = 0, bests = 0, ret = -1;   /* bests: in a row */
    for (; round < max_rounds; round++) {
        SimResult *r = sim_engine_run(m, sc, &so, error);
        if (!r)
            goto out;
        double worst;
        double score = infer_round(sc, rep, r, ip, false, &worst);
        last[0] = last[1];
        last[1] = last[2];
        last[2] = score;
        if (score < best_score * (1 - SIM_INFER_MIN_GAIN)) {
            best_score = score;
            sim_result_free(best);
            best = r;
            stall = 0;
            bests++;
            infer_snapshot(sc, ip, true);
        } else {
            stall++;
            bests = 0;
        }
        if (worst < SIM_INFER_TOLERANCE || (round == 0 && score <= accept)) {
            if (best != r) { /* converged, yet no better: keep this one */
                sim_result_free(best);
                best = r;
                infer_snapshot(sc, ip, true);
            }
            break;
        }
        if (stall >= SIM_INFER_PATIENCE) {
            sim_result_free(r);
            break;
        }
        /* (three bests in a row: a round that did not count breaks the
         * series, as round 2 of torch_multistream_trace's looped request
         * does: 0.224, 0.241, 0.094, 0.085, then 20% a round for 25 more) */
        if (bests >= 3 && sim_infer_settled(last[0], last[1], last[2]))
            break;
        infer_round(sc, rep, r, ip, true, &worst);
        if (best != r)
            sim_result_free(r);
    }
    /* The best round's times, and its result: the final run. */
    infer_snapshot(sc, ip, false);
    ret = MIN(round, max_rounds);
    if (best_score_out)
        *best_score_out = best_score;
    if (final) {
        *final = best;
        best = NULL;
    }
out:
    sim_result_free(best);
    for (guint p = 0; p < np; p++) {
        g_free(ip[p].slot);
        g_free(ip[p].alpha);
        g_free(ip[p].sign);
        g_free(ip[p].best);
    }
    g_free(ip);
    return ret;
}

int sim_workload_infer_solo_run(SimScenario *sc, const SimImportReport *rep,
                                const GpuModel *m, int max_rounds,
                                uint32_t sm_sample, SimResult **final,
                                GError **error)
{
    SimInferSample how = SIM_INFER_SAMPLE_DEFAULT;
    return sim_workload_infer_solo_with(sc, rep, m, max_rounds, sm_sample, &how,
                                        final, error);
}

int sim_workload_infer_solo_with(SimScenario *sc, const SimImportReport *rep,
                                 const GpuModel *m, int max_rounds,
                                 uint32_t sm_sample, const SimInferSample *how,
                                 SimResult **final, GError **error)
{
    double accept;
    int sampled;
    if (!sim_infer_sample(sc, rep, m, max_rounds, sm_sample, how, &accept,
                          &sampled, error))
        return -1;
    int rounds = infer_rounds(sc, rep, m, max_rounds, sm_sample, accept, final,
                              NULL, error);
    return rounds < 0 ? rounds : MAX(rounds, sampled);
}

int sim_workload_infer_solo_score(SimScenario *sc, const SimImportReport *rep,
                                  const GpuModel *m, int max_rounds,
                                  uint32_t sm_sample, double *score,
                                  GError **error)
{
    return infer_rounds(sc, rep, m, max_rounds, sm_sample, -1, NULL, score,
                        error);
}

int sim_workload_infer_solo(SimScenario *sc, const SimImportReport *rep,
                            const GpuModel *m, int max_rounds, GError **error)
{
    return sim_workload_infer_solo_run(sc, rep, m, max_rounds, 0, NULL, error);
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
    /* The inference's best round simulated the scenario as it leaves
     * it, with the same options: it is the replay. */
    g_autoptr(SimResult) r = NULL;
    if (infer_solo) {
        out->solo_rounds = sim_workload_infer_solo_run(
            sc, rep, m, SIM_INFER_MAX_ROUNDS, 0, &r, error);
        if (out->solo_rounds < 0)
            return false;
    } else {
        SimOptions so;
        sim_options_init(&so);
        r = sim_engine_run(m, sc, &so, error);
        if (!r)
            return false;
    }
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
    out->makespan_err =
        (out->sim_span_ms - out->rec_span_ms) / out->rec_span_ms;
    out->gpu = g_strdup(m->name);
    out->formats = g_strdup(rep->formats);
    return true;
}
