/* test_e2e_sweep.c -- `hqsim sweep` run as a user would run it: its rows
 * agree with `hqsim run`, the limits and the SLO answer on bundled
 * scenarios, bad usage, and the same output bytes from one thread, two
 * threads and two MPI ranks (mpirun on localhost; skipped, saying so, when
 * mpirun is not installed).
 *
 * Runs the binary named by $HQSIM (set by `make check`); skipped without it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bounds.h"
#include "e2e.h"

/* The Titan V one-block kernel (3518 ms alone, one iteration): p99 is the
 * makespan.  Time-sliced, N copies take about N x 3518 ms; under MPS they
 * run side by side, up to the 48-client limit. */
#define TITANV "traces/titanv-1block.json"

static const cJSON *jget(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!v)
        fail_msg("no '%s' in JSON", key);
    return v;
}

static const cJSON *config(const cJSON *j, int i)
{
    return cJSON_GetArrayItem(jget(j, "configurations"), i);
}

/* A sweep row is what `hqsim run --processes N --mode M` reports. */
static void test_e2e_sweep_rows_match_run(void **state)
{
    (void)state;
    g_autofree char *f = source_path(TITANV);
    cJSON *j =
        run_hqsim_json("sweep", f, "--gpu", "titan-v", "-n", "1,2", "--modes",
                       "timeslice,mps", "--json", "-", "-q", NULL);
    assert_int_equal(cJSON_GetArraySize(jget(j, "configurations")), 4);
    const char *modes[] = {"timeslice", "timeslice", "mps", "mps"};
    const char *ns[] = {"1", "2", "1", "2"};
    for (int i = 0; i < 4; i++) {
        const cJSON *c = config(j, i);
        assert_string_equal(jget(c, "mode")->valuestring, modes[i]);
        cJSON *r =
            run_hqsim_json("run", f, "--gpu", "titan-v", "-n", ns[i], "--mode",
                           modes[i], "--json", "-", "-q", NULL);
        assert_true(jnum(c, "throughput_per_s") ==
                    jnum(r, "run.throughput_per_s"));
        assert_true(jnum(c, "latency_p99_ms") == jnum(r, "run.latency_p99_ms"));
        assert_true(jnum(c, "latency_p50_ms") == jnum(r, "run.latency_p50_ms"));
        assert_true(jnum(c, "mem_used_mib") ==
                    jnum(r, "run.gpu_metrics.device_mem_used_mib"));
        cJSON_Delete(r);
    }
    /* The published Titan V figures (README, Accuracy): 2 time-sliced
     * copies about twice 3518 ms, 2 MPS clients about 3518 ms. */
    assert_true(fabs(jnum(config(j, 1), "latency_p99_worst_ms") - 7106) < 5);
    assert_true(fabs(jnum(config(j, 3), "latency_p99_worst_ms") - 3518) < 1);
    cJSON_Delete(j);
}

/* p99 <= 8 s: time-slicing fits 2 copies (3 take 10.7 s).  Under MPS the
 * copies run side by side, but the Titan V's 12 GiB holds only 29 clients
 * (harness/defaults.py's memory rule: 66 MiB of server + 412 MiB per
 * client, as the H100 measured MPS saving no context memory), so N = 48 is
 * refused by memory (19 of 48); 48 time-sliced contexts do not fit
 * either.  On the A100's 40 GiB, 48 clients fit and the 49th is refused by
 * the client limit. */
static void test_e2e_sweep_slo_answer_and_limits(void **state)
{
    (void)state;
    g_autofree char *f = source_path(TITANV);
    Run r = run_hqsim("sweep", f, "--gpu", "titan-v", "-n", "1-3,48,49",
                      "--slo-p99-ms", "8000", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "largest N = 2 (2 processes) with connections "
                           "default");
    /* N = 3 misses on latency: three time-sliced copies of a 3.5 s kernel
     * take about 3 x 3.5 s, over the 8 s objective. */
    const char *miss = strstr(r.out, "N = 3 misses, with connections "
                                     "default: worst p99 ");
    assert_non_null(miss);
    double p99 = atof(miss + strlen("N = 3 misses, with connections "
                                    "default: worst p99 "));
    assert_true(p99 > 3 * 3518.0 && p99 < 3 * 3518.0 * 1.05);
    assert_non_null(strstr(miss, "ms > 8000 ms"));
    assert_contains(r.out, "largest N = 3 (3 processes) with thread% "
                           "scenario");
    assert_contains(r.out, "N = 48 misses, with thread% scenario, "
                           "connections default: 19 of 48 processes "
                           "refused (device_memory)");
    assert_contains(r.out, "device_memory (3-4, 8-9): 19 of 48 processes "
                           "refused");
    assert_string_equal(r.err, "");
    run_clear(&r);

    cJSON *j =
        run_hqsim_json("sweep", f, "--gpu", "titan-v", "-n", "1-3,48,49",
                       "--slo-p99-ms", "8000", "--json", "-", "-q", NULL);
    const cJSON *ans = jget(jget(j, "slo"), "answers");
    assert_int_equal(cJSON_GetArraySize(ans), 2);
    assert_int_equal(jnum(cJSON_GetArrayItem(ans, 0), "largest_n"), 2);
    assert_int_equal(jnum(cJSON_GetArrayItem(ans, 1), "largest_n"), 3);
    assert_int_equal(jnum(cJSON_GetArrayItem(ans, 1), "next_n"), 48);
    assert_false(cJSON_IsTrue(jget(config(j, 3), "fits_memory")));
    assert_false(cJSON_IsTrue(jget(config(j, 8), "fits_memory")));
    cJSON_Delete(j);

    r = run_hqsim("sweep", f, "--gpu", "a100", "-n", "48,49", "--modes", "mps",
                  "--slo-p99-ms", "8000", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "largest N = 48 (48 processes)");
    assert_contains(r.out, "N = 49 misses, with thread% scenario, "
                           "connections default: 1 of 49 processes refused "
                           "(mps_client_limit)");
    assert_contains(r.out, "mps_client_limit (1): 1 of 49 processes "
                           "refused: the MPS server already has 48 clients");
    run_clear(&r);
    j = run_hqsim_json("sweep", f, "--gpu", "a100", "-n", "48,49", "--modes",
                       "mps", "--slo-p99-ms", "8000", "--json", "-", "-q",
                       NULL);
    ans = jget(jget(j, "slo"), "answers");
    assert_int_equal(jnum(cJSON_GetArrayItem(ans, 0), "largest_n"), 48);
    assert_int_equal(jnum(cJSON_GetArrayItem(ans, 0), "next_n"), 49);
    const cJSON *c1 = config(j, 1);
    assert_true(cJSON_IsFalse(jget(c1, "meets_slo")));
    assert_true(cJSON_IsTrue(jget(c1, "fits_memory")));
    cJSON_Delete(j);
}

/* The thread percentage's rounding to whole TPCs is reported. */
static void test_e2e_sweep_thread_pct_rounding(void **state)
{
    (void)state;
    g_autofree char *f = source_path("traces/mps-thread-pct.json");
    Run r =
        run_hqsim("sweep", f, "--modes", "mps", "-t", "25,50", "-n", "1", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "thread_pct_rounding (0): 25% of 132 SMs is "
                           "33.00 SMs; the client may use 32 (whole TPCs of "
                           "2, rounded down)");
    run_clear(&r);
}

static void test_e2e_sweep_bad_usage(void **state)
{
    (void)state;
    g_autofree char *f = source_path(TITANV);
    const struct {
        const char *opt, *val, *msg;
    } bad[] = {
        {"--processes", "0",
         "--processes 0: expected a whole number in "
         "1-4096"},
        {"--processes", "4-2", "--processes: '4-2'"},
        {"--thread-pct", "150",
         "--thread-pct 150: expected a number in "
         "(0, 100]"},
        {"--modes", "shared", "unknown mode 'shared'"},
        {"--connections", "64",
         "--connections 64: expected a whole "
         "number in 1-32"},
        {"--threads", "-1", "--threads -1: expected a whole number"},
        {"--gpu", "h999", "h999"},
        {"--plot", "x.gif", "must end in .png or .svg"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        Run r = run_hqsim("sweep", f, "-n", "1", bad[i].opt, bad[i].val, NULL);
        if (r.status != 2 || !strstr(r.err, bad[i].msg))
            fail_msg("%s %s: exit %d, stderr: %s", bad[i].opt, bad[i].val,
                     r.status, r.err);
        run_clear(&r);
    }
    Run r = run_hqsim("sweep", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "give one or more scenario files");
    run_clear(&r);
    r = run_hqsim("sweep", "/nonexistent/w.json", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "/nonexistent/w.json");
    run_clear(&r);
}

/* ------------------------------------------------------------------------
 * Same bytes from 1 thread, 2 threads and 2 MPI ranks
 * ------------------------------------------------------------------------ */

/* The plot is compared as SVG: a PNG is the same drawing rasterised. */
static const char *const outputs[] = {"s.csv", "s.json", "s.svg", "s.html"};

/* A sweep with every kind of row: two workloads (one fits no SM of the
 * Titan V), two GPUs, refusals, rounding; every output into @dir. */
static GPtrArray *sweep_args(const char *dir)
{
    GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(a, g_strdup("sweep"));
    g_ptr_array_add(a, source_path(TITANV));
    g_ptr_array_add(a, source_path("traces/mps-thread-pct.json"));
    const char *fixed[] = {
        "--gpu", "titan-v,h100-sxm", "-n",           "1-3,49", "-t", "equal,30",
        "-c",    "default,4",        "--slo-p99-ms", "8000"};
    for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++)
        g_ptr_array_add(a, g_strdup(fixed[i]));
    g_ptr_array_add(a, g_strdup("--csv"));
    g_ptr_array_add(a, g_build_filename(dir, "s.csv", NULL));
    g_ptr_array_add(a, g_strdup("--json"));
    g_ptr_array_add(a, g_build_filename(dir, "s.json", NULL));
    g_ptr_array_add(a, g_strdup("--plot"));
    g_ptr_array_add(a, g_build_filename(dir, "s.svg", NULL));
    g_ptr_array_add(a, g_strdup("--report"));
    g_ptr_array_add(a, g_build_filename(dir, "s.html", NULL));
    return a;
}

/* Run @pre... then $HQSIM and @args; the output goes to @out (stdout). */
static int spawn(const char *const *pre, size_t n_pre, GPtrArray *args,
                 char **out, char **err)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    for (size_t i = 0; i < n_pre; i++)
        g_ptr_array_add(argv, (gpointer)pre[i]);
    g_ptr_array_add(argv, (gpointer)g_getenv("HQSIM"));
    for (guint i = 0; i < args->len; i++)
        g_ptr_array_add(argv, args->pdata[i]);
    g_ptr_array_add(argv, NULL);
    int wait = 0;
    g_autoptr(GError) e = NULL;
    if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH,
                      NULL, NULL, out, err, &wait, &e))
        fail_msg("cannot run %s: %s", (char *)argv->pdata[0], e->message);
    return WIFEXITED(wait) ? WEXITSTATUS(wait) : 128;
}

static char *slurp(const char *dir, const char *name, gsize *len)
{
    g_autofree char *p = g_build_filename(dir, name, NULL);
    char *s = NULL;
    if (!g_file_get_contents(p, &s, len, NULL))
        fail_msg("no %s", p);
    return s;
}

static void remove_dir(const char *dir)
{
    for (size_t i = 0; i < G_N_ELEMENTS(outputs); i++) {
        g_autofree char *p = g_build_filename(dir, outputs[i], NULL);
        g_unlink(p);
    }
    g_rmdir(dir);
}

/* Run the sweep with @pre (a launcher, or nothing) and @extra options into
 * a fresh folder; returns the folder, with stdout saved in *@out. */
static char *sweep_into(const char *const *pre, size_t n_pre, const char *extra,
                        char **out)
{
    char *dir = g_dir_make_tmp("hqsim-e2e-sweep-XXXXXX", NULL);
    g_autoptr(GPtrArray) args = sweep_args(dir);
    g_auto(GStrv) more = g_strsplit(extra, " ", -1);
    for (int i = 0; more[i]; i++)
        if (*more[i])
            g_ptr_array_add(args, g_strdup(more[i]));
    g_autofree char *err = NULL;
    int st = spawn(pre, n_pre, args, out, &err);
    if (st != 0)
        fail_msg("sweep (%s) exited %d: %s", extra, st, err);
    return dir;
}

static void assert_same_outputs(const char *a, const char *b, const char *what)
{
    for (size_t i = 0; i < G_N_ELEMENTS(outputs); i++) {
        gsize la = 0, lb = 0;
        g_autofree char *x = slurp(a, outputs[i], &la);
        g_autofree char *y = slurp(b, outputs[i], &lb);
        if (la != lb || memcmp(x, y, la))
            fail_msg("%s: %s differs", what, outputs[i]);
    }
}

#define DEFAULT_SCN "traces/default.json"

/* The events limit bounds the whole sweep, as it bounds one run: its
 * configurations share it.  With a limit above what each configuration
 * takes alone (measured with `hqsim run`) but below their sum, the sweep
 * stops with a limit error and writes no file; at the sum it completes. */
static void test_e2e_sweep_events_limit_is_shared(void **state)
{
    (void)state;
    if (!g_getenv("HQSIM"))
        skip();
    g_autofree char *f = source_path(DEFAULT_SCN);
    const char *ns[] = {"1", "2"}, *modes[] = {"timeslice", "mps"};
    double sum = 0, most = 0;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) {
            cJSON *r = run_hqsim_json("run", f, "-n", ns[i], "--mode", modes[k],
                                      "--json", "-", "-q", NULL);
            double ev = jnum(r, "run.events");
            sum += ev;
            most = MAX(most, ev);
            cJSON_Delete(r);
        }
    assert_true(most < sum * 0.9);
    g_autofree char *dir = g_dir_make_tmp("hqsim-sweep-XXXXXX", NULL);
    g_autofree char *csv = g_build_filename(dir, "s.csv", NULL);
    g_autofree char *lim_mid = g_strdup_printf("events=%.0f", (most + sum) / 2);
    /* Each of the 2 threads may hold up to one chunk it has not used. */
    g_autofree char *lim_sum =
        g_strdup_printf("events=%.0f", sum + 2 * SIM_EVENT_CHUNK);
    Run r = run_hqsim("sweep", f, "-n", "1,2", "--limit", lim_mid, "--csv", csv,
                      "--threads", "2", "-q", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "the sweep stopped at its events limit: its 4 "
                           "configurations");
    g_autofree char *share =
        g_strdup_printf("share %.0f events", (most + sum) / 2);
    assert_contains(r.err, share);
    assert_false(g_file_test(csv, G_FILE_TEST_EXISTS));
    run_clear(&r);
    r = run_hqsim("sweep", f, "-n", "1,2", "--limit", lim_sum, "--csv", csv,
                  "--threads", "2", "-q", NULL);
    assert_int_equal(r.status, 0);
    assert_true(g_file_test(csv, G_FILE_TEST_EXISTS));
    run_clear(&r);
    remove_dir(dir);
}

/* The ops all configurations simulate together have a limit, checked
 * before anything runs: one run's work x 2 modes x (1 + 2) copies. */
static void test_e2e_sweep_work_limit(void **state)
{
    (void)state;
    if (!g_getenv("HQSIM"))
        skip();
    g_autofree char *f = source_path(DEFAULT_SCN);
    /* One run's work, as its own work limit reports it. */
    Run one = run_hqsim("run", f, "--limit", "work=1", "-q", NULL);
    assert_int_equal(one.status, 1);
    const char *at_ops = strstr(one.err, "the run would simulate ");
    assert_non_null(at_ops);
    double ops = strtod(at_ops + strlen("the run would simulate "), NULL);
    run_clear(&one);
    assert_true(ops > 0);
    double work = ops * 2 * (1 + 2);
    g_autofree char *below = g_strdup_printf("sweep_work=%.0f", work - 1);
    g_autofree char *at = g_strdup_printf("sweep_work=%.0f", work);
    Run x = run_hqsim("sweep", f, "-n", "1,2", "--limit", below, "-q", NULL);
    assert_int_equal(x.status, 1);
    g_autofree char *want = g_strdup_printf(
        "the sweep's 4 configurations would simulate %.0f ops in all (limit "
        "'sweep_work' = %.0f; raise it with --limit sweep_work=N)",
        work, work - 1);
    assert_contains(x.err, want);
    run_clear(&x);
    x = run_hqsim("sweep", f, "-n", "1,2", "--limit", at, "-q", NULL);
    assert_int_equal(x.status, 0);
    run_clear(&x);
}

/* Outputs appear together or not at all; what could not wait (a device)
 * is named when a later output fails; a sweep whose every configuration
 * failed writes no file. */
static void test_e2e_sweep_outputs_all_or_none(void **state)
{
    (void)state;
    if (!g_getenv("HQSIM"))
        skip();
    g_autofree char *f = source_path(DEFAULT_SCN);
    g_autofree char *dir = g_dir_make_tmp("hqsim-sweep-XXXXXX", NULL);
    g_autofree char *csv = g_build_filename(dir, "s.csv", NULL);
    g_autofree char *json = g_build_filename(dir, "s.json", NULL);
    g_autofree char *bad = g_build_filename(dir, "no", "s.html", NULL);
    Run r = run_hqsim("sweep", f, "-n", "1", "--csv", csv, "--json", json,
                      "--report", bad, "-q", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "cannot write");
    assert_false(g_file_test(csv, G_FILE_TEST_EXISTS));
    assert_false(g_file_test(json, G_FILE_TEST_EXISTS));
    run_clear(&r);
    r = run_hqsim("sweep", f, "-n", "1", "--csv", csv, "--json", "/dev/null",
                  "--report", bad, "-q", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "(outputs already written: /dev/null) cannot "
                           "write");
    assert_false(g_file_test(csv, G_FILE_TEST_EXISTS));
    run_clear(&r);
    r = run_hqsim("sweep", f, "-n", "1", "--csv", csv, "--time-limit-ms",
                  "0.001", "-q", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "every configuration failed");
    assert_false(g_file_test(csv, G_FILE_TEST_EXISTS));
    run_clear(&r);
    r = run_hqsim("sweep", f, "-n", "1", "--csv", csv, "--json", json, "-q",
                  NULL);
    assert_int_equal(r.status, 0);
    assert_true(g_file_test(csv, G_FILE_TEST_EXISTS));
    assert_true(g_file_test(json, G_FILE_TEST_EXISTS));
    run_clear(&r);
    remove_dir(dir);
}

static void test_e2e_sweep_threads_give_same_bytes(void **state)
{
    (void)state;
    if (!g_getenv("HQSIM"))
        skip();
    g_autofree char *o1 = NULL, *o2 = NULL;
    g_autofree char *d1 = sweep_into(NULL, 0, "--threads 1", &o1);
    g_autofree char *d2 = sweep_into(NULL, 0, "--threads 2", &o2);
    assert_same_outputs(d1, d2, "--threads 1 vs 2");
    assert_string_equal(o1, o2);
    assert_contains(o1, "Runs that failed");
    assert_contains(o1, "mps_client_limit");
    /* Every output is complete: the JSON parses, the page ends. */
    g_autofree char *json = slurp(d1, "s.json", NULL);
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    /* 2 workloads x 2 GPUs x 2 connections x (1 + 2 pct) x 4 N. */
    assert_int_equal(cJSON_GetArraySize(jget(j, "configurations")), 96);
    cJSON_Delete(j);
    g_autofree char *html = slurp(d1, "s.html", NULL);
    assert_true(g_str_has_suffix(html, "</html>\n"));
    remove_dir(d1);
    remove_dir(d2);
}

/* mpirun on localhost, 2 ranks (oversubscribed on a 2-core machine; as
 * root it needs --allow-run-as-root).  Under ASan, Open MPI's own
 * allocations at MPI_Init are not leaks of ours: tests/lsan-mpi.supp
 * suppresses them (full stacks, so frames inside MPI_Init match). */
static void test_e2e_sweep_mpi_gives_same_bytes(void **state)
{
    (void)state;
    if (!g_getenv("HQSIM"))
        skip();
    g_autofree char *mpirun = g_find_program_in_path("mpirun");
    if (!mpirun) {
        printf("# skip: mpirun not found; the MPI sweep is untested "
               "(install openmpi-bin)\n");
        skip();
    }
    g_autofree char *supp = source_path("tests/lsan-mpi.supp");
    g_autofree char *lsan =
        g_strdup_printf("LSAN_OPTIONS=suppressions=%s:fast_unwind_on_malloc=0:"
                        "print_suppressions=0",
                        supp);
    g_autofree char *timeout = g_find_program_in_path("timeout");
    const char *pre[] = {timeout ? timeout : "env",
                         timeout ? "300" : "-",
                         mpirun,
                         "--allow-run-as-root",
                         "--oversubscribe",
                         "-x",
                         lsan,
                         "-np",
                         "2"};
    g_autofree char *o1 = NULL, *om = NULL;
    g_autofree char *d1 = sweep_into(NULL, 0, "--threads 1", &o1);
    g_autofree char *dm = sweep_into(pre, G_N_ELEMENTS(pre), "", &om);
    assert_same_outputs(d1, dm, "--threads 1 vs mpirun -np 2");
    assert_string_equal(o1, om);
    remove_dir(d1);
    remove_dir(dm);

    /* A failure on every rank ends every rank, with one message. */
    g_autoptr(GPtrArray) bad = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(bad, g_strdup("sweep"));
    g_ptr_array_add(bad, g_strdup("/nonexistent/w.json"));
    g_autofree char *out = NULL, *err = NULL;
    int st = spawn(pre, G_N_ELEMENTS(pre), bad, &out, &err);
    assert_int_not_equal(st, 0);
    assert_int_not_equal(st, 124); /* not the timeout */
    assert_contains(err, "/nonexistent/w.json");
}

/* Progress goes to stderr only on a terminal: none here. */
static void test_e2e_sweep_quiet_stderr_when_not_a_tty(void **state)
{
    (void)state;
    g_autofree char *f = source_path(TITANV);
    /* The default (main() hides the status lines for the other tests). */
    g_unsetenv("HQSIM_PROGRESS");
    Run r = run_hqsim("sweep", f, "-n", "1,2", "-q", NULL);
    g_setenv("HQSIM_PROGRESS", "0", TRUE);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "");
    run_clear(&r);
}

int main(void)
{
    /* A sweep past 10 s (under ASan, on a loaded machine) says so on
     * stderr when it is not a terminal (cli_common.h); these tests read
     * stderr for errors alone.  test_e2e_malformed checks those lines. */
    g_setenv("HQSIM_PROGRESS", "0", TRUE);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e2e_sweep_rows_match_run),
        cmocka_unit_test(test_e2e_sweep_slo_answer_and_limits),
        cmocka_unit_test(test_e2e_sweep_thread_pct_rounding),
        cmocka_unit_test(test_e2e_sweep_bad_usage),
        cmocka_unit_test(test_e2e_sweep_events_limit_is_shared),
        cmocka_unit_test(test_e2e_sweep_work_limit),
        cmocka_unit_test(test_e2e_sweep_outputs_all_or_none),
        cmocka_unit_test(test_e2e_sweep_threads_give_same_bytes),
        cmocka_unit_test(test_e2e_sweep_mpi_gives_same_bytes),
        cmocka_unit_test(test_e2e_sweep_quiet_stderr_when_not_a_tty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
