/* test_e2e_reqmodel.c -- `run --request-model W` (sim/reqmodel.h), the
 * approximate model of whole requests, against the exact engine on a small
 * case: the bundled resnet18 PyTorch service as 4 MPS clients and 2
 * time-sliced processes, 60 iterations, 16 of them exact.  Its makespan,
 * throughput and p50 must be within 5% of the exact run's and its p99
 * within 10% (README "Whole requests" states the same tolerance; measured
 * -1.4 / +1.9 / -2.7 / +0.0% MPS, +0.3 / -0.4 / +0.1 / -6.3% time-sliced); the run
 * must repeat itself byte for byte, say it is approximate, fall back to the
 * exact run where there is nothing to draw, and refuse per-op outputs;
 * `compare` and `sweep` run it as `run` does.
 *
 * Runs the binary named by $HQSIM (set by `make check`); skipped without it.
 * Not a timed test: the speed is `make bench`'s (bench/reqmodel_check.py).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include <glib/gstdio.h>

#include "e2e.h"

#define TORCH "traces/measured/h100/pytorch/torch_profile_trace.json.gz"
#define TOL_MEAN 0.05 /* makespan, throughput, p50 */
#define TOL_P99 0.10

static double num(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!cJSON_IsNumber(v))
        fail_msg("no number '%s' in the run's JSON", key);
    return v->valuedouble;
}

/* `run` of the trace with @procs copies in @mode, 60 iterations, and the
 * extra options @w (NULL: none); its "run" object (caller frees the root
 * in *root). */
static const cJSON *run_case(const char *procs, const char *mode, const char *w,
                             cJSON **root)
{
    g_autofree char *trace = source_path(TORCH);
    *root = run_hqsim_json("run", "-q", trace, "--loop-request", "--iterations",
                           "60", "--host-scale", "0.372", "--processes", procs,
                           "--mode", mode, "--json", "-",
                           w ? "--request-model" : NULL, w, NULL);
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(*root, "run");
    assert_non_null(run);
    return run;
}

static bool has_note(const cJSON *run, const char *prefix)
{
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(run, "notes"))
    {
        if (cJSON_IsString(n) && g_str_has_prefix(n->valuestring, prefix))
            return true;
    }
    return false;
}

static void assert_close(const cJSON *exact, const cJSON *model,
                         const char *key, double tol)
{
    double x = num(exact, key), y = num(model, key);
    if (!(x > 0) || fabs(y / x - 1) > tol)
        fail_msg("%s: request model %g, exact %g (more than %.0f%% apart)", key,
                 y, x, tol * 100);
}

static void check_within_tolerance(const char *procs, const char *mode)
{
    cJSON *a = NULL, *b = NULL;
    const cJSON *exact = run_case(procs, mode, NULL, &a);
    const cJSON *model = run_case(procs, mode, "16", &b);
    assert_true(has_note(model, "approximate (--request-model 16)"));
    assert_false(has_note(exact, "approximate"));
    /* one event per drawn request: far fewer than the exact run's */
    assert_true(num(model, "events") < num(exact, "events") / 2);
    assert_close(exact, model, "makespan_ms", TOL_MEAN);
    assert_close(exact, model, "throughput_per_s", TOL_MEAN);
    assert_close(exact, model, "latency_p50_ms", TOL_MEAN);
    assert_close(exact, model, "latency_p99_ms", TOL_P99);
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(model, "processes"))
    {
        assert_int_equal((int)num(p, "iterations"), 60);
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void test_mps_within_tolerance(void **state)
{
    (void)state;
    check_within_tolerance("4", "mps");
}

static void test_timeslice_within_tolerance(void **state)
{
    (void)state;
    check_within_tolerance("2", "timeslice");
}

static void test_reproducible(void **state)
{
    (void)state;
    g_autofree char *trace = source_path(TORCH);
    Run a = run_hqsim("run", trace, "--loop-request", "--iterations", "30",
                      "--processes", "2", "--mode", "mps", "--request-model",
                      "4", NULL);
    Run b = run_hqsim("run", trace, "--loop-request", "--iterations", "30",
                      "--processes", "2", "--mode", "mps", "--request-model",
                      "4", NULL);
    assert_int_equal(a.status, 0);
    assert_string_equal(a.out, b.out);
    run_clear(&a);
    run_clear(&b);
}

/* Nothing to draw (no process runs more than W iterations): the exact
 * run, with a note that says so. */
static void test_falls_back_to_exact(void **state)
{
    (void)state;
    g_autofree char *trace = source_path(TORCH);
    cJSON *a =
        run_hqsim_json("run", "-q", trace, "--loop-request", "--iterations",
                       "3", "--processes", "2", "--json", "-", NULL);
    cJSON *b = run_hqsim_json("run", "-q", trace, "--loop-request",
                              "--iterations", "3", "--processes", "2", "--json",
                              "-", "--request-model", "4", NULL);
    const cJSON *exact = cJSON_GetObjectItemCaseSensitive(a, "run"),
                *model = cJSON_GetObjectItemCaseSensitive(b, "run");
    assert_true(has_note(model, "--request-model 4: simulated exactly"));
    assert_true(num(model, "makespan_ms") == num(exact, "makespan_ms"));
    assert_true(num(model, "events") == num(exact, "events"));
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* `compare` and `sweep` take --request-model as `run` does: each compared
 * mode and each sweep row is `run` of that configuration with the same W
 * (the same model on the same prepared scenario: equal numbers, not
 * close), not the exact run, and both say they are approximate. */
static void test_compare_and_sweep_as_run(void **state)
{
    (void)state;
    g_autofree char *trace = source_path(TORCH);
#define BASE                                                                   \
    trace, "--loop-request", "--iterations", "30", "--host-scale", "0.372",    \
        "--processes", "2", "--json", "-"
#define CASE BASE, "--request-model", "8"
    cJSON *cmp = run_hqsim_json("compare", "-q", CASE, NULL);
    cJSON *sw =
        run_hqsim_json("sweep", "-q", CASE, "-m", "timeslice,mps", NULL);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(sw, "request_model");
    assert_true(cJSON_IsNumber(w) && w->valuedouble == 8);
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(cmp, "runs");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(sw, "configurations");
    static const char *const modes[] = {"timeslice", "mps"};
    for (int i = 0; i < 2; i++) {
        cJSON *a = run_hqsim_json("run", "-q", CASE, "--mode", modes[i], NULL);
        cJSON *b = run_hqsim_json("run", "-q", BASE, "--mode", modes[i], NULL);
        const cJSON *exact = cJSON_GetObjectItemCaseSensitive(b, "run");
        const cJSON *run = cJSON_GetObjectItemCaseSensitive(a, "run");
        const cJSON *c = cJSON_GetArrayItem(runs, i);
        const cJSON *row = cJSON_GetArrayItem(rows, i);
        assert_string_equal(
            cJSON_GetObjectItemCaseSensitive(c, "mode")->valuestring, modes[i]);
        assert_string_equal(
            cJSON_GetObjectItemCaseSensitive(row, "mode")->valuestring,
            modes[i]);
        assert_true(has_note(c, "approximate (--request-model 8)"));
        static const char *const keys[] = {
            "makespan_ms", "events", "throughput_per_s", "latency_p99_ms"};
        for (size_t k = 0; k < G_N_ELEMENTS(keys); k++)
            if (num(c, keys[k]) != num(run, keys[k]))
                fail_msg("%s %s: compare %.9g, run %.9g", modes[i], keys[k],
                         num(c, keys[k]), num(run, keys[k]));
        if (num(row, "throughput_per_s") != num(run, "throughput_per_s") ||
            num(row, "latency_p99_ms") != num(run, "latency_p99_ms"))
            fail_msg("%s: sweep %.9g/s p99 %.9g ms, run %.9g/s p99 %.9g ms",
                     modes[i], num(row, "throughput_per_s"),
                     num(row, "latency_p99_ms"), num(run, "throughput_per_s"),
                     num(run, "latency_p99_ms"));
        /* and the model, not the exact engine, ran */
        assert_true(num(run, "events") < num(exact, "events") / 2);
        assert_true(num(row, "throughput_per_s") !=
                    num(exact, "throughput_per_s"));
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
#undef CASE
#undef BASE
    cJSON_Delete(cmp);
    cJSON_Delete(sw);
}

static void test_refuses_per_op_outputs_and_small_w(void **state)
{
    g_autofree char *trace = source_path(TORCH);
    g_autofree char *csv =
        g_build_filename(((E2eTmpdir *)*state)->dir, "ops.csv", NULL);
    Run r = run_hqsim("run", "-q", trace, "--loop-request", "--csv", csv,
                      "--request-model", "4", NULL);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "--csv"));
    assert_non_null(strstr(r.err, "--request-model"));
    assert_false(g_file_test(csv, G_FILE_TEST_EXISTS));
    run_clear(&r);
    /* compare's per-op CSVs too; a sweep's CSV is its rows */
    r = run_hqsim("compare", "-q", trace, "--loop-request", "--csv", csv,
                  "--request-model", "4", NULL);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "--request-model"));
    assert_false(g_file_test(csv, G_FILE_TEST_EXISTS));
    run_clear(&r);
    r = run_hqsim("sweep", "-q", trace, "--loop-request", "--iterations", "8",
                  "-n", "2", "-m", "mps", "--csv", csv, "--request-model", "4",
                  NULL);
    assert_int_equal(r.status, 0);
    assert_true(g_file_test(csv, G_FILE_TEST_EXISTS));
    g_remove(csv);
    run_clear(&r);
    r = run_hqsim("run", "-q", trace, "--loop-request", "--request-model", "1",
                  NULL);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "--request-model"));
    run_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mps_within_tolerance),
        cmocka_unit_test(test_timeslice_within_tolerance),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_falls_back_to_exact),
        cmocka_unit_test(test_compare_and_sweep_as_run),
        cmocka_unit_test_setup_teardown(test_refuses_per_op_outputs_and_small_w,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
