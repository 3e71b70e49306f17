/* reqmodel.c -- the approximate model of whole requests.  See reqmodel.h.
 *
 * Kept out of the engine: it runs the engine once on a copy of the
 * workload with fewer iterations and extends that result.
 */
#include "reqmodel.h"

#include <math.h>
#include <string.h>

#include "jitter.h"

/* A service time the exact part measured. */
typedef struct {
    int64_t row;   /* the spread row it drew; -1: none */
    double weight; /* how much that row stretches it (row_weight) */
    SimTime dur;
} Sample;

/* The samples of one state, and how their times grow with their rows'
 * weights (least squares; 0 when the weights do not differ). */
typedef struct {
    GArray *samples; /* Sample */
    double slope;    /* ns per unit of weight */
} Pool;

/* One process's closed loop as the exact part ran it. */
typedef struct {
    uint32_t cls;   /* first process of its class */
    uint32_t total; /* iterations the workload asks for */
    uint32_t exact; /* iterations the exact part ran */
    uint32_t kept;  /* exact requests kept: those that ended by t_cut */
    SimTime start0; /* its first request's start */
    SimTime *start; /* [exact] each exact request's start (owned) */
    SimTime t;      /* the request model: end of its last request */
    uint32_t next;  /* the request model: its next iteration */
} Loop;

typedef struct {
    const SimScenario *sc;
    const SimOptions *opt;
    uint64_t seed;
    uint32_t n;
    Loop *loops;
    GHashTable *pools; /* (class, state) key -> Pool */
    char *why;         /* why the model fell back to exact (owned) */
} Model;

/* A key of its own: the draws never coincide with the jitter's. */
#define DRAW_KEY 0x7265716d6f64656cull /* "reqmodel" */

static uint64_t draw_hash(uint64_t seed, uint32_t proc, uint32_t iter)
{
    return sim_mix64(sim_mix64(sim_mix64(seed ^ DRAW_KEY) ^ proc) ^ iter);
}

static const SimProcessSpec *spec(const Model *M, uint32_t p)
{
    return g_ptr_array_index(M->sc->processes, p);
}

/* The spread row iteration @iter of process @p draws (the engine's own
 * choice, sim_jitter_row), or -1 without rows or with --no-jitter. */
static int64_t row_of(const Model *M, uint32_t p, uint32_t iter)
{
    const SimJitter *j = spec(M, p)->jitter;
    const double *row =
        M->opt->no_jitter ? NULL : sim_jitter_row(j, M->seed, p, iter);
    return row ? (int64_t)((row - j->rows) / SIM_JIT_N_CLASSES) : -1;
}

/* How much the spread row @row stretches a request of @p: its kernel,
 * copy and host factors weighted by the request's kernel, copy and host
 * time alone (as specified); 1 without a row. */
static double row_weight(const Model *M, uint32_t p, int64_t row)
{
    const SimProcessSpec *sp = spec(M, p);
    if (row < 0)
        return 1.0;
    double t[SIM_JIT_N_CLASSES] = {0}, sum = 0, w = 0;
    for (uint32_t i = 0; i < sp->n_ops; i++) {
        const SimOp *op = &sp->ops[i];
        SimJitClass c = sim_jitter_class_of(op->kind);
        if (op->kind == SIM_OP_KERNEL)
            t[c] += (double)op->u.kernel.duration_ns;
        else if (op->kind == SIM_OP_COPY)
            t[c] += (double)op->u.copy.duration_ns;
        else if (op->kind == SIM_OP_HOST_GAP)
            t[c] += (double)op->u.gap_ns;
        else if (op->kind == SIM_OP_GRAPH)
            for (uint32_t k = 0; k < op->u.graph->n_nodes; k++) {
                const SimOp *n = &op->u.graph->nodes[k].op;
                t[sim_jitter_class_of(n->kind)] +=
                    (double)(n->kind == SIM_OP_KERNEL ? n->u.kernel.duration_ns
                                                      : n->u.copy.duration_ns);
            }
    }
    const double *f = sp->jitter->rows + (size_t)row * SIM_JIT_N_CLASSES;
    for (int c = 0; c < SIM_JIT_N_CLASSES; c++)
        sum += t[c], w += t[c] * f[c];
    return sum > 0 ? w / sum : 1.0;
}

/* Length of @name without a trailing "#digits" (--processes copies). */
static size_t base_len(const char *name)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && g_ascii_isdigit(name[k - 1]))
        k--;
    return k > 0 && k < n && name[k - 1] == '#' ? k - 1 : n;
}

/* Whether two processes run the same request: --processes copies (same
 * name but the copy number, same ops, streams, loop and spread). */
static bool same_request(const SimProcessSpec *a, const SimProcessSpec *b)
{
    size_t la = base_len(a->name);
    return la == base_len(b->name) && !strncmp(a->name, b->name, la) &&
           a->n_ops == b->n_ops && a->n_streams == b->n_streams &&
           a->iterations == b->iterations && a->mps == b->mps &&
           a->active_thread_pct == b->active_thread_pct &&
           (a->jitter ? a->jitter->n_rows : 0) ==
               (b->jitter ? b->jitter->n_rows : 0);
}

static uint64_t pool_key(uint32_t cls, uint32_t state)
{
    return ((uint64_t)cls << 32) | state;
}

/* Processes with a request in flight at @t in the exact part (requests
 * run back to back from start0 to the process's end). */
static uint32_t exact_state(const Model *M, const SimResult *r, SimTime t)
{
    uint32_t c = 0;
    for (uint32_t q = 0; q < M->n; q++)
        c += M->loops[q].start0 <= t && t < r->procs[q].end_ns;
    return c;
}

static Pool *pool_get(Model *M, uint64_t key)
{
    Pool *pool = g_hash_table_lookup(M->pools, &key);
    if (!pool) {
        uint64_t *k = g_new(uint64_t, 1);
        *k = key;
        pool = g_new0(Pool, 1);
        pool->samples = g_array_new(FALSE, FALSE, sizeof(Sample));
        g_hash_table_insert(M->pools, k, pool);
    }
    return pool;
}

static void pool_fit(Pool *pool)
{
    const Sample *s = (const Sample *)pool->samples->data;
    guint n = pool->samples->len;
    double mw = 0, md = 0, sww = 0, swd = 0;
    for (guint i = 0; i < n; i++)
        mw += s[i].weight / n, md += (double)s[i].dur / n;
    for (guint i = 0; i < n; i++) {
        sww += (s[i].weight - mw) * (s[i].weight - mw);
        swd += (s[i].weight - mw) * ((double)s[i].dur - md);
    }
    pool->slope = sww > 1e-12 ? swd / sww : 0;
}

/* File each process's exact requests of the second half (at least all
 * but its first) as samples of their states, and fit each pool.  The
 * first half is a warm-up: processes that start together contend more at
 * first (README "Whole requests"). */
static void collect_samples(Model *M, const SimResult *r)
{
    for (uint32_t p = 0; p < M->n; p++) {
        const Loop *L = &M->loops[p];
        const GArray *lat = r->procs[p].latency_ns;
        for (uint32_t i = MAX(1u, L->exact / 2); i < L->exact; i++) {
            Pool *pool =
                pool_get(M, pool_key(L->cls, exact_state(M, r, L->start[i])));
            int64_t row = row_of(M, p, i);
            Sample s = {row, row_weight(M, p, row),
                        g_array_index(lat, SimTime, i)};
            g_array_append_val(pool->samples, s);
        }
    }
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, M->pools);
    while (g_hash_table_iter_next(&it, NULL, &v))
        pool_fit(v);
}

/* Whether the exact part covers what the model needs; else M->why. */
static bool loops_init(Model *M, const SimResult *r, uint32_t exact)
{
    for (uint32_t p = 0; p < M->n; p++) {
        const SimProcessSpec *sp = spec(M, p);
        const SimProcResult *pr = &r->procs[p];
        Loop *L = &M->loops[p];
        L->cls = p;
        for (uint32_t q = 0; q < p; q++)
            if (same_request(spec(M, q), sp)) {
                L->cls = M->loops[q].cls;
                break;
            }
        L->total = sp->iterations;
        L->exact = MIN(sp->iterations, exact);
        if (pr->status != SIM_PROC_OK || pr->iterations_done != L->exact ||
            pr->latency_ns->len != L->exact) {
            M->why = g_strdup_printf("process '%s' did not run its %u exact "
                                     "iterations",
                                     sp->name, L->exact);
            return false;
        }
        /* Back to back: each request starts where the one before ended,
         * and the last ends when the process does. */
        L->start = g_new(SimTime, L->exact);
        SimTime t = pr->end_ns;
        for (uint32_t i = L->exact; i-- > 0;) {
            t -= g_array_index(pr->latency_ns, SimTime, i);
            L->start[i] = t;
        }
        L->start0 = L->start[0];
    }
    return true;
}

/* Keep each process's requests that ended by the first process's end:
 * until then the exact part is the full run's start. */
static bool keep_exact_prefix(Model *M, const SimResult *r)
{
    SimTime cut = SIM_TIME_NEVER;
    for (uint32_t p = 0; p < M->n; p++)
        cut = MIN(cut, r->procs[p].end_ns);
    for (uint32_t p = 0; p < M->n; p++) {
        Loop *L = &M->loops[p];
        const GArray *lat = r->procs[p].latency_ns;
        L->kept = 0;
        L->t = L->start0;
        while (L->kept < L->exact &&
               L->t + g_array_index(lat, SimTime, L->kept) <= cut)
            L->t += g_array_index(lat, SimTime, L->kept++);
        L->next = L->kept;
        if (L->kept == 0) {
            M->why = g_strdup_printf("process '%s' finished no request before "
                                     "the first process ended",
                                     spec(M, p)->name);
            return false;
        }
    }
    return true;
}

/* The process whose next request starts first (lowest index on ties), or
 * n when every process is done. */
static uint32_t next_request(const Model *M)
{
    uint32_t best = M->n;
    for (uint32_t p = 0; p < M->n; p++) {
        const Loop *L = &M->loops[p];
        if (L->next < L->total && (best == M->n || L->t < M->loops[best].t))
            best = p;
    }
    return best;
}

/* Processes with a request in flight at @t in the request model: one
 * still to run, or whose last request ends after @t. */
static uint32_t model_state(const Model *M, SimTime t)
{
    uint32_t c = 0;
    for (uint32_t q = 0; q < M->n; q++) {
        const Loop *L = &M->loops[q];
        c += L->start0 <= t && (L->next < L->total || L->t > t);
    }
    return c;
}

/* One sample of @pool for iteration @iter of @p: among those that drew
 * its spread row when there are some, else among those whose row is the
 * nearest by weight, moved along the pool's slope to the request's weight
 * (a request's time grows with its row's stretch of its work; the API and
 * launch times it does not stretch are the intercept). */
static SimTime draw(const Model *M, const Pool *pool, uint32_t p, uint32_t iter)
{
    const Sample *s = (const Sample *)pool->samples->data;
    guint len = pool->samples->len;
    int64_t row = row_of(M, p, iter);
    double w = row_weight(M, p, row), best = INFINITY;
    guint n = 0;
    for (guint i = 0; i < len; i++) {
        double d = s[i].row == row ? -1 : fabs(s[i].weight - w);
        n = d < best ? 1 : n + (d == best);
        best = MIN(best, d);
    }
    uint64_t k = draw_hash(M->seed, p, iter) % n;
    guint i = 0;
    for (;; i++) {
        double d = s[i].row == row ? -1 : fabs(s[i].weight - w);
        if (d == best && k-- == 0)
            break;
    }
    if (s[i].row == row)
        return s[i].dur;
    double t = (double)s[i].dur + pool->slope * (w - s[i].weight);
    return (SimTime)llround(MAX(t, 1.0));
}

/* The pool of (@cls, @state), else of the nearest state the exact part
 * saw: more requests in flight first (a closed loop's tail, where
 * processes finish one by one, is where the exact part saw fewer states
 * than the whole run has; more in flight errs long), then fewer; NULL when
 * the class has none.  Counts the stand-ins in @unseen. */
static const Pool *nearest_pool(const Model *M, uint32_t cls, uint32_t state,
                                uint64_t *unseen)
{
    for (uint32_t d = 0; d <= M->n; d++) {
        uint64_t up = pool_key(cls, state + d);
        const Pool *pool = g_hash_table_lookup(M->pools, &up);
        if (!pool && d < state) {
            uint64_t down = pool_key(cls, state - d);
            pool = g_hash_table_lookup(M->pools, &down);
        }
        if (pool) {
            *unseen += d > 0;
            return pool;
        }
    }
    return NULL;
}

/* Advance every process to its last iteration, one request at a time in
 * time order; the drawn times go to @r's latencies.  False (M->why) for
 * a process whose exact part made no sample. */
static bool advance(Model *M, SimResult *r, uint64_t *requests,
                    uint64_t *unseen)
{
    for (uint32_t p = 0; p < M->n; p++)
        g_array_set_size(r->procs[p].latency_ns, M->loops[p].kept);
    uint32_t p;
    while ((p = next_request(M)) < M->n) {
        Loop *L = &M->loops[p];
        uint32_t state = model_state(M, L->t);
        const Pool *pool = nearest_pool(M, L->cls, state, unseen);
        if (!pool) {
            M->why = g_strdup_printf("process '%s' has no request in its "
                                     "exact part but its first",
                                     spec(M, p)->name);
            return false;
        }
        SimTime d = draw(M, pool, p, L->next);
        g_array_append_val(r->procs[p].latency_ns, d);
        L->t += d;
        L->next++;
        (*requests)++;
    }
    return true;
}

static uint64_t scale_count(uint64_t v, uint32_t from, uint32_t to)
{
    return from ? (uint64_t)llround((double)v * to / from) : v;
}

/* Counts and times that grow with iterations, scaled from the exact part
 * to the whole loop; the ends moved to the model's. */
static void extend_result(const Model *M, SimResult *r, uint64_t requests,
                          uint64_t unseen, uint32_t exact)
{
    uint64_t ran = 0, total = 0;
    SimTime makespan = 0;
    for (uint32_t p = 0; p < M->n; p++) {
        const Loop *L = &M->loops[p];
        SimProcResult *pr = &r->procs[p];
        SimTime shift = L->t - MIN(L->t, pr->end_ns);
        pr->end_ns = L->t;
        pr->iterations_done = L->total;
        pr->kernels = scale_count(pr->kernels, L->exact, L->total);
        pr->copies = scale_count(pr->copies, L->exact, L->total);
        for (uint32_t s = 0; s < pr->n_streams; s++) {
            SimStreamResult *st = &pr->streams[s];
            st->ops = scale_count(st->ops, L->exact, L->total);
            st->busy_ns = scale_count(st->busy_ns, L->exact, L->total);
            if (st->ops)
                st->last_end_ns += shift;
        }
        ran += L->exact;
        total += L->total;
        makespan = MAX(makespan, pr->end_ns);
    }
    for (int d = 0; d < SIM_COPY_N_DIRS; d++)
        r->copy_busy_ns[d] =
            (SimTime)scale_count(r->copy_busy_ns[d], (uint32_t)ran,
                                 (uint32_t)MIN(total, UINT32_MAX));
    r->makespan_ns = MAX(r->makespan_ns, makespan);
    r->events += requests;
    sim_result_note(
        r,
        "approximate (--request-model %u): %u iterations per process "
        "simulated exactly, the other %llu requests drawn from their "
        "service times by process and requests in flight (%llu of them "
        "in a state the exact part never saw, from the nearest seen); "
        "GPU-wide metrics and per-op records are the exact part's, "
        "kernel, copy and op counts and busy times scaled by iterations",
        exact, exact, (unsigned long long)requests, (unsigned long long)unseen);
}

static void model_clear(Model *M)
{
    for (uint32_t p = 0; M->loops && p < M->n; p++)
        g_free(M->loops[p].start);
    g_free(M->loops);
    if (M->pools)
        g_hash_table_destroy(M->pools);
    g_free(M->why);
}

static void free_pool(gpointer p)
{
    g_array_free(((Pool *)p)->samples, TRUE);
    g_free(p);
}

/* Why the workload is outside the model, or NULL. */
static char *unsupported(const SimScenario *sc, uint32_t exact)
{
    bool longer = false;
    for (guint p = 0; p < sc->processes->len; p++) {
        const SimProcessSpec *sp = g_ptr_array_index(sc->processes, p);
        if (sp->arrivals.kind != SIM_ARRIVALS_NONE)
            return g_strdup_printf("process '%s' is an open loop", sp->name);
        longer |= sp->iterations > exact;
    }
    return longer ? NULL
                  : g_strdup_printf("no process runs more than %u iterations",
                                    exact);
}

SimResult *sim_reqmodel_run(const GpuModel *m, const SimScenario *sc,
                            const SimOptions *opt, uint32_t exact,
                            GError **error)
{
    g_return_val_if_fail(exact >= SIM_REQMODEL_MIN_EXACT, NULL);
    SimOptions o;
    if (opt)
        o = *opt;
    else
        sim_options_init(&o);
    Model M = {sc,   &o,   o.seed ? o.seed : sc->seed, sc->processes->len,
               NULL, NULL, unsupported(sc, exact)};
    SimResult *r = NULL;
    if (!M.why) {
        g_autoptr(SimScenario) part = sim_scenario_copy(sc);
        for (guint p = 0; p < part->processes->len; p++) {
            SimProcessSpec *sp = g_ptr_array_index(part->processes, p);
            sp->iterations = MIN(sp->iterations, exact);
        }
        r = sim_engine_run(m, part, &o, error);
        if (!r)
            return NULL;
        M.loops = g_new0(Loop, M.n);
        M.pools = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                        free_pool);
        uint64_t requests = 0, unseen = 0;
        if (loops_init(&M, r, exact) && keep_exact_prefix(&M, r)) {
            collect_samples(&M, r);
            if (advance(&M, r, &requests, &unseen))
                extend_result(&M, r, requests, unseen, exact);
        }
    }
    if (M.why) {
        g_clear_pointer(&r, sim_result_free);
        r = sim_engine_run(m, sc, &o, error);
        if (r)
            sim_result_note(r, "--request-model %u: simulated exactly (%s)",
                            exact, M.why);
    }
    model_clear(&M);
    return r;
}
