/* nsys_sqlite.c -- the Nsight Systems SQLite export (trace-formats.md
 * §2.6), both the 2.x schema (EXPORT_META_DATA, enums only in comments) and
 * the 3.x one (META_DATA_EXPORT, ENUM_* tables, greenContextId).
 *
 * What is read:
 *   CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET  GPU work (ns since the
 *       session start, which TARGET_INFO_SESSION_START_TIME puts on the UTC
 *       clock so that several exports line up);
 *   CUPTI_ACTIVITY_KIND_RUNTIME   the API call of each op (by process and
 *       correlation id): host timing, and which calls block (cudaMemcpy,
 *       cudaDeviceSynchronize...);
 *   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, _CUDA_EVENT   syncs and the event
 *       records they wait for;
 *   TARGET_INFO_CUDA_STREAM   every stream of every process with its
 *       priority; PROCESSES   names; TARGET_INFO_GPU   the GPU.
 * The numeric enums are decoded with the values of the 3.x ENUM_* tables,
 * which 2.x files lack (copyKind 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP...;
 * memory kind 0 Pageable, 1 Pinned...).  Process id = (globalPid >> 24) &
 * 0xFFFFFF.
 */
#include <sqlite3.h>
#include <string.h>

#include "error.h"
#include "json.h"
#include "trace.h"

#define T_KERNEL "CUPTI_ACTIVITY_KIND_KERNEL"
#define T_MEMCPY "CUPTI_ACTIVITY_KIND_MEMCPY"
#define T_MEMSET "CUPTI_ACTIVITY_KIND_MEMSET"
#define T_RUNTIME "CUPTI_ACTIVITY_KIND_RUNTIME"
#define T_SYNC "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
#define T_EVENT "CUPTI_ACTIVITY_KIND_CUDA_EVENT"
#define T_STREAM "TARGET_INFO_CUDA_STREAM"
#define T_MEM "CUDA_GPU_MEMORY_USAGE_EVENTS"

typedef struct {
    int64_t key; /* its key in Db.api */
    int64_t start, end;
    const char *name; /* without the _vNNNN suffix, interned */
    bool synced;      /* a SYNCHRONIZATION row describes it */
} Api;

typedef struct {
    SimTrace *tr;
    sqlite3 *db;
    GHashTable *tables; /* names of the tables present */
    GHashTable *api;    /* (pid << 32 | corr) -> Api* */
    SimSlab apis;       /* the Api records (they hold their keys) */
    GHashTable *pnames; /* pid -> process name (owned strings) */
    int64_t base;       /* added to every time: the UTC session start */
    int gpu_device;     /* device of the first kernel */
    GHashTable *knames; /* kernel name id -> name (interned) */
    GHashTable *anames; /* API name id -> api_name() */
} Db;

static int64_t pid_of(int64_t global_pid)
{
    return (int64_t)(((uint64_t)global_pid >> 24) & 0xFFFFFF);
}

static int64_t api_key(int64_t pid, int64_t corr)
{
    return (int64_t)(((uint64_t)pid << 32) ^ ((uint64_t)corr & 0xFFFFFFFF));
}

/* The table each kind of op comes from: an op's line is its row there
 * (SimTrace.kind_tables).  Syncs known only from their API call have no
 * row (line 0). */
static const char *const kind_tables[SIM_TRACE_N_KINDS] = {
    [SIM_TRACE_KERNEL] = T_KERNEL,    [SIM_TRACE_COPY] = T_MEMCPY,
    [SIM_TRACE_MEMSET] = T_MEMSET,    [SIM_TRACE_EVENT_RECORD] = T_EVENT,
    [SIM_TRACE_EVENT_WAIT] = T_SYNC,  [SIM_TRACE_EVENT_SYNC] = T_SYNC,
    [SIM_TRACE_STREAM_SYNC] = T_SYNC, [SIM_TRACE_DEVICE_SYNC] = T_SYNC,
};

/* The current row's rowid (column 0 of every query here) as an op's line;
 * 0 (unknown) beyond 32 bits. */
static uint32_t row_of(sqlite3_stmt *st)
{
    sqlite3_int64 r = sqlite3_column_int64(st, 0);
    return r > 0 && r <= (sqlite3_int64)UINT32_MAX ? (uint32_t)r : 0;
}

static bool db_fail(const Db *d, const char *table, GError **error)
{
    /* A corrupt file's names can reach the message: keep it UTF-8. */
    g_autofree char *msg = g_utf8_make_valid(sqlite3_errmsg(d->db), -1);
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "%s: table %s: %s",
                d->tr->path, table, msg);
    return false;
}

static bool has_table(const Db *d, const char *t)
{
    return g_hash_table_contains(d->tables, t);
}

/* Every column in @cols (NULL-terminated) exists in @table. */
static bool need_columns(Db *d, const char *table, const char *const *cols,
                         GError **error)
{
    g_autofree char *sql = g_strdup_printf("PRAGMA table_info(%s)", table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, table, error);
    g_autoptr(GHashTable) have =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        g_hash_table_add(have,
                         g_strdup((const char *)sqlite3_column_text(st, 1)));
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, table, error);
    for (const char *const *c = cols; *c; c++)
        if (!g_hash_table_contains(have, *c)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s: table %s: missing column '%s'", d->tr->path, table,
                        *c);
            return false;
        }
    return true;
}

static bool has_column(Db *d, const char *table, const char *col)
{
    const char *cols[] = {col, NULL};
    g_autoptr(GError) e = NULL;
    return need_columns(d, table, cols, &e);
}

/* Column @i's integer; NULL reads as 0 (sqlite3_column_int64), so only
 * a 0 needs the type asked (a second call per column: a sixth of reading
 * a kernel row).  Reading the integer converts nothing in place
 * (sqlite3VdbeIntValue takes the value const), so the type asked after
 * it is the column's own. */
static bool col_null(sqlite3_stmt *st, int i, int64_t *v)
{
    *v = sqlite3_column_int64(st, i);
    return *v == 0 && sqlite3_column_type(st, i) == SQLITE_NULL;
}

static int64_t col_i64(sqlite3_stmt *st, int i, int64_t dflt)
{
    int64_t v;
    return col_null(st, i, &v) ? dflt : v;
}

/* A non-negative integer column that must be present and <= max. */
static bool col_u(Db *d, sqlite3_stmt *st, int i, const char *table,
                  int64_t min, int64_t max, int64_t *out, GError **error)
{
    int64_t v;
    if (col_null(st, i, &v)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: table %s, row %lld: column '%s' is NULL", d->tr->path,
                    table, (long long)sqlite3_column_int64(st, 0),
                    sqlite3_column_name(st, i));
        return false;
    }
    if (v < min || v > max) {
        /* the name only for the message: looking it up costs */
        const char *col = sqlite3_column_name(st, i);
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: table %s, row %lld: column '%s': %lld is out of "
                    "range [%lld, %lld]",
                    d->tr->path, table, (long long)sqlite3_column_int64(st, 0),
                    col, (long long)v, (long long)min, (long long)max);
        return false;
    }
    *out = v;
    return true;
}

/* The process of host @pid, made (named from PROCESSES) at its first op;
 * *index (unless NULL) is its place among the trace's processes (a trace
 * has a few: found by one walk). */
static SimTraceProcess *process_at(Db *d, int64_t pid, uint32_t *index)
{
    GPtrArray *a = d->tr->processes;
    guint i = 0;
    while (i < a->len &&
           ((SimTraceProcess *)g_ptr_array_index(a, i))->pid != pid)
        i++;
    if (index)
        *index = i;
    if (i < a->len)
        return g_ptr_array_index(a, i);
    const char *name = g_hash_table_lookup(d->pnames, &pid);
    g_autofree char *base = name ? g_path_get_basename(name) : g_strdup("pid");
    g_autofree char *full = g_strdup_printf("%s[%lld]", base, (long long)pid);
    return sim_trace_add_process(d->tr, full, pid);
}

static SimTraceProcess *process(Db *d, int64_t pid)
{
    return process_at(d, pid, NULL);
}

/* Attach the API call of (pid, corr) to @op. */
static const Api *link_api(Db *d, SimTraceOp *op, int64_t pid, int64_t corr)
{
    int64_t key = api_key(pid, corr);
    const Api *a = g_hash_table_lookup(d->api, &key);
    if (a) {
        op->api_start_ns = a->start + d->base;
        op->api_end_ns = a->end + d->base;
        /* A graph's nodes carry the launch call's correlation id. */
        op->in_graph = sim_trace_api_graph_launch(a->name);
        op->graph = key;
    }
    return a;
}

/* "cudaMemcpy_v3020" -> "cudaMemcpy" (interned). */
static const char *api_name(Db *d, const char *s)
{
    g_autofree char *n = g_strdup(s ? s : "");
    char *v = strstr(n, "_v");
    if (v && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2))
        *v = '\0';
    return sim_trace_intern(d->tr, n);
}

/* A kernel's name: its text, "kernel" if it has none (interned). */
static const char *kernel_name(Db *d, const char *s)
{
    return sim_trace_intern(d->tr, s && *s ? s : "kernel");
}

/* The name of the current row of @st, whose column @text_col is a
 * StringIds text joined on the id in column @text_col + 1: @make(text),
 * made once per integer id and kept in @memo (the join gives one id one
 * text; a trace repeats a few hundred names, some of them long). */
static const char *name_by_id(Db *d, GHashTable *memo, sqlite3_stmt *st,
                              int text_col,
                              const char *(*make)(Db *, const char *))
{
    bool by_id = sqlite3_column_type(st, text_col + 1) == SQLITE_INTEGER;
    int64_t id = sqlite3_column_int64(st, text_col + 1);
    const char *n = by_id ? g_hash_table_lookup(memo, &id) : NULL;
    if (n)
        return n;
    n = make(d, (const char *)sqlite3_column_text(st, text_col));
    if (by_id)
        g_hash_table_insert(memo, g_memdup2(&id, sizeof id), (gpointer)n);
    return n;
}

/* ------------------------------------------------------------------------
 * Tables
 * ------------------------------------------------------------------------ */

static bool read_meta(Db *d, GError **error)
{
    (void)error;
    if (has_table(d, "TARGET_INFO_SESSION_START_TIME")) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(d->db,
                               "SELECT utcEpochNs FROM "
                               "TARGET_INFO_SESSION_START_TIME",
                               -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW &&
            sqlite3_column_type(st, 0) != SQLITE_NULL) {
            int64_t base = sqlite3_column_int64(st, 0);
            if (base > 0 && base <= SIM_TRACE_MAX_TIME) {
                d->base = base;
                d->tr->absolute = true;
            }
        }
        sqlite3_finalize(st);
    }
    const char *meta = has_table(d, "META_DATA_EXPORT")   ? "META_DATA_EXPORT"
                       : has_table(d, "EXPORT_META_DATA") ? "EXPORT_META_DATA"
                                                          : NULL;
    if (meta) {
        g_autofree char *sql = g_strdup_printf(
            "SELECT value FROM %s WHERE name = 'EXPORT_SCHEMA_VERSION'", meta);
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            sim_trace_note(d->tr, "%s: Nsight Systems export schema %s",
                           d->tr->path,
                           (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    if (has_table(d, "PROCESSES")) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(d->db, "SELECT pid, name FROM PROCESSES", -1,
                               &st, NULL) == SQLITE_OK) {
            while (sqlite3_step(st) == SQLITE_ROW) {
                int64_t pid = sqlite3_column_int64(st, 0);
                const char *name = (const char *)sqlite3_column_text(st, 1);
                if (name)
                    g_hash_table_replace(d->pnames, g_memdup2(&pid, sizeof pid),
                                         g_strdup(name));
            }
        }
        sqlite3_finalize(st);
    }
    return true;
}

static bool read_gpu(Db *d)
{
    if (!has_table(d, "TARGET_INFO_GPU") ||
        !has_column(d, "TARGET_INFO_GPU", "name") ||
        !has_column(d, "TARGET_INFO_GPU", "id"))
        return true;
    bool cc = has_column(d, "TARGET_INFO_GPU", "computeMajor") &&
              has_column(d, "TARGET_INFO_GPU", "computeMinor");
    g_autofree char *sql = g_strdup_printf(
        "SELECT name%s FROM TARGET_INFO_GPU WHERE id = %d",
        cc ? ", computeMajor, computeMinor" : "", d->gpu_device);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (name)
            d->tr->gpu_name = g_strdup(name);
        if (cc) {
            d->tr->cc_major = sqlite3_column_int(st, 1);
            d->tr->cc_minor = sqlite3_column_int(st, 2);
        }
    }
    sqlite3_finalize(st);
    return true;
}

static bool read_runtime(Db *d, GError **error)
{
    if (!has_table(d, T_RUNTIME) || !has_table(d, "StringIds"))
        return true;
    static const char *const cols[] = {"start",         "end",    "globalTid",
                                       "correlationId", "nameId", NULL};
    if (!need_columns(d, T_RUNTIME, cols, error))
        return false;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "SELECT r.rowid, r.start, r.end, r.globalTid, "
                           "r.correlationId, s.value, r.nameId FROM " T_RUNTIME
                           " r LEFT JOIN StringIds s ON s.id = r.nameId",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, T_RUNTIME, error);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 4) == SQLITE_NULL)
            continue;
        int64_t start, end;
        if (!col_u(d, st, 1, T_RUNTIME, 0, SIM_TRACE_MAX_TIME, &start, error) ||
            !col_u(d, st, 2, T_RUNTIME, 0, SIM_TRACE_MAX_TIME, &end, error)) {
            sqlite3_finalize(st);
            return false;
        }
        int64_t pid = pid_of(col_i64(st, 3, 0));
        int64_t key = api_key(pid, sqlite3_column_int64(st, 4));
        if (end < start) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s: table " T_RUNTIME ", row %lld: 'end' is before "
                        "'start'",
                        d->tr->path, (long long)sqlite3_column_int64(st, 0));
            sqlite3_finalize(st);
            return false;
        }
        Api *a = g_hash_table_lookup(d->api, &key);
        if (a) {
            /* Some exports hold a call twice (runtime and CUPTI callback
             * rows with one correlation id): the outer one counts. */
            a->start = MIN(a->start, start);
            a->end = MAX(a->end, end);
            continue;
        }
        a = sim_slab_new0(&d->apis);
        a->key = key;
        a->start = start;
        a->end = end;
        a->name = name_by_id(d, d->anames, st, 5, api_name);
        g_hash_table_insert(d->api, &a->key, a);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, T_RUNTIME, error);
    return true;
}

/* The kernels' query, without its order (kernel_row reads its columns;
 * the last one, the name's id, only name_by_id). */
#define KERNEL_SQL                                                             \
    "SELECT k.rowid, k.start, k.end, k.deviceId, k.streamId, "                 \
    "k.correlationId, k.globalPid, k.gridX, k.gridY, k.gridZ, k.blockX, "      \
    "k.blockY, k.blockZ, k.registersPerThread, k.staticSharedMemory, "         \
    "k.dynamicSharedMemory, s.value, k.demangledName FROM " T_KERNEL           \
    " k LEFT JOIN StringIds s ON s.id = k.demangledName"

/* Where a kernel went: its start (table time), process (index in the
 * trace) and place among the process's ops. */
typedef struct {
    int64_t start;
    uint32_t seq; /* its row's place in the query's order */
    uint32_t proc, pos;
} KernelAt;

/* The kernel of the current row of a KERNEL_SQL query, checked, as an op
 * of its process (@at says where) from device @device. */
static bool kernel_row(Db *d, sqlite3_stmt *st, KernelAt *at, int *device,
                       GError **error)
{
    int64_t v[16];
    static const int64_t lo[16] = {0, 0, 0, 0, 0, 0, 0, 1,
                                   1, 1, 1, 1, 1, 0, 0, 0};
    static const int64_t hi[16] = {INT64_MAX,
                                   SIM_TRACE_MAX_TIME,
                                   SIM_TRACE_MAX_TIME,
                                   4096,
                                   INT64_MAX,
                                   INT64_MAX,
                                   INT64_MAX,
                                   INT32_MAX,
                                   65535,
                                   65535,
                                   1024,
                                   1024,
                                   64,
                                   255,
                                   UINT32_MAX,
                                   UINT32_MAX};
    for (int i = 1; i <= 15; i++) {
        if (i == 5 || i == 6) { /* correlationId, globalPid: nullable */
            v[i] = col_i64(st, i, -1);
            continue;
        }
        if (!col_u(d, st, i, T_KERNEL, lo[i], hi[i], &v[i], error))
            return false;
    }
    if (v[2] < v[1]) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: table " T_KERNEL ", row %lld: 'end' is before "
                    "'start'",
                    d->tr->path, (long long)sqlite3_column_int64(st, 0));
        return false;
    }
    *device = (int)v[3];
    int64_t pid = v[6] >= 0 ? pid_of(v[6]) : -1;
    SimTraceProcess *p = process_at(d, pid, &at->proc);
    at->start = v[1];
    at->pos = p->ops->len;
    SimTraceOp *op = sim_trace_add_op(p, SIM_TRACE_KERNEL, row_of(st));
    op->start_ns = v[1] + d->base;
    op->end_ns = v[2] + d->base;
    op->stream = v[4];
    SimTraceKernel *k = &op->u.kernel;
    for (int i = 0; i < 3; i++) {
        k->grid[i] = (uint32_t)v[7 + i];
        k->block[i] = (uint32_t)v[10 + i];
    }
    k->regs_per_thread = (uint32_t)v[13];
    k->static_smem_bytes = (uint32_t)v[14];
    k->dynamic_smem_bytes = (uint32_t)v[15];
    k->name = name_by_id(d, d->knames, st, 16, kernel_name);
    if (v[5] >= 0)
        link_api(d, op, pid, v[5]);
    return true;
}

static int cmp_kernel_at(const void *a, const void *b)
{
    const KernelAt *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Put @ops in the order @from gives (from[k]: where the op to be k-th is
 * now), in place, one cycle of the permutation at a time. */
static void permute_ops(GArray *ops, const uint32_t *from)
{
    g_autofree bool *done = g_new0(bool, ops->len ? ops->len : 1);
    for (uint32_t i = 0; i < ops->len; i++) {
        if (done[i] || from[i] == i)
            continue;
        SimTraceOp tmp = g_array_index(ops, SimTraceOp, i);
        uint32_t j = i;
        for (;;) {
            done[j] = true;
            uint32_t k = from[j];
            if (k == i) {
                g_array_index(ops, SimTraceOp, j) = tmp;
                break;
            }
            g_array_index(ops, SimTraceOp, j) =
                g_array_index(ops, SimTraceOp, k);
            j = k;
        }
    }
}

/* Kernels read as "ORDER BY k.start" reads them, without SQLite sorting
 * the whole table (an eighth of importing 10^6 kernels): in the query's
 * own order, then each process's kernels, the processes (made at their
 * first kernel) and the device of the first kernel put in start order,
 * ties in the query's order.  That is SQLite's order: its sorter
 * (vdbesort.c) is a merge sort that keeps rows of equal keys in the order
 * they came (in memory: a merge takes the earlier row on a tie; on disk:
 * the earlier run).  At any error (the one to report is the first in start
 * order) nothing is kept and false tells the caller to read the table
 * sorted. */
static bool force_sorted; /* tests: read the kernels sorted by SQLite */

void sim_nsys_sqlite_force_sorted(bool on)
{
    force_sorted = on;
}

/* The kernels, in the query's own order, into @at (where each went) and
 * the processes; *device: that of the first to start.  False at any error
 * (the caller drops what was read). */
static bool kernel_rows(Db *d, GArray *at, int *device)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, KERNEL_SQL, -1, &st, NULL) != SQLITE_OK)
        return false;
    int rc;
    int64_t first = INT64_MAX;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        GError *err = NULL;
        KernelAt k;
        int dev;
        if (!kernel_row(d, st, &k, &dev, &err)) {
            g_error_free(err);
            break;
        }
        if (k.start < first) {
            first = k.start;
            *device = dev;
        }
        k.seq = at->len;
        g_array_append_val(at, k);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE;
}

/* The processes put in the order of their first kernel in @at (start
 * order), and each one's kernels in that order. */
static void kernels_in_order(SimTrace *tr, const GArray *at)
{
    guint n_proc = tr->processes->len;
    g_autofree gpointer *procs = g_new(gpointer, n_proc ? n_proc : 1);
    g_autofree uint32_t *next = g_new0(uint32_t, n_proc ? n_proc : 1);
    g_autofree bool *placed = g_new0(bool, n_proc ? n_proc : 1);
    g_autoptr(GPtrArray) from = g_ptr_array_new_with_free_func(g_free);
    guint n_placed = 0;
    for (guint i = 0; i < n_proc; i++) {
        const SimTraceProcess *p = g_ptr_array_index(tr->processes, i);
        g_ptr_array_add(from, g_new(uint32_t, p->ops->len ? p->ops->len : 1));
    }
    for (guint i = 0; i < at->len; i++) {
        const KernelAt *k = &g_array_index(at, KernelAt, i);
        if (!placed[k->proc]) {
            placed[k->proc] = true;
            procs[n_placed++] = g_ptr_array_index(tr->processes, k->proc);
        }
        uint32_t *f = g_ptr_array_index(from, k->proc);
        f[next[k->proc]++] = k->pos;
    }
    for (guint i = 0; i < n_proc; i++)
        permute_ops(
            ((SimTraceProcess *)g_ptr_array_index(tr->processes, i))->ops,
            g_ptr_array_index(from, i));
    if (n_proc) /* pdata is NULL without processes */
        memcpy(tr->processes->pdata, procs, n_proc * sizeof(gpointer));
}

static bool kernels_by_row(Db *d)
{
    SimTrace *tr = d->tr;
    if (force_sorted)
        return false;
    g_assert(tr->processes->len == 0); /* kernels are read first */
    g_autoptr(GArray) at = g_array_new(FALSE, FALSE, sizeof(KernelAt));
    int device = 0;
    if (!kernel_rows(d, at, &device)) {
        g_ptr_array_set_size(tr->processes, 0);
        return false;
    }
    if (at->len > 1)
        qsort(at->data, at->len, sizeof(KernelAt), cmp_kernel_at);
    if (at->len)
        d->gpu_device = device;
    kernels_in_order(tr, at);
    return true;
}

static bool read_kernels(Db *d, GError **error)
{
    if (!has_table(d, T_KERNEL)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: table " T_KERNEL " is missing: the report has no "
                    "CUDA kernels (was it captured with --trace=cuda?)",
                    d->tr->path);
        return false;
    }
    if (!has_table(d, "StringIds")) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: table StringIds is missing: kernel names cannot be "
                    "read",
                    d->tr->path);
        return false;
    }
    static const char *const cols[] = {"start",
                                       "end",
                                       "deviceId",
                                       "streamId",
                                       "correlationId",
                                       "globalPid",
                                       "gridX",
                                       "gridY",
                                       "gridZ",
                                       "blockX",
                                       "blockY",
                                       "blockZ",
                                       "registersPerThread",
                                       "staticSharedMemory",
                                       "dynamicSharedMemory",
                                       "demangledName",
                                       NULL};
    if (!need_columns(d, T_KERNEL, cols, error))
        return false;
    if (kernels_by_row(d))
        return true;
    g_autofree char *sql = g_strconcat(KERNEL_SQL, " ORDER BY k.start", NULL);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, T_KERNEL, error);
    int rc;
    bool first = true;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        KernelAt k;
        int device;
        if (!kernel_row(d, st, &k, &device, error)) {
            sqlite3_finalize(st);
            return false;
        }
        if (first) {
            d->gpu_device = device;
            first = false;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, T_KERNEL, error);
    return true;
}

/* copyKind, numbered as ENUM_CUDA_MEMCPY_OPER. */
static bool copy_kind(int64_t k, SimCopyDir *d)
{
    switch (k) {
    case 1: /* HtoD */
    case 3: /* HtoA */
    case 11: /* Unified HtoD */ *d = SIM_COPY_H2D; return true;
    case 2: /* DtoH */
    case 4: /* AtoH */
    case 12: /* Unified DtoH */ *d = SIM_COPY_D2H; return true;
    case 5:  /* AtoA */
    case 6:  /* AtoD */
    case 7:  /* DtoA */
    case 8:  /* DtoD */
    case 10: /* PtoP */
    case 13: /* Unified DtoD */ *d = SIM_COPY_D2D; return true;
    default: /* 0 unknown, 9 HtoH */ return false;
    }
}

static bool read_memcpy(Db *d, GError **error)
{
    if (!has_table(d, T_MEMCPY))
        return true;
    static const char *const cols[] = {
        "start", "end",      "streamId", "correlationId", "globalPid",
        "bytes", "copyKind", "srcKind",  "dstKind",       NULL};
    if (!need_columns(d, T_MEMCPY, cols, error))
        return false;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "SELECT rowid, start, end, streamId, "
                           "correlationId, globalPid, bytes, copyKind, "
                           "srcKind, dstKind FROM " T_MEMCPY,
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, T_MEMCPY, error);
    int rc;
    uint64_t skipped = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t start, end, stream, bytes, kind;
        if (!col_u(d, st, 1, T_MEMCPY, 0, SIM_TRACE_MAX_TIME, &start, error) ||
            !col_u(d, st, 2, T_MEMCPY, start, SIM_TRACE_MAX_TIME, &end,
                   error) ||
            !col_u(d, st, 3, T_MEMCPY, 0, INT64_MAX, &stream, error) ||
            !col_u(d, st, 6, T_MEMCPY, 0, (int64_t)1 << 50, &bytes, error) ||
            !col_u(d, st, 7, T_MEMCPY, 0, 1000, &kind, error)) {
            sqlite3_finalize(st);
            return false;
        }
        SimCopyDir dir;
        if (!copy_kind(kind, &dir)) {
            skipped++;
            continue;
        }
        int64_t gp = col_i64(st, 5, -1);
        int64_t pid = gp >= 0 ? pid_of(gp) : -1;
        SimTraceOp *op =
            sim_trace_add_op(process(d, pid), SIM_TRACE_COPY, row_of(st));
        op->start_ns = start + d->base;
        op->end_ns = end + d->base;
        op->stream = stream;
        op->u.copy.dir = dir;
        op->u.copy.bytes = (uint64_t)bytes;
        int64_t host = dir == SIM_COPY_H2D   ? col_i64(st, 8, -1)
                       : dir == SIM_COPY_D2H ? col_i64(st, 9, -1)
                                             : -1;
        op->u.copy.pinned = host != 0; /* 0: Pageable */
        int64_t corr = col_i64(st, 4, -1);
        if (corr >= 0) {
            const Api *a = link_api(d, op, pid, corr);
            op->api_blocks = a && sim_trace_api_blocks(a->name);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, T_MEMCPY, error);
    if (skipped) {
        d->tr->n_skipped += skipped;
        sim_trace_note(d->tr,
                       "%s: %llu host-to-host or unknown copies "
                       "skipped",
                       d->tr->path, (unsigned long long)skipped);
    }
    return true;
}

static bool read_memset(Db *d, GError **error)
{
    if (!has_table(d, T_MEMSET))
        return true;
    static const char *const cols[] = {
        "start",     "end",   "streamId", "correlationId",
        "globalPid", "bytes", NULL};
    if (!need_columns(d, T_MEMSET, cols, error))
        return false;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "SELECT rowid, start, end, streamId, "
                           "correlationId, globalPid, bytes FROM " T_MEMSET,
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, T_MEMSET, error);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t start, end, stream, bytes;
        if (!col_u(d, st, 1, T_MEMSET, 0, SIM_TRACE_MAX_TIME, &start, error) ||
            !col_u(d, st, 2, T_MEMSET, start, SIM_TRACE_MAX_TIME, &end,
                   error) ||
            !col_u(d, st, 3, T_MEMSET, 0, INT64_MAX, &stream, error) ||
            !col_u(d, st, 6, T_MEMSET, 0, (int64_t)1 << 50, &bytes, error)) {
            sqlite3_finalize(st);
            return false;
        }
        int64_t gp = col_i64(st, 5, -1);
        int64_t pid = gp >= 0 ? pid_of(gp) : -1;
        SimTraceOp *op =
            sim_trace_add_op(process(d, pid), SIM_TRACE_MEMSET, row_of(st));
        op->start_ns = start + d->base;
        op->end_ns = end + d->base;
        op->stream = stream;
        op->u.memset_bytes = (uint64_t)bytes;
        int64_t corr = col_i64(st, 4, -1);
        if (corr >= 0)
            link_api(d, op, pid, corr);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, T_MEMSET, error);
    return true;
}

static bool read_syncs(Db *d, GError **error)
{
    if (has_table(d, T_SYNC)) {
        static const char *const cols[] = {
            "start",     "end",      "streamId", "correlationId",
            "globalPid", "syncType", "eventId",  NULL};
        if (!need_columns(d, T_SYNC, cols, error))
            return false;
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(d->db,
                               "SELECT rowid, start, end, streamId, "
                               "correlationId, globalPid, syncType, eventId "
                               "FROM " T_SYNC,
                               -1, &st, NULL) != SQLITE_OK)
            return db_fail(d, T_SYNC, error);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t pid = pid_of(col_i64(st, 5, 0));
            int64_t corr = col_i64(st, 4, -1);
            int64_t key = api_key(pid, corr);
            Api *a = corr >= 0 ? g_hash_table_lookup(d->api, &key) : NULL;
            int kind = a ? sim_trace_sync_kind_of_api(a->name) : -1;
            if (a && kind < 0 && (strstr(a->name, "Query")))
                continue; /* cudaEventQuery/cudaStreamQuery: no wait */
            if (kind < 0) {
                /* CUpti_ActivitySynchronizationType */
                switch (col_i64(st, 6, 0)) {
                case 1: kind = SIM_TRACE_EVENT_SYNC; break;
                case 2: kind = SIM_TRACE_EVENT_WAIT; break;
                case 3: kind = SIM_TRACE_STREAM_SYNC; break;
                case 4: kind = SIM_TRACE_DEVICE_SYNC; break;
                default: continue;
                }
            }
            if (a)
                a->synced = true;
            int64_t stream = col_i64(st, 3, -1);
            int64_t event = col_i64(st, 7, -1);
            if (stream == 0xFFFFFFFF)
                stream = SIM_TRACE_NO_ID;
            if (event == 0xFFFFFFFF)
                event = SIM_TRACE_NO_ID;
            SimTraceOp *op = sim_trace_add_op(process(d, pid),
                                              (SimTraceKind)kind, row_of(st));
            op->stream =
                kind == SIM_TRACE_EVENT_SYNC || kind == SIM_TRACE_DEVICE_SYNC
                    ? SIM_TRACE_NO_ID
                    : stream;
            op->event = event;
            if (a) {
                op->api_start_ns = a->start + d->base;
                op->api_end_ns = a->end + d->base;
            } else {
                int64_t s0, s1;
                if (!col_u(d, st, 1, T_SYNC, 0, SIM_TRACE_MAX_TIME, &s0,
                           error) ||
                    !col_u(d, st, 2, T_SYNC, s0, SIM_TRACE_MAX_TIME, &s1,
                           error)) {
                    sqlite3_finalize(st);
                    return false;
                }
                op->api_start_ns = s0 + d->base;
                op->api_end_ns = s1 + d->base;
            }
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return db_fail(d, T_SYNC, error);
    }
    /* Host syncs that have no SYNCHRONIZATION row (older captures): from
     * the API name alone.  Stream and event are then unknown. */
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, d->api);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        Api *a = v;
        int kind = sim_trace_sync_kind_of_api(a->name);
        if (a->synced ||
            (kind != SIM_TRACE_DEVICE_SYNC && kind != SIM_TRACE_STREAM_SYNC))
            continue;
        int64_t pid = (int64_t)((uint64_t) * (int64_t *)k >> 32);
        SimTraceProcess *p = sim_trace_find_process(d->tr, pid);
        if (!p)
            continue; /* a process without GPU work */
        SimTraceOp *op = sim_trace_add_op(p, (SimTraceKind)kind, 0);
        op->api_start_ns = a->start + d->base;
        op->api_end_ns = a->end + d->base;
    }
    return true;
}

static bool read_event_records(Db *d, GError **error)
{
    if (!has_table(d, T_EVENT))
        return true;
    static const char *const cols[] = {"streamId", "correlationId", "globalPid",
                                       "eventId", NULL};
    if (!need_columns(d, T_EVENT, cols, error))
        return false;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "SELECT rowid, streamId, correlationId, "
                           "globalPid, eventId FROM " T_EVENT,
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, T_EVENT, error);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t pid = pid_of(col_i64(st, 3, 0));
        int64_t corr = col_i64(st, 2, -1);
        int64_t key = api_key(pid, corr);
        const Api *a = g_hash_table_lookup(d->api, &key);
        SimTraceProcess *p = sim_trace_find_process(d->tr, pid);
        if (!a || !p)
            continue; /* no host time, or no GPU work in that process */
        SimTraceOp *op =
            sim_trace_add_op(p, SIM_TRACE_EVENT_RECORD, row_of(st));
        op->stream = col_i64(st, 1, 0);
        op->event = col_i64(st, 4, 0);
        op->api_start_ns = a->start + d->base;
        op->api_end_ns = a->end + d->base;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, T_EVENT, error);
    return true;
}

/* Streams in creation order (CUPTI numbers streams as they are created)
 * with their priorities, for the processes that have GPU work. */
static bool read_streams(Db *d, GError **error)
{
    if (!has_table(d, T_STREAM))
        return true;
    static const char *const cols[] = {"streamId", "processId", "priority",
                                       NULL};
    if (!need_columns(d, T_STREAM, cols, error))
        return false;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "SELECT streamId, processId, priority FROM " T_STREAM
                           " ORDER BY processId, streamId",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, T_STREAM, error);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        SimTraceProcess *p =
            sim_trace_find_process(d->tr, sqlite3_column_int64(st, 1));
        if (!p)
            continue;
        SimTraceStream s;
        s.id = sqlite3_column_int64(st, 0);
        /* Stored as unsigned 32-bit: 4294967291 is -5. */
        s.priority = (int)(int32_t)(uint32_t)sqlite3_column_int64(st, 2);
        g_array_append_val(p->streams, s);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, T_STREAM, error);
    return true;
}

/* ------------------------------------------------------------------------
 * Device memory (nsys --cuda-memory-usage=true)
 * ------------------------------------------------------------------------ */

/* ENUM_CUDA_MEM_KIND values that live in device memory: device, array,
 * device static (pageable/pinned host and managed memory do not take
 * device memory for good). */
static bool device_kind(int64_t k)
{
    return k == 2 || k == 3 || k == 5;
}

/* Each process's peak of device memory allocated and not yet freed
 * (memoryOperationType 0 = allocation, 1 = release), on the imported GPU.
 * Without the table, cudaMalloc calls are counted: their sizes are not
 * recorded, so the note says how to get them. */
static bool read_memory(Db *d, GError **error)
{
    if (!has_table(d, T_MEM)) {
        uint64_t mallocs = 0;
        GHashTableIter it;
        gpointer v;
        g_hash_table_iter_init(&it, d->api);
        while (g_hash_table_iter_next(&it, NULL, &v))
            mallocs += ((Api *)v)->name &&
                       g_str_has_prefix(((Api *)v)->name, "cudaMalloc");
        if (mallocs)
            sim_trace_note(d->tr,
                           "%s: %llu cudaMalloc calls, but no " T_MEM
                           " table to give their sizes (record with nsys "
                           "--cuda-memory-usage=true, or give --mem-mib)",
                           d->tr->path, (unsigned long long)mallocs);
        return true;
    }
    static const char *const cols[] = {
        "start", "globalPid", "bytes", "memKind", "memoryOperationType", NULL};
    if (!need_columns(d, T_MEM, cols, error))
        return false;
    bool by_dev = has_column(d, T_MEM, "deviceId");
    g_autofree char *sql = g_strdup_printf(
        "SELECT rowid, globalPid, bytes, memKind, memoryOperationType "
        "FROM " T_MEM "%s ORDER BY start, rowid",
        by_dev ? " WHERE deviceId = ?" : "");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, T_MEM, error);
    if (by_dev)
        sqlite3_bind_int(st, 1, d->gpu_device);
    g_autoptr(GHashTable) now =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t bytes, kind, op;
        if (!col_u(d, st, 2, T_MEM, 0, (int64_t)1 << 50, &bytes, error) ||
            !col_u(d, st, 3, T_MEM, 0, 255, &kind, error) ||
            !col_u(d, st, 4, T_MEM, 0, 1, &op, error)) {
            sqlite3_finalize(st);
            return false;
        }
        if (!device_kind(kind))
            continue;
        int64_t pid = pid_of(col_i64(st, 1, 0));
        int64_t *held = g_hash_table_lookup(now, &pid);
        if (!held) {
            held = g_new0(int64_t, 2); /* [0] now, [1] peak */
            g_hash_table_insert(now, g_memdup2(&pid, sizeof pid), held);
        }
        held[0] += op == 0 ? bytes : -bytes;
        held[1] = MAX(held[1], held[0]);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, T_MEM, error);
    for (guint i = 0; i < d->tr->processes->len; i++) {
        SimTraceProcess *p = g_ptr_array_index(d->tr->processes, i);
        const int64_t *held = g_hash_table_lookup(now, &p->pid);
        if (held && held[1] > 0) {
            p->mem_bytes = (uint64_t)held[1];
            sim_trace_note(d->tr,
                           "%s: process '%s': device memory %.1f MiB, its "
                           "peak of allocations not yet freed (" T_MEM ")",
                           d->tr->path, p->name, held[1] / 1048576.0);
        }
    }
    return true;
}

bool sim_import_nsys_sqlite(SimTrace *tr, GError **error)
{
    Db d;
    memset(&d, 0, sizeof d);
    d.tr = tr;
    tr->kind_tables = kind_tables;
    /* Range errors name the columns of the row (durations are end -
     * start: no one column). */
    static const char *const named[SIM_COL_N] = {
        [SIM_COL_GRID_X] = "gridX",
        [SIM_COL_GRID_Y] = "gridY",
        [SIM_COL_GRID_Z] = "gridZ",
        [SIM_COL_BLOCK_X] = "blockX",
        [SIM_COL_BLOCK_Y] = "blockY",
        [SIM_COL_BLOCK_Z] = "blockZ",
        [SIM_COL_REGS] = "registersPerThread",
        [SIM_COL_SMEM_STATIC] = "staticSharedMemory",
        [SIM_COL_SMEM_DYNAMIC] = "dynamicSharedMemory",
        [SIM_COL_COPY_BYTES] = "bytes"};
    memcpy(tr->columns, named, sizeof named);
    if (!sim_check_regular_file(tr->path, error))
        return false;
    /* NOMUTEX: this connection is used by this thread alone, so SQLite
     * need not lock it around every step and column read (in the default
     * serialized mode that was a fifth of a large export's import). */
    if (sqlite3_open_v2(tr->path, &d.db,
                        SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        g_autofree char *msg = g_utf8_make_valid(
            d.db ? sqlite3_errmsg(d.db) : "out of memory", -1);
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO,
                    "%s: cannot open the SQLite database: %s", tr->path, msg);
        sqlite3_close(d.db);
        return false;
    }
    d.tables = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    d.api = g_hash_table_new(g_int64_hash, g_int64_equal);
    sim_slab_init(&d.apis, sizeof(Api));
    d.pnames =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    d.knames = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    d.anames = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    bool ok = true;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d.db,
                           "SELECT name FROM sqlite_master WHERE type = "
                           "'table'",
                           -1, &st, NULL) != SQLITE_OK) {
        ok = db_fail(&d, "sqlite_master", error);
    } else {
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            g_hash_table_add(
                d.tables, g_strdup((const char *)sqlite3_column_text(st, 0)));
        if (rc != SQLITE_DONE)
            ok = db_fail(&d, "sqlite_master", error);
    }
    sqlite3_finalize(st);
    ok = ok && read_meta(&d, error) && read_runtime(&d, error) &&
         read_kernels(&d, error) && read_memcpy(&d, error) &&
         read_memset(&d, error) && read_event_records(&d, error) &&
         read_syncs(&d, error) && read_streams(&d, error) && read_gpu(&d) &&
         read_memory(&d, error);
    if (ok && tr->processes->len == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: table " T_KERNEL " has no rows", tr->path);
        ok = false;
    }
    g_hash_table_destroy(d.tables);
    g_hash_table_destroy(d.api);
    sim_slab_clear(&d.apis);
    g_hash_table_destroy(d.pnames);
    g_hash_table_destroy(d.knames);
    g_hash_table_destroy(d.anames);
    sqlite3_close(d.db);
    return ok;
}

/* ------------------------------------------------------------------------
 * Detection
 * ------------------------------------------------------------------------ */

/* An SQLite file: an Nsight Systems export, or something we do not read. */
bool sim_detect_nsys_sqlite_file(const char *path, GError **error)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "SELECT name FROM sqlite_master WHERE "
                                "type = 'table'",
                                -1, &st, NULL);
    bool nsys = false, nvvp = false;
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (!t)
            continue;
        if (!strcmp(t, "StringIds") || !strcmp(t, "META_DATA_EXPORT") ||
            !strcmp(t, "EXPORT_META_DATA") ||
            g_str_has_prefix(t, "TARGET_INFO_"))
            nsys = true;
        if (!strcmp(t, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"))
            nvvp = true;
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE) {
        g_autofree char *msg =
            g_utf8_make_valid(db ? sqlite3_errmsg(db) : "out of memory", -1);
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s: not a readable SQLite database: %s", path, msg);
        sqlite3_finalize(st);
        sqlite3_close(db);
        return false;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (nsys)
        return true;
    if (nvvp)
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s: an nvprof binary profile (-o FILE.nvvp); convert it "
                    "with 'nvprof -i FILE --print-gpu-trace --csv "
                    "--log-file trace.csv'",
                    path);
    else
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s: an SQLite database without Nsight Systems tables "
                    "(StringIds, TARGET_INFO_*)",
                    path);
    return false;
}
