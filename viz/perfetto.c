/* perfetto.c -- the Chrome Trace Event JSON export (`--perfetto FILE`).
 * See viz.h.
 *
 * Layout of the file (one JSON object {"traceEvents": [...], ...}).  Run r
 * of a comparison (0 for `hqsim run`) owns the pids r * PID_RUN + ...:
 *
 *   PID_GPU    "<mode> · GPU"       context slices (tid 1), one track per
 *                                   hardware queue of each process (lanes
 *                                   where its ops overlap): its own context's
 *                                   queues, or under MPS on Volta and later
 *                                   the client's own queues in the server
 *                                   context (pre-Volta clients share the
 *                                   server's: one track per server queue),
 *                                   copy engines per direction, counters:
 *                                   GPU-Util as nvidia-smi samples it,
 *                                   kernels running, resident warps,
 *                                   SM-active, achieved occupancy
 *   PID_SMS    "<mode> · SMs"       one counter per SM (or per group of 8 SMs
 *                                   on GPUs with more than 32): resident
 *                                   warps of the context holding the GPU
 *                                   (not at detail "ops")
 *   PID_PROC+p "<mode> · <process>" one track per stream (kernels, copies,
 *                                   event record/wait instants; graph nodes
 *                                   that run beside others of their stream
 *                                   on "graph branch" lanes); tid 0 shows
 *                                   when its context held the GPU
 *
 * Every duration event ("X") sits on a track where no two overlap, as
 * Perfetto requires: a stream runs its ops in order; a hardware queue's
 * ops (which overlap once launched) are packed greedily into lanes.  Times
 * are microseconds with three decimals, printed from integer nanoseconds,
 * and every event list is sorted by a total key, so the same results give
 * the same bytes.  A path ending in ".gz" is written gzip-compressed
 * (Perfetto opens .json.gz).
 *
 * Cost: O(ops log ops + timeline samples); the file holds one slice per
 * GPU op per track that shows it (stream, queue, copy engine) and, per
 * counter, one value per change or (sampled) at most one per window.
 *
 * Import rules (what Perfetto's trace_processor counts as import errors,
 * checked by viz/perfetto_check.c): an "X" slice must nest in or be
 * disjoint from the slices before it on its (pid, tid) track, and a tid of
 * 0 is read as tid = pid, so no track here uses tid 0 except counters
 * (process-scoped).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <zlib.h>

#include "error.h"
#include "outfile.h"
#include "viz.h"

#define PID_RUN 100000u /* pids of run r: r * PID_RUN + ... */
#define PID_GPU 1u
#define PID_SMS 2u
#define PID_PROC 10u

#define TID_SLICES 1u    /* GPU pid: which context held the GPU */
#define TID_QUEUE0 100u  /* GPU pid: first hardware-queue lane */
#define TID_COPY0 50000u /* GPU pid: first copy-engine lane */
#define TID_BRANCH0                                                            \
    1000000u /* process pid: stream s's graph branch lane l
                                is TID_BRANCH0 + s * 1000 + l (l >= 1) */
#define TID_CTX                                                                \
    999999u /* process pid: its context's slices (not 0:
                            trace_processor reads tid 0 as tid = pid, which
                            is stream pid - 1's track) */

/* ------------------------------------------------------------------------
 * Detail levels (--perfetto-detail)
 * ------------------------------------------------------------------------ */

/* A run is "long" when it makes more than exact_max counter changes (its
 * SM timeline's, or two per kernel): its per-SM counters, and with
 * sample_gpu its GPU-wide step counters too, are then written as means
 * over @windows windows, which bounds each counter track to @windows values
 * whatever the run's length.  Op slices are always all written. */
typedef struct Level {
    const char *name;
    bool sm_tracks;     /* the SMs group */
    bool sample_gpu;    /* GPU-wide counters sampled too when long */
    uint32_t exact_max; /* longest run written exactly */
    uint32_t windows;
    const char *what; /* for --help and errors */
} Level;

static const Level LEVELS[] = {
    [SIM_PERFETTO_OPS] = {"ops", false, true, 20000, 2000,
                          "slices of every op; GPU-wide counters"},
    [SIM_PERFETTO_SAMPLED] = {"sampled", true, true, 20000, 2000,
                              "plus per-SM counters; counters of runs over "
                              "20000 changes as means over 2000 windows"},
    [SIM_PERFETTO_FULL] = {"full", true, false, 200000, 20000,
                           "every counter change (SM counters of runs over "
                           "200000 changes: means over 20000 windows)"},
};

gboolean sim_viz_perfetto_detail_parse(const char *s, SimPerfettoDetail *out,
                                       GError **error)
{
    for (size_t i = 0; i < G_N_ELEMENTS(LEVELS); i++)
        if (s && !strcmp(s, LEVELS[i].name)) {
            *out = (SimPerfettoDetail)i;
            return TRUE;
        }
    g_autoptr(GString) names = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(LEVELS); i++)
        g_string_append_printf(names, "%s%s (%s)", i ? ", " : "",
                               LEVELS[i].name, LEVELS[i].what);
    g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                "unknown --perfetto-detail '%s': one of %s", s ? s : "",
                names->str);
    return FALSE;
}

/* ------------------------------------------------------------------------
 * Output: a buffer flushed to the file, raw or through deflate (gzip)
 * ------------------------------------------------------------------------ */

typedef struct {
    FILE *f;
    GString *buf; /* pending text */
    bool gzip;
    z_stream z;             /* when gzip */
    bool failed;            /* a write or deflate failed */
    bool first;             /* no event written yet (comma placement) */
    const struct Level *lv; /* --perfetto-detail */
    bool shared_mps_queues; /* pre-Volta MPS: clients share the server's
                               queues (else each owns its own) */
} Out;

static void out_deflate(Out *o, const void *data, size_t len, int flush)
{
    unsigned char chunk[16384];
    o->z.next_in = (Bytef *)data;
    o->z.avail_in = (uInt)len;
    do {
        o->z.next_out = chunk;
        o->z.avail_out = sizeof chunk;
        int rc = deflate(&o->z, flush);
        if (rc == Z_STREAM_ERROR) {
            o->failed = true;
            return;
        }
        size_t have = sizeof chunk - o->z.avail_out;
        if (have && fwrite(chunk, 1, have, o->f) != have)
            o->failed = true;
    } while (o->z.avail_out == 0);
}

static void out_flush(Out *o, bool final)
{
    if (o->gzip)
        out_deflate(o, o->buf->str, o->buf->len, final ? Z_FINISH : Z_NO_FLUSH);
    else if (o->buf->len &&
             fwrite(o->buf->str, 1, o->buf->len, o->f) != o->buf->len)
        o->failed = true;
    g_string_truncate(o->buf, 0);
}

static void out_maybe_flush(Out *o)
{
    if (o->buf->len >= (1u << 20))
        out_flush(o, false);
}

/* A JSON string literal (quotes included); invalid UTF-8 is replaced. */
static void out_str(GString *b, const char *s)
{
    g_autofree char *valid = NULL;
    if (!s)
        s = "";
    if (!g_utf8_validate(s, -1, NULL))
        s = valid = g_utf8_make_valid(s, -1);
    g_string_append_c(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': g_string_append(b, "\\\""); break;
        case '\\': g_string_append(b, "\\\\"); break;
        case '\n': g_string_append(b, "\\n"); break;
        case '\t': g_string_append(b, "\\t"); break;
        default:
            if (*p < 0x20)
                g_string_append_printf(b, "\\u%04x", *p);
            else
                g_string_append_c(b, (char)*p);
        }
    }
    g_string_append_c(b, '"');
}

/* Microseconds with three decimals, exactly, from integer nanoseconds. */
static void out_us(GString *b, SimTime ns)
{
    unsigned frac = (unsigned)(ns % 1000);
    if (frac == 0)
        g_string_append_printf(b, "%" PRIu64, ns / 1000);
    else if (frac % 100 == 0)
        g_string_append_printf(b, "%" PRIu64 ".%u", ns / 1000, frac / 100);
    else if (frac % 10 == 0)
        g_string_append_printf(b, "%" PRIu64 ".%02u", ns / 1000, frac / 10);
    else
        g_string_append_printf(b, "%" PRIu64 ".%03u", ns / 1000, frac);
}

/* Start a new event object: separator, then the common fields. */
static void ev_begin(Out *o, const char *ph, uint32_t pid, uint32_t tid)
{
    out_maybe_flush(o);
    g_string_append(o->buf, o->first ? "\n" : ",\n");
    o->first = false;
    g_string_append_printf(o->buf, "{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u", ph,
                           pid, tid);
}

static void meta_name(Out *o, const char *what, uint32_t pid, uint32_t tid,
                      const char *name)
{
    ev_begin(o, "M", pid, tid);
    g_string_append(o->buf, ",\"name\":");
    out_str(o->buf, what);
    g_string_append(o->buf, ",\"args\":{\"name\":");
    out_str(o->buf, name);
    g_string_append(o->buf, "}}");
}

static void meta_sort(Out *o, const char *what, uint32_t pid, uint32_t tid,
                      uint32_t index)
{
    ev_begin(o, "M", pid, tid);
    g_string_append_printf(
        o->buf, ",\"name\":\"%s\",\"args\":{\"sort_index\":%u}}", what, index);
}

static void counter(Out *o, uint32_t pid, const char *name, SimTime t, double v)
{
    ev_begin(o, "C", pid, 0);
    g_string_append(o->buf, ",\"name\":");
    out_str(o->buf, name);
    g_string_append(o->buf, ",\"ts\":");
    out_us(o->buf, t);
    /* Shortest exact form for whole numbers (warps, kernels), else 0.01. */
    if (v == (double)(int64_t)v)
        g_string_append_printf(o->buf, ",\"args\":{\"value\":%" PRId64 "}}",
                               (int64_t)v);
    else
        g_string_append_printf(o->buf, ",\"args\":{\"value\":%.2f}}", v);
}

/* ------------------------------------------------------------------------
 * Slices of GPU ops
 * ------------------------------------------------------------------------ */

/* One duration event to write: an op record on one track. */
typedef struct {
    uint32_t pid, tid;
    SimTime ts, end;
    uint32_t op; /* index into r->ops */
    bool full;   /* all args (stream track); else only where it came from:
                    queue and copy-engine tracks repeat the same op */
} Item;

static int cmp_item(const void *a, const void *b)
{
    const Item *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

static bool is_slice_op(const SimOpRecord *o)
{
    return o->kind == SIM_OP_KERNEL || o->kind == SIM_OP_COPY;
}

/* The scenario op a record came from, or NULL (defensive: results and
 * scenario come from the same run). */
static const SimOp *spec_op(const SimScenario *sc, const SimOpRecord *o)
{
    if (!sc || o->proc >= sc->processes->len)
        return NULL;
    const SimProcessSpec *p = g_ptr_array_index(sc->processes, o->proc);
    if (o->op_index >= p->n_ops)
        return NULL;
    const SimOp *op = &p->ops[o->op_index];
    if (o->node != SIM_NO_INDEX) /* a graph node: its own op */
        return op->kind == SIM_OP_GRAPH && o->node < op->u.graph->n_nodes
                   ? &op->u.graph->nodes[o->node].op
                   : NULL;
    return op;
}

static void dim3(GString *b, const char *key, const uint32_t d[3])
{
    g_string_append_printf(b, ",\"%s\":\"[%u,%u,%u]\"", key, d[0], d[1], d[2]);
}

static void op_args(GString *b, const SimResult *r, const SimScenario *sc,
                    const SimOpRecord *o)
{
    g_string_append_printf(b, ",\"args\":{\"process\":");
    out_str(b, r->procs[o->proc].name);
    g_string_append(b, ",\"stream\":");
    out_str(b, r->procs[o->proc].streams[o->stream].name);
    g_string_append_printf(b, ",\"iteration\":%u,\"op\":%u,\"queue\":%d",
                           o->iteration, o->op_index, o->queue);
    g_string_append(b, ",\"context\":");
    out_str(b, o->ctx < r->n_contexts ? r->contexts[o->ctx].name : "?");
    g_string_append(b, ",\"issue_us\":");
    out_us(b, o->issue_ns);
    g_string_append(b, ",\"wait_us\":");
    out_us(b, o->start_ns >= o->issue_ns ? o->start_ns - o->issue_ns : 0);
    const SimOp *op = spec_op(sc, o);
    if (o->kind == SIM_OP_KERNEL) {
        if (op && op->kind == SIM_OP_KERNEL) {
            const SimKernelSpec *k = &op->u.kernel;
            dim3(b, "grid", k->grid);
            dim3(b, "block", k->block);
            g_string_append_printf(
                b,
                ",\"regs_per_thread\":%u,\"static_smem_bytes\":%u,"
                "\"dynamic_smem_bytes\":%u",
                k->regs_per_thread ? k->regs_per_thread : 32,
                k->static_smem_bytes, k->dynamic_smem_bytes);
            if (k->duration_ns) {
                g_string_append(b, ",\"alone_duration_us\":");
                out_us(b, k->duration_ns);
            } else {
                g_string_append(b, ",\"alone_block_time_us\":");
                out_us(b, k->block_time_ns);
            }
        }
        g_string_append_printf(b, ",\"blocks\":%" PRIu64 ",\"sms_used\":%u",
                               o->blocks, o->sms_used);
        if (o->sm_set != SIM_NO_INDEX) {
            g_autofree char *set = sim_sm_set_format(r, o->sm_set);
            g_string_append(b, ",\"sms\":");
            out_str(b, set);
        }
    } else if (o->kind == SIM_OP_COPY && op && op->kind == SIM_OP_COPY) {
        g_string_append_printf(b, ",\"bytes\":%" PRIu64 ",\"pinned\":%s",
                               op->u.copy.bytes,
                               op->u.copy.pinned ? "true" : "false");
    }
    if (o->aborted)
        g_string_append(b, ",\"aborted\":true");
    g_string_append_c(b, '}');
}

static void slice(Out *o, const Item *it, const SimResult *r,
                  const SimScenario *sc)
{
    const SimOpRecord *rec = &g_array_index(r->ops, SimOpRecord, it->op);
    ev_begin(o, "X", it->pid, it->tid);
    g_string_append(o->buf, ",\"cat\":");
    out_str(o->buf, rec->kind == SIM_OP_KERNEL ? "kernel" : "memcpy");
    g_string_append(o->buf, ",\"name\":");
    if (rec->kind == SIM_OP_COPY) {
        g_autofree char *n = g_strdup_printf("memcpy %s", rec->name);
        out_str(o->buf, n);
    } else {
        out_str(o->buf, rec->name);
    }
    g_string_append(o->buf, ",\"ts\":");
    out_us(o->buf, it->ts);
    g_string_append(o->buf, ",\"dur\":");
    out_us(o->buf, it->end - it->ts);
    if (it->full) {
        op_args(o->buf, r, sc, rec);
    } else {
        g_string_append(o->buf, ",\"args\":{\"process\":");
        out_str(o->buf, r->procs[rec->proc].name);
        g_string_append(o->buf, ",\"stream\":");
        out_str(o->buf, r->procs[rec->proc].streams[rec->stream].name);
        g_string_append_printf(o->buf, ",\"iteration\":%u}", rec->iteration);
    }
    g_string_append_c(o->buf, '}');
}

/* Greedy lane packing of @idx (op indices sorted by start): the lane of each
 * op is the lowest whose last op ended by its start.  Returns the number of
 * lanes; lanes[i] is the lane of idx[i]. */
static uint32_t pack_lanes(const SimResult *r, const GArray *idx,
                           uint32_t *lanes)
{
    g_autoptr(GArray) ends = g_array_new(FALSE, FALSE, sizeof(SimTime));
    for (guint i = 0; i < idx->len; i++) {
        const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord,
                                              g_array_index(idx, uint32_t, i));
        guint l = 0;
        while (l < ends->len && g_array_index(ends, SimTime, l) > o->start_ns)
            l++;
        if (l == ends->len)
            g_array_append_val(ends, o->end_ns);
        else
            g_array_index(ends, SimTime, l) = o->end_ns;
        lanes[i] = l;
    }
    return ends->len;
}

static int cmp_graph_node(const void *a, const void *b, void *data)
{
    const SimResult *r = data;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const SimOpRecord *p = &g_array_index(r->ops, SimOpRecord, x);
    const SimOpRecord *q = &g_array_index(r->ops, SimOpRecord, y);
    if (p->proc != q->proc)
        return p->proc < q->proc ? -1 : 1;
    if (p->stream != q->stream)
        return p->stream < q->stream ? -1 : 1;
    if (p->start_ns != q->start_ns)
        return p->start_ns < q->start_ns ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Graph nodes on their stream's track, packed into lanes: lane 0 is the
 * stream's own track (its other ops never overlap a graph: the stream
 * waits for the whole graph), parallel branches go to extra lanes. */
static void graph_lanes(Out *o, const SimResult *r, uint32_t base,
                        GArray *items)
{
    g_autoptr(GArray) idx = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *op = &g_array_index(r->ops, SimOpRecord, i);
        if (op->node != SIM_NO_INDEX && op->proc < r->n_procs &&
            op->end_ns >= op->start_ns && is_slice_op(op))
            g_array_append_val(idx, i);
    }
    g_array_sort_with_data(idx, cmp_graph_node, (gpointer)r);
    for (guint a = 0; a < idx->len;) {
        const SimOpRecord *first = &g_array_index(
            r->ops, SimOpRecord, g_array_index(idx, uint32_t, a));
        guint b = a;
        while (b < idx->len) {
            const SimOpRecord *x = &g_array_index(
                r->ops, SimOpRecord, g_array_index(idx, uint32_t, b));
            if (x->proc != first->proc || x->stream != first->stream)
                break;
            b++;
        }
        g_autoptr(GArray) one = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_array_append_vals(one, &g_array_index(idx, uint32_t, a), b - a);
        g_autofree uint32_t *lanes = g_new0(uint32_t, b - a);
        uint32_t n_lanes = pack_lanes(r, one, lanes);
        uint32_t pid = base + PID_PROC + first->proc;
        for (uint32_t l = 1; l < n_lanes && l < 1000; l++) {
            uint32_t tid = TID_BRANCH0 + first->stream * 1000 + l;
            g_autofree char *tn = g_strdup_printf(
                "stream %s (graph branch %u)",
                r->procs[first->proc].streams[first->stream].name, l);
            meta_name(o, "thread_name", pid, tid, tn);
            meta_sort(o, "thread_sort_index", pid, tid, tid);
        }
        for (guint i = 0; i < one->len; i++) {
            const SimOpRecord *x = &g_array_index(
                r->ops, SimOpRecord, g_array_index(one, uint32_t, i));
            uint32_t l = MIN(lanes[i], 999);
            Item it = {pid,
                       l ? TID_BRANCH0 + x->stream * 1000 + l : x->stream + 1,
                       x->start_ns,
                       x->end_ns,
                       g_array_index(one, uint32_t, i),
                       true};
            g_array_append_val(items, it);
        }
        a = b;
    }
}

/* Op indices by start time, then index (a total order). */
static gint cmp_op_start(gconstpointer a, gconstpointer b, gpointer data)
{
    const SimResult *r = data;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const SimOpRecord *x = &g_array_index(r->ops, SimOpRecord, i);
    const SimOpRecord *y = &g_array_index(r->ops, SimOpRecord, j);
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* ------------------------------------------------------------------------
 * One run
 * ------------------------------------------------------------------------ */

/* Per-run naming: "timeslice · infer#0" in a comparison, "infer#0" alone. */
static char *run_name(const SimResult *r, uint32_t n, const char *what)
{
    return n > 1 ? g_strdup_printf("%s · %s", r->mode, what) : g_strdup(what);
}

static uint32_t sm_group_size(uint32_t sm_count)
{
    return sm_count <= 32 ? 1 : 8;
}

/* A hardware queue as a track: (context, owner, queue), owner being the
 * process whose queue it is, or UINT32_MAX for pre-Volta MPS, where the
 * clients share the server's queues (queue is then the server's). */
typedef struct {
    uint32_t ctx, owner, queue;
    uint32_t op; /* index into r->ops */
} QueueOp;

static gint cmp_queue_op(gconstpointer a, gconstpointer b, gpointer data)
{
    const QueueOp *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    if (x->owner != y->owner)
        return x->owner < y->owner ? -1 : 1;
    if (x->queue != y->queue)
        return x->queue < y->queue ? -1 : 1;
    uint32_t i = x->op, j = y->op;
    return cmp_op_start(&i, &j, data);
}

/* "queue 1 of infer#0 (MPS client): streams main, side": whose queue it
 * is and which of its streams were mapped to it (first four). */
static char *queue_name(const SimResult *r, const QueueOp *q, bool mps)
{
    const char *ctx = q->ctx < r->n_contexts ? r->contexts[q->ctx].name : "?";
    if (q->owner == UINT32_MAX)
        return g_strdup_printf("queue %u of %s%s", q->queue, ctx,
                               mps ? " (shared by its clients: pre-Volta)"
                                   : "");
    const SimProcResult *pr = &r->procs[q->owner];
    g_autoptr(GString) s = g_string_new(NULL);
    g_string_printf(s, "queue %u of %s (%s)", q->queue, pr->name,
                    mps ? "MPS client" : "own context");
    g_autoptr(GString) names = g_string_new(NULL);
    uint32_t n = 0;
    for (uint32_t k = 0; k < pr->n_streams; k++) {
        if (pr->streams[k].queue != q->queue || pr->streams[k].ops == 0)
            continue;
        if (n < 4)
            g_string_append_printf(names, "%s%s", n ? ", " : "",
                                   pr->streams[k].name);
        n++;
    }
    if (n)
        g_string_append_printf(s, ": stream%s %s%s", n > 1 ? "s" : "",
                               names->str, n > 4 ? ", ..." : "");
    return g_string_free(g_steal_pointer(&s), FALSE);
}

/* Hardware-queue tracks: one per queue of each process (Hyper-Q: a
 * process's streams spread over its queues; MPS clients on Volta and later
 * own theirs inside the server context), in (context, process, queue)
 * order, with "overlap" lanes where launched ops of one queue run at once. */
static void queue_tracks(Out *o, const SimResult *r, uint32_t pid,
                         GArray *items)
{
    g_autoptr(GArray) qs = g_array_new(FALSE, FALSE, sizeof(QueueOp));
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *op = &g_array_index(r->ops, SimOpRecord, i);
        if (!is_slice_op(op) || op->end_ns < op->start_ns || op->queue < 0 ||
            op->proc >= r->n_procs)
            continue;
        bool server =
            op->ctx < r->n_contexts && r->contexts[op->ctx].mps_server;
        QueueOp q = {op->ctx,
                     server && o->shared_mps_queues ? UINT32_MAX : op->proc,
                     (uint32_t)op->queue, i};
        g_array_append_val(qs, q);
    }
    g_array_sort_with_data(qs, cmp_queue_op, (gpointer)r);
    uint32_t tid = TID_QUEUE0;
    for (guint a = 0; a < qs->len;) {
        const QueueOp *q = &g_array_index(qs, QueueOp, a);
        guint b = a;
        g_autoptr(GArray) idx = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        for (; b < qs->len; b++) {
            const QueueOp *x = &g_array_index(qs, QueueOp, b);
            if (x->ctx != q->ctx || x->owner != q->owner ||
                x->queue != q->queue)
                break;
            g_array_append_val(idx, x->op);
        }
        g_autofree uint32_t *lanes = g_new0(uint32_t, idx->len);
        uint32_t n_lanes = pack_lanes(r, idx, lanes);
        bool mps = q->ctx < r->n_contexts && r->contexts[q->ctx].mps_server;
        g_autofree char *base_name = queue_name(r, q, mps);
        for (uint32_t l = 0; l < n_lanes; l++) {
            g_autofree char *name =
                l == 0 ? g_strdup(base_name)
                       : g_strdup_printf("%s (overlap %u)", base_name, l + 1);
            meta_name(o, "thread_name", pid, tid + l, name);
            meta_sort(o, "thread_sort_index", pid, tid + l, tid + l);
        }
        for (guint i = 0; i < idx->len; i++) {
            uint32_t op = g_array_index(idx, uint32_t, i);
            const SimOpRecord *rec = &g_array_index(r->ops, SimOpRecord, op);
            Item item = {pid, tid + lanes[i], rec->start_ns, rec->end_ns,
                         op,  false};
            g_array_append_val(items, item);
        }
        tid += n_lanes;
        a = b;
    }
}

/* Hardware-queue and copy-engine tracks: items and thread names. */
static void gpu_tracks(Out *o, const SimResult *r, uint32_t pid, GArray *items)
{
    queue_tracks(o, r, pid, items);
    GArray *copies[SIM_COPY_N_DIRS];
    for (int d = 0; d < SIM_COPY_N_DIRS; d++)
        copies[d] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *op = &g_array_index(r->ops, SimOpRecord, i);
        if (op->kind != SIM_OP_COPY || op->end_ns < op->start_ns)
            continue;
        int d = !strcmp(op->name, "d2h")   ? SIM_COPY_D2H
                : !strcmp(op->name, "d2d") ? SIM_COPY_D2D
                                           : SIM_COPY_H2D;
        g_array_append_val(copies[d], i);
    }
    static const char *dir_name[SIM_COPY_N_DIRS] = {"h2d", "d2h", "d2d"};
    uint32_t tid = TID_COPY0;
    for (int d = 0; d < SIM_COPY_N_DIRS; d++) {
        GArray *a = copies[d];
        g_array_sort_with_data(a, cmp_op_start, (gpointer)r);
        g_autofree uint32_t *lanes = g_new0(uint32_t, MAX(a->len, 1));
        uint32_t n_lanes = pack_lanes(r, a, lanes);
        for (uint32_t l = 0; l < n_lanes; l++) {
            g_autofree char *name =
                g_strdup_printf("copies %s (lane %u)", dir_name[d], l + 1);
            meta_name(o, "thread_name", pid, tid + l, name);
            meta_sort(o, "thread_sort_index", pid, tid + l, tid + l);
        }
        for (guint i = 0; i < a->len; i++) {
            uint32_t op = g_array_index(a, uint32_t, i);
            const SimOpRecord *rec = &g_array_index(r->ops, SimOpRecord, op);
            Item item = {pid, tid + lanes[i], rec->start_ns, rec->end_ns,
                         op,  false};
            g_array_append_val(items, item);
        }
        tid += n_lanes;
        g_array_free(a, TRUE);
    }
}

/* Context slices: on the GPU track, and on each process's tid 0 when more
 * than one context competes (time-slicing is then visible per process). */
static void slices(Out *o, const SimResult *r, uint32_t base)
{
    for (guint i = 0; i < r->slices->len; i++) {
        const SimSlice *s = &g_array_index(r->slices, SimSlice, i);
        const char *name =
            s->ctx < r->n_contexts ? r->contexts[s->ctx].name : "?";
        ev_begin(o, "X", base + PID_GPU, TID_SLICES);
        g_string_append(o->buf, ",\"cat\":\"context\",\"name\":");
        out_str(o->buf, name);
        g_string_append(o->buf, ",\"ts\":");
        out_us(o->buf, s->start_ns);
        g_string_append(o->buf, ",\"dur\":");
        out_us(o->buf, s->end_ns - s->start_ns);
        g_string_append_printf(o->buf, ",\"args\":{\"context\":%u}}", s->ctx);
    }
    if (r->n_contexts < 2)
        return;
    for (uint32_t p = 0; p < r->n_procs; p++) {
        uint32_t ctx = r->procs[p].ctx;
        for (guint i = 0; i < r->slices->len; i++) {
            const SimSlice *s = &g_array_index(r->slices, SimSlice, i);
            if (s->ctx != ctx)
                continue;
            ev_begin(o, "X", base + PID_PROC + p, TID_CTX);
            g_string_append(o->buf, ",\"cat\":\"context\",\"name\":");
            out_str(o->buf, "its context holds the GPU");
            g_string_append(o->buf, ",\"ts\":");
            out_us(o->buf, s->start_ns);
            g_string_append(o->buf, ",\"dur\":");
            out_us(o->buf, s->end_ns - s->start_ns);
            g_string_append(o->buf, "}");
        }
    }
}

/* ------------------------------------------------------------------------
 * Counters: step functions written exactly or as means over windows
 * ------------------------------------------------------------------------ */

/* One change of a piecewise-constant counter: value v from t on. */
typedef struct {
    SimTime t;
    double v;
} Pt;

/* Window of run @r's sampled counters in ns, 0 when written exactly: a
 * run is long when its SM timeline or its kernels make more changes than
 * the level writes exactly. */
static SimTime window_ns(const Out *o, const SimResult *r)
{
    uint64_t kernels = 0;
    for (guint i = 0; i < r->ops->len; i++)
        kernels += g_array_index(r->ops, SimOpRecord, i).kind == SIM_OP_KERNEL;
    uint64_t changes = MAX((uint64_t)r->sm_timeline->len, 2 * kernels);
    if (changes <= o->lv->exact_max)
        return 0;
    return MAX(r->makespan_ns / o->lv->windows, 1);
}

/* Write counter @name of @pid from its changes @pts (sorted by t; the last
 * of equal t wins).  W == 0: a value at each change; else the mean over
 * each window [w W, (w+1) W), rounded to 0.01, written where it changes.
 * Either way the track starts with 0 at ts 0 (the 2021 Perfetto UI fails an
 * assertion drawing a counter whose first bucket holds only a non-zero
 * sample at ts 0; a later sample at the same ts replaces it) and ends with
 * 0 at the makespan.  O(points + windows). */
static void series(Out *o, uint32_t pid, const char *name, const GArray *pts,
                   SimTime W, SimTime makespan)
{
    double shown = 0;
    counter(o, pid, name, 0, 0);
    if (W == 0) {
        for (guint i = 0; i < pts->len; i++) {
            const Pt *p = &g_array_index(pts, Pt, i);
            if (i + 1 < pts->len && g_array_index(pts, Pt, i + 1).t == p->t)
                continue;
            if (fabs(p->v - shown) > 1e-9) {
                counter(o, pid, name, p->t, p->v);
                shown = p->v;
            }
        }
    } else {
        uint64_t nw = makespan / W + 1;
        double v = 0; /* the value since @since */
        SimTime since = 0;
        guint i = 0;
        for (uint64_t w = 0; w < nw; w++) {
            SimTime lo = w * W, hi = MIN((w + 1) * W, makespan);
            double acc = 0;
            for (; i < pts->len && g_array_index(pts, Pt, i).t < hi; i++) {
                const Pt *p = &g_array_index(pts, Pt, i);
                acc += v * (double)(p->t - MAX(since, lo));
                since = p->t;
                v = p->v;
            }
            if (hi > MAX(since, lo))
                acc += v * (double)(hi - MAX(since, lo));
            since = MAX(since, hi);
            double mean = round(acc / (double)W * 100) / 100;
            if (fabs(mean - shown) > 1e-9) {
                counter(o, pid, name, lo, mean);
                shown = mean;
            }
        }
    }
    if (shown != 0)
        counter(o, pid, name, makespan, 0);
}

/* Append (t, v) to the changes of a track. */
static void pt_add(GArray *pts, SimTime t, double v)
{
    Pt p = {t, v};
    g_array_append_val(pts, p);
}

/* A track's name, with the window when sampled. */
static char *sampled_name(const char *name, SimTime W)
{
    return W ? g_strdup_printf("%s, mean per %.3f us", name, W / 1e3)
             : g_strdup(name);
}

/* Per SM group (when the level shows SMs): resident warps; GPU-wide:
 * resident warps (achieved occupancy is them over the maximum, named in the
 * track) and SM-active.  The GPU-wide ones are sampled only when the level
 * says so.  O(samples + tracks x windows). */
static void sm_counters(Out *o, const SimResult *r, uint32_t gpu, uint32_t smp,
                        SimTime W)
{
    uint32_t S = r->sm_count, G = sm_group_size(S);
    if (S == 0)
        return;
    uint32_t n_groups = (S + G - 1) / G;
    /* Tracks: groups, then GPU-wide warps and SM-active. */
    uint32_t n_tracks = n_groups + 2, t_warps = n_groups,
             t_active = n_groups + 1;
    GArray **pts = g_new0(GArray *, n_tracks);
    for (uint32_t k = 0; k < n_tracks; k++)
        pts[k] = g_array_new(FALSE, FALSE, sizeof(Pt));
    g_autofree double *val = g_new0(double, n_tracks);
    g_autofree uint32_t *warps = g_new0(uint32_t, S);
    const GArray *tl = r->sm_timeline;
    for (guint i = 0; i < tl->len;) {
        SimTime t = g_array_index(tl, SimSmSample, i).t_ns;
        for (; i < tl->len && g_array_index(tl, SimSmSample, i).t_ns == t;
             i++) {
            const SimSmSample *s = &g_array_index(tl, SimSmSample, i);
            if (s->sm >= S)
                continue;
            double d = (double)s->warps - (double)warps[s->sm];
            val[s->sm / G] += d;
            val[t_warps] += d;
            val[t_active] += 100.0 * ((s->warps > 0) - (warps[s->sm] > 0)) / S;
            warps[s->sm] = s->warps;
        }
        for (uint32_t k = 0; k < n_tracks; k++) {
            GArray *a = pts[k];
            double last = a->len ? g_array_index(a, Pt, a->len - 1).v : 0;
            if (fabs(val[k] - last) > 1e-9)
                pt_add(a, t, val[k]);
        }
    }
    SimTime Wgpu = o->lv->sample_gpu ? W : 0;
    g_autofree char *occ = g_strdup_printf(
        "resident warps (of %u: achieved occupancy)", S * r->max_warps_per_sm);
    g_autofree char *warps_name = sampled_name(occ, Wgpu);
    g_autofree char *active_name =
        sampled_name("SM-active (% of SMs with a warp)", Wgpu);
    series(o, gpu, warps_name, pts[t_warps], Wgpu, r->makespan_ns);
    series(o, gpu, active_name, pts[t_active], Wgpu, r->makespan_ns);
    for (uint32_t g = 0; o->lv->sm_tracks && g < n_groups; g++) {
        uint32_t lo = g * G, hi = MIN(S, lo + G) - 1;
        g_autofree char *name =
            G == 1 ? g_strdup_printf("SM %03u warps", lo)
                   : g_strdup_printf("SMs %03u-%03u warps", lo, hi);
        series(o, smp, name, pts[g], W, r->makespan_ns);
    }
    for (uint32_t k = 0; k < n_tracks; k++)
        g_array_free(pts[k], TRUE);
    g_free(pts);
}

typedef struct {
    SimTime t;
    int delta;
} Step;

static int cmp_step(const void *a, const void *b)
{
    const Step *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->delta < y->delta ? -1 : x->delta > y->delta;
}

static void counters(Out *o, const SimResult *r, uint32_t base, SimTime W)
{
    uint32_t gpu = base + PID_GPU, smp = base + PID_SMS;
    /* nvidia-smi GPU-Util: one value per sampling period (already few). */
    const char *util = "GPU-Util as nvidia-smi samples it (%)";
    if (r->util_samples->len)
        counter(o, gpu, util, 0, 0);
    for (guint i = 0; i < r->util_samples->len; i++)
        counter(o, gpu, util, (SimTime)i * r->nvml_period_ns,
                100 * g_array_index(r->util_samples, double, i));
    if (r->util_samples->len)
        counter(o, gpu, util, r->makespan_ns, 0);
    /* Kernels running (started, not finished). */
    g_autoptr(GArray) steps = g_array_new(FALSE, FALSE, sizeof(Step));
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *op = &g_array_index(r->ops, SimOpRecord, i);
        if (op->kind != SIM_OP_KERNEL || op->end_ns < op->start_ns)
            continue;
        Step a = {op->start_ns, +1}, b = {op->end_ns, -1};
        g_array_append_val(steps, a);
        g_array_append_val(steps, b);
    }
    g_array_sort(steps, cmp_step);
    g_autoptr(GArray) pts = g_array_new(FALSE, FALSE, sizeof(Pt));
    int running = 0;
    for (guint i = 0; i < steps->len;) {
        SimTime t = g_array_index(steps, Step, i).t;
        for (; i < steps->len && g_array_index(steps, Step, i).t == t; i++)
            running += g_array_index(steps, Step, i).delta;
        pt_add(pts, t, running);
    }
    SimTime Wgpu = o->lv->sample_gpu ? W : 0;
    g_autofree char *kr = sampled_name("kernels running", Wgpu);
    series(o, gpu, kr, pts, Wgpu, r->makespan_ns);
    sm_counters(o, r, gpu, smp, W);
}

static void one_run(Out *o, const SimResult *r, uint32_t run, uint32_t n,
                    const SimScenario *sc)
{
    uint32_t base = run * PID_RUN;
    uint32_t gpu = base + PID_GPU, smp = base + PID_SMS;
    /* Names and order of the process groups. */
    g_autofree char *gpu_name = run_name(r, n, "GPU");
    g_autofree char *gpu_label =
        g_strdup_printf("%s (%s, %u SMs)", gpu_name, r->gpu_name, r->sm_count);
    meta_name(o, "process_name", gpu, 0, gpu_label);
    meta_sort(o, "process_sort_index", gpu, 0, base + 0);
    meta_name(o, "thread_name", gpu, TID_SLICES,
              "context holding the GPU (time-slices)");
    meta_sort(o, "thread_sort_index", gpu, TID_SLICES, 0);
    SimTime W = window_ns(o, r);
    if (o->lv->sm_tracks) {
        g_autofree char *sm_name = run_name(r, n, "SMs");
        uint32_t G = sm_group_size(r->sm_count);
        g_autofree char *mean =
            W ? g_strdup_printf(", means over %.3f us windows", W / 1e3)
              : g_strdup("");
        g_autofree char *sm_label =
            G == 1 ? g_strdup_printf("%s (resident warps per SM, max %u%s)",
                                     sm_name, r->max_warps_per_sm, mean)
                   : g_strdup_printf("%s (resident warps per group of %u SMs, "
                                     "max %u%s)",
                                     sm_name, G, G * r->max_warps_per_sm, mean);
        meta_name(o, "process_name", smp, 0, sm_label);
        meta_sort(o, "process_sort_index", smp, 0, base + 1);
    }
    for (uint32_t p = 0; p < r->n_procs; p++) {
        const SimProcResult *pr = &r->procs[p];
        uint32_t pid = base + PID_PROC + p;
        g_autofree char *pn = run_name(r, n, pr->name);
        const char *status = pr->status == SIM_PROC_OK       ? ""
                             : pr->status == SIM_PROC_KILLED ? ", killed"
                                                             : ", refused";
        g_autofree char *label = g_strdup_printf(
            "%s (%s%s)", pn, pr->mps ? "MPS client" : "own context", status);
        meta_name(o, "process_name", pid, 0, label);
        meta_sort(o, "process_sort_index", pid, 0, base + PID_PROC + p);
        if (r->n_contexts > 1) {
            meta_name(o, "thread_name", pid, TID_CTX,
                      "its context holds the GPU");
            meta_sort(o, "thread_sort_index", pid, TID_CTX, 0);
        }
        for (uint32_t s = 0; s < pr->n_streams; s++) {
            g_autofree char *tn =
                g_strdup_printf("stream %s (queue %u)", pr->streams[s].name,
                                pr->streams[s].queue);
            meta_name(o, "thread_name", pid, s + 1, tn);
            meta_sort(o, "thread_sort_index", pid, s + 1, s + 1);
        }
    }
    slices(o, r, base);
    /* Ops: per stream, per queue lane, per copy-engine lane. */
    g_autoptr(GArray) items = g_array_new(FALSE, FALSE, sizeof(Item));
    graph_lanes(o, r, base, items);
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *op = &g_array_index(r->ops, SimOpRecord, i);
        if (op->proc >= r->n_procs || op->end_ns < op->start_ns ||
            op->node != SIM_NO_INDEX)
            continue;
        if (is_slice_op(op)) {
            Item it = {base + PID_PROC + op->proc,
                       op->stream + 1,
                       op->start_ns,
                       op->end_ns,
                       i,
                       true};
            g_array_append_val(items, it);
        }
    }
    gpu_tracks(o, r, gpu, items);
    g_array_sort(items, cmp_item);
    for (guint i = 0; i < items->len; i++)
        slice(o, &g_array_index(items, Item, i), r, sc);
    /* Event records and waits: instants on their stream. */
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *op = &g_array_index(r->ops, SimOpRecord, i);
        if (op->proc >= r->n_procs ||
            (op->kind != SIM_OP_EVENT_RECORD && op->kind != SIM_OP_EVENT_WAIT))
            continue;
        ev_begin(o, "i", base + PID_PROC + op->proc, op->stream + 1);
        g_string_append(o->buf, ",\"s\":\"t\",\"cat\":\"event\",\"name\":");
        g_autofree char *nm = g_strdup_printf(
            "%s %s", sim_op_kind_name(op->kind), op->name ? op->name : "");
        out_str(o->buf, nm);
        g_string_append(o->buf, ",\"ts\":");
        out_us(o->buf, op->end_ns);
        g_string_append_printf(o->buf, ",\"args\":{\"iteration\":%u}}",
                               op->iteration);
    }
    counters(o, r, base, W);
}

gboolean sim_viz_perfetto(SimResult *const *runs, uint32_t n, const GpuModel *m,
                          const SimScenario *sc, const char *path,
                          GError **error)
{
    return sim_viz_perfetto_detail(runs, n, m, sc, path, SIM_PERFETTO_DEFAULT,
                                   error);
}

gboolean sim_viz_perfetto_detail(SimResult *const *runs, uint32_t n,
                                 const GpuModel *m, const SimScenario *sc,
                                 const char *path, SimPerfettoDetail detail,
                                 GError **error)
{
    g_return_val_if_fail(runs && n > 0 && path, FALSE);
    SimOutFile *of = sim_out_open(path, error);
    if (!of)
        return FALSE;
    Out o;
    memset(&o, 0, sizeof o);
    o.f = sim_out_stream(of);
    o.buf = g_string_sized_new(1u << 21);
    o.first = true;
    o.lv =
        &LEVELS[(size_t)detail < G_N_ELEMENTS(LEVELS) ? detail
                                                      : SIM_PERFETTO_DEFAULT];
    o.shared_mps_queues = m && !m->mps_volta;
    o.gzip = g_str_has_suffix(path, ".gz");
    if (o.gzip && deflateInit2(&o.z, 6, Z_DEFLATED, 15 + 16, 8,
                               Z_DEFAULT_STRATEGY) != Z_OK) {
        g_string_free(o.buf, TRUE);
        sim_out_abort(of);
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO,
                    "%s: cannot start gzip compression", path);
        return FALSE;
    }
    /* No "displayTimeUnit": it only chooses how viewers print times (ts
     * stays in us), but Perfetto before 2022 read "ns" as "ts is in ns" and
     * showed a 364 ms run as 364 us (viz/perfetto-ui-check/README.md). */
    g_string_append(o.buf, "{\"otherData\":{");
    g_string_append(o.buf, "\"generator\":\"hqsim\",\"scenario\":");
    out_str(o.buf, sc ? sc->source : "");
    g_string_append(o.buf, ",\"gpu\":");
    out_str(o.buf, m ? m->display_name : runs[0]->gpu_name);
    g_string_append(o.buf, ",\"modes\":");
    g_autoptr(GString) modes = g_string_new(NULL);
    for (uint32_t i = 0; i < n; i++)
        g_string_append_printf(modes, "%s%s", i ? "," : "", runs[i]->mode);
    out_str(o.buf, modes->str);
    g_string_append(o.buf, ",\"detail\":");
    out_str(o.buf, o.lv->name);
    g_string_append(o.buf, ",\"time_unit\":\"ts and dur in microseconds\"},"
                           "\"traceEvents\":[");
    for (uint32_t i = 0; i < n; i++)
        one_run(&o, runs[i], i, n, sc);
    g_string_append(o.buf, "\n]}\n");
    out_flush(&o, true);
    if (o.gzip)
        deflateEnd(&o.z);
    g_string_free(o.buf, TRUE);
    if (o.failed) {
        sim_out_abort(of);
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s", path);
        return FALSE;
    }
    return sim_out_commit(of, error);
}
