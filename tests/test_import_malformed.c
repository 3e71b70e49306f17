/* test_import_malformed.c -- every importer on bad input: truncated files,
 * missing and extra columns, unknown units, non-UTF-8 bytes, empty files,
 * a ".gz" that is not gzip, corrupt gzip, SQLite files missing tables or
 * columns, JSON without traceEvents...  Each must fail with an error naming
 * the file, the line (or table and row) and the field -- and never crash,
 * which the mutation test below also checks on thousands of damaged
 * variants of the good fixtures (run it under ASan and valgrind).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <zlib.h>

#include "../import/import.h"
#include "../import/trace.h"
#include "error.h"

#define DATA HQSIM_SOURCE_DIR "/tests/data/import/"

/* A scratch directory per test group. */
typedef struct {
    char *dir;
} Tmp;

static int tmp_setup(void **state)
{
    Tmp *t = g_new0(Tmp, 1);
    t->dir = g_dir_make_tmp("hqsim-bad-XXXXXX", NULL);
    assert_non_null(t->dir);
    *state = t;
    return 0;
}

static int tmp_teardown(void **state)
{
    Tmp *t = *state;
    GDir *d = g_dir_open(t->dir, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
        g_autofree char *p = g_build_filename(t->dir, name, NULL);
        g_remove(p);
    }
    if (d)
        g_dir_close(d);
    g_rmdir(t->dir);
    g_free(t->dir);
    g_free(t);
    return 0;
}

/* Importing @path fails; the message names the file and contains every
 * fragment in the NULL-terminated list. */
static void expect_error(const char *path, ...)
{
    char *paths[] = {(char *)path};
    g_autoptr(GError) error = NULL;
    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.launch_latency_ns = 3000;
    SimScenario *sc = sim_workload_load(paths, 1, &opt, &error);
    if (sc) {
        sim_scenario_free(sc);
        fail_msg("%s: imported, but it should fail", path);
    }
    assert_non_null(error);
    if (!strstr(error->message, path))
        fail_msg("the error does not name the file: %s", error->message);
    va_list ap;
    va_start(ap, path);
    for (const char *f = va_arg(ap, const char *); f;
         f = va_arg(ap, const char *))
        if (!strstr(error->message, f)) {
            va_end(ap);
            fail_msg("'%s' not in the error: %s", f, error->message);
        }
    va_end(ap);
}

#define BAD DATA "bad/"

/* ------------------------------------------------------------------------
 * Text formats (fixtures in tests/data/import/bad/)
 * ------------------------------------------------------------------------ */

static void test_nvprof_bad_inputs(void **state)
{
    (void)state;
    expect_error(BAD "nvprof_truncated.csv", ":10:", "'Name'",
                 "unterminated quote", NULL);
    expect_error(BAD "nvprof_missing_column.csv",
                 ":6:", "missing column 'Duration'", NULL);
    expect_error(BAD "nvprof_extra_field.csv",
                 ":10:", "21 fields, but the header has 20", NULL);
    expect_error(BAD "nvprof_bad_unit.csv", ":7:", "column 'Start'",
                 "unknown unit 'xs'", NULL);
    expect_error(BAD "nvprof_not_utf8.csv", ":11:", "not valid UTF-8", NULL);
    expect_error(BAD "nvprof_no_units.csv", ":6:", "units row", NULL);
    expect_error(BAD "nvprof_bad_number.csv", ":8:", "column 'Duration'",
                 "'5O.000000' is not a number", NULL);
    expect_error(BAD "nvprof_zero_grid.csv", ":10:", "column 'Grid X'",
                 "out of range", NULL);
    expect_error(BAD "nvprof_negative_duration.csv",
                 ":11:", "column 'Duration'", "negative", NULL);
    expect_error(BAD "nvprof_metrics.csv", ":2:", "metrics/events trace", NULL);
}

static void test_empty_and_unknown_files(void **state)
{
    (void)state;
    expect_error(BAD "empty.csv", "file is empty", NULL);
    expect_error(BAD "blank.csv", "unrecognized content", NULL);
    expect_error(BAD "junk.bin", ":1:", "unrecognized content", NULL);
    expect_error(DATA "does-not-exist.csv", "No such file", NULL);
    expect_error(DATA "bad", "is a directory", NULL);
}

static void test_nsys_csv_bad_inputs(void **state)
{
    (void)state;
    expect_error(BAD "nsys_missing_column.csv", ":6:", "missing column 'Bytes'",
                 NULL);
    expect_error(BAD "nsys_bad_unit.csv", ":6:", "'Start (fortnights)'",
                 "unknown unit 'fortnights'", NULL);
    expect_error(BAD "nsys_extra_field.csv",
                 ":9:", "22 fields, but the header has 21", NULL);
    expect_error(BAD "nsys_truncated.csv", ":8:", "'Name'",
                 "unterminated quote", NULL);
    expect_error(BAD "nsys_bad_value.csv", ":8:", "column 'GrdX'",
                 "not an integer", NULL);
    /* A real nsys stats CSV of another report. */
    g_autofree char *nvtx =
        g_strdup(HQSIM_SOURCE_DIR "/../shared/traces/nsys-csv-nvtx-nbody/"
                                  "trace.csv");
    if (g_file_test(nvtx, G_FILE_TEST_EXISTS))
        expect_error(nvtx, ":1:", "not the cuda_gpu_trace report",
                     "DurChild (ns)", NULL);
}

static void test_ncu_bad_inputs(void **state)
{
    (void)state;
    expect_error(BAD "ncu_missing_column.csv",
                 ":4:", "missing column 'Metric Value'", NULL);
    expect_error(BAD "ncu_truncated.csv", ":11:", "'Metric Name'",
                 "unterminated quote", NULL);
    expect_error(BAD "ncu_bad_unit.csv", ":5:", "metric 'Duration'",
                 "unknown time unit 'fortnight'", NULL);
    expect_error(BAD "ncu_no_duration.csv", ":5:", "kernel ID 0",
                 "no 'Duration' metric", NULL);
    expect_error(BAD "ncu_bad_id.csv", ":6:", "column 'ID'", NULL);
}

static void test_kineto_bad_inputs(void **state)
{
    (void)state;
    expect_error(BAD "kineto_no_trace_events.json",
                 ":1:", "missing field 'traceEvents'", NULL);
    expect_error(BAD "kineto_truncated.json", "ends early", NULL);
    expect_error(BAD "kineto_not_gzip.json.gz", "not gzip data", NULL);
    expect_error(BAD "kineto_missing_dur.json", ":14:", "event 'kA'",
                 "missing field 'dur'", NULL);
    expect_error(BAD "kineto_bad_grid.json", ":14:", "event 'kA'",
                 "field 'args.grid'", NULL);
    expect_error(BAD "kineto_bad_ts.json", ":14:", "field 'ts'", NULL);
    expect_error(BAD "kineto_not_utf8.json", ":14:", "not valid UTF-8", NULL);
    expect_error(BAD "kineto_events_not_array.json",
                 ":2:", "field 'traceEvents': expected an array", NULL);
    expect_error(BAD "kineto_no_gpu.json", "no GPU events", NULL);
}

/* ------------------------------------------------------------------------
 * gzip and SQLite, made here
 * ------------------------------------------------------------------------ */

static char *write_gzip(const Tmp *t, const char *name, const char *text,
                        size_t len)
{
    char *path = g_build_filename(t->dir, name, NULL);
    gzFile z = gzopen(path, "wb");
    assert_non_null(z);
    assert_int_equal(gzwrite(z, text, (unsigned)len), (int)len);
    gzclose(z);
    return path;
}

static void test_gzip_inputs(void **state)
{
    Tmp *t = *state;
    g_autofree char *json = NULL;
    gsize len = 0;
    assert_true(
        g_file_get_contents(DATA "kineto_2024.json", &json, &len, NULL));
    /* A good one first: gzip is detected from the bytes, not the name. */
    g_autofree char *good = write_gzip(t, "trace.bin", json, len);
    g_autoptr(GError) error = NULL;
    assert_string_equal(sim_import_detect(good, &error), "kineto");
    char *paths[] = {good};
    SimScenario *sc = sim_workload_load(paths, 1, NULL, &error);
    assert_non_null(sc);
    sim_scenario_free(sc);
    /* Cut in half: corrupt gzip. */
    g_autofree char *gz = NULL;
    gsize gzlen = 0;
    assert_true(g_file_get_contents(good, &gz, &gzlen, NULL));
    g_autofree char *cut = g_build_filename(t->dir, "cut.json.gz", NULL);
    assert_true(g_file_set_contents(cut, gz, (gssize)(gzlen / 2), NULL));
    expect_error(cut, "gzip", NULL);
    /* Gzip of nothing. */
    g_autofree char *empty = write_gzip(t, "empty.json.gz", "", 0);
    expect_error(empty, NULL);
    /* Gzip of JSON without traceEvents. */
    g_autofree char *nojson =
        write_gzip(t, "x.json.gz", "{\"schemaVersion\": 1}", 20);
    expect_error(nojson, "missing field 'traceEvents'", NULL);
}

static char *make_db(const Tmp *t, const char *name, const char *sql)
{
    char *path = g_build_filename(t->dir, name, NULL);
    g_remove(path);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("sql: %s", msg);
    sqlite3_close(db);
    return path;
}

/* The smallest Nsight Systems export the importer accepts, in the 3.x
 * schema; tests below break one thing at a time. */
#define NSYS_BASE                                                              \
    "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);"                    \
    "INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.13.2');"   \
    "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"              \
    "INSERT INTO StringIds VALUES(1, 'kern(int)'), (2, 'kern'),"               \
    "  (3, 'cudaLaunchKernel_v7000'), (4, 'cudaStreamSynchronize_v3020');"

#define KERNEL_TABLE                                                           \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER,"      \
    " deviceId INTEGER, contextId INTEGER, streamId INTEGER,"                  \
    " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"        \
    " shortName INTEGER, registersPerThread INTEGER, gridX INTEGER,"           \
    " gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER,"           \
    " blockZ INTEGER, staticSharedMemory INTEGER,"                             \
    " dynamicSharedMemory INTEGER);"

/* globalPid of pid 42: 42 << 24. */
#define GPID "704643072"

static void test_sqlite_inputs(void **state)
{
    Tmp *t = *state;
    /* A good one: one kernel issued by cudaLaunchKernel, a sync; streams
     * with priorities; the pid from globalPid. */
    g_autofree char *good = make_db(
        t, "good.sqlite",
        NSYS_BASE KERNEL_TABLE
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(10000, 30000, 0, 1,"
        " 13, 5, " GPID ", 1, 2, 32, 64, 1, 1, 256, 1, 1, 0, 1024);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER,"
        " eventClass INTEGER, globalTid INTEGER, correlationId INTEGER,"
        " nameId INTEGER, returnValue INTEGER, callchainId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
        " (2000, 6000, 0, " GPID ", 5, 3, 0, NULL),"
        " (7000, 31000, 0, " GPID ", 6, 4, 0, NULL);"
        "CREATE TABLE TARGET_INFO_CUDA_STREAM(streamId INTEGER, hwId INTEGER,"
        " vmId INTEGER, processId INTEGER, contextId INTEGER,"
        " priority INTEGER, flag INTEGER);"
        "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(13, 0, 1, 42, 1,"
        " 4294967291, 2), (7, 0, 1, 42, 1, 0, 3);"
        "CREATE TABLE PROCESSES(globalPid INTEGER, pid INTEGER, name TEXT);"
        "INSERT INTO PROCESSES VALUES(" GPID ", 42, '/usr/bin/app');"
        "CREATE TABLE TARGET_INFO_GPU(vmId INTEGER, id INTEGER, name TEXT,"
        " computeMajor INTEGER, computeMinor INTEGER);"
        "INSERT INTO TARGET_INFO_GPU VALUES(1, 0, 'NVIDIA L4', 8, 9);");
    g_autoptr(GError) error = NULL;
    assert_string_equal(sim_import_detect(good, &error), "nsys-sqlite");
    char *paths[] = {good};
    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.launch_latency_ns = 3000;
    SimScenario *sc = sim_workload_load(paths, 1, &opt, &error);
    if (!sc)
        fail_msg("%s", error->message);
    const SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    assert_string_equal(p->name, "app[42]");
    assert_string_equal(sc->gpu, "l4");
    /* Declared streams by id: 7 then 13 (priority -5). */
    assert_int_equal(p->n_streams, 2);
    assert_string_equal(p->streams[0].name, "stream 7");
    assert_string_equal(p->streams[1].name, "stream 13");
    assert_int_equal(p->streams[1].priority, -5);
    /* API [2000, 6000], kernel at 10000: issue min(6000, 7000) = 6000;
     * the stream sync API has no SYNCHRONIZATION row and no stream: it
     * syncs the stream last used. */
    assert_int_equal(p->n_ops, 3);
    assert_int_equal(p->ops[0].kind, SIM_OP_KERNEL);
    assert_int_equal(p->ops[0].api_ns, 4000);
    assert_int_equal(p->ops[0].stream, 1);
    assert_int_equal(p->ops[0].u.kernel.dynamic_smem_bytes, 1024);
    assert_int_equal(p->ops[1].kind, SIM_OP_HOST_GAP);
    assert_int_equal(p->ops[1].u.gap_ns, 1000);
    assert_int_equal(p->ops[2].kind, SIM_OP_STREAM_SYNC);
    assert_int_equal(p->ops[2].stream, 1);
    sim_scenario_free(sc);

    /* No kernel table. */
    g_autofree char *nok = make_db(t, "nokernel.sqlite", NSYS_BASE);
    expect_error(nok, "table CUPTI_ACTIVITY_KIND_KERNEL is missing", NULL);
    /* A kernel table without gridX. */
    g_autofree char *nocol = make_db(
        t, "nocol.sqlite",
        NSYS_BASE
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER,"
        " deviceId INTEGER, streamId INTEGER, correlationId INTEGER,"
        " globalPid INTEGER, demangledName INTEGER);");
    expect_error(nocol, "table CUPTI_ACTIVITY_KIND_KERNEL", "missing column",
                 NULL);
    /* A row with gridX 0. */
    g_autofree char *zero = make_db(
        t, "zero.sqlite",
        NSYS_BASE KERNEL_TABLE
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(10, 20, 0, 1, 7, 1,"
        " " GPID ", 1, 2, 32, 0, 1, 1, 256, 1, 1, 0, 0);");
    expect_error(zero, "table CUPTI_ACTIVITY_KIND_KERNEL, row 1",
                 "column 'gridX'", "out of range", NULL);
    /* end before start. */
    g_autofree char *back = make_db(
        t, "back.sqlite",
        NSYS_BASE KERNEL_TABLE
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(30, 20, 0, 1, 7, 1,"
        " " GPID ", 1, 2, 32, 1, 1, 1, 256, 1, 1, 0, 0);");
    expect_error(back, "row 1", "'end' is before 'start'", NULL);
    /* A NULL where a number must be. */
    g_autofree char *null = make_db(
        t, "null.sqlite",
        NSYS_BASE KERNEL_TABLE
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(10, 20, 0, 1, NULL,"
        " 1, " GPID ", 1, 2, 32, 1, 1, 1, 256, 1, 1, 0, 0);");
    expect_error(null, "row 1", "column 'streamId' is NULL", NULL);
    /* A row the importer reads but the native format refuses: the error
     * names the table, the row and the row's column. */
    g_autofree char *smem = make_db(
        t, "smem.sqlite",
        NSYS_BASE KERNEL_TABLE
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(10, 20, 0, 1, 7, 1,"
        " " GPID ", 1, 2, 32, 1, 1, 1, 256, 1, 1, 0, 0),"
        " (30, 40, 0, 1, 7, 1, " GPID ", 1, 2, 32, 1, 1, 1, 256, 1, 1,"
        " 20000000, 0);");
    g_autofree char *smem_at = g_strdup_printf(
        "%s: table CUPTI_ACTIVITY_KIND_KERNEL, row 2: process 'pid[42]' op "
        "2 (kernel): column 'staticSharedMemory': 20000000 bytes is beyond "
        "the format's 16777216 bytes",
        smem);
    expect_error(smem, smem_at, NULL);
    /* A kernel table with no rows. */
    g_autofree char *rows0 = make_db(t, "rows0.sqlite", NSYS_BASE KERNEL_TABLE);
    expect_error(rows0, "has no rows", NULL);
    /* SQLite, but not from Nsight Systems. */
    g_autofree char *other =
        make_db(t, "other.sqlite", "CREATE TABLE t(x INTEGER);");
    expect_error(other, "without Nsight Systems tables", NULL);
    /* A truncated database. */
    g_autofree char *bytes = NULL;
    gsize blen = 0;
    assert_true(g_file_get_contents(good, &bytes, &blen, NULL));
    g_autofree char *cut = g_build_filename(t->dir, "cut.sqlite", NULL);
    assert_true(g_file_set_contents(cut, bytes, (gssize)(blen / 3), NULL));
    expect_error(cut, NULL);
}

/* The scenario of @path as JSON, its kernels read sorted by SQLite
 * (@sorted) or sorted here; or "error: " and the message. */
static char *sqlite_import(const char *path, bool sorted)
{
    char *paths[] = {(char *)path};
    g_autoptr(GError) error = NULL;
    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.launch_latency_ns = 3000;
    sim_nsys_sqlite_force_sorted(sorted);
    SimScenario *sc = sim_workload_load(paths, 1, &opt, &error);
    sim_nsys_sqlite_force_sorted(false);
    if (!sc)
        return g_strconcat("error: ", error->message, NULL);
    char *json = sim_scenario_to_json(sc);
    sim_scenario_free(sc);
    return json;
}

/* Kernels are read in the table's order and sorted by start here, ties in
 * the table's order as SQLite's own sort keeps them: the same scenario as
 * from "ORDER BY start" -- the processes in the order of their first
 * kernel, the GPU of the first kernel, kernels of equal start (without API
 * calls, so that their order is the host's) in row order -- and the same
 * error, the first in start order, not in row order. */
static void test_sqlite_kernel_order(void **state)
{
    Tmp *t = *state;
    /* Rows out of start order; pid 43's first kernel (row 1) starts at
     * 10000 with pid 42's (row 2), which comes first; rows 2, 3 and 5 tie
     * on two streams, told apart by their grids. */
#define K(start, stream, gpid, grid, dev)                                      \
    "(" start ", " start "+5000, " dev ", 1, " stream ", NULL, " gpid          \
    ", 1, 2, 32, " grid ", 1, 1, 256, 1, 1, 0, 0)"
#define GPID43 "721420288"
    const char *rows = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES" K(
        "30000", "7", GPID, "1",
        "0") ", " K("10000", "13", GPID43, "2",
                    "1") ", " K("10000", "7", GPID, "3",
                                "0") ", " K("20000", "13", GPID43, "4",
                                            "1") ", " K("10000", "13", GPID,
                                                        "5", "0") ";";
    g_autofree char *sql = g_strconcat(
        NSYS_BASE KERNEL_TABLE, rows,
        "CREATE TABLE TARGET_INFO_GPU(vmId INTEGER, id INTEGER, name TEXT,"
        " computeMajor INTEGER, computeMinor INTEGER);"
        "INSERT INTO TARGET_INFO_GPU VALUES(1, 0, 'NVIDIA L4', 8, 9),"
        " (1, 1, 'NVIDIA A100-SXM4-80GB', 8, 0);",
        NULL);
    g_autofree char *db = make_db(t, "order.sqlite", sql);
    g_autofree char *ours = sqlite_import(db, false);
    g_autofree char *theirs = sqlite_import(db, true);
    assert_string_equal(ours, theirs);
    /* The GPU of row 2; pid 43 first; its kernels 2 then 4; pid 42's 3,
     * 5, 1. */
    assert_non_null(strstr(ours, "\"gpu\": \"a100\""));
    const char *p43 = strstr(ours, "pid[43]"), *p42 = strstr(ours, "pid[42]");
    assert_non_null(p43);
    assert_non_null(p42);
    assert_true(p43 < p42);
    const char *g3 = strstr(p42, "\"grid\": 3,");
    const char *g5 = strstr(p42, "\"grid\": 5,");
    const char *g1 = strstr(p42, "\"grid\": 1,");
    assert_true(g3 && g5 && g1 && g3 < g5 && g5 < g1);
    /* Two bad rows: the one that starts first is reported. */
    const char *bad = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES" K(
        "40000", "7", GPID, "0", "0") ", " K("10000", "7", GPID, "1",
                                             "0") ", " K("5000", "7", GPID, "1",
                                                         "5000") ";";
    g_autofree char *sql2 = g_strconcat(NSYS_BASE KERNEL_TABLE, bad, NULL);
    g_autofree char *db2 = make_db(t, "order-bad.sqlite", sql2);
    g_autofree char *e_ours = sqlite_import(db2, false);
    g_autofree char *e_theirs = sqlite_import(db2, true);
    assert_string_equal(e_ours, e_theirs);
    if (!strstr(e_ours, "row 3: column 'deviceId'"))
        fail_msg("not the first bad row in start order: %s", e_ours);
#undef K
#undef GPID43
}

/* ------------------------------------------------------------------------
 * Mutations: damaged variants of every good fixture import or fail
 * cleanly; ASan/valgrind check there is no memory error on either path.
 * ------------------------------------------------------------------------ */

static void mutate(GRand *r, GString *s)
{
    static const char hostile[] = ",\"\n\r0-.e9{}[]:\xff\xc3 x";
    guint n = s->len ? s->len : 1;
    switch (g_rand_int_range(r, 0, 5)) {
    case 0: /* replace a byte */
        if (s->len)
            s->str[g_rand_int_range(r, 0, (gint32)n)] =
                hostile[g_rand_int_range(r, 0, sizeof hostile - 1)];
        break;
    case 1: /* delete a span */
        if (s->len) {
            guint at = (guint)g_rand_int_range(r, 0, (gint32)n);
            guint len = (guint)g_rand_int_range(r, 1, 40);
            g_string_erase(s, at, MIN(len, s->len - at));
        }
        break;
    case 2: /* truncate */
        g_string_truncate(s, (gsize)g_rand_int_range(r, 0, (gint32)n));
        break;
    case 3: { /* duplicate a span */
        guint at = (guint)g_rand_int_range(r, 0, (gint32)n);
        guint len =
            MIN((guint)g_rand_int_range(r, 1, 80), s->len - MIN(at, s->len));
        g_autofree char *dup = g_strndup(s->str + MIN(at, s->len), len);
        g_string_insert(s, (gssize)MIN(at, s->len), dup);
        break;
    }
    default: /* insert a hostile byte */
        g_string_insert_c(s, (gssize)g_rand_int_range(r, 0, (gint32)n),
                          hostile[g_rand_int_range(r, 0, sizeof hostile - 1)]);
    }
}

static void test_mutated_fixtures_never_crash(void **state)
{
    Tmp *t = *state;
    static const char *const files[] = {
        "nvprof_v20.csv",
        "nvprof_um.csv",
        "nvprof_peer.csv",
        "nsys_gpu_trace_2024.csv",
        "nsys_gpu_trace_2022.csv",
        "ncu_2023.csv",
        "ncu_raw.csv",
        "kineto_2024.json",
        "kineto_2021.json",
        "kineto_2pid.json",
    };
    /* Fixed by default so failures reproduce; HQSIM_FUZZ_SEED and
     * HQSIM_FUZZ_N run other and longer campaigns. */
    const char *env_seed = g_getenv("HQSIM_FUZZ_SEED");
    const char *env_n = g_getenv("HQSIM_FUZZ_N");
    const guint32 seed =
        env_seed ? (guint32)g_ascii_strtoull(env_seed, NULL, 10) : 20240611;
    const int per_file = env_n ? atoi(env_n) : 150;
    g_autoptr(GRand) r = g_rand_new_with_seed(seed);
    int failed = 0, imported = 0;
    for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
        g_autofree char *src = g_strconcat(DATA, files[f], NULL);
        g_autofree char *text = NULL;
        gsize len = 0;
        assert_true(g_file_get_contents(src, &text, &len, NULL));
        const char *ext = strrchr(files[f], '.');
        g_autofree char *path = g_strdup_printf("%s/m%zu%s", t->dir, f, ext);
        for (int i = 0; i < per_file; i++) {
            g_autoptr(GString) s = g_string_new_len(text, (gssize)len);
            int n = g_rand_int_range(r, 1, 4);
            for (int k = 0; k < n; k++)
                mutate(r, s);
            assert_true(
                g_file_set_contents(path, s->str, (gssize)s->len, NULL));
            char *paths[] = {path};
            g_autoptr(GError) error = NULL;
            SimImportOptions opt;
            sim_import_options_init(&opt);
            opt.launch_latency_ns = 2000;
            SimScenario *sc = sim_workload_load(paths, 1, &opt, &error);
            if (sc) {
                imported++;
                sim_scenario_free(sc);
            } else {
                failed++;
                assert_non_null(error);
                if (!strstr(error->message, path))
                    fail_msg("seed %u, %s variant %d: error does not name "
                             "the file: %s",
                             seed, files[f], i, error->message);
            }
        }
    }
    print_message("mutations: %d imported, %d rejected (seed %u)\n", imported,
                  failed, seed);
    assert_true(failed > 0);
}

/* Device memory from an nsys export: the peak of device allocations not
 * yet freed per process (CUDA_GPU_MEMORY_USAGE_EVENTS, recorded with
 * --cuda-memory-usage=true): 16 + 32 MiB, then 16 freed, then 8 more: the
 * peak is 48 MiB; pinned host memory (memKind 1) and another GPU's (device
 * 1) do not count.  Without the table, cudaMalloc calls give a note and
 * the memory stays unknown. */
#define MEM_TABLE                                                              \
    "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS(start INTEGER,"                 \
    " globalPid INTEGER, deviceId INTEGER, contextId INTEGER,"                 \
    " address INTEGER, pc INTEGER, bytes INTEGER, memKind INTEGER,"            \
    " memoryOperationType INTEGER, name TEXT, correlationId INTEGER);"

static void test_sqlite_memory(void **state)
{
    Tmp *t = *state;
    const char *kernel_row =
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(10000, 30000, 0, 1,"
        " 13, 5, " GPID ", 1, 2, 32, 64, 1, 1, 256, 1, 1, 0, 1024);";
    g_autofree char *sql = g_strconcat(
        NSYS_BASE KERNEL_TABLE, kernel_row,
        MEM_TABLE "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES"
                  " (100, " GPID ", 0, 1, 1, 0, 16777216, 2, 0, NULL, 1),"
                  " (200, " GPID ", 0, 1, 2, 0, 33554432, 2, 0, NULL, 2),"
                  " (300, " GPID ", 0, 1, 1, 0, 16777216, 2, 1, NULL, 3),"
                  " (400, " GPID ", 0, 1, 3, 0, 8388608, 2, 0, NULL, 4),"
                  " (500, " GPID ", 0, 1, 4, 0, 1073741824, 1, 0, NULL, 5),"
                  " (600, " GPID ", 1, 2, 5, 0, 1073741824, 2, 0, NULL, 6);",
        NULL);
    g_autofree char *db = make_db(t, "mem.sqlite", sql);
    char *paths[] = {db};
    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.launch_latency_ns = 3000;
    g_autoptr(GError) error = NULL;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc =
        sim_workload_load_report(paths, 1, &opt, &rep, &error);
    if (!sc)
        fail_msg("%s", error->message);
    const SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    assert_int_equal(p->device_mem_bytes, 48u << 20);

    /* cudaMalloc calls without sizes: a note, memory unknown. */
    g_autofree char *sql2 = g_strconcat(
        NSYS_BASE KERNEL_TABLE, kernel_row,
        "INSERT INTO StringIds VALUES(9, 'cudaMalloc_v3020');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER,"
        " eventClass INTEGER, globalTid INTEGER, correlationId INTEGER,"
        " nameId INTEGER, returnValue INTEGER, callchainId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
        " (500, 900, 0, " GPID ", 4, 9, 0, NULL),"
        " (2000, 6000, 0, " GPID ", 5, 3, 0, NULL);",
        NULL);
    g_autofree char *db2 = make_db(t, "malloc.sqlite", sql2);
    char *paths2[] = {db2};
    g_autoptr(SimImportReport) rep2 = NULL;
    g_autoptr(SimScenario) sc2 =
        sim_workload_load_report(paths2, 1, &opt, &rep2, &error);
    if (!sc2)
        fail_msg("%s", error->message);
    p = g_ptr_array_index(sc2->processes, 0);
    assert_int_equal(p->device_mem_bytes, 0);
    bool noted = false;
    for (char **n = rep2->notes; n && *n; n++)
        noted |= strstr(*n, "1 cudaMalloc calls") != NULL;
    assert_true(noted);

    /* A negative size is refused, naming the table and column. */
    g_autofree char *sql3 = g_strconcat(
        NSYS_BASE KERNEL_TABLE, kernel_row,
        MEM_TABLE "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES"
                  " (100, " GPID ", 0, 1, 1, 0, -5, 2, 0, NULL, 1);",
        NULL);
    g_autofree char *db3 = make_db(t, "badmem.sqlite", sql3);
    expect_error(db3, "CUDA_GPU_MEMORY_USAGE_EVENTS", "'bytes'", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvprof_bad_inputs),
        cmocka_unit_test(test_empty_and_unknown_files),
        cmocka_unit_test(test_nsys_csv_bad_inputs),
        cmocka_unit_test(test_ncu_bad_inputs),
        cmocka_unit_test(test_kineto_bad_inputs),
        cmocka_unit_test(test_gzip_inputs),
        cmocka_unit_test(test_sqlite_inputs),
        cmocka_unit_test(test_sqlite_kernel_order),
        cmocka_unit_test(test_sqlite_memory),
        cmocka_unit_test(test_mutated_fixtures_never_crash),
    };
    return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
