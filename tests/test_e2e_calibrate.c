/* test_e2e_calibrate.c -- fitting GPU models from measurements:
 * harness/fit.py on the committed H100 data gives back the committed H100
 * model within each rule's stated tolerance (and its check fails when the
 * reference is off), `hqsim calibrate` fits a folder with no GPU and
 * refuses to measure without one (exit status 3), and the uncalibrated
 * models hold the values harness/defaults.py's rules give them.
 *
 * Runs python3 and the binary named by $HQSIM (set by `make check`); skipped
 * without them.  No GPU is used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "e2e.h"
#include "gpu_model.h"

/* Run argv with @envp (NULL: inherited) and capture everything. */
static Run run_argv(char **argv, char **envp)
{
    Run r = {-1, NULL, NULL};
    int wait = 0;
    g_autoptr(GError) error = NULL;
    if (!g_spawn_sync(NULL, argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, &r.out,
                      &r.err, &wait, &error))
        fail_msg("cannot run %s: %s", argv[0], error->message);
    r.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : 128;
    return r;
}

/* python3 harness/fit.py traces/measured/h100 --base/--check REF --out OUT */
static Run run_fit(const char *ref, const char *out)
{
    g_autofree char *py = g_find_program_in_path("python3");
    if (!py)
        skip();
    g_autofree char *fit = source_path("harness/fit.py");
    g_autofree char *data = source_path("traces/measured/h100");
    char *argv[] = {py,      fit,         data,      "--base",    (char *)ref,
                    "--out", (char *)out, "--check", (char *)ref, NULL};
    return run_argv(argv, NULL);
}

static void rm_tree(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const char *n;
    while (d && (n = g_dir_read_name(d))) {
        g_autofree char *p = g_build_filename(dir, n, NULL);
        g_unlink(p);
    }
    g_rmdir(dir);
}

static void test_fit_h100_gives_back_the_model(void **state)
{
    (void)state;
    g_autofree char *tmp = g_dir_make_tmp("hqsim-fit-XXXXXX", NULL);
    g_autofree char *out = g_build_filename(tmp, "m.json", NULL);
    g_autofree char *ref = source_path("models/h100-sxm.json");
    Run r = run_fit(ref, out);
    if (r.status != 0)
        fail_msg("fit.py exited %d:\n%s%s", r.status, r.out, r.err);
    assert_contains(r.out, "| `timeslice_us` | 2090.0 |");
    /* the fitted file is a valid model with the measured values */
    g_autoptr(GError) error = NULL;
    g_autoptr(GpuModel) m = sim_gpu_model_load(out, &error);
    if (!m)
        fail_msg("%s", error->message);
    assert_int_equal(m->mps_max_clients, 48);
    assert_int_equal(m->max_resident_grids, 128);
    assert_int_equal(m->connections_default, 8);
    assert_true(m->timeslice_ns >= 2088000 && m->timeslice_ns <= 2092000);
    assert_true(m->context_switch_ns >= 150000 &&
                m->context_switch_ns <= 154000);
    /* ts_idle: 143.6 us from the idle context's last kernel end to the
     * other's resume, less the model's 5 us idle yield */
    assert_true(m->context_switch_idle_ns >= 137000 &&
                m->context_switch_idle_ns <= 141000);
    run_clear(&r);
    rm_tree(tmp);
}

static void test_fit_check_fails_on_a_wrong_reference(void **state)
{
    (void)state;
    g_autofree char *tmp = g_dir_make_tmp("hqsim-fit-XXXXXX", NULL);
    g_autofree char *refsrc = source_path("models/h100-sxm.json");
    g_autofree char *text = NULL;
    assert_true(g_file_get_contents(refsrc, &text, NULL, NULL));
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    cJSON_SetNumberValue(cJSON_GetObjectItem(j, "timeslice_us"), 2200.0);
    char *bad = cJSON_Print(j);
    cJSON_Delete(j);
    g_autofree char *ref = g_build_filename(tmp, "ref.json", NULL);
    g_autofree char *out = g_build_filename(tmp, "m.json", NULL);
    assert_true(g_file_set_contents(ref, bad, -1, NULL));
    cJSON_free(bad);
    Run r = run_fit(ref, out);
    assert_int_equal(r.status, 1);
    assert_contains(
        r.out, "| `timeslice_us` | 2090.0 | ts2_small | 2200 | ±2 | **no** |");
    assert_contains(r.err, "outside tolerance: timeslice_us");
    run_clear(&r);
    rm_tree(tmp);
}

static void test_calibrate_fits_a_folder_without_gpu(void **state)
{
    (void)state;
    g_autofree char *py = g_find_program_in_path("python3");
    if (!py)
        skip();
    g_autofree char *tmp = g_dir_make_tmp("hqsim-cal-XXXXXX", NULL);
    g_autofree char *data = source_path("traces/measured/h100");
    Run r = run_hqsim("calibrate", "--fit", data, "--out", tmp, "--gpu-name",
                      "h100-refit", NULL);
    if (r.status != 0)
        fail_msg("calibrate exited %d:\n%s", r.status, r.err);
    assert_contains(r.out, "[1/2] fit the model parameters");
    g_autofree char *model = g_build_filename(tmp, "h100-refit.json", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GpuModel) m = sim_gpu_model_load(model, &error);
    if (!m)
        fail_msg("%s", error->message);
    assert_string_equal(m->name, "h100-refit");
    assert_true(m->calibrated);
    assert_int_equal(m->mps_connection_budget, 128);
    /* the validation table of the new model on the data */
    g_autofree char *acc = g_build_filename(tmp, "ACCURACY.md", NULL);
    g_autofree char *md = NULL;
    assert_true(g_file_get_contents(acc, &md, NULL, NULL));
    assert_contains(md, "| hq_df32_cdef | connections | calibration |");
    run_clear(&r);
    rm_tree(tmp);
}

static void test_calibrate_without_gpu_exits_3(void **state)
{
    (void)state;
    const char *bin = g_getenv("HQSIM");
    if (!bin || !*bin)
        skip();
    /* no nvidia-smi on this PATH, whatever the machine has */
    char *envp[] = {"PATH=/nonexistent-hqsim-bin", NULL};
    char *argv[] = {(char *)bin, "calibrate", NULL};
    Run r = run_argv(argv, envp);
    assert_int_equal(r.status, 3);
    assert_contains(r.err, "no NVIDIA GPU to measure here");
    assert_contains(r.err, "hqsim calibrate --fit DIR");
    run_clear(&r);
}

/* The uncalibrated models follow harness/defaults.py's rules (it rewrites
 * nothing), and a value off its rule is found: a copy of models/ with the
 * V100's switch cost changed is reported stale, and rewriting it restores
 * the rule's value; a calibrated model that contradicts a rule it can test
 * fails the check. */
static void test_defaults_follow_the_rules(void **state)
{
    (void)state;
    g_autofree char *py = g_find_program_in_path("python3");
    if (!py)
        skip();
    g_autofree char *script = source_path("harness/defaults.py");
    char *check[] = {py, script, "--check", NULL};
    Run r = run_argv(check, NULL);
    if (r.status != 0)
        fail_msg("defaults.py --check: %s", r.err);
    run_clear(&r);

    g_autofree char *dir = g_dir_make_tmp("hqsim-defaults-XXXXXX", NULL);
    g_autofree char *src = source_path("models");
    const char *names[] = {"h100-sxm.json", "v100.json"};
    g_autofree char *v100 = g_build_filename(dir, "v100.json", NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *from = g_build_filename(src, names[i], NULL);
        g_autofree char *to = g_build_filename(dir, names[i], NULL);
        g_autofree char *text = NULL;
        assert_true(g_file_get_contents(from, &text, NULL, NULL));
        if (i == 1) {
            char *at = strstr(text, "\"context_switch_us\": 10.0");
            assert_non_null(at);
            memcpy(at + strlen("\"context_switch_us\": "), "99.0", 4);
        }
        assert_true(g_file_set_contents(to, text, -1, NULL));
    }
    char *check2[] = {py, script, "--check", "--models", dir, NULL};
    r = run_argv(check2, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "not up to date: v100.json"));
    run_clear(&r);
    char *fix[] = {py, script, "--models", dir, NULL};
    r = run_argv(fix, NULL);
    assert_int_equal(r.status, 0);
    run_clear(&r);
    g_autofree char *fixed = NULL;
    assert_true(g_file_get_contents(v100, &fixed, NULL, NULL));
    assert_non_null(strstr(fixed, "\"context_switch_us\": 10.0"));

    /* A rule a calibrated model can test is tested: an H100 that had
     * measured a smallest MPS client of 3 TPCs contradicts the mps-min
     * rule (8 SMs on 9.0), and --check says so. */
    g_autofree char *h100 = g_build_filename(dir, "h100-sxm.json", NULL);
    g_autofree char *ht = NULL;
    assert_true(g_file_get_contents(h100, &ht, NULL, NULL));
    char *at = strstr(ht, "\"mps_min_tpcs\": 4");
    assert_non_null(at);
    at[strlen("\"mps_min_tpcs\": ")] = '3';
    assert_true(g_file_set_contents(h100, ht, -1, NULL));
    r = run_argv(check2, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "rule for mps_min_tpcs gives 4 on "
                                  "h100-sxm, which measured 3"));
    run_clear(&r);
    rm_tree(dir);
}

/* A host field's rule carries the H100's rationale whole (its first
 * clause, up to the first ';'): a cut lost the fitted value and the command
 * of the longer ones (mps_func_xreload_us's is 475 characters). */
static void test_defaults_keep_host_rationales_whole(void **state)
{
    (void)state;
    g_autofree char *py = g_find_program_in_path("python3");
    if (!py)
        skip();
    g_autofree char *harness = source_path("harness");
    g_autofree char *h100 = source_path("models/h100-sxm.json");
    g_autofree char *v100 = source_path("models/v100.json");
    const char *code =
        "import json, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import defaults\n"
        "h, m = (json.load(open(p)) for p in sys.argv[2:4])\n"
        "cut = [f for f, _, s in defaults.rules(m, h)\n"
        "       if f in defaults.HOST_FIELDS\n"
        "       and h['source'][f].split(';')[0] not in s]\n"
        "long = [f for f in defaults.HOST_FIELDS\n"
        "        if len(h['source'][f].split(';')[0]) > 400]\n"
        "sys.exit('cut: %s' % cut if cut else 0 if long else 'none long')\n";
    char *argv[] = {py, "-c", (char *)code, harness, h100, v100, NULL};
    Run r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("%s", r.err);
    run_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_follow_the_rules),
        cmocka_unit_test(test_defaults_keep_host_rationales_whole),
        cmocka_unit_test(test_fit_h100_gives_back_the_model),
        cmocka_unit_test(test_fit_check_fails_on_a_wrong_reference),
        cmocka_unit_test(test_calibrate_fits_a_folder_without_gpu),
        cmocka_unit_test(test_calibrate_without_gpu_exits_3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
