/* validate.c -- replay measured experiments and compare.  See validate.h. */
#include "validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "error.h"
#include "json.h"
#include "scenario.h"

/* Bytes one block of a replayed device-to-device copy moves (see the
 * "d2d" rows in build()). */
#define D2D_BLOCK_BYTES (32u * 1024u)
/* Share of an SM's issue slots a replayed device-to-device copy uses alone
 * (it waits on DRAM): fitted on k_d2d_fma (0.02 / 0.05 / 0.1 / 0.2 gave
 * -2.2 / -0.8 / +1.3 / +5.3% beside the ILP-1 FMA kernel). */
#define D2D_SM_INTENSITY 0.05

void sim_val_row_free(SimValRow *r)
{
    if (!r)
        return;
    g_free(r->id);
    g_free(r->category);
    g_free(r->measures);
    g_free(r->skipped);
    g_free(r);
}

/* ------------------------------------------------------------------------
 * The ops CSV: plain comma-separated values (no quoting), a header row.
 * ------------------------------------------------------------------------ */

typedef struct {
    uint32_t process, iteration, op;
    char type[24]; /* kernel, h2d, d2h, stream_synchronize, host_sleep */
    char kind[16]; /* gt, tslice, fma, ... */
    char name[48];
    uint32_t stream;
    int priority;
    uint32_t grid, block, dyn_smem, static_smem, regs;
    double work;
    char unit[16];
    uint32_t chains;
    uint64_t bytes;
    bool pinned;
    int64_t launch, api, start, end, solo; /* ns; solo < 0: unknown */
    uint64_t dram_bytes; /* optional column: DRAM bytes it moves (0: none) */
    double issue_pct;    /* optional column: Nsight Compute's issue slots
                             busy alone, % (0: unknown) */
    double pipe_pct;     /* optional column: Nsight Compute's Compute (SM)
                             Throughput alone, % (0: unknown) */
} Row;

static int col(char **header, const char *name)
{
    for (int i = 0; header[i]; i++)
        if (!strcmp(header[i], name))
            return i;
    return -1;
}

static bool load_rows(const char *path, GArray *rows, GError **error)
{
    size_t len = 0;
    g_autofree char *text = sim_read_file(path, &len, error);
    if (!text)
        return false;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    if (!lines[0]) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "%s: empty", path);
        return false;
    }
    for (int li = 0; lines[li]; li++)
        g_strchomp(lines[li]); /* CRLF files: no '\r' in the last field */
    g_auto(GStrv) header = g_strsplit(lines[0], ",", -1);
    static const char *const need[] = {"process",
                                       "iteration",
                                       "op",
                                       "type",
                                       "stream",
                                       "stream_priority",
                                       "name",
                                       "kind",
                                       "grid",
                                       "block",
                                       "dyn_smem",
                                       "static_smem",
                                       "regs_per_thread",
                                       "work",
                                       "work_unit",
                                       "bytes",
                                       "host_mem",
                                       "launch_ns",
                                       "api_ns",
                                       "start_ns",
                                       "end_ns",
                                       "solo_ns",
                                       "chains",
                                       NULL};
    int c[32];
    for (int i = 0; need[i]; i++) {
        c[i] = col(header, need[i]);
        if (c[i] < 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                        "%s:1: missing column '%s'", path, need[i]);
            return false;
        }
    }
    /* optional columns (part I data sets): per-kernel demand */
    const int c_dram = col(header, "dram_bytes");
    const int c_issue = col(header, "sm_issue_pct");
    const int c_pipe = col(header, "sm_pipe_pct");
    int ncols = (int)g_strv_length(header);
    for (int li = 1; lines[li]; li++) {
        if (!lines[li][0])
            continue;
        g_auto(GStrv) f = g_strsplit(lines[li], ",", -1);
        if ((int)g_strv_length(f) != ncols) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                        "%s:%d: %u fields, the header has %d", path, li + 1,
                        g_strv_length(f), ncols);
            return false;
        }
        Row r;
        memset(&r, 0, sizeof r);
#define S(i) f[c[i]]
#define U(i) (uint32_t) strtoul(S(i), NULL, 10)
#define I(i) (int64_t) strtoll(S(i), NULL, 10)
        r.process = U(0);
        r.iteration = U(1);
        r.op = U(2);
        g_strlcpy(r.type, S(3), sizeof r.type);
        r.stream = U(4);
        r.priority = (int)I(5);
        g_strlcpy(r.name, S(6), sizeof r.name);
        g_strlcpy(r.kind, S(7), sizeof r.kind);
        r.grid = U(8);
        r.block = U(9);
        r.dyn_smem = U(10);
        r.static_smem = U(11);
        r.regs = U(12);
        r.work = strtod(S(13), NULL);
        g_strlcpy(r.unit, S(14), sizeof r.unit);
        r.bytes = strtoull(S(15), NULL, 10);
        r.pinned = !strcmp(S(16), "pinned");
        r.launch = I(17);
        r.api = I(18);
        r.start = I(19);
        r.end = I(20);
        r.solo = *S(21) ? I(21) : -1;
        r.chains = U(22);
        r.dram_bytes = c_dram >= 0 ? strtoull(f[c_dram], NULL, 10) : 0;
        r.issue_pct = c_issue >= 0 ? strtod(f[c_issue], NULL) : 0;
        r.pipe_pct = c_pipe >= 0 ? strtod(f[c_pipe], NULL) : 0;
#undef S
#undef U
#undef I
        g_array_append_val(rows, r);
    }
    return true;
}

/* ------------------------------------------------------------------------
 * Replay
 * ------------------------------------------------------------------------ */

/* The configuration of a kernel, to find its solo duration elsewhere. */
static char *config_key(const char *kind, uint32_t grid, uint32_t block,
                        uint32_t dyn_smem, double work, uint32_t chains)
{
    return g_strdup_printf("%s|%u|%u|%u|%.0f|%u", kind, grid, block, dyn_smem,
                           work, chains);
}

static bool is_type(const Row *r, const char *a, const char *b)
{
    return !strcmp(r->type, a) || !strcmp(r->type, b);
}

/* The rows whose ends are compared: kernels and copies (a memset row is
 * replayed, not compared). */
static bool is_gpu_op(const Row *r)
{
    return !strcmp(r->type, "kernel") || !strcmp(r->type, "h2d") ||
           !strcmp(r->type, "d2d") || !strcmp(r->type, "d2h");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(GArray *v)
{
    if (!v->len)
        return NAN;
    qsort(v->data, v->len, sizeof(double), cmp_double);
    guint n = v->len;
    double *d = (double *)v->data;
    return n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
}

typedef struct {
    uint32_t proc; /* scenario process */
    uint32_t op;   /* scenario op index */
} OpRef;

/* Build the scenario replaying @rows; fills @refs (one per row; proc ==
 * UINT32_MAX for rows not replayed) and returns NULL with *why set if the
 * experiment cannot be replayed. */
static SimScenario *build(const char *id, const cJSON *exp, GArray *rows,
                          GArray *refs, GHashTable *solos, GHashTable *blockmed,
                          char **why)
{
    const cJSON *procs = cJSON_GetObjectItemCaseSensitive(exp, "processes");
    uint32_t nproc = (uint32_t)cJSON_GetArraySize(procs);
    int64_t origin = INT64_MAX;
    for (guint i = 0; i < rows->len; i++)
        origin = MIN(origin, g_array_index(rows, Row, i).launch);
    g_autoptr(SimScenario) sc = sim_scenario_new(id, "measured");
    g_array_set_size(refs, rows->len);
    /* rows of no process, or not replayed, keep UINT32_MAX; set once for
     * all processes (each process's pass below fills only its own rows) */
    for (guint i = 0; i < rows->len; i++)
        g_array_index(refs, OpRef, i).proc = UINT32_MAX;
    for (uint32_t p = 0; p < nproc; p++) {
        const cJSON *pj = cJSON_GetArrayItem(procs, (int)p);
        g_autofree char *name = g_strdup_printf("p%u", p);
        SimProcessSpec *ps = sim_scenario_add_process(sc, name);
        const cJSON *mps = cJSON_GetObjectItemCaseSensitive(pj, "mps_client");
        ps->mps = cJSON_IsTrue(mps);
        const cJSON *conn = cJSON_GetObjectItemCaseSensitive(pj, "connections");
        if (cJSON_IsNumber(conn))
            ps->connections = (uint32_t)conn->valuedouble;
        const cJSON *pct =
            cJSON_GetObjectItemCaseSensitive(pj, "active_thread_percentage");
        if (cJSON_IsNumber(pct))
            ps->active_thread_pct = pct->valuedouble;
        /* The process starts at its first call. */
        int64_t first = INT64_MAX;
        for (guint i = 0; i < rows->len; i++) {
            const Row *r = &g_array_index(rows, Row, i);
            if (r->process == p)
                first = MIN(first, r->launch);
        }
        if (first == INT64_MAX)
            continue; /* a process with no ops (it failed) */
        ps->start_ns = (SimTime)(first - origin);
        g_autoptr(GHashTable) streams = g_hash_table_new(NULL, NULL);
        for (guint i = 0; i < rows->len; i++) {
            const Row *r = &g_array_index(rows, Row, i);
            OpRef *ref = &g_array_index(refs, OpRef, i);
            if (r->process != p || is_type(r, "host_sleep", "sleep"))
                continue; /* the recorded call times hold the sleeps */
            gpointer sid =
                g_hash_table_lookup(streams, GUINT_TO_POINTER(r->stream + 1));
            if (!sid) {
                g_autofree char *sname = g_strdup_printf("s%u", r->stream);
                uint32_t idx =
                    sim_process_add_stream(sc, ps, sname, r->priority);
                sid = GUINT_TO_POINTER(idx + 1);
                g_hash_table_insert(streams, GUINT_TO_POINTER(r->stream + 1),
                                    sid);
            }
            SimOp op;
            memset(&op, 0, sizeof op);
            op.stream = GPOINTER_TO_UINT(sid) - 1;
            op.api_ns = r->api >= 0 ? (SimTime)r->api : SIM_TIME_NEVER;
            /* at 0 means "no constraint"; 1 ns is as good as 0 here */
            op.at_ns = MAX((SimTime)1, (SimTime)(r->launch - first));
            if (!strcmp(r->type, "kernel")) {
                SimKernelSpec *k = &op.u.kernel;
                op.kind = SIM_OP_KERNEL;
                k->name = sim_scenario_intern(sc, r->name);
                k->grid[0] = r->grid;
                k->block[0] = r->block;
                k->grid[1] = k->grid[2] = k->block[1] = k->block[2] = 1;
                k->regs_per_thread = r->regs ? r->regs : 32;
                k->static_smem_bytes = r->static_smem;
                k->dynamic_smem_bytes = r->dyn_smem;
                /* measured demand, where the data set gives it */
                k->dram_bytes = r->dram_bytes;
                k->sm_intensity = MIN(r->issue_pct / 100.0, 1.0);
                k->sm_pipe_share = MIN(r->pipe_pct / 100.0, 1.0);
                /* the harness's FMA kernels: their chains per warp */
                k->ilp = MIN(r->chains, 64u);
                /* The harness's timer kernels give each block's time:
                 * "gt" blocks spin until %globaltimer passes start + W,
                 * "tslice" blocks until they have run W ns themselves.
                 * Other kernels do fixed work: their measured solo
                 * duration is the input. */
                if (!strcmp(r->kind, "gt") || !strcmp(r->kind, "tslice")) {
                    gint64 key = ((gint64)r->process << 40) |
                                 ((gint64)r->iteration << 20) | r->op;
                    /* only "gt" blocks: a "tslice" block's wall time
                     * includes the preemption gaps it does not count */
                    gpointer med = blockmed && !strcmp(r->kind, "gt")
                                       ? g_hash_table_lookup(blockmed, &key)
                                       : NULL;
                    k->block_time_ns =
                        med ? (SimTime)GPOINTER_TO_SIZE(med) : (SimTime)r->work;
                    k->wall_clock = !strcmp(r->kind, "gt");
                    k->self_timed = !k->wall_clock;
                } else {
                    g_autofree char *key =
                        config_key(r->kind, r->grid, r->block, r->dyn_smem,
                                   r->work, r->chains);
                    gpointer solo = g_hash_table_lookup(solos, key);
                    if (r->solo > 0)
                        k->duration_ns = (SimTime)r->solo;
                    else if (solo)
                        k->duration_ns = (SimTime)GPOINTER_TO_SIZE(solo);
                    else {
                        *why = g_strdup_printf("kernel '%s' has no solo "
                                               "duration",
                                               r->name);
                        return NULL;
                    }
                }
            } else if (!strcmp(r->type, "memset")) {
                /* A stream memset (cudaMemsetAsync, e.g. the few bytes
                 * cuBLAS clears before each nvjet GEMM) is work of its
                 * context's graphics engine, not of a copy engine: the
                 * first one of an idle context claims the GPU for it
                 * like a kernel (FINDINGS.md §19, addendum: part L's
                 * 2-process runs), and it runs beside kernels that fill
                 * every SM (part L's together run: 48 of 135 memsets
                 * inside a kernel).  So it is replayed as one block of
                 * one warp taking its solo duration; its end is not
                 * compared (is_gpu_op: kernels and copies only). */
                if (r->solo <= 0) {
                    *why = g_strdup_printf("memset '%s' has no solo duration",
                                           r->name);
                    return NULL;
                }
                SimKernelSpec *k = &op.u.kernel;
                op.kind = SIM_OP_KERNEL;
                k->name = sim_scenario_intern(sc, r->name);
                k->grid[0] = k->grid[1] = k->grid[2] = 1;
                k->block[0] = 32;
                k->block[1] = k->block[2] = 1;
                k->regs_per_thread = 16;
                k->duration_ns = (SimTime)r->solo;
            } else if (!strcmp(r->type, "d2d")) {
                /* On the H100 a device-to-device cudaMemcpyAsync runs as
                 * a kernel on the SMs, not on a copy engine (FINDINGS.md
                 * §17, part K): issued first it held a triad back until
                 * its last blocks ran (k_tri_d2d), beside kernels it
                 * shares DRAM (k_d2d_gemv, k_d2d_tri).  Replayed as a
                 * grid of D2D_BLOCK_BYTES chunks, 256-thread blocks that
                 * fill an SM 8 at a time, moving 2 x bytes (read +
                 * write) in its solo duration. */
                if (r->solo <= 0 || r->bytes == 0) {
                    *why = g_strdup_printf("d2d copy has no solo duration");
                    return NULL;
                }
                SimKernelSpec *k = &op.u.kernel;
                op.kind = SIM_OP_KERNEL;
                k->name = sim_scenario_intern(sc, "d2d");
                uint64_t blocks =
                    (r->bytes + D2D_BLOCK_BYTES - 1) / D2D_BLOCK_BYTES;
                k->grid[0] = (uint32_t)MIN(blocks, (uint64_t)1 << 30);
                k->block[0] = 256;
                k->grid[1] = k->grid[2] = k->block[1] = k->block[2] = 1;
                k->regs_per_thread = 32;
                k->dram_bytes = 2 * r->bytes;
                k->duration_ns = (SimTime)r->solo;
                k->sm_intensity = D2D_SM_INTENSITY;
            } else if (!strcmp(r->type, "h2d") || !strcmp(r->type, "d2h")) {
                op.kind = SIM_OP_COPY;
                op.u.copy.dir = r->type[0] == 'h' ? SIM_COPY_H2D : SIM_COPY_D2H;
                op.u.copy.bytes = r->bytes;
                op.u.copy.pinned = r->pinned;
                op.u.copy.duration_ns = r->solo > 0 ? (SimTime)r->solo : 0;
                if (!r->pinned)
                    op.api_ns = SIM_TIME_NEVER; /* the wait is modelled */
            } else if (is_type(r, "stream_synchronize", "ssync")) {
                op.kind = SIM_OP_STREAM_SYNC;
                op.api_ns = SIM_TIME_NEVER;
            } else {
                *why = g_strdup_printf("op type '%s' is not replayed", r->type);
                return NULL;
            }
            ref->proc = p;
            ref->op = ps->n_ops;
            sim_process_add_op(ps, &op);
        }
        if (ps->n_streams == 0)
            sim_process_add_stream(sc, ps, "s0", 0);
    }
    return g_steal_pointer(&sc);
}

/* Median block duration per (process, iteration, op) from the
 * experiment's blocks CSV (gzip): process,iteration,op,block,smid,start,end.
 * Returns: (transfer full) (nullable). */
static GHashTable *load_block_medians(const char *path)
{
    size_t len = 0;
    g_autofree char *text = sim_read_file(path, &len, NULL);
    if (!text)
        return NULL;
    g_autoptr(GHashTable) durs = g_hash_table_new_full(
        g_int64_hash, g_int64_equal, g_free, (GDestroyNotify)g_array_unref);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (int i = 1; lines[i]; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
        if (g_strv_length(f) < 7)
            continue;
        gint64 key = ((gint64)atoll(f[0]) << 40) | ((gint64)atoll(f[1]) << 20) |
                     atoll(f[2]);
        GArray *a = g_hash_table_lookup(durs, &key);
        if (!a) {
            a = g_array_new(FALSE, FALSE, sizeof(double));
            g_hash_table_insert(durs, g_memdup2(&key, sizeof key), a);
        }
        double d = (double)(atoll(f[6]) - atoll(f[5]));
        g_array_append_val(a, d);
    }
    GHashTable *med =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, durs);
    while (g_hash_table_iter_next(&it, &k, &v))
        g_hash_table_insert(med, g_memdup2(k, sizeof(gint64)),
                            GSIZE_TO_POINTER((gsize)llround(median(v))));
    return med;
}

static SimValRow *replay(const char *dir, const cJSON *exp, const GpuModel *m,
                         GHashTable *calib, GHashTable *excluded,
                         GHashTable *solos, bool measured_blocks,
                         uint32_t sm_sample, GError **error)
{
    SimValRow *row = g_new0(SimValRow, 1);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(exp, "id");
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(exp, "category");
    const cJSON *meas = cJSON_GetObjectItemCaseSensitive(exp, "measures");
    row->id = g_strdup(cJSON_IsString(id) ? id->valuestring : "?");
    row->category = g_strdup(cJSON_IsString(cat) ? cat->valuestring : "?");
    row->measures = g_strdup(cJSON_IsString(meas) ? meas->valuestring : "");
    row->calibration = g_hash_table_contains(calib, row->id);
    row->meas_ms = row->pred_ms = row->err = row->end_err = NAN;
    const char *excl = g_hash_table_lookup(excluded, row->id);
    if (excl) {
        row->skipped = g_strdup(excl);
        return row;
    }
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(exp, "files");
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(files, "ops");
    if (!cJSON_IsString(ops)) {
        row->skipped = g_strdup("no per-op timeline (see FINDINGS.md)");
        return row;
    }
    g_autofree char *path = g_build_filename(dir, ops->valuestring, NULL);
    g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(Row));
    if (!load_rows(path, rows, error)) {
        sim_val_row_free(row);
        return NULL;
    }
    g_autoptr(GArray) refs = g_array_new(FALSE, FALSE, sizeof(OpRef));
    char *why = NULL;
    g_autoptr(GHashTable) blockmed = NULL;
    const cJSON *blocks = cJSON_GetObjectItemCaseSensitive(files, "blocks");
    if (measured_blocks && cJSON_IsString(blocks)) {
        g_autofree char *bpath =
            g_build_filename(dir, blocks->valuestring, NULL);
        blockmed = load_block_medians(bpath);
    }
    g_autoptr(SimScenario) sc =
        build(row->id, exp, rows, refs, solos, blockmed, &why);
    if (!sc) {
        row->skipped = why;
        return row;
    }
    SimOptions o;
    sim_options_init(&o);
    o.sm_sample = sm_sample;
    GError *err = NULL;
    g_autoptr(SimResult) res = sim_engine_run(m, sc, &o, &err);
    if (!res) {
        row->skipped = g_strdup_printf("simulation failed: %s", err->message);
        g_error_free(err);
        return row;
    }
    /* scenario (process, op) -> simulated end */
    g_autoptr(GHashTable) ends = g_hash_table_new(g_int64_hash, g_int64_equal);
    g_autoptr(GArray) keys =
        g_array_sized_new(FALSE, FALSE, sizeof(gint64), res->ops->len);
    for (guint i = 0; i < res->ops->len; i++) {
        const SimOpRecord *rec = &g_array_index(res->ops, SimOpRecord, i);
        gint64 k = ((gint64)rec->proc << 32) | rec->op_index;
        g_array_append_val(keys, k);
    }
    for (guint i = 0; i < res->ops->len; i++)
        g_hash_table_insert(ends, &g_array_index(keys, gint64, i),
                            &g_array_index(res->ops, SimOpRecord, i));
    int64_t origin = INT64_MAX;
    uint32_t max_iter = 0;
    for (guint i = 0; i < rows->len; i++) {
        origin = MIN(origin, g_array_index(rows, Row, i).launch);
        max_iter = MAX(max_iter, g_array_index(rows, Row, i).iteration);
    }
    g_autoptr(GArray) spans_m = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) spans_p = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) errs = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) end_errs = g_array_new(FALSE, FALSE, sizeof(double));
    for (uint32_t it = 0; it <= max_iter; it++) {
        int64_t first = INT64_MAX, mend = INT64_MIN, pend = INT64_MIN;
        uint32_t n = 0;
        for (guint i = 0; i < rows->len; i++) {
            const Row *r = &g_array_index(rows, Row, i);
            const OpRef *ref = &g_array_index(refs, OpRef, i);
            if (r->iteration != it || !is_gpu_op(r) || ref->proc == UINT32_MAX)
                continue;
            gint64 k = ((gint64)ref->proc << 32) | ref->op;
            const SimOpRecord *rec = g_hash_table_lookup(ends, &k);
            if (!rec)
                continue;
            first = MIN(first, r->launch - origin);
            mend = MAX(mend, r->end - origin);
            pend = MAX(pend, (int64_t)rec->end_ns);
            n++;
        }
        if (!n || mend <= first)
            continue;
        double ms = (double)(mend - first), ps = (double)(pend - first);
        g_array_append_val(spans_m, ms);
        g_array_append_val(spans_p, ps);
        double e = (ps - ms) / ms;
        g_array_append_val(errs, e);
        for (guint i = 0; i < rows->len; i++) {
            const Row *r = &g_array_index(rows, Row, i);
            const OpRef *ref = &g_array_index(refs, OpRef, i);
            if (r->iteration != it || !is_gpu_op(r) || ref->proc == UINT32_MAX)
                continue;
            gint64 k = ((gint64)ref->proc << 32) | ref->op;
            const SimOpRecord *rec = g_hash_table_lookup(ends, &k);
            if (!rec)
                continue;
            double d = fabs((double)rec->end_ns - (double)(r->end - origin));
            double rel = d / ms;
            row->ends++;
            row->ends_within10 += rel <= 0.10;
            g_array_append_val(end_errs, rel);
        }
        row->iterations++;
    }
    row->processes = sc->processes->len;
    row->ops = rows->len;
    if (!row->iterations) {
        row->skipped = g_strdup("no GPU ops to compare");
        return row;
    }
    row->meas_ms = median(spans_m) / 1e6;
    row->pred_ms = median(spans_p) / 1e6;
    row->err = median(errs);
    row->end_err = median(end_errs);
    return row;
}

/* Solo durations of kernel configurations, for experiments whose rows do
 * not carry one: the data set's solo_durations.csv, and the measured
 * durations in the single-process experiments that others name as their
 * solo reference (the first word of "solo_reference"). */
static GHashTable *load_solos(const char *dir, const cJSON *exps,
                              GError **error)
{
    GHashTable *solos =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autofree char *spath = g_build_filename(dir, "solo_durations.csv", NULL);
    g_autofree char *text = NULL;
    if (g_file_get_contents(spath, &text, NULL, NULL)) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_auto(GStrv) h = lines[0] ? g_strsplit(lines[0], ",", -1) : NULL;
        int ct = h ? col(h, "type") : -1, ck = h ? col(h, "kind") : -1,
            cg = h ? col(h, "grid") : -1, cb = h ? col(h, "block") : -1,
            cd = h ? col(h, "dyn_smem") : -1, cw = h ? col(h, "work") : -1,
            cc = h ? col(h, "chains") : -1, cm = h ? col(h, "median_ns") : -1;
        if (ct >= 0 && ck >= 0 && cg >= 0 && cb >= 0 && cd >= 0 && cw >= 0 &&
            cc >= 0 && cm >= 0)
            for (int i = 1; lines[i]; i++) {
                g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
                if ((int)g_strv_length(f) <= MAX(cm, MAX(cc, cw)) ||
                    strcmp(f[ct], "kernel"))
                    continue;
                char *key =
                    config_key(f[ck], (uint32_t)atoi(f[cg]),
                               (uint32_t)atoi(f[cb]), (uint32_t)atoi(f[cd]),
                               strtod(f[cw], NULL), (uint32_t)atoi(f[cc]));
                g_hash_table_replace(
                    solos, key,
                    GSIZE_TO_POINTER((gsize)strtoull(f[cm], NULL, 10)));
            }
    }
    g_autoptr(GHashTable) refs =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    const cJSON *e;
    cJSON_ArrayForEach(e, exps)
    {
        const cJSON *ref =
            cJSON_GetObjectItemCaseSensitive(e, "solo_reference");
        if (cJSON_IsString(ref)) {
            g_autofree char *first = g_strdup(ref->valuestring);
            char *sp = strpbrk(first, " \t");
            if (sp)
                *sp = 0;
            if (!g_hash_table_contains(refs, first))
                g_hash_table_add(refs, g_strdup(first));
        }
    }
    cJSON_ArrayForEach(e, exps)
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
        const cJSON *procs = cJSON_GetObjectItemCaseSensitive(e, "processes");
        const cJSON *ops = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(e, "files"), "ops");
        if (!cJSON_IsString(id) || !cJSON_IsString(ops) ||
            cJSON_GetArraySize(procs) != 1 ||
            !g_hash_table_contains(refs, id->valuestring))
            continue;
        g_autofree char *path = g_build_filename(dir, ops->valuestring, NULL);
        g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(Row));
        if (!load_rows(path, rows, error)) {
            g_hash_table_destroy(solos);
            return NULL;
        }
        /* median measured duration per configuration */
        g_autoptr(GHashTable) durs = g_hash_table_new_full(
            g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
        for (guint i = 0; i < rows->len; i++) {
            const Row *r = &g_array_index(rows, Row, i);
            if (strcmp(r->type, "kernel"))
                continue;
            char *key = config_key(r->kind, r->grid, r->block, r->dyn_smem,
                                   r->work, r->chains);
            GArray *a = g_hash_table_lookup(durs, key);
            if (!a) {
                a = g_array_new(FALSE, FALSE, sizeof(double));
                g_hash_table_insert(durs, g_strdup(key), a);
            }
            double d = (double)(r->end - r->start);
            g_array_append_val(a, d);
            g_free(key);
        }
        GHashTableIter it;
        gpointer k, v;
        g_hash_table_iter_init(&it, durs);
        while (g_hash_table_iter_next(&it, &k, &v))
            if (!g_hash_table_contains(solos, k))
                g_hash_table_insert(
                    solos, g_strdup(k),
                    GSIZE_TO_POINTER((gsize)llround(median(v))));
    }
    return solos;
}

typedef cJSON CJsonOwned;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CJsonOwned, cJSON_Delete)

/* The experiments of @doc (manifest.json) and of the manifests it lists in
 * "include" (paths relative to @dir; a campaign part added later keeps its
 * own file, so no manifest grows past 1 MB), as one new array. */
static cJSON *all_experiments(const char *dir, const SimJsonDoc *doc,
                              GError **error)
{
    const cJSON *exps =
        cJSON_GetObjectItemCaseSensitive(doc->root, "experiments");
    if (!cJSON_IsArray(exps)) {
        sim_json_fail(doc, doc->root, error, "missing array 'experiments'");
        return NULL;
    }
    cJSON *all = cJSON_Duplicate(exps, true);
    const cJSON *inc = cJSON_GetObjectItemCaseSensitive(doc->root, "include");
    const cJSON *it;
    cJSON_ArrayForEach(it, inc)
    {
        if (!cJSON_IsString(it)) {
            sim_json_fail(doc, it, error, "'include': not a file name");
            cJSON_Delete(all);
            return NULL;
        }
        g_autofree char *path = g_build_filename(dir, it->valuestring, NULL);
        g_autoptr(SimJsonDoc) sub = sim_json_doc_load(path, error);
        const cJSON *more =
            sub ? cJSON_GetObjectItemCaseSensitive(sub->root, "experiments")
                : NULL;
        if (sub && !cJSON_IsArray(more))
            sim_json_fail(sub, sub->root, error, "missing array 'experiments'");
        if (!cJSON_IsArray(more)) {
            cJSON_Delete(all);
            return NULL;
        }
        const cJSON *e;
        cJSON_ArrayForEach(e, more)
            cJSON_AddItemToArray(all, cJSON_Duplicate(e, true));
    }
    return all;
}

GPtrArray *sim_validate(const char *dir, const GpuModel *m, const char *filter,
                        bool measured_blocks, GError **error)
{
    return sim_validate_sampled(dir, m, filter, measured_blocks, 0, error);
}

GPtrArray *sim_validate_sampled(const char *dir, const GpuModel *m,
                                const char *filter, bool measured_blocks,
                                uint32_t sm_sample, GError **error)
{
    g_autofree char *mpath = g_build_filename(dir, "manifest.json", NULL);
    g_autoptr(SimJsonDoc) doc = sim_json_doc_load(mpath, error);
    if (!doc)
        return NULL;
    g_autoptr(CJsonOwned) all = all_experiments(dir, doc, error);
    if (!all)
        return NULL;
    const cJSON *exps = all;
    /* calibration.txt: one experiment id per line, '#' comments; a line
     * "!ID reason" excludes an experiment from the replay, with the
     * reason shown in the report. */
    g_autoptr(GHashTable) calib =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) excluded =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_autofree char *cpath = g_build_filename(dir, "calibration.txt", NULL);
    g_autofree char *ctext = NULL;
    if (g_file_get_contents(cpath, &ctext, NULL, NULL)) {
        g_auto(GStrv) lines = g_strsplit(ctext, "\n", -1);
        for (int i = 0; lines[i]; i++) {
            char *line = lines[i];
            if (line[0] == '!') {
                char *sp = strpbrk(line + 1, " \t");
                if (sp) {
                    *sp++ = 0;
                    g_hash_table_insert(excluded, g_strdup(line + 1),
                                        g_strdup(g_strstrip(sp)));
                }
                continue;
            }
            char *hash = strchr(line, '#');
            if (hash)
                *hash = 0;
            g_strstrip(line);
            if (*line)
                g_hash_table_add(calib, g_strdup(line));
        }
    }
    g_autoptr(GHashTable) solos = load_solos(dir, exps, error);
    if (!solos)
        return NULL;
    g_autoptr(GRegex) re = NULL;
    if (filter) {
        GError *rerr = NULL;
        re = g_regex_new(filter, 0, 0, &rerr);
        if (!re) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--filter: %s",
                        rerr->message);
            g_error_free(rerr);
            return NULL;
        }
    }
    GPtrArray *rows =
        g_ptr_array_new_with_free_func((GDestroyNotify)sim_val_row_free);
    const cJSON *e;
    cJSON_ArrayForEach(e, exps)
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
        if (!cJSON_IsString(id))
            continue;
        if (re && !g_regex_match(re, id->valuestring, 0, NULL))
            continue;
        SimValRow *r = replay(dir, e, m, calib, excluded, solos,
                              measured_blocks, sm_sample, error);
        if (!r) {
            g_ptr_array_free(rows, TRUE);
            return NULL;
        }
        g_ptr_array_add(rows, r);
    }
    return rows;
}

/* @cat is @want, or @want ends in '/' and @cat is one of its children. */
static bool in_category(const char *cat, const char *want)
{
    size_t n = strlen(want);
    return n && want[n - 1] == '/' ? !strncmp(cat, want, n)
                                   : !strcmp(cat, want);
}

SimValSummary sim_validate_summary(GPtrArray *rows, bool calibration)
{
    return sim_validate_summary_of(rows, calibration, NULL);
}

SimValSummary sim_validate_summary_of(GPtrArray *rows, bool calibration,
                                      const char *category)
{
    SimValSummary s;
    memset(&s, 0, sizeof s);
    g_autoptr(GArray) abs_err = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) end_err = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint i = 0; i < rows->len; i++) {
        const SimValRow *r = g_ptr_array_index(rows, i);
        if (r->skipped || r->calibration != calibration ||
            (category && !in_category(r->category, category)))
            continue;
        double a = fabs(r->err);
        s.within10 += a <= 0.10;
        s.ends += r->ends;
        s.ends_within10 += r->ends_within10;
        g_array_append_val(abs_err, a);
        g_array_append_val(end_err, r->end_err);
        s.n++;
        s.over5 += a > 0.05;
        s.over15 += a > 0.15;
        s.max_abs_err = MAX(s.max_abs_err, a);
    }
    s.median_abs_err = s.n ? median(abs_err) : NAN;
    s.median_end_err = s.n ? median(end_err) : NAN;
    return s;
}
