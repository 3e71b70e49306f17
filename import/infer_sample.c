/* infer_sample.c -- the solo-time inference of a large trace on windows
 * of it.  See infer_sample.h. */
#include "infer_sample.h"

#include <math.h>
#include <string.h>

#include "replay.h"

/* A kernel or copy's class: ops of one class share a factor (time alone
 * over recorded time).  Kernels: process, stream, name, grid and block;
 * copies: process, stream, direction and bytes; both: whether the
 * recording shows it overlapping another GPU op (an op that ran alone
 * keeps its recorded time in the full inference, so it must not take the
 * factor of its overlapped twins). */
typedef struct {
    uint32_t proc, stream;
    SimOpKind kind;
    const char *name; /* kernels: (the scenario's string chunk) */
    uint32_t grid[3], block[3];
    uint64_t bytes; /* copies */
    SimCopyDir dir;
    bool overlapped;
} SampleClass;

typedef struct {
    SampleClass c;
    double inferred, recorded; /* summed over the windows' ops */
} SampleSum;

static guint class_hash(gconstpointer p)
{
    const SampleClass *c = p;
    guint h = c->proc * 31u + c->stream;
    h = h * 31u + (guint)c->kind * 2u + c->overlapped;
    if (c->kind == SIM_OP_KERNEL) {
        h = h * 31u + g_str_hash(c->name);
        for (int i = 0; i < 3; i++)
            h = (h * 31u + c->grid[i]) * 31u + c->block[i];
    } else {
        h = (h * 31u + (guint)c->dir) * 31u + (guint)c->bytes;
    }
    return h;
}

static gboolean class_equal(gconstpointer a, gconstpointer b)
{
    const SampleClass *x = a, *y = b;
    if (x->proc != y->proc || x->stream != y->stream || x->kind != y->kind ||
        x->overlapped != y->overlapped)
        return FALSE;
    if (x->kind == SIM_OP_KERNEL)
        return strcmp(x->name, y->name) == 0 &&
               memcmp(x->grid, y->grid, sizeof x->grid) == 0 &&
               memcmp(x->block, y->block, sizeof x->block) == 0;
    return x->dir == y->dir && x->bytes == y->bytes;
}

/* The recorded-duration field of a kernel or copy op, if it has one (as
 * the inference's op_time()). */
static SimTime *sample_time(SimOp *op)
{
    if (op->kind == SIM_OP_KERNEL && op->u.kernel.duration_ns)
        return &op->u.kernel.duration_ns;
    if (op->kind == SIM_OP_COPY && op->u.copy.duration_ns)
        return &op->u.copy.duration_ns;
    return NULL;
}

static SampleClass class_of(uint32_t proc, const SimOp *op, bool overlapped)
{
    SampleClass c;
    memset(&c, 0, sizeof c);
    c.proc = proc;
    c.stream = op->stream;
    c.kind = op->kind;
    c.overlapped = overlapped;
    if (op->kind == SIM_OP_KERNEL) {
        c.name = op->u.kernel.name ? op->u.kernel.name : "";
        memcpy(c.grid, op->u.kernel.grid, sizeof c.grid);
        memcpy(c.block, op->u.kernel.block, sizeof c.block);
    } else {
        c.bytes = op->u.copy.bytes;
        c.dir = op->u.copy.dir;
    }
    return c;
}

/* The GPU ops with a recorded start and end, and whether the scenario
 * qualifies: only kernels, copies, host gaps and host syncs (a window cut
 * between an event's record and its wait would wait for a later record,
 * and a graph's nodes are not ops of their own). */
static uint64_t sample_timed_ops(const SimScenario *sc,
                                 const SimImportReport *rep, bool *plain)
{
    uint64_t n = 0;
    *plain = sc->processes->len == rep->n_procs;
    for (guint p = 0; p < sc->processes->len && *plain; p++) {
        const SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        const SimImportProcess *ip = &rep->procs[p];
        if (ps->iterations != 1 || ps->arrivals.kind != SIM_ARRIVALS_NONE)
            *plain = false;
        for (uint32_t j = 0; j < ps->n_ops && *plain; j++) {
            SimOpKind k = ps->ops[j].kind;
            if (k == SIM_OP_GRAPH || k == SIM_OP_EVENT_RECORD ||
                k == SIM_OP_EVENT_WAIT || k == SIM_OP_EVENT_SYNC)
                *plain = false;
            else if ((k == SIM_OP_KERNEL || k == SIM_OP_COPY) &&
                     ip->rec_end_ns && ip->rec_end_ns[j] != SIM_TIME_NEVER)
                n++;
        }
    }
    return n;
}

typedef struct {
    SimTime start, end;
    uint32_t proc, op;
} SampleSpan;

static int span_cmp(const void *a, const void *b)
{
    const SampleSpan *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Per process, per op: whether its recorded run overlaps another GPU op's
 * (any process, any stream; touching is not overlapping). */
static uint8_t **sample_overlaps(const SimScenario *sc,
                                 const SimImportReport *rep, uint64_t n)
{
    guint np = sc->processes->len;
    uint8_t **ov = g_new0(uint8_t *, np);
    SampleSpan *s = g_new(SampleSpan, MAX(n, 1));
    uint64_t k = 0;
    for (guint p = 0; p < np; p++) {
        const SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        const SimImportProcess *ip = &rep->procs[p];
        ov[p] = g_new0(uint8_t, MAX(ps->n_ops, 1));
        for (uint32_t j = 0; j < ps->n_ops && ip->rec_end_ns; j++) {
            SimOpKind kind = ps->ops[j].kind;
            if ((kind == SIM_OP_KERNEL || kind == SIM_OP_COPY) &&
                ip->rec_end_ns[j] != SIM_TIME_NEVER)
                s[k++] =
                    (SampleSpan){ip->rec_start_ns[j], ip->rec_end_ns[j], p, j};
        }
    }
    qsort(s, k, sizeof *s, span_cmp);
    /* Sorted by start: op i overlaps an earlier one iff it starts before
     * the latest end so far, a later one iff it ends after the next
     * start. */
    SimTime end = 0;
    for (uint64_t i = 0; i < k; i++) {
        bool o = (i > 0 && s[i].start < end) ||
                 (i + 1 < k && s[i].end > s[i + 1].start);
        ov[s[i].proc][s[i].op] = o;
        end = MAX(end, s[i].end);
    }
    g_free(s);
    return ov;
}

/* Window @w of @how->windows (K): per process, the ops [first[p],
 * first[p] + count[p]) around the fraction (2w + 1) / 2K of its op list,
 * each process's share of @how->ops in proportion to its ops. */
static void sample_window(const SimScenario *sc, const SimInferSample *how,
                          uint64_t timed, int w, uint32_t *first,
                          uint32_t *count)
{
    double frac = (double)how->ops / (double)timed;
    for (guint p = 0; p < sc->processes->len; p++) {
        const SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        double len = ps->n_ops * frac / how->windows;
        double mid = ps->n_ops * (2.0 * w + 1) / (2.0 * how->windows);
        double a = MAX(0.0, floor(mid - len / 2));
        double b = MIN((double)ps->n_ops, floor(mid + len / 2));
        first[p] = (uint32_t)a;
        count[p] = b > a ? (uint32_t)(b - a) : 0;
    }
}

/* Infer the times alone of one window, on views of @sc and @rep that
 * share their ops (so the inferred times land in @sc).  Its best score
 * into @score; rounds, or -1 with @error set. */
static int sample_infer_window(SimScenario *sc, const SimImportReport *rep,
                               const GpuModel *m, int max_rounds,
                               uint32_t sm_sample, const uint32_t *first,
                               const uint32_t *count, double *score,
                               GError **error)
{
    guint np = sc->processes->len;
    SimScenario view = *sc;
    view.processes = g_ptr_array_new();
    SimProcessSpec *vp = g_new(SimProcessSpec, np);
    SimImportReport vr = *rep;
    vr.procs = g_new(SimImportProcess, np);
    vr.n_procs = 0;
    for (guint p = 0; p < np; p++) {
        if (!count[p])
            continue;
        const SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        SimProcessSpec *v = &vp[view.processes->len];
        *v = *ps;
        v->ops = ps->ops + first[p];
        v->n_ops = count[p];
        g_ptr_array_add(view.processes, v);
        SimImportProcess *r = &vr.procs[vr.n_procs++];
        *r = rep->procs[p];
        r->n_ops = count[p];
        r->rec_start_ns = r->rec_start_ns ? r->rec_start_ns + first[p] : NULL;
        r->rec_end_ns = r->rec_end_ns ? r->rec_end_ns + first[p] : NULL;
    }
    int rounds = 0;
    *score = 0;
    if (view.processes->len)
        rounds = sim_workload_infer_solo_score(&view, &vr, m, max_rounds,
                                               sm_sample, score, error);
    g_ptr_array_free(view.processes, TRUE);
    g_free(vp);
    g_free(vr.procs);
    return rounds;
}

/* Scale every op outside the windows' middles by its class's factor
 * (summed inferred over summed recorded time of the windows' ops of its
 * class; a class no window holds: that of every window op overlapped as
 * it was, or none), from its time before the windows' inference (a
 * window's edge ops were inferred there, biased). */
static void sample_apply(SimScenario *sc, const SimImportReport *rep,
                         GHashTable *sums, const SampleSum *all,
                         uint8_t *const *ov, uint8_t *const *in_window,
                         SimTime *const *orig)
{
    for (guint p = 0; p < sc->processes->len; p++) {
        SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        const SimTime *rec_end = rep->procs[p].rec_end_ns;
        for (uint32_t j = 0; j < ps->n_ops; j++) {
            SimOp *op = &ps->ops[j];
            SimTime *t = sample_time(op);
            /* (an op without a recording keeps its time, as in the
             * whole inference) */
            if (!t || in_window[p][j] || !rec_end ||
                rec_end[j] == SIM_TIME_NEVER)
                continue;
            SampleClass c = class_of(p, op, ov[p][j]);
            const SampleSum *s = g_hash_table_lookup(sums, &c);
            if (!s)
                s = &all[c.overlapped];
            double f = s->recorded > 0 ? s->inferred / s->recorded : 1;
            *t = (SimTime)llround(MAX(1.0, (double)orig[p][j] * f));
        }
    }
}

bool sim_infer_sample(SimScenario *sc, const SimImportReport *rep,
                      const GpuModel *m, int max_rounds, uint32_t sm_sample,
                      const SimInferSample *how, double *accept, int *rounds,
                      GError **error)
{
    *rounds = 0;
    *accept = -1;
    bool plain;
    uint64_t timed = sample_timed_ops(sc, rep, &plain);
    if (!plain || timed < how->min_ops || how->windows < 1 || how->ops >= timed)
        return true;
    guint np = sc->processes->len;
    uint8_t **ov = sample_overlaps(sc, rep, timed);
    uint8_t **in_window = g_new(uint8_t *, np);
    SimTime **orig = g_new(SimTime *, np);
    for (guint p = 0; p < np; p++) {
        SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        in_window[p] = g_new0(uint8_t, MAX(ps->n_ops, 1));
        orig[p] = g_new0(SimTime, MAX(ps->n_ops, 1));
        for (uint32_t j = 0; j < ps->n_ops; j++) {
            SimTime *t = sample_time(&ps->ops[j]);
            orig[p][j] = t ? *t : 0;
        }
    }
    uint32_t *first = g_new(uint32_t, MAX(np, 1));
    uint32_t *count = g_new(uint32_t, MAX(np, 1));
    double score_sum = 0;
    int windows = 0;
    bool ok = false;
    for (int w = 0; w < how->windows; w++) {
        sample_window(sc, how, timed, w, first, count);
        double score;
        int r = sample_infer_window(sc, rep, m, max_rounds, sm_sample, first,
                                    count, &score, error);
        if (r < 0)
            goto out;
        *rounds = MAX(*rounds, r);
        score_sum += score;
        windows++;
        /* A window's first and last ops ran with fewer co-runners than
         * they had in the recording (none before the window, none after
         * it): their inferred times are biased towards the recorded ones.
         * The middle alone counts, and the edges take the factors too. */
        for (guint p = 0; p < np; p++) {
            uint32_t edge = count[p] / SIM_INFER_SAMPLE_EDGE;
            if (count[p] > 2 * edge)
                memset(in_window[p] + first[p] + edge, 1, count[p] - 2 * edge);
        }
    }
    /* The classes' factors, from the windows' ops. */
    GHashTable *sums =
        g_hash_table_new_full(class_hash, class_equal, NULL, g_free);
    SampleSum all[2];
    memset(all, 0, sizeof all);
    for (guint p = 0; p < np; p++) {
        SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        for (uint32_t j = 0; j < ps->n_ops; j++) {
            SimTime *t = sample_time(&ps->ops[j]);
            if (!t || !in_window[p][j] || !orig[p][j])
                continue;
            SampleClass c = class_of(p, &ps->ops[j], ov[p][j]);
            SampleSum *s = g_hash_table_lookup(sums, &c);
            if (!s) {
                s = g_new0(SampleSum, 1);
                s->c = c;
                g_hash_table_insert(sums, &s->c, s);
            }
            s->inferred += (double)*t;
            s->recorded += (double)orig[p][j];
            all[c.overlapped].inferred += (double)*t;
            all[c.overlapped].recorded += (double)orig[p][j];
        }
    }
    sample_apply(sc, rep, sums, all, ov, in_window, orig);
    g_hash_table_destroy(sums);
    *accept = (score_sum / MAX(windows, 1)) * (1 + how->slack);
    ok = true;
out:
    for (guint p = 0; p < np; p++) {
        g_free(ov[p]);
        g_free(in_window[p]);
        g_free(orig[p]);
    }
    g_free(ov);
    g_free(in_window);
    g_free(orig);
    g_free(first);
    g_free(count);
    return ok;
}
