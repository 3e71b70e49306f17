/* test_e2e_viz.c -- the visual outputs through the real binary: --perfetto,
 * --perfetto-detail, --picture, --picture-kind and --report on `run` and
 * `compare`, their errors (checked before anything is simulated or
 * written), and the progress line on stderr.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>

#include "e2e.h"
#include "perfetto_check.h"

/* Each test's private folder (e2e.h: e2e_tmpdir_setup/teardown). */
typedef E2eTmpdir Fixture;

static char *in_dir(const Fixture *f, const char *name)
{
    return g_build_filename(f->dir, name, NULL);
}

static uint32_t entries(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    uint32_t n = 0;
    while (d && g_dir_read_name(d))
        n++;
    return n;
}

/* Kernel slices on stream tracks of run @run in a trace file. */
static uint32_t trace_kernels(const char *path, int run)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    assert_true(g_file_get_contents(path, &text, &len, NULL));
    cJSON *j = cJSON_ParseWithLength(text, len);
    if (!j)
        fail_msg("%s is not JSON", path);
    uint32_t n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "traceEvents"))
    {
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
        int pid = cJSON_GetObjectItemCaseSensitive(e, "pid")->valueint;
        int tid = cJSON_GetObjectItemCaseSensitive(e, "tid")->valueint;
        if (!strcmp(ph->valuestring, "X") && cJSON_IsString(cat) &&
            !strcmp(cat->valuestring, "kernel") && pid / 100000 == run &&
            pid % 100000 >= 10 && tid >= 1)
            n++;
    }
    cJSON_Delete(j);
    return n;
}

static double kernels_in(const cJSON *run)
{
    double k = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(run, "processes"))
        k += jnum(p, "kernels");
    return k;
}

static void test_e2e_viz_run_writes_every_output(void **state)
{
    Fixture *f = *state;
    g_autofree char *trace = in_dir(f, "t.json");
    g_autofree char *png = in_dir(f, "p.png");
    g_autofree char *html = in_dir(f, "r.html");
    g_autofree char *sc = source_path("traces/simplehyperq-depth.json");
    cJSON *j = run_hqsim_json("run", sc, "--connections", "4", "--perfetto",
                              trace, "--picture", png, "--report", html,
                              "--json", "-", "-q", NULL);
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(j, "run");
    assert_int_equal(trace_kernels(trace, 0), (uint32_t)kernels_in(run));
    assert_int_equal(trace_kernels(trace, 0), 64);
    assert_true(g_file_test(png, G_FILE_TEST_IS_REGULAR));
    g_autofree char *h = NULL;
    assert_true(g_file_get_contents(html, &h, NULL, NULL));
    assert_non_null(strstr(h, "simpleHyperQ"));
    assert_null(strstr(h, "http"));
    /* Nothing else was left in the folder (no temporary files). */
    assert_int_equal(entries(f->dir), 3);
    cJSON_Delete(j);
}

static void test_e2e_viz_compare_stacks_modes(void **state)
{
    Fixture *f = *state;
    g_autofree char *trace = in_dir(f, "t.json.gz");
    g_autofree char *plain = in_dir(f, "t.json");
    g_autofree char *svg = in_dir(f, "p.svg");
    g_autofree char *sc = source_path("traces/teaching/b-mps-lower-util-"
                                      "faster.json");
    cJSON *j = run_hqsim_json("compare", sc, "--perfetto", plain, "--picture",
                              svg, "--picture-kind", "timeline,util", "--json",
                              "-", "-q", NULL);
    for (int i = 0; i < 2; i++) {
        const cJSON *run =
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "runs"), i);
        assert_int_equal(trace_kernels(plain, i), (uint32_t)kernels_in(run));
    }
    cJSON_Delete(j);
    g_autofree char *s = NULL;
    assert_true(g_file_get_contents(svg, &s, NULL, NULL));
    assert_non_null(strstr(s, "<svg"));
    /* Gzip by name. */
    Run r = run_hqsim("compare", sc, "--perfetto", trace, "-q", NULL);
    assert_int_equal(r.status, 0);
    run_clear(&r);
    g_autofree char *z = NULL;
    gsize len = 0;
    assert_true(g_file_get_contents(trace, &z, &len, NULL));
    assert_true(len > 2 && (uint8_t)z[0] == 0x1f && (uint8_t)z[1] == 0x8b);
}

static void test_e2e_viz_bad_options_fail_before_running(void **state)
{
    Fixture *f = *state;
    g_autofree char *sc = source_path("traces/default.json");
    g_autofree char *jpg = in_dir(f, "p.jpg");
    g_autofree char *json = in_dir(f, "s.json");
    Run r = run_hqsim("run", sc, "--picture", jpg, "--json", json, NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, ".png or .svg");
    run_clear(&r);
    r = run_hqsim("compare", sc, "--picture", "x.png", "--picture-kind",
                  "gantt", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "unknown picture kind 'gantt'");
    run_clear(&r);
    r = run_hqsim("run", sc, "--picture-kind", "sm", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "--picture-kind needs --picture");
    run_clear(&r);
    assert_int_equal(entries(f->dir), 0);
}

static void test_e2e_viz_unwritable_output_leaves_nothing(void **state)
{
    Fixture *f = *state;
    g_autofree char *sc = source_path("traces/occupancy-serial.json");
    g_autofree char *bad = g_build_filename(f->dir, "missing", "r.html", NULL);
    g_autofree char *trace = in_dir(f, "t.json");
    Run r =
        run_hqsim("run", sc, "--perfetto", trace, "--report", bad, "-q", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "r.html");
    run_clear(&r);
    /* A command's outputs appear all or none (issue 14): the trace,
     * complete before the report failed, does not appear either, and no
     * temporary file stays. */
    assert_int_equal(entries(f->dir), 0);
    assert_false(g_file_test(trace, G_FILE_TEST_EXISTS));
}

/* Run hqsim with HQSIM_PROGRESS=@mode; returns its stderr (transfer full). */
static char *stderr_with_progress(const char *mode, const char *scenario)
{
    const char *bin = g_getenv("HQSIM");
    if (!bin || !*bin)
        skip();
    char **env =
        g_environ_setenv(g_get_environ(), "HQSIM_PROGRESS", mode, TRUE);
    const char *argv[] = {bin, "run", scenario, "-q", NULL};
    char *out = NULL, *err = NULL;
    int wait = 0;
    gboolean ok = g_spawn_sync(NULL, (char **)argv, env, G_SPAWN_DEFAULT, NULL,
                               NULL, &out, &err, &wait, NULL);
    g_strfreev(env);
    g_free(out);
    assert_true(ok);
    assert_true(WIFEXITED(wait) && WEXITSTATUS(wait) == 0);
    return err;
}

static void test_e2e_viz_progress_only_when_asked(void **state)
{
    const Fixture *f = *state;
    /* A workload of many events: the engine reports progress every
     * SIM_PROGRESS_EVENTS events. */
    g_autofree char *sc = in_dir(f, "progress.json");
    Run g = run_hqsim("gen", "--kernels", "40000", "-n", "4", "-o", sc, NULL);
    assert_int_equal(g.status, 0);
    run_clear(&g);
    /* Not a terminal: nothing. */
    g_autofree char *none = stderr_with_progress("", sc);
    assert_string_equal(none, "");
    g_autofree char *off = stderr_with_progress("0", sc);
    assert_string_equal(off, "");
    /* Forced: percentages of GPU ops, redrawn in place, erased at the
     * end. */
    g_autofree char *on = stderr_with_progress("always", sc);
    unlink(sc);
    assert_contains(on, "% of GPU ops (");
    assert_contains(on, "\r");
    assert_true(g_str_has_suffix(on, "\r\033[K"));
}

/* Counter values per (pid, name) track of a trace: the largest count, and
 * whether any pid is run 0's SMs group (pid 2). */
static uint32_t most_counter_values(const char *path, bool *has_sms)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    assert_true(g_file_get_contents(path, &text, &len, NULL));
    cJSON *j = cJSON_ParseWithLength(text, len);
    assert_non_null(j);
    g_autoptr(GHashTable) n =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    uint32_t most = 0;
    *has_sms = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "traceEvents"))
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(e, "ph")->valuestring, "C"))
            continue;
        int pid = cJSON_GetObjectItemCaseSensitive(e, "pid")->valueint;
        *has_sms |= pid % 100000 == 2;
        char *key = g_strdup_printf(
            "%d/%s", pid,
            cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring);
        uint32_t c = GPOINTER_TO_UINT(g_hash_table_lookup(n, key)) + 1;
        g_hash_table_insert(n, key, GUINT_TO_POINTER(c));
        most = MAX(most, c);
    }
    cJSON_Delete(j);
    return most;
}

/* --perfetto-detail on the default comparison (20 000 kernels per run, so
 * "long"): every level imports with zero errors by trace_processor's rules
 * (viz/perfetto_check.c); ops and sampled bound each counter track to the
 * 2000 windows (+ the 0 at start and end), full writes every change; the
 * SMs group is there except at ops; the files grow with the level. */
static void test_e2e_viz_perfetto_detail_levels(void **state)
{
    Fixture *f = *state;
    g_autofree char *sc = source_path("traces/default.json");
    const char *levels[] = {"ops", "sampled", "full"};
    guint64 size[3];
    for (int i = 0; i < 3; i++) {
        g_autofree char *name = g_strdup_printf("%s.json", levels[i]);
        g_autofree char *trace = in_dir(f, name);
        Run r = run_hqsim("compare", sc, "-q", "--perfetto", trace,
                          "--perfetto-detail", levels[i], NULL);
        assert_int_equal(r.status, 0);
        run_clear(&r);
        GError *error = NULL;
        GPtrArray *p = sim_perfetto_check_file(trace, &error);
        assert_non_null(p);
        for (guint k = 0; k < p->len; k++)
            print_error("%s: %s\n", levels[i], (char *)p->pdata[k]);
        assert_int_equal(p->len, 0);
        g_ptr_array_unref(p);
        bool sms = false;
        uint32_t most = most_counter_values(trace, &sms);
        assert_int_equal(sms, i > 0);
        if (i < 2)
            assert_true(most <= 2000 + 3);
        else
            assert_true(most > 2000 + 3);
        GStatBuf st;
        assert_int_equal(g_stat(trace, &st), 0);
        size[i] = (guint64)st.st_size;
        g_unlink(trace);
    }
    assert_true(size[0] < size[1] && size[1] < size[2]);
    Run r = run_hqsim("run", sc, "-q", "--perfetto-detail", "sampled", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "--perfetto-detail needs --perfetto FILE");
    run_clear(&r);
    r = run_hqsim("run", sc, "-q", "--perfetto", "x.json", "--perfetto-detail",
                  "blocks", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "unknown --perfetto-detail 'blocks': one of ops");
    run_clear(&r);
    assert_int_equal(entries(f->dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_e2e_viz_run_writes_every_output,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_e2e_viz_compare_stacks_modes,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(
            test_e2e_viz_bad_options_fail_before_running, e2e_tmpdir_setup,
            e2e_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(
            test_e2e_viz_unwritable_output_leaves_nothing, e2e_tmpdir_setup,
            e2e_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_e2e_viz_progress_only_when_asked,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_e2e_viz_perfetto_detail_levels,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
