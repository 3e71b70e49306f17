/* workload.c -- from recorded traces to a replayable SimScenario.
 *
 * The format readers transcribe what a profiler recorded (trace.h); this
 * file applies the rules of import/README.md, the same way for every
 * format:
 *
 *  1. Order.  Each process's ops are put in host order: by the start of the
 *     API call that issued them where the trace has it, else by their
 *     inferred issue time (recorded start minus the launch latency), never
 *     letting an op overtake an earlier op of its own stream.
 *  2. Timing.  Walking that order, a host cursor reproduces what the engine
 *     will do (engine.c host_run): a host gap up to the API call, the API
 *     time, the enqueue; pageable copies and syncs hold the host until the
 *     recorded end of what they wait for.  Each op is enqueued no later
 *     than its recorded start minus its latency (kernels: L; copies: 0, the
 *     engine starts a copy as soon as its stream and a copy engine are
 *     free), so replaying under the original configuration reproduces the
 *     recorded timeline.  Gaps are relative, so when a what-if delays a
 *     sync, what follows it shifts as the real program's would.
 *  3. Merging.  Files whose clocks are absolute (nsys SQLite, Kineto) and
 *     whose recorded spans overlap were recorded together (one session):
 *     they keep their offsets.  Each session, and every file on a relative
 *     clock, starts at time 0 (--recorded-clocks keeps every absolute
 *     clock as recorded).
 *
 * Cost: O(n log n) per process for the sort, O(n) for the walk.
 */
#include <string.h>

#include "error.h"
#include "gpu_model.h"
#include "import.h"
#include "jitter.h"
#include "json.h"
#include "registry.h"
#include "trace.h"

#define NO_TIME SIM_TRACE_NO_TIME

void sim_import_options_init(SimImportOptions *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->launch_latency_ns = SIM_TIME_NEVER;
    opt->window_end_ns = SIM_TIME_NEVER;
}

void sim_import_process_clear_times(SimImportProcess *p)
{
    for (uint32_t k = 0; p->rec_node_start_ns && k < p->n_ops; k++) {
        g_free(p->rec_node_start_ns[k]);
        g_free(p->rec_node_end_ns[k]);
    }
    g_free(p->rec_node_start_ns);
    g_free(p->rec_node_end_ns);
    g_free(p->rec_start_ns);
    g_free(p->rec_end_ns);
    p->rec_node_start_ns = p->rec_node_end_ns = NULL;
    p->rec_start_ns = p->rec_end_ns = NULL;
}

void sim_import_report_free(SimImportReport *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n_procs; i++) {
        g_free(r->procs[i].name);
        g_free(r->procs[i].source);
        sim_import_process_clear_times(&r->procs[i]);
    }
    g_free(r->procs);
    g_free(r->formats);
    g_free(r->gpu_name);
    g_strfreev(r->notes);
    g_free(r);
}

/* ------------------------------------------------------------------------
 * Loading one file
 * ------------------------------------------------------------------------ */

/* One input: a trace, or a native scenario. */
typedef struct {
    char *path;
    const char *format;
    SimTrace *trace;     /* (owned) or NULL */
    SimScenario *native; /* (owned) or NULL */
} Input;

static void input_clear(Input *in)
{
    g_free(in->path);
    sim_trace_free(in->trace);
    sim_scenario_free(in->native);
}

static bool load_input(Input *in, const char *path, const char *format,
                       GError **error)
{
    in->path = g_strdup(path);
    if (!format) {
        format = sim_import_detect(path, error);
        if (!format)
            return false;
    }
    const SimImporter *imp = sim_importer_find(format);
    if (!imp) {
        g_autofree char *list = g_strjoinv(", ", (char **)sim_import_formats());
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "unknown format '%s' (known: %s)", format, list);
        return false;
    }
    in->format = imp->name;
    if (imp->read_native) {
        in->native = imp->read_native(path, error);
        return in->native != NULL;
    }
    in->trace = sim_trace_new(path, in->format);
    if (imp->read_path)
        return imp->read_path(in->trace, error);
    size_t len = 0;
    g_autofree char *text = sim_read_file(path, &len, error);
    if (!text)
        return false;
    if (len == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "%s: file is empty",
                    path);
        return false;
    }
    return imp->read_text(in->trace, text, len, error);
}

/* ------------------------------------------------------------------------
 * Process filter
 * ------------------------------------------------------------------------ */

static bool wanted(const SimImportOptions *opt, const char *name, int64_t pid)
{
    if (!opt->processes)
        return true;
    for (char **f = opt->processes; *f; f++) {
        if (strcmp(*f, name) == 0)
            return true;
        size_t base = strcspn(name, "[");
        if (strlen(*f) == base && strncmp(*f, name, base) == 0)
            return true;
        char *end = NULL;
        long long v = g_ascii_strtoll(*f, &end, 10);
        if (end && *end == '\0' && end != *f && pid >= 0 && v == pid)
            return true;
    }
    return false;
}

static void filter_trace(SimTrace *tr, const SimImportOptions *opt)
{
    for (guint i = tr->processes->len; i-- > 0;) {
        SimTraceProcess *p = g_ptr_array_index(tr->processes, i);
        if (!wanted(opt, p->name, p->pid))
            g_ptr_array_remove_index(tr->processes, i);
    }
    for (guint i = tr->ncu->len; i-- > 0;) {
        SimNcuKernel *k = &g_array_index(tr->ncu, SimNcuKernel, i);
        g_autofree char *name = g_strdup_printf(
            "%s[%lld]", k->process ? k->process : "ncu", (long long)k->pid);
        if (!wanted(opt, name, k->pid))
            g_array_remove_index(tr->ncu, i);
    }
}

/* ------------------------------------------------------------------------
 * Nsight Compute enrichment: per-kernel resources and intensity for the
 * kernels of a timeline, matched by base name and launch order.
 * ------------------------------------------------------------------------ */

typedef struct {
    GHashTable *by_name; /* base name -> GPtrArray of SimNcuKernel* */
    GHashTable *used;    /* SimNcuKernel* set */
    uint32_t n_total;
} NcuIndex;

static void ncu_index_init(NcuIndex *ix, Input *inputs, int n)
{
    ix->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify)g_ptr_array_unref);
    ix->used = g_hash_table_new(g_direct_hash, g_direct_equal);
    ix->n_total = 0;
    for (int i = 0; i < n; i++) {
        SimTrace *tr = inputs[i].trace;
        if (!tr || strcmp(tr->format, "ncu") != 0)
            continue;
        for (guint j = 0; j < tr->ncu->len; j++) {
            SimNcuKernel *k = &g_array_index(tr->ncu, SimNcuKernel, j);
            char *base = sim_trace_kernel_base_name(k->name);
            GPtrArray *arr = g_hash_table_lookup(ix->by_name, base);
            if (!arr) {
                arr = g_ptr_array_new();
                g_hash_table_insert(ix->by_name, base, arr);
            } else {
                g_free(base);
            }
            g_ptr_array_add(arr, k);
            ix->n_total++;
        }
    }
}

static void ncu_index_clear(NcuIndex *ix)
{
    g_hash_table_destroy(ix->by_name);
    g_hash_table_destroy(ix->used);
}

static uint64_t prod3(const uint32_t d[3])
{
    return (uint64_t)d[0] * d[1] * d[2];
}

/* Match @n to trace kernel @k.  The trace's own launch configuration is
 * the truth for its launch; ncu adds what the trace lacks here, and the
 * intensities and shared-memory configuration through k->ncu
 * (sim_trace_kernel_spec).  Returns false (nothing applied) when the
 * shapes disagree. */
static bool ncu_apply(SimTraceKernel *k, const SimNcuKernel *n)
{
    if (n->has_block && prod3(n->block) != prod3(k->block))
        return false;
    if (n->has_grid && prod3(n->grid) != prod3(k->grid))
        return false;
    if (k->regs_per_thread == 0 && n->has_regs)
        k->regs_per_thread = n->regs;
    uint64_t trace_smem =
        (uint64_t)k->static_smem_bytes + k->dynamic_smem_bytes;
    uint64_t ncu_smem = (uint64_t)n->smem_static + n->smem_dynamic;
    /* Kineto records static + dynamic as one number (kept as static). */
    if ((n->has_smem_static || n->has_smem_dynamic) &&
        k->dynamic_smem_bytes == 0 && trace_smem == ncu_smem) {
        k->static_smem_bytes = n->smem_static;
        k->dynamic_smem_bytes = n->smem_dynamic;
    }
    k->ncu = n;
    return true;
}

static int cmp_op_start(gconstpointer a, gconstpointer b, gpointer data)
{
    const SimTraceOp *ops = data;
    const SimTraceOp *x = &ops[*(const guint *)a];
    const SimTraceOp *y = &ops[*(const guint *)b];
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return *(const guint *)a < *(const guint *)b ? -1 : 1;
}

static void ncu_enrich(NcuIndex *ix, SimTrace *tr, SimImportReport *rep)
{
    for (guint pi = 0; pi < tr->processes->len; pi++) {
        SimTraceProcess *p = g_ptr_array_index(tr->processes, pi);
        g_autoptr(GArray) order = g_array_new(FALSE, FALSE, sizeof(guint));
        for (guint i = 0; i < p->ops->len; i++)
            if (g_array_index(p->ops, SimTraceOp, i).kind == SIM_TRACE_KERNEL)
                g_array_append_val(order, i);
        g_array_sort_with_data(order, cmp_op_start, p->ops->data);
        /* Each process matches the ncu list from its beginning. */
        g_autoptr(GHashTable) next =
            g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        for (guint j = 0; j < order->len; j++) {
            SimTraceOp *op = &g_array_index(p->ops, SimTraceOp,
                                            g_array_index(order, guint, j));
            char *base = sim_trace_kernel_base_name(op->u.kernel.name);
            GPtrArray *arr = g_hash_table_lookup(ix->by_name, base);
            guint idx = GPOINTER_TO_UINT(g_hash_table_lookup(next, base));
            g_hash_table_replace(next, base, GUINT_TO_POINTER(idx + 1));
            if (!arr || idx >= arr->len) {
                rep->ncu_unmatched++;
                continue;
            }
            SimNcuKernel *n = g_ptr_array_index(arr, idx);
            if (ncu_apply(&op->u.kernel, n)) {
                rep->ncu_matched++;
                g_hash_table_add(ix->used, n);
            } else {
                rep->ncu_unmatched++;
            }
        }
    }
}

static char *fmt_time(SimTime ns);

/* ------------------------------------------------------------------------
 * Building one process: order, then walk with a host cursor
 * ------------------------------------------------------------------------ */

typedef struct {
    const SimTraceOp *op;
    int64_t h;    /* host order */
    int64_t tie;  /* then GPU start (stream order among equal h) */
    uint32_t seq; /* then position in the trace */
    bool pinned;  /* held op issued just in time (--pin-held) */
} Item;

static bool is_gpu(SimTraceKind k)
{
    return k == SIM_TRACE_KERNEL || k == SIM_TRACE_COPY ||
           k == SIM_TRACE_MEMSET;
}

static int cmp_item(gconstpointer a, gconstpointer b)
{
    const Item *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    if (x->tie != y->tie)
        return x->tie < y->tie ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_item_ptr(const void *a, const void *b)
{
    return cmp_item(*(Item *const *)a, *(Item *const *)b);
}

static int cmp_stream_order(const void *a, const void *b)
{
    const Item *x = *(Item *const *)a, *y = *(Item *const *)b;
    if (x->op->stream != y->op->stream)
        return x->op->stream < y->op->stream ? -1 : 1;
    if (x->op->start_ns != y->op->start_ns)
        return x->op->start_ns < y->op->start_ns ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The two orders of a process's ops, found where they mostly are
 * already.  Both orders are total (seq is unique), so any correct method
 * gives the one result a sort of the whole array gives: these take O(n)
 * for a trace of a few streams whose ops come in start order (a 10^6-op
 * trace spent a tenth of its import sorting). */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Each GPU item of @items given a bucket, one per stream in the order
 * first seen: bucket[i] for item i; @ids the buckets' streams, @count
 * their sizes, @bucket_of stream -> bucket + 1.  Returns the number of GPU
 * items. */
static guint stream_buckets(const GArray *items, GHashTable *bucket_of,
                            GArray *ids, GArray *count, guint *bucket)
{
    guint n_gpu = 0;
    for (guint i = 0; i < items->len; i++) {
        const Item *it = &g_array_index(items, Item, i);
        if (!is_gpu(it->op->kind))
            continue;
        /* Keys point at the op's own stream field (the trace outlives
         * this table). */
        gpointer v = g_hash_table_lookup(bucket_of, &it->op->stream);
        guint b;
        if (v) {
            b = GPOINTER_TO_UINT(v) - 1;
        } else {
            b = ids->len;
            g_array_append_val(ids, it->op->stream);
            g_array_set_size(count, b + 1);
            g_hash_table_insert(bucket_of, (gpointer)&it->op->stream,
                                GUINT_TO_POINTER(b + 1));
        }
        bucket[i] = b;
        g_array_index(count, guint, b)++;
        n_gpu++;
    }
    return n_gpu;
}

/* Each run of @gpu (@runs: stream_order's) put in cmp_stream_order, by a
 * sort only where its starts are not in order already (its seq rises). */
static void sort_runs(GPtrArray *gpu, const GArray *runs)
{
    for (guint r = 0; r + 1 < runs->len; r++) {
        guint lo = g_array_index(runs, guint, r);
        guint hi = g_array_index(runs, guint, r + 1);
        for (guint i = lo + 1; i < hi; i++) {
            const Item *a = g_ptr_array_index(gpu, i - 1);
            const Item *b = g_ptr_array_index(gpu, i);
            if (a->op->start_ns > b->op->start_ns) {
                qsort(gpu->pdata + lo, hi - lo, sizeof(gpointer),
                      cmp_stream_order);
                break;
            }
        }
    }
}

/* The GPU items of @items into @gpu in cmp_stream_order, and the start of
 * each stream's run in @runs (offsets into @gpu, then gpu->len).  The items
 * are bucketed by stream (stable: each bucket keeps trace order, so seq
 * rises), and a bucket is sorted only when its starts are not already in
 * order. */
static void stream_order(GArray *items, GPtrArray *gpu, GArray *runs)
{
    g_autoptr(GHashTable) bucket_of =
        g_hash_table_new(g_int64_hash, g_int64_equal);
    g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_autoptr(GArray) count = g_array_new(FALSE, TRUE, sizeof(guint));
    g_autofree guint *bucket = g_new(guint, items->len ? items->len : 1);
    guint n_gpu = stream_buckets(items, bucket_of, ids, count, bucket);
    /* Buckets in stream id order; off[b]: where bucket b starts. */
    guint n_b = ids->len;
    g_autofree int64_t *sorted = g_memdup2(ids->data, n_b * sizeof(int64_t));
    if (n_b > 1)
        qsort(sorted, n_b, sizeof(int64_t), cmp_i64);
    g_autofree guint *off = g_new(guint, n_b + 1);
    g_array_set_size(runs, 0);
    guint at = 0;
    for (guint r = 0; r < n_b; r++) {
        guint b =
            GPOINTER_TO_UINT(g_hash_table_lookup(bucket_of, &sorted[r])) - 1;
        off[b] = at;
        g_array_append_val(runs, at);
        at += g_array_index(count, guint, b);
    }
    g_array_append_val(runs, at);
    g_ptr_array_set_size(gpu, (gint)n_gpu);
    for (guint i = 0; i < items->len; i++) {
        Item *it = &g_array_index(items, Item, i);
        if (is_gpu(it->op->kind))
            g_ptr_array_index(gpu, off[bucket[i]]++) = it;
    }
    sort_runs(gpu, runs);
}

/* A run of a merge: the next item and the end of its run. */
typedef struct {
    Item *const *next, *const *end;
} Run;

/* Is run @a's head after run @b's? */
static bool run_after(const Run *a, const Run *b)
{
    return cmp_item(*a->next, *b->next) > 0;
}

/* Restore the heap property at @i of @heap (@n runs). */
static void heap_down(Run *heap, guint n, guint i)
{
    for (;;) {
        guint c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && run_after(&heap[c], &heap[c + 1]))
            c++;
        if (!run_after(&heap[i], &heap[c]))
            return;
        Run t = heap[i];
        heap[i] = heap[c];
        heap[c] = t;
        i = c;
    }
}

/* @items replaced by the merge of the @n sorted runs of @heap (which
 * together hold each item once, in cmp_item order). */
static void merge_runs(GArray *items, Run *heap, guint n)
{
    for (guint k = n / 2; k-- > 0;)
        heap_down(heap, n, k);
    GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(Item), items->len);
    while (n) {
        g_array_append_vals(out, *heap[0].next, 1);
        if (++heap[0].next == heap[0].end)
            heap[0] = heap[--n];
        heap_down(heap, n, 0);
    }
    g_assert(out->len == items->len);
    memcpy(items->data, out->data, (size_t)out->len * sizeof(Item));
    g_array_free(out, TRUE);
}

/* @items in cmp_item order.  Each stream's run of @gpu (stream_order,
 * after the "never overtakes" pass) is in that order already: h rises along
 * it, and where h is equal so does the start, then seq.  So the sorted
 * items are a merge of those runs and of the other items (syncs, events),
 * sorted apart.  Skipped when the items already are in order. */
static void sort_items(GArray *items, const GPtrArray *gpu, const GArray *runs)
{
    guint i = 1;
    while (i < items->len && cmp_item(&g_array_index(items, Item, i - 1),
                                      &g_array_index(items, Item, i)) <= 0)
        i++;
    if (i >= items->len)
        return;
    g_autoptr(GPtrArray) other = g_ptr_array_new();
    for (guint k = 0; k < items->len; k++) {
        Item *it = &g_array_index(items, Item, k);
        if (!is_gpu(it->op->kind))
            g_ptr_array_add(other, it);
    }
    if (other->len > 1)
        qsort(other->pdata, other->len, sizeof(gpointer), cmp_item_ptr);
    guint n_runs = runs->len ? runs->len - 1 : 0;
    g_autofree Run *heap = g_new(Run, n_runs + 1);
    guint n = 0;
    for (guint r = 0; r < n_runs; r++) {
        guint lo = g_array_index(runs, guint, r);
        guint hi = g_array_index(runs, guint, r + 1);
        if (lo < hi)
            heap[n++] = (Run){(Item *const *)gpu->pdata + lo,
                              (Item *const *)gpu->pdata + hi};
    }
    if (other->len)
        heap[n++] = (Run){(Item *const *)other->pdata,
                          (Item *const *)other->pdata + other->len};
    merge_runs(items, heap, n);
}

/* Stream lookups remembered by stream_index, kernel names by
 * scenario_name. */
#define STREAM_MEMO 4
#define NAME_MEMO 16

typedef struct {
    SimScenario *sc;
    SimProcessSpec *ps;
    SimTrace *tr;
    int64_t L;            /* kernel: enqueue -> start when its stream
                                is free (submit + launch latency) */
    int64_t Lc;           /* copy: enqueue -> start (submit latency) */
    int64_t Lg;           /* graph: enqueue -> root node start
                                (submit + graph launch latency) */
    GHashTable *graphs;   /* graph launch id -> GPtrArray of its
                                SimTraceOp*, by start */
    GPtrArray *rec_nodes; /* per op: GArray of int64 (start, end)
                                pairs of its graph nodes, or NULL */
    int64_t cursor;       /* host time (trace clock) */
    int64_t origin;       /* trace time of the process start */
    GHashTable *streams;  /* trace stream id -> index + 1 */
    GHashTable *events;   /* trace event id -> index + 1 */
    GArray *stream_end;   /* int64 per stream: recorded end of the work
                                issued on it so far */
    GArray *event_done;   /* int64 per event: when its last record
                                completes; NO_TIME: never recorded */
    int64_t last_stream;  /* stream of the last GPU op, -1 */
    GArray *rec_start;    /* int64 per op, relative to origin */
    GArray *rec_end;
    SimImportProcess *rep;
    uint32_t n_dropped, n_guessed, n_regs_unknown, n_staged, n_held;
    uint32_t n_pinned;
    int64_t max_held;
    bool pin_held;      /* SimImportOptions.pin_held */
    bool bare_classes;  /* SimImportOptions.bare_classes */
    GHashTable *kclass; /* kernel name (interned in the trace) ->
                                its SimKernelClass: classes by name, once */
    uint32_t n_bare;    /* kernels without an ncu record, classed */
    uint16_t where[SIM_TRACE_N_KINDS]; /* SimOp.where of each kind's ops:
                                what their lines count in the trace */
    int64_t memo_id[STREAM_MEMO];      /* stream ids looked up last ... */
    uint32_t memo_ix[STREAM_MEMO];     /* ... and their indices */
    int memo_n, memo_next;
    const char *name_in[NAME_MEMO];  /* kernel names interned: as the
                                trace holds them ... */
    const char *name_out[NAME_MEMO]; /* ... and as the scenario does */
} Walk;

/* Give @op the source location of trace op @t. */
static void locate(const Walk *w, SimOp *op, const SimTraceOp *t)
{
    op->line = t->line;
    op->where = w->where[t->kind];
}

/* A start this much later than issue and stream order explain is reported
 * (import/README.md, "Held ops"). */
#define HELD_NS 50000

static uint32_t stream_index(Walk *w, int64_t id, int priority)
{
    /* Consecutive ops are mostly on one stream, or a few. */
    for (int i = 0; i < STREAM_MEMO; i++)
        if (w->memo_n > i && w->memo_id[i] == id)
            return w->memo_ix[i];
    gpointer v = g_hash_table_lookup(w->streams, &id);
    if (v) {
        int slot = w->memo_next;
        w->memo_next = (w->memo_next + 1) % STREAM_MEMO;
        w->memo_n = MAX(w->memo_n, slot + 1);
        w->memo_id[slot] = id;
        w->memo_ix[slot] = GPOINTER_TO_UINT(v) - 1;
        return GPOINTER_TO_UINT(v) - 1;
    }
    g_autofree char *name = g_strdup_printf("stream %lld", (long long)id);
    uint32_t s = sim_process_add_stream(w->sc, w->ps, name, priority);
    g_hash_table_insert(w->streams, g_memdup2(&id, sizeof id),
                        GUINT_TO_POINTER(s + 1));
    int64_t none = NO_TIME;
    g_array_append_val(w->stream_end, none);
    return s;
}

/* -1 when the event has not been seen; creates it if @create. */
static int64_t event_index(Walk *w, int64_t id, bool create)
{
    gpointer v = g_hash_table_lookup(w->events, &id);
    if (v)
        return (int64_t)GPOINTER_TO_UINT(v) - 1;
    if (!create)
        return -1;
    g_autofree char *name = g_strdup_printf("event %lld", (long long)id);
    uint32_t e = sim_process_add_event(w->sc, w->ps, name);
    g_hash_table_insert(w->events, g_memdup2(&id, sizeof id),
                        GUINT_TO_POINTER(e + 1));
    int64_t none = NO_TIME;
    g_array_append_val(w->event_done, none);
    return e;
}

static int64_t *stream_end(Walk *w, uint32_t s)
{
    return &g_array_index(w->stream_end, int64_t, s);
}

static void push(Walk *w, const SimOp *op, int64_t rs, int64_t re)
{
    sim_process_add_op(w->ps, op);
    int64_t a = rs == NO_TIME ? NO_TIME : rs - w->origin;
    int64_t b = re == NO_TIME ? NO_TIME : re - w->origin;
    g_array_append_val(w->rec_start, a);
    g_array_append_val(w->rec_end, b);
    g_ptr_array_add(w->rec_nodes, NULL);
}

/* A host gap before trace op @t (the op its messages name: the gap comes
 * from that op's recorded time). */
static void push_gap(Walk *w, int64_t ns, const SimTraceOp *t)
{
    if (ns <= 0)
        return;
    SimOp op;
    memset(&op, 0, sizeof op);
    op.kind = SIM_OP_HOST_GAP;
    locate(w, &op, t);
    op.api_ns = SIM_TIME_NEVER; /* gaps take no API time */
    op.u.gap_ns = (SimTime)ns;
    push(w, &op, NO_TIME, NO_TIME);
}

/* Move the host to the enqueue of an op whose API call starts at @lo and
 * which should be enqueued at @target: idle (a gap) until the call starts,
 * busy in the call (*api) until the enqueue.  Returns the enqueue time:
 * @target, or the cursor if the host is already past it. */
static int64_t host_issue(Walk *w, int64_t lo, int64_t target, SimTime *api,
                          const SimTraceOp *t)
{
    int64_t e = MAX(w->cursor, target);
    int64_t gs = MAX(w->cursor, MIN(lo, e));
    push_gap(w, gs - w->cursor, t);
    *api = (SimTime)(e - gs);
    w->cursor = e;
    return e;
}

static int64_t item_time(const SimTraceOp *t)
{
    if (t->api_start_ns != NO_TIME)
        return t->api_start_ns;
    return t->start_ns;
}

/* Latency between enqueue and start that the engine adds (engine.c: an
 * op reaches its queue submit_latency after the API call; kernels are
 * admitted kernel_launch_latency after reaching the head of their queue;
 * copies start at once). */
static int64_t op_latency(const Walk *w, const SimTraceOp *t)
{
    if (t->in_graph)
        return w->Lg;
    return t->kind == SIM_TRACE_KERNEL ? w->L : w->Lc;
}

static bool is_pageable(const SimTraceOp *t)
{
    return t->kind == SIM_TRACE_COPY && !t->u.copy.pinned &&
           t->u.copy.dir != SIM_COPY_D2D;
}

/* Does the host wait for this op to finish?  A synchronous API does; a
 * pageable copy does unless its API call is recorded returning before the
 * copy ended (cudaMemcpyAsync from pageable memory stages the data and
 * returns; the copy may run much later). */
static bool blocks_host(const SimTraceOp *t)
{
    if (is_gpu(t->kind) && t->api_blocks)
        return true;
    if (!is_pageable(t))
        return false;
    return t->api_end_ns == NO_TIME || t->api_end_ns >= t->end_ns;
}

static void gpu_work(Walk *w, const SimTraceOp *t, SimOp *op);

static void emit_gpu(Walk *w, const SimTraceOp *t, int64_t cap, bool pinned)
{
    int64_t desired = t->start_ns - op_latency(w, t);
    int64_t lo, target;
    if (t->api_start_ns != NO_TIME && !pinned) {
        lo = t->api_start_ns;
        target = MIN(t->api_end_ns, desired);
    } else {
        lo = target = desired;
    }
    target = MIN(target, cap);
    SimTime api;
    int64_t e = host_issue(w, lo, target, &api, t);
    if (e > desired) {
        w->rep->n_late++;
        w->rep->max_late_ns = MAX(w->rep->max_late_ns, (SimTime)(e - desired));
    }
    SimOp op;
    memset(&op, 0, sizeof op);
    op.stream = stream_index(w, t->stream, 0);
    op.api_ns = api;
    locate(w, &op, t);
    gpu_work(w, t, &op);
    push(w, &op, t->start_ns, t->end_ns);
    int64_t *se = stream_end(w, op.stream);
    /* What the trace explains of its start: issue, stream order, launch
     * latency.  Much later means a dependency the trace does not hold (or
     * contention, which the engine reproduces by itself). */
    int64_t explained = MAX(e, *se == NO_TIME ? e : *se) + op_latency(w, t);
    if (t->start_ns - explained > HELD_NS) {
        w->n_held++;
        w->max_held = MAX(w->max_held, t->start_ns - explained);
    }
    *se = MAX(*se, t->end_ns);
    w->last_stream = op.stream;
    if (op.kind == SIM_OP_COPY && !op.u.copy.pinned &&
        op.u.copy.dir != SIM_COPY_D2D) {
        /* engine.c issue_op: a pageable copy returns once it is done. */
        w->cursor = MAX(w->cursor, t->end_ns);
    } else if (t->api_blocks) {
        SimOp sync;
        memset(&sync, 0, sizeof sync);
        sync.kind = SIM_OP_STREAM_SYNC;
        sync.stream = op.stream;
        sync.api_ns = 0;
        locate(w, &sync, t);
        push(w, &sync, NO_TIME, NO_TIME);
        w->rep->n_syncs++;
        w->cursor = MAX(w->cursor, *se);
    }
}

/* The class of the kernel named @name (interned in the trace, so one
 * lookup per distinct name: 10^6-kernel traces repeat a few hundred). */
static uint8_t kernel_class(Walk *w, const char *name)
{
    gpointer v = g_hash_table_lookup(w->kclass, name);
    if (!v) {
        v = GINT_TO_POINTER(sim_kernel_class_of(name));
        g_hash_table_insert(w->kclass, (gpointer)name, v);
    }
    return (uint8_t)GPOINTER_TO_INT(v);
}

/* Trace kernel name @name (interned in the trace: one name, one
 * pointer) as the scenario holds it, remembered by the pointer in a small
 * direct-mapped table (a trace repeats a few names over and over). */
static const char *scenario_name(Walk *w, const char *name)
{
    unsigned slot = (unsigned)(((uintptr_t)name >> 3) % NAME_MEMO);
    if (!name || name != w->name_in[slot]) {
        w->name_in[slot] = name;
        w->name_out[slot] = sim_scenario_intern(w->sc, name);
    }
    return w->name_out[slot];
}

/* The work of a recorded kernel, copy or memset as a scenario op (its
 * kind and spec; stream and host time are the caller's). */
static void gpu_work(Walk *w, const SimTraceOp *t, SimOp *opp)
{
    SimOp op = *opp;
    SimTime dur = (SimTime)MAX(t->end_ns - t->start_ns, 1);
    switch (t->kind) {
    case SIM_TRACE_KERNEL:
        op.kind = SIM_OP_KERNEL;
        sim_trace_kernel_spec(&t->u.kernel, &op.u.kernel);
        op.u.kernel.name = scenario_name(w, t->u.kernel.name);
        op.u.kernel.duration_ns = dur;
        op.u.kernel.block_time_ns = 0;
        if (op.u.kernel.regs_per_thread == 0) {
            op.u.kernel.regs_per_thread = 32;
            w->n_regs_unknown++;
        }
        if (!t->u.kernel.ncu && w->bare_classes) {
            op.u.kernel.bare_class = kernel_class(w, t->u.kernel.name);
            w->n_bare++;
        }
        w->rep->n_kernels++;
        break;
    case SIM_TRACE_COPY:
        op.kind = SIM_OP_COPY;
        op.u.copy = t->u.copy;
        op.u.copy.duration_ns = dur;
        if (is_pageable(t) && !blocks_host(t)) {
            /* The engine holds the host for a pageable copy; this one did
             * not (staged): it is imported as a pinned copy. */
            op.u.copy.pinned = true;
            w->n_staged++;
        }
        w->rep->n_copies++;
        break;
    case SIM_TRACE_MEMSET:
        /* A memset is a device-to-device copy of its size for its recorded
         * time: it holds its stream and a copy engine, not SMs. */
        op.kind = SIM_OP_COPY;
        op.u.copy.bytes = t->u.memset_bytes;
        op.u.copy.dir = SIM_COPY_D2D;
        op.u.copy.pinned = true;
        op.u.copy.duration_ns = dur;
        w->rep->n_memsets++;
        break;
    default: g_assert_not_reached();
    }
    *opp = op;
}

/* Dependencies of graph node j (nodes sorted by start): the transitive
 * reduction of "ended before j started" -- the nodes i < j that ended by
 * j's start and after every other such node started (a node that ended
 * before another such node started is implied through it).  O(j). */
static void infer_deps(GPtrArray *nodes, uint32_t j, GArray *deps)
{
    const SimTraceOp *x = g_ptr_array_index(nodes, j);
    int64_t latest = INT64_MIN; /* latest start among the candidates */
    for (uint32_t i = 0; i < j; i++) {
        const SimTraceOp *c = g_ptr_array_index(nodes, i);
        if (c->end_ns <= x->start_ns)
            latest = MAX(latest, c->start_ns);
    }
    g_array_set_size(deps, 0);
    for (uint32_t i = 0; i < j; i++) {
        const SimTraceOp *c = g_ptr_array_index(nodes, i);
        if (c->end_ns <= x->start_ns && c->end_ns > latest)
            g_array_append_val(deps, i);
    }
}

/* A graph launch: its nodes (kernels, copies, memsets that correlate to
 * one cudaGraphLaunch) become one graph op, issued like a kernel whose
 * root starts Lg after its enqueue; dependencies from the timeline. */
static void emit_graph(Walk *w, const SimTraceOp *lead, int64_t cap,
                       bool pinned)
{
    GPtrArray *nodes = g_hash_table_lookup(w->graphs, &lead->graph);
    int64_t desired = lead->start_ns - w->Lg;
    int64_t lo = lead->api_start_ns, target = MIN(lead->api_end_ns, desired);
    if (lead->api_start_ns == NO_TIME || pinned)
        lo = target = desired;
    SimTime api;
    int64_t e = host_issue(w, lo, MIN(target, cap), &api, lead);
    if (e > desired) {
        w->rep->n_late++;
        w->rep->max_late_ns = MAX(w->rep->max_late_ns, (SimTime)(e - desired));
    }
    SimOp op;
    memset(&op, 0, sizeof op);
    op.kind = SIM_OP_GRAPH;
    op.stream = stream_index(w, lead->stream, 0);
    op.api_ns = api;
    locate(w, &op, lead);
    SimGraph *g = sim_scenario_new_graph(w->sc);
    g_autoptr(GArray) deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GArray *times = g_array_new(FALSE, FALSE, sizeof(int64_t));
    int64_t last = INT64_MIN;
    for (uint32_t j = 0; j < nodes->len; j++) {
        const SimTraceOp *t = g_ptr_array_index(nodes, j);
        SimGraphNode nd;
        memset(&nd, 0, sizeof nd);
        nd.op.stream = op.stream;
        nd.op.api_ns = SIM_TIME_NEVER;
        locate(w, &nd.op, t);
        gpu_work(w, t, &nd.op);
        nd.kind = t->kind == SIM_TRACE_KERNEL   ? SIM_NODE_KERNEL
                  : t->kind == SIM_TRACE_MEMSET ? SIM_NODE_MEMSET
                                                : SIM_NODE_COPY;
        infer_deps(nodes, j, deps);
        sim_graph_add_node(g, &nd, (const uint32_t *)deps->data, deps->len);
        int64_t ts[2] = {t->start_ns - w->origin, t->end_ns - w->origin};
        g_array_append_vals(times, ts, 2);
        last = MAX(last, t->end_ns);
    }
    uint32_t bad;
    bool ok = sim_graph_finish(g, &bad);
    g_assert(ok); /* dependencies only on earlier nodes */
    op.u.graph = g;
    push(w, &op, lead->start_ns, last);
    g_ptr_array_index(w->rec_nodes, w->rec_nodes->len - 1) = times;
    w->rep->n_graphs++;
    int64_t *se = stream_end(w, op.stream);
    *se = MAX(*se, last);
    w->last_stream = op.stream;
}

/* A recorded GPU op: a graph launch's first node stands for the graph. */
static void emit_item(Walk *w, const SimTraceOp *t, int64_t cap, bool pinned)
{
    if (t->in_graph)
        emit_graph(w, t, cap, pinned);
    else
        emit_gpu(w, t, cap, pinned);
}

static int cmp_op_ptr_start(gconstpointer a, gconstpointer b)
{
    const SimTraceOp *x = *(SimTraceOp *const *)a, *y = *(SimTraceOp *const *)b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Group the graph nodes of @tp (in the window) by launch; returns whether
 * @t is a node that is not its launch's first (left out of the items: the
 * first one stands for the graph). */
static void group_graphs(Walk *w, const SimTraceProcess *tp, int64_t from,
                         int64_t to)
{
    for (guint i = 0; i < tp->ops->len; i++) {
        const SimTraceOp *t = &g_array_index(tp->ops, SimTraceOp, i);
        if (!t->in_graph || !is_gpu(t->kind) || t->start_ns < from ||
            t->start_ns >= to)
            continue;
        GPtrArray *a = g_hash_table_lookup(w->graphs, &t->graph);
        if (!a) {
            a = g_ptr_array_new();
            g_hash_table_insert(w->graphs,
                                g_memdup2(&t->graph, sizeof t->graph), a);
        }
        g_ptr_array_add(a, (gpointer)t);
    }
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, w->graphs);
    while (g_hash_table_iter_next(&it, &k, &v))
        g_ptr_array_sort(v, cmp_op_ptr_start);
}

static bool graph_follower(const Walk *w, const SimTraceOp *t)
{
    if (!t->in_graph)
        return false;
    GPtrArray *a = g_hash_table_lookup(w->graphs, &t->graph);
    return a && g_ptr_array_index(a, 0) != t;
}

static void emit_sync(Walk *w, const SimTraceOp *t)
{
    SimOp op;
    memset(&op, 0, sizeof op);
    op.api_ns = 0;
    locate(w, &op, t);
    int64_t lo = item_time(t);
    int64_t awaited = NO_TIME;
    switch (t->kind) {
    case SIM_TRACE_STREAM_SYNC: {
        int64_t s;
        if (t->stream != SIM_TRACE_NO_ID) {
            s = stream_index(w, t->stream, 0);
        } else {
            /* The trace does not say which stream: the one the host last
             * issued work to (PyTorch syncs the stream it just used). */
            s = w->last_stream;
            w->n_guessed++;
        }
        if (s < 0) {
            w->n_dropped++; /* nothing issued yet: a no-op */
            return;
        }
        op.kind = SIM_OP_STREAM_SYNC;
        op.stream = (uint32_t)s;
        awaited = *stream_end(w, op.stream);
        break;
    }
    case SIM_TRACE_DEVICE_SYNC:
        op.kind = SIM_OP_DEVICE_SYNC;
        for (guint i = 0; i < w->stream_end->len; i++)
            awaited = MAX(awaited, g_array_index(w->stream_end, int64_t, i));
        break;
    case SIM_TRACE_EVENT_SYNC: {
        int64_t e = event_index(w, t->event, false);
        if (e < 0) {
            w->n_dropped++; /* its record is not in the trace */
            return;
        }
        op.kind = SIM_OP_EVENT_SYNC;
        op.event = (uint32_t)e;
        awaited = g_array_index(w->event_done, int64_t, e);
        break;
    }
    default: g_assert_not_reached();
    }
    SimTime api;
    host_issue(w, lo, lo, &api, t);
    push(w, &op, NO_TIME, NO_TIME);
    w->rep->n_syncs++;
    if (awaited != NO_TIME)
        w->cursor = MAX(w->cursor, awaited);
}

static void emit_event_op(Walk *w, const SimTraceOp *t)
{
    int64_t e = event_index(w, t->event, t->kind == SIM_TRACE_EVENT_RECORD);
    if (e < 0 || t->stream == SIM_TRACE_NO_ID) {
        w->n_dropped++; /* a wait for a record the trace does not hold */
        return;
    }
    int64_t lo = item_time(t);
    int64_t target = t->api_end_ns != NO_TIME ? t->api_end_ns : lo;
    SimTime api;
    int64_t at = host_issue(w, lo, target, &api, t);
    SimOp op;
    memset(&op, 0, sizeof op);
    op.kind = t->kind == SIM_TRACE_EVENT_RECORD ? SIM_OP_EVENT_RECORD
                                                : SIM_OP_EVENT_WAIT;
    op.stream = stream_index(w, t->stream, 0);
    op.event = (uint32_t)e;
    op.api_ns = api;
    locate(w, &op, t);
    push(w, &op, NO_TIME, NO_TIME);
    int64_t *se = stream_end(w, op.stream);
    int64_t *done = &g_array_index(w->event_done, int64_t, e);
    if (op.kind == SIM_OP_EVENT_RECORD) {
        *done = MAX(at, *se);
    } else {
        *se = MAX(*se, *done);
        w->rep->n_syncs++;
    }
}

/* The window [from, to) in trace time, from the first GPU op of @tr. */
static void trace_window(const SimTrace *tr, const SimImportOptions *opt,
                         int64_t *from, int64_t *to)
{
    int64_t first = INT64_MAX;
    for (guint i = 0; i < tr->processes->len; i++) {
        const SimTraceProcess *p = g_ptr_array_index(tr->processes, i);
        for (guint j = 0; j < p->ops->len; j++) {
            const SimTraceOp *t = &g_array_index(p->ops, SimTraceOp, j);
            if (is_gpu(t->kind) && t->start_ns != NO_TIME)
                first = MIN(first, t->start_ns);
        }
    }
    *from = INT64_MIN;
    *to = INT64_MAX;
    if (first == INT64_MAX)
        return;
    /* Saturating: first + offset never overflows. */
    if (opt->window_start_ns) {
        int64_t w = (int64_t)MIN(opt->window_start_ns, (SimTime)1 << 62);
        *from = first > INT64_MAX - w ? INT64_MAX : first + w;
    }
    if (opt->window_end_ns != SIM_TIME_NEVER) {
        int64_t w = (int64_t)MIN(opt->window_end_ns, (SimTime)1 << 62);
        *to = first > INT64_MAX - w ? INT64_MAX : first + w;
    }
}

static void array_unref(gpointer a);

static void init_walk(Walk *w, SimScenario *sc, SimTrace *tr,
                      const SimTraceProcess *tp, const char *name,
                      SimImportProcess *rep, const int64_t lat[3], bool pin,
                      bool bare_classes)
{
    memset(w, 0, sizeof *w);
    w->pin_held = pin;
    w->bare_classes = bare_classes;
    w->kclass = g_hash_table_new(g_direct_hash, g_direct_equal);
    w->sc = sc;
    w->tr = tr;
    w->L = lat[0];
    w->Lc = lat[1];
    w->Lg = lat[2];
    w->ps = sim_scenario_add_process(sc, name);
    w->ps->device_mem_bytes = tp->mem_bytes;
    for (int i = 0; i < SIM_COL_N; i++)
        w->ps->columns[i] =
            tr->columns[i] ? sim_scenario_intern(sc, tr->columns[i]) : NULL;
    w->streams =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    w->events =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    w->stream_end = g_array_new(FALSE, FALSE, sizeof(int64_t));
    w->event_done = g_array_new(FALSE, FALSE, sizeof(int64_t));
    w->rec_start = g_array_new(FALSE, FALSE, sizeof(int64_t));
    w->rec_end = g_array_new(FALSE, FALSE, sizeof(int64_t));
    w->rec_nodes = g_ptr_array_new_with_free_func(array_unref);
    w->graphs = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                      (GDestroyNotify)g_ptr_array_unref);
    w->last_stream = -1;
    w->rep = rep;
    rep->name = g_strdup(w->ps->name);
    rep->source = g_strdup(tr->path);
    for (int k = 0; k < SIM_TRACE_N_KINDS; k++) {
        const char *table = tr->kind_tables ? tr->kind_tables[k] : NULL;
        g_autofree char *prefix =
            table ? g_strdup_printf("%s: table %s, row ", tr->path, table)
                  : g_strdup_printf("%s:", tr->path);
        w->where[k] = sim_process_where(sc, w->ps, prefix);
    }
    /* Streams the trace declares come first, in creation order. */
    for (guint i = 0; i < tp->streams->len; i++) {
        const SimTraceStream *s =
            &g_array_index(tp->streams, SimTraceStream, i);
        stream_index(w, s->id, s->priority);
    }
}

static void finish_walk(Walk *w)
{
    SimImportProcess *rep = w->rep;
    rep->n_streams = w->ps->n_streams;
    rep->n_ops = w->ps->n_ops;
    if (w->n_dropped)
        sim_trace_note(w->tr,
                       "process '%s': %u synchronizations dropped (their "
                       "event record is not in the trace, or nothing was "
                       "issued before them)",
                       w->ps->name, w->n_dropped);
    if (w->n_guessed)
        sim_trace_note(w->tr,
                       "process '%s': %u stream syncs without a recorded "
                       "stream wait for the stream of the last op issued "
                       "before them",
                       w->ps->name, w->n_guessed);
    if (w->n_staged)
        sim_trace_note(w->tr,
                       "process '%s': %u pageable copies whose API call "
                       "returned before they ran are imported as pinned "
                       "(the host did not wait for them)",
                       w->ps->name, w->n_staged);
    if (w->n_pinned)
        sim_trace_note(w->tr,
                       "process '%s': %u held ops issued just in time "
                       "(--pin-held)",
                       w->ps->name, w->n_pinned);
    if (w->n_held) {
        g_autofree char *mh = fmt_time((SimTime)w->max_held);
        sim_trace_note(w->tr,
                       "process '%s': %u ops started later than their issue "
                       "and stream order explain (by up to %s): waiting for "
                       "work the trace does not show, or for GPU contention; "
                       "replay may start them earlier%s",
                       w->ps->name, w->n_held, mh,
                       w->pin_held ? "" : " (see --pin-held)");
    }
    if (w->n_regs_unknown)
        sim_trace_note(w->tr,
                       "process '%s': %u kernels without a register count: "
                       "32 per thread assumed",
                       w->ps->name, w->n_regs_unknown);
    if (w->n_bare)
        sim_trace_note(w->tr,
                       "process '%s': %u kernels without Nsight Compute "
                       "data: their issue share is their class's (by "
                       "name: gemv, sgemm, gemm, norm, elementwise, other; "
                       "--bare-classes) where the GPU model has the table, "
                       "else every warp a dependent FMA chain",
                       w->ps->name, w->n_bare);
    g_hash_table_destroy(w->kclass);
    g_hash_table_destroy(w->streams);
    g_hash_table_destroy(w->events);
    g_hash_table_destroy(w->graphs);
    g_array_free(w->stream_end, TRUE);
    g_array_free(w->event_done, TRUE);
}

/* --pin-held: an op whose recorded start is much later than its issue and
 * its stream predecessor explain, with no recorded event wait on its
 * stream in between, waited for something the trace does not hold (a
 * sampled trace, an unrecorded sync).  Issue it just in time instead of at
 * its API call, so that replay keeps it waiting.  @gpu is sorted by stream
 * and start. */
static void pin_held(Walk *w, GArray *items, GPtrArray *gpu)
{
    for (guint i = 0; i < gpu->len; i++) {
        const Item *p = i ? g_ptr_array_index(gpu, i - 1) : NULL;
        Item *x = g_ptr_array_index(gpu, i);
        if (p && p->op->stream != x->op->stream)
            p = NULL; /* the first op of its stream */
        const SimTraceOp *t = x->op;
        int64_t lat = op_latency(w, t);
        int64_t desired = t->start_ns - lat;
        int64_t issue =
            t->api_end_ns != NO_TIME ? MIN(t->api_end_ns, desired) : desired;
        int64_t explained = MAX(issue, p ? p->op->end_ns : issue) + lat;
        if (t->start_ns - explained <= HELD_NS)
            continue;
        bool waited = false;
        for (guint j = 0; j < items->len && !waited; j++) {
            const Item *e = &g_array_index(items, Item, j);
            waited = e->op->kind == SIM_TRACE_EVENT_WAIT &&
                     e->op->stream == t->stream && (!p || e->h > p->h) &&
                     e->h <= x->h;
        }
        if (waited)
            continue;
        x->h = desired;
        x->pinned = true;
        w->n_pinned++;
    }
}

/* Build one timed trace process.  Returns its origin (trace time) through
 * @origin; the caller places the process on the scenario's clock. */
static void build_timed(Walk *w, const SimTraceProcess *tp, int64_t from,
                        int64_t to)
{
    g_autoptr(GArray) items = g_array_new(FALSE, FALSE, sizeof(Item));
    group_graphs(w, tp, from, to);
    for (guint i = 0; i < tp->ops->len; i++) {
        const SimTraceOp *t = &g_array_index(tp->ops, SimTraceOp, i);
        Item it = {t, 0, 0, i, false};
        if (is_gpu(t->kind)) {
            if (t->start_ns < from || t->start_ns >= to || graph_follower(w, t))
                continue;
            it.h = t->api_start_ns != NO_TIME ? t->api_start_ns
                                              : t->start_ns - op_latency(w, t);
            it.tie = t->start_ns;
        } else {
            int64_t at = item_time(t);
            if (at == NO_TIME || at < from || at >= to)
                continue;
            it.h = it.tie = at;
        }
        g_array_append_val(items, it);
    }
    /* An op never overtakes an earlier op of its stream. */
    g_autoptr(GPtrArray) gpu = g_ptr_array_new();
    g_autoptr(GArray) runs = g_array_new(FALSE, FALSE, sizeof(guint));
    stream_order(items, gpu, runs);
    if (w->pin_held)
        pin_held(w, items, gpu);
    for (guint i = 1; i < gpu->len; i++) {
        Item *a = g_ptr_array_index(gpu, i - 1), *b = g_ptr_array_index(gpu, i);
        if (a->op->stream == b->op->stream && b->h < a->h)
            b->h = a->h;
    }
    sort_items(items, gpu, runs);

    int64_t origin = INT64_MAX;
    for (guint i = 0; i < items->len; i++) {
        const Item *it = &g_array_index(items, Item, i);
        origin = MIN(origin, it->h);
        if (is_gpu(it->op->kind))
            origin = MIN(origin, it->op->start_ns - op_latency(w, it->op));
    }
    w->origin = w->cursor = origin == INT64_MAX ? 0 : origin;

    int64_t first = INT64_MAX, last = INT64_MIN;
    g_autofree bool *done = g_new0(bool, items->len);
    for (guint i = 0; i < items->len; i++) {
        if (done[i])
            continue;
        const SimTraceOp *t = g_array_index(items, Item, i).op;
        done[i] = true;
        if (is_gpu(t->kind)) {
            first = MIN(first, t->start_ns);
            last = MAX(last, t->end_ns);
            if (blocks_host(t)) {
                /* Ops of other streams that ran during this host-blocking
                 * op were issued before it: issue them first, no later than
                 * it.  Stop at anything that is not a plain GPU op. */
                int64_t cap = t->api_start_ns != NO_TIME
                                  ? MIN(t->api_end_ns, t->start_ns)
                                  : t->start_ns - op_latency(w, t);
                for (guint j = i + 1; j < items->len; j++) {
                    const Item *b = &g_array_index(items, Item, j);
                    if (done[j])
                        continue;
                    if (b->h >= t->end_ns || !is_gpu(b->op->kind) ||
                        blocks_host(b->op))
                        break;
                    if (b->op->stream == t->stream ||
                        b->op->start_ns >= t->end_ns)
                        continue;
                    done[j] = true;
                    first = MIN(first, b->op->start_ns);
                    last = MAX(last, b->op->end_ns);
                    emit_item(w, b->op, cap, b->pinned);
                }
            }
            emit_item(w, t, INT64_MAX, g_array_index(items, Item, i).pinned);
        } else if (t->kind == SIM_TRACE_EVENT_RECORD ||
                   t->kind == SIM_TRACE_EVENT_WAIT) {
            emit_event_op(w, t);
        } else {
            emit_sync(w, t);
        }
    }
    w->rep->span_ns = first <= last ? (SimTime)(last - first) : 0;
}

/* An untimed trace (ncu alone): its kernels in launch order, back to back,
 * with the GPU model's API times. */
static void build_untimed(Walk *w, const SimTraceProcess *tp)
{
    w->origin = w->cursor = 0;
    for (guint i = 0; i < tp->ops->len; i++) {
        const SimTraceOp *t = &g_array_index(tp->ops, SimTraceOp, i);
        SimOp op;
        memset(&op, 0, sizeof op);
        op.kind = SIM_OP_KERNEL;
        op.stream = stream_index(w, t->stream, 0);
        op.api_ns = SIM_TIME_NEVER;
        locate(w, &op, t);
        sim_trace_kernel_spec(&t->u.kernel, &op.u.kernel);
        op.u.kernel.name = sim_scenario_intern(w->sc, t->u.kernel.name);
        if (op.u.kernel.regs_per_thread == 0) {
            op.u.kernel.regs_per_thread = 32;
            w->n_regs_unknown++;
        }
        push(w, &op, NO_TIME, NO_TIME);
        w->rep->n_kernels++;
    }
}

/* ------------------------------------------------------------------------
 * Merging
 * ------------------------------------------------------------------------ */

static char *unique_name(const SimScenario *sc, const char *base)
{
    for (unsigned n = 1;; n++) {
        char *name =
            n == 1 ? g_strdup(base) : g_strdup_printf("%s#%u", base, n);
        bool taken = false;
        for (guint i = 0; i < sc->processes->len && !taken; i++) {
            const SimProcessSpec *p = g_ptr_array_index(sc->processes, i);
            taken = strcmp(p->name, name) == 0;
        }
        if (!taken)
            return name;
        g_free(name);
    }
}

/* Deep-copy a native scenario's process into @dst. */
/* A copy of native process @p of file @path into @dst, named @name; its
 * ops' lines stay lines of @path. */
static SimProcessSpec *copy_process(SimScenario *dst, const SimProcessSpec *p,
                                    const char *name, const char *path)
{
    SimProcessSpec *c = sim_scenario_add_process(dst, name);
    const char *cname = c->name;
    *c = *p;
    c->name = cname;
    c->streams = NULL;
    c->n_streams = 0;
    c->ops = NULL;
    c->n_ops = 0;
    c->event_names = NULL;
    c->n_events = 0;
    c->wheres = NULL;
    c->n_wheres = 0;
    for (int i = 0; i < SIM_COL_N; i++)
        c->columns[i] =
            p->columns[i] ? sim_scenario_intern(dst, p->columns[i]) : NULL;
    g_autofree char *prefix = g_strdup_printf("%s:", path);
    uint16_t where = sim_process_where(dst, c, prefix);
    c->arrivals.times_ns =
        g_memdup2(p->arrivals.times_ns, sizeof(SimTime) * p->arrivals.n_times);
    c->jitter = sim_jitter_copy(p->jitter);
    for (uint32_t i = 0; i < p->n_streams; i++)
        sim_process_add_stream(dst, c, p->streams[i].name,
                               p->streams[i].priority);
    for (uint32_t i = 0; i < p->n_events; i++)
        sim_process_add_event(dst, c, p->event_names[i]);
    for (uint32_t i = 0; i < p->n_ops; i++) {
        SimOp op = p->ops[i];
        if (op.kind == SIM_OP_KERNEL)
            op.u.kernel.name = sim_scenario_intern(dst, op.u.kernel.name);
        if (op.kind == SIM_OP_GRAPH)
            op.u.graph = sim_graph_copy(dst, op.u.graph);
        op.where = where;
        sim_process_add_op(c, &op);
    }
    return c;
}

static void native_report(SimImportProcess *r, const SimProcessSpec *p,
                          const char *path)
{
    r->name = g_strdup(p->name);
    r->source = g_strdup(path);
    r->n_streams = p->n_streams;
    r->n_ops = p->n_ops;
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (p->ops[i].kind == SIM_OP_KERNEL)
            r->n_kernels++;
        else if (p->ops[i].kind == SIM_OP_GRAPH)
            r->n_kernels += p->ops[i].u.graph->n_kernels,
                r->n_copies +=
                p->ops[i].u.graph->n_nodes - p->ops[i].u.graph->n_kernels;
        else if (p->ops[i].kind == SIM_OP_COPY)
            r->n_copies++;
        else if (p->ops[i].kind != SIM_OP_HOST_GAP &&
                 p->ops[i].kind != SIM_OP_EVENT_RECORD)
            r->n_syncs++;
    }
}

static void ptr_array_unref(gpointer a)
{
    if (a)
        g_ptr_array_unref(a);
}

/* Graph ops' recorded node times, in scenario time. */
static void node_times(SimImportProcess *r, GPtrArray *rn, SimTime start)
{
    for (uint32_t k = 0; rn && k < r->n_ops; k++) {
        GArray *t = g_ptr_array_index(rn, k);
        if (!t)
            continue;
        if (!r->rec_node_start_ns) {
            r->rec_node_start_ns = g_new0(SimTime *, r->n_ops);
            r->rec_node_end_ns = g_new0(SimTime *, r->n_ops);
        }
        uint32_t n = t->len / 2;
        r->rec_node_start_ns[k] = g_new(SimTime, n);
        r->rec_node_end_ns[k] = g_new(SimTime, n);
        for (uint32_t j = 0; j < n; j++) {
            r->rec_node_start_ns[k][j] =
                start + (SimTime)g_array_index(t, int64_t, 2 * j);
            r->rec_node_end_ns[k][j] =
                start + (SimTime)g_array_index(t, int64_t, 2 * j + 1);
        }
    }
}

static void array_unref(gpointer a)
{
    if (a)
        g_array_unref(a);
}

static char *fmt_time(SimTime ns)
{
    if (ns < 1000)
        return g_strdup_printf("%llu ns", (unsigned long long)ns);
    if (ns < 1000000)
        return g_strdup_printf("%.3f us", ns / 1e3);
    if (ns < 1000000000)
        return g_strdup_printf("%.3f ms", ns / 1e6);
    return g_strdup_printf("%.3f s", ns / 1e9);
}

/* The launch latency to infer issue times with: the options', else the GPU
 * model's, else the default. */
/* Also sets *copy_lat: the model's submit latency, what a copy waits
 * between its enqueue and its start (0 when no model is loaded). */
static int64_t resolve_latency(const SimImportOptions *opt,
                               const char *model_name, GPtrArray *notes,
                               int64_t *copy_lat, int64_t *graph_lat)
{
    *copy_lat = 0;
    *graph_lat = SIM_IMPORT_DEFAULT_LAUNCH_LATENCY_NS;
    if (opt->launch_latency_ns != SIM_TIME_NEVER)
        return (int64_t)MIN(opt->launch_latency_ns, (SimTime)1 << 40);
    if (model_name) {
        g_autoptr(GError) err = NULL;
        g_autoptr(GpuModel) m =
            sim_gpu_model_find(model_name, opt->models_dir, &err);
        if (m) {
            *copy_lat = (int64_t)m->submit_latency_ns;
            *graph_lat =
                (int64_t)(m->submit_latency_ns + m->graph_launch_latency_ns);
            return (int64_t)(m->submit_latency_ns +
                             m->kernel_launch_latency_ns);
        }
        g_ptr_array_add(notes,
                        g_strdup_printf("GPU model '%s' not loaded (%s): "
                                        "launch latency %u ns assumed",
                                        model_name, err->message,
                                        SIM_IMPORT_DEFAULT_LAUNCH_LATENCY_NS));
    }
    return SIM_IMPORT_DEFAULT_LAUNCH_LATENCY_NS;
}

SimScenario *sim_workload_load(char *const *paths, int n_paths,
                               const SimImportOptions *opt, GError **error)
{
    return sim_workload_load_report(paths, n_paths, opt, NULL, error);
}

/* What step 5 knows of each built process (arrays indexed alike). */
typedef struct {
    GArray *group;      /* int: 1 + input index; -1: keeps its start */
    GArray *absolute;   /* gboolean: its file's clock is absolute */
    GArray *origin;     /* int64: trace time of its first host event */
    GPtrArray *rec_end; /* GArray of int64 ends after origin, or NULL */
} ClockProcs;

/* Recorded span [*lo, *hi] (trace time) of every process of input @f. */
static void file_span(const ClockProcs *cp, int f, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (guint i = 0; i < cp->group->len; i++) {
        if (g_array_index(cp->group, int, i) != 1 + f)
            continue;
        int64_t o = g_array_index(cp->origin, int64_t, i), end = o;
        const GArray *re = g_ptr_array_index(cp->rec_end, i);
        for (guint k = 0; re && k < re->len; k++)
            if (g_array_index(re, int64_t, k) != NO_TIME)
                end = MAX(end, o + g_array_index(re, int64_t, k));
        *lo = MIN(*lo, o);
        *hi = MAX(*hi, end);
    }
}

typedef struct {
    int file;
    int64_t lo, hi;
} FileSpan;

static int span_cmp(const void *a, const void *b)
{
    const FileSpan *x = a, *y = b;
    return x->lo != y->lo ? (x->lo < y->lo ? -1 : 1) : x->file - y->file;
}

/* Sessions (step 5): files on absolute clocks whose recorded spans overlap
 * (directly or through others) were recorded together -- MPI ranks,
 * processes profiled at once -- and keep their offsets, which replaying
 * them must reproduce.  Files recorded apart, hours or days before one
 * another, cannot have run together: kept on their clocks, the later one
 * would start that long after the first, so each session starts at time 0,
 * as they would when run together, unless @keep (--recorded-clocks).
 * Regroups cp->group so that a session is one group.
 * Returns: (transfer full) (nullable) a note naming what was moved. */
static char *clock_sessions(ClockProcs *cp, char *const *paths, int n_paths,
                            bool keep)
{
    g_autoptr(GArray) spans = g_array_new(FALSE, FALSE, sizeof(FileSpan));
    for (int f = 0; f < n_paths; f++) {
        bool abs_clock = false;
        for (guint i = 0; i < cp->group->len; i++)
            abs_clock =
                abs_clock || (g_array_index(cp->group, int, i) == 1 + f &&
                              g_array_index(cp->absolute, gboolean, i));
        FileSpan s = {f, 0, 0};
        if (!abs_clock)
            continue;
        file_span(cp, f, &s.lo, &s.hi);
        g_array_append_val(spans, s);
    }
    g_array_sort(spans, span_cmp);
    g_autoptr(GString) moved = g_string_new(NULL);
    int leader = -1;
    int64_t hi = INT64_MIN, first_lo = 0;
    for (guint k = 0; k < spans->len; k++) {
        const FileSpan *s = &g_array_index(spans, FileSpan, k);
        if (leader < 0 || keep || s->lo <= hi) {
            if (leader < 0) {
                leader = s->file;
                first_lo = s->lo;
            }
        } else {
            const char *first = paths[g_array_index(spans, FileSpan, 0).file];
            g_string_append_printf(moved, "%s%s was recorded %.3f s after %s",
                                   moved->len ? "; " : "", paths[s->file],
                                   (s->lo - first_lo) / 1e9, first);
            leader = s->file;
        }
        hi = MAX(hi, s->hi);
        for (guint i = 0; i < cp->group->len; i++)
            if (g_array_index(cp->group, int, i) == 1 + s->file)
                g_array_index(cp->group, int, i) = 1 + leader;
    }
    if (!moved->len)
        return NULL;
    return g_strdup_printf("clocks: traces recorded apart start together "
                           "(%s, their spans do not overlap): each starts "
                           "at its first op; --recorded-clocks keeps the "
                           "recorded offsets",
                           moved->str);
}

SimScenario *sim_workload_load_report(char *const *paths, int n_paths,
                                      const SimImportOptions *opt,
                                      SimImportReport **report_out,
                                      GError **error)
{
    SimImportOptions defaults;
    if (!opt) {
        sim_import_options_init(&defaults);
        opt = &defaults;
    }
    if (n_paths < 1) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "give at least one trace or scenario file");
        return NULL;
    }
    if (opt->window_end_ns != SIM_TIME_NEVER &&
        opt->window_end_ns <= opt->window_start_ns) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "the time window ends before it starts");
        return NULL;
    }
    Input *inputs = g_new0(Input, n_paths);
    g_autoptr(SimScenario) sc = NULL;
    g_autoptr(SimImportReport) rep = g_new0(SimImportReport, 1);
    g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) procs =
        g_array_new(FALSE, TRUE, sizeof(SimImportProcess));
    NcuIndex ix = {NULL, NULL, 0};
    bool ok = true;

    /* 1. Read every file. */
    for (int i = 0; ok && i < n_paths; i++)
        ok = load_input(&inputs[i], paths[i], opt->format, error);

    /* 2. Formats, GPU, filter. */
    g_autoptr(GString) formats = g_string_new(NULL);
    bool have_timeline = false;
    const SimTrace *gpu_src = NULL;
    for (int i = 0; ok && i < n_paths; i++) {
        Input *in = &inputs[i];
        g_auto(GStrv) seen = g_strsplit(formats->str, "+", -1);
        if (!g_strv_contains((const gchar *const *)seen, in->format))
            g_string_append_printf(formats, "%s%s", formats->len ? "+" : "",
                                   in->format);
        if (in->trace) {
            filter_trace(in->trace, opt);
            if (strcmp(in->format, "ncu") != 0)
                have_timeline = true;
            if (!gpu_src && (in->trace->gpu_name || in->trace->cc_major))
                gpu_src = in->trace;
        }
    }
    rep->formats = g_strdup(formats->str);
    rep->n_files = (uint32_t)n_paths;
    rep->timed = have_timeline;
    const char *gen = NULL;
    const char *suggested =
        gpu_src ? sim_import_gpu_model_for(gpu_src->gpu_name, gpu_src->cc_major,
                                           gpu_src->cc_minor, &gen)
                : NULL;
    if (gpu_src && gpu_src->gpu_name)
        rep->gpu_name = g_strdup(gpu_src->gpu_name);

    /* 3. ncu: enrich the timelines, or stand alone. */
    if (ok) {
        ncu_index_init(&ix, inputs, n_paths);
        for (int i = 0; ok && i < n_paths; i++) {
            SimTrace *tr = inputs[i].trace;
            if (!tr || strcmp(tr->format, "ncu") != 0)
                continue;
            if (!have_timeline) {
                ok = sim_import_ncu_ops(tr, error);
                tr->untimed = true;
            }
        }
        if (ok && have_timeline && ix.n_total) {
            for (int i = 0; i < n_paths; i++) {
                SimTrace *tr = inputs[i].trace;
                if (tr && strcmp(tr->format, "ncu") != 0)
                    ncu_enrich(&ix, tr, rep);
            }
            rep->ncu_unused = ix.n_total - g_hash_table_size(ix.used);
        }
    }

    /* 4. Build every process. */
    int64_t L = 0, Lc = 0, Lg = 0;
    if (ok) {
        L = resolve_latency(opt, opt->gpu_model ? opt->gpu_model : suggested,
                            notes, &Lc, &Lg);
        rep->launch_latency_ns = (SimTime)L;
        g_autoptr(GString) src = g_string_new(NULL);
        for (int i = 0; i < n_paths; i++)
            g_string_append_printf(src, "%s%s", i ? ", " : "", paths[i]);
        sc = sim_scenario_new(src->str, formats->str);
    }
    /* Per built process: which clock group it belongs to and its origin. */
    g_autoptr(GArray) group = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) origin = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_autoptr(GArray) absolute = g_array_new(FALSE, FALSE, sizeof(gboolean));
    g_autoptr(GPtrArray) rec_s = g_ptr_array_new_with_free_func(array_unref);
    g_autoptr(GPtrArray) rec_e = g_ptr_array_new_with_free_func(array_unref);
    g_autoptr(GPtrArray) rec_n =
        g_ptr_array_new_with_free_func((GDestroyNotify)ptr_array_unref);
    bool native_seen = false, any_trace = false;
    const char *native_gpu = NULL; /* owned by its input */
    for (int i = 0; ok && i < n_paths; i++) {
        Input *in = &inputs[i];
        any_trace = any_trace || in->trace;
        if (in->native) {
            for (guint j = 0; j < in->native->processes->len; j++) {
                const SimProcessSpec *p =
                    g_ptr_array_index(in->native->processes, j);
                if (!wanted(opt, p->name, -1))
                    continue;
                g_autofree char *name = unique_name(sc, p->name);
                SimProcessSpec *c = copy_process(sc, p, name, in->path);
                SimImportProcess r;
                memset(&r, 0, sizeof r);
                native_report(&r, c, in->path);
                g_array_append_val(procs, r);
                int g = -1;
                int64_t o = 0;
                gboolean abs_clock = FALSE;
                g_array_append_val(group, g);
                g_array_append_val(absolute, abs_clock);
                g_array_append_val(origin, o);
                g_ptr_array_add(rec_s, NULL);
                g_ptr_array_add(rec_e, NULL);
                g_ptr_array_add(rec_n, NULL);
            }
            /* The first native scenario's settings hold unless a trace or
             * the options say otherwise. */
            if (!native_seen) {
                native_seen = true;
                sc->seed = in->native->seed;
                sc->host_cores = in->native->host_cores;
                if (in->native->gpu)
                    native_gpu = in->native->gpu;
                if (in->native->description)
                    sc->description = g_strdup(in->native->description);
            }
            continue;
        }
        SimTrace *tr = in->trace;
        if (strcmp(tr->format, "ncu") == 0 && !tr->untimed)
            continue; /* used for enrichment */
        int64_t from, to;
        trace_window(tr, opt, &from, &to);
        for (guint j = 0; j < tr->processes->len; j++) {
            const SimTraceProcess *tp = g_ptr_array_index(tr->processes, j);
            g_autofree char *name = unique_name(sc, tp->name);
            SimImportProcess r;
            memset(&r, 0, sizeof r);
            Walk w;
            int64_t lat[3] = {L, Lc, Lg};
            init_walk(&w, sc, tr, tp, name, &r, lat, opt->pin_held,
                      opt->bare_classes);
            if (tr->untimed)
                build_untimed(&w, tp);
            else
                build_timed(&w, tp, from, to);
            finish_walk(&w);
            if (w.ps->n_ops == 0) {
                sim_trace_note(tr,
                               "process '%s': no ops (in the time "
                               "window); left out",
                               w.ps->name);
                g_ptr_array_remove_index(sc->processes, sc->processes->len - 1);
                g_free(w.ps->streams);
                g_free(w.ps->ops);
                g_free(w.ps->event_names);
                g_free(w.ps->wheres);
                g_free(w.ps);
                g_free(r.name);
                g_free(r.source);
                g_array_unref(w.rec_start);
                g_array_unref(w.rec_end);
                g_ptr_array_unref(w.rec_nodes);
                continue;
            }
            g_array_append_val(procs, r);
            int g = tr->untimed ? -1 : 1 + i; /* sessions: step 5 */
            gboolean abs_clock = tr->absolute && !tr->untimed;
            g_array_append_val(group, g);
            g_array_append_val(absolute, abs_clock);
            g_array_append_val(origin, w.origin);
            g_ptr_array_add(rec_s, w.rec_start);
            g_ptr_array_add(rec_e, w.rec_end);
            g_ptr_array_add(rec_n, w.rec_nodes);
        }
        for (guint k = 0; k < tr->notes->len; k++)
            g_ptr_array_add(notes, g_strdup(g_ptr_array_index(tr->notes, k)));
        rep->n_skipped += tr->n_skipped;
    }
    if (ok && sc->processes->len == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: nothing to simulate%s", sc->source,
                    opt->processes ? " (no process matches the filter)"
                    : opt->window_start_ns ||
                            opt->window_end_ns != SIM_TIME_NEVER
                        ? " in the time window"
                        : "");
        ok = false;
    }

    /* 5. Clocks: processes of one group keep their offsets. */
    if (ok) {
        ClockProcs cp = {group, absolute, origin, rec_e};
        char *moved = clock_sessions(&cp, paths, n_paths, opt->recorded_clocks);
        if (moved) {
            g_ptr_array_add(notes, g_strdup(moved));
            sc->clock_note = moved;
        }
    }
    if (ok) {
        SimTime lo = SIM_TIME_NEVER, hi = 0;
        for (guint i = 0; i < procs->len; i++) {
            int g = g_array_index(group, int, i);
            int64_t t0 = g_array_index(origin, int64_t, i);
            for (guint j = 0; j < procs->len; j++)
                if (g >= 0 && g_array_index(group, int, j) == g)
                    t0 = MIN(t0, g_array_index(origin, int64_t, j));
            SimProcessSpec *p = g_ptr_array_index(sc->processes, i);
            SimImportProcess *r = &g_array_index(procs, SimImportProcess, i);
            if (g < 0)
                continue; /* a native process keeps its own start_us */
            p->start_ns = (SimTime)(g_array_index(origin, int64_t, i) - t0);
            GArray *rs = g_ptr_array_index(rec_s, i);
            GArray *re = g_ptr_array_index(rec_e, i);
            if (!rs || g < 0)
                continue;
            r->rec_start_ns = g_new(SimTime, r->n_ops);
            r->rec_end_ns = g_new(SimTime, r->n_ops);
            for (uint32_t k = 0; k < r->n_ops; k++) {
                int64_t a = g_array_index(rs, int64_t, k);
                int64_t b = g_array_index(re, int64_t, k);
                r->rec_start_ns[k] =
                    a == NO_TIME ? SIM_TIME_NEVER : p->start_ns + (SimTime)a;
                r->rec_end_ns[k] =
                    b == NO_TIME ? SIM_TIME_NEVER : p->start_ns + (SimTime)b;
                if (a != NO_TIME) {
                    lo = MIN(lo, r->rec_start_ns[k]);
                    hi = MAX(hi, r->rec_end_ns[k]);
                }
            }
            node_times(r, g_ptr_array_index(rec_n, i), p->start_ns);
        }
        rep->span_ns = lo <= hi ? hi - lo : 0;
    }

    /* 6. What the scenario says about itself. */
    if (ok) {
        const char *model = opt->gpu_model ? opt->gpu_model
                            : suggested    ? suggested
                                           : native_gpu;
        if (model && !sc->gpu)
            sc->gpu = g_strdup(model);
        if (gpu_src && gpu_src->gpu_name)
            sc->gpu_recorded = g_strdup(gpu_src->gpu_name);
        if (gpu_src && suggested) {
            if (gen) {
                sc->gpu_mapping = g_strdup_printf(
                    "GPU '%s': no hqsim model of that name; '%s' is the "
                    "closest by generation: %s",
                    gpu_src->gpu_name ? gpu_src->gpu_name : "(unnamed)",
                    suggested, gen);
                g_ptr_array_add(notes, g_strdup(sc->gpu_mapping));
            }
        }
        if (rep->ncu_matched || rep->ncu_unmatched)
            g_ptr_array_add(
                notes,
                g_strdup_printf(
                    "ncu: %u trace kernels enriched, %u without a matching ncu "
                    "record, %u ncu records unused",
                    rep->ncu_matched, rep->ncu_unmatched, rep->ncu_unused));
    }
    if (ok && any_trace) {
        g_autofree char *span = fmt_time(rep->span_ns);
        g_autoptr(GString) d = g_string_new(NULL);
        g_string_append_printf(d, "Imported by hqsim from %s (%s)",
                               formats->str, sc->source);
        if (gpu_src && gpu_src->gpu_name)
            g_string_append_printf(d, "; recorded on %s", gpu_src->gpu_name);
        if (suggested)
            g_string_append_printf(d, "; hqsim model %s%s%s%s", suggested,
                                   gen ? " (closest by generation: " : "",
                                   gen ? gen : "", gen ? ")" : "");
        if (have_timeline)
            g_string_append_printf(d,
                                   "; recorded span %s; issue times per "
                                   "import/README.md with kernel launch "
                                   "latency %lld ns",
                                   span, (long long)L);
        else
            g_string_append(d, "; ncu alone: kernels back to back, no "
                               "timeline");
        g_string_append_c(d, '.');
        if (sc->description) {
            g_string_append_printf(d, " %s", sc->description);
            g_free(sc->description);
        }
        sc->description = g_string_free(g_steal_pointer(&d), FALSE);
    }
    if (ok)
        ok = sim_scenario_validate(sc, error);

    if (ix.by_name)
        ncu_index_clear(&ix);
    for (int i = 0; i < n_paths; i++)
        input_clear(&inputs[i]);
    g_free(inputs);
    if (!ok) {
        for (guint i = 0; i < procs->len; i++) {
            SimImportProcess *r = &g_array_index(procs, SimImportProcess, i);
            g_free(r->name);
            g_free(r->source);
            sim_import_process_clear_times(r);
        }
        return NULL;
    }
    rep->n_procs = procs->len;
    rep->procs =
        (SimImportProcess *)g_array_free(g_steal_pointer(&procs), FALSE);
    g_ptr_array_add(notes, NULL);
    rep->notes = (char **)g_ptr_array_free(g_steal_pointer(&notes), FALSE);
    if (report_out)
        *report_out = g_steal_pointer(&rep);
    return g_steal_pointer(&sc);
}

char *sim_import_report_summary(const SimImportReport *r)
{
    uint32_t streams = 0, kernels = 0, copies = 0, memsets = 0, syncs = 0,
             late = 0;
    SimTime max_late = 0;
    for (uint32_t i = 0; i < r->n_procs; i++) {
        streams += r->procs[i].n_streams;
        kernels += r->procs[i].n_kernels;
        copies += r->procs[i].n_copies;
        memsets += r->procs[i].n_memsets;
        syncs += r->procs[i].n_syncs;
        late += r->procs[i].n_late;
        max_late = MAX(max_late, r->procs[i].max_late_ns);
    }
    g_autofree char *span = fmt_time(r->span_ns);
    g_autofree char *lat = fmt_time(r->launch_latency_ns);
    GString *s = g_string_new(NULL);
    g_string_append_printf(
        s,
        "Imported %u file%s (%s): %u process%s, %u stream%s, %u kernel%s, "
        "%u cop%s, %u memset%s (as device-to-device copies), %u "
        "synchronization%s; %s%s",
        r->n_files, r->n_files == 1 ? "" : "s", r->formats, r->n_procs,
        r->n_procs == 1 ? "" : "es", streams, streams == 1 ? "" : "s", kernels,
        kernels == 1 ? "" : "s", copies, copies == 1 ? "y" : "ies", memsets,
        memsets == 1 ? "" : "s", syncs, syncs == 1 ? "" : "s",
        r->timed ? "recorded span "
                 : "no recorded timeline (kernels back to "
                   "back)",
        r->timed ? span : "");
    uint32_t graphs = 0;
    for (uint32_t i = 0; i < r->n_procs; i++)
        graphs += r->procs[i].n_graphs;
    if (graphs)
        g_string_append_printf(s,
                               "; %u CUDA graph launch%s (one graph op "
                               "each, their nodes counted above)",
                               graphs, graphs == 1 ? "" : "es");
    if (r->gpu_name)
        g_string_append_printf(s, "; GPU %s", r->gpu_name);
    if (r->timed)
        g_string_append_printf(s, "; kernel launch latency %s", lat);
    if (late) {
        g_autofree char *ml = fmt_time(max_late);
        g_string_append_printf(s, "; %u op%s issued late (at most %s)", late,
                               late == 1 ? "" : "s", ml);
    }
    if (r->n_skipped)
        g_string_append_printf(s, "; %llu row%s skipped",
                               (unsigned long long)r->n_skipped,
                               r->n_skipped == 1 ? "" : "s");
    g_string_append(s, ".");
    for (char **n = r->notes; n && *n; n++)
        g_string_append_printf(s, " %s.", *n);
    return g_string_free(s, FALSE);
}
