/* test_sweep_report.c -- what a sweep writes (plan/sweep_report.c,
 * plan/sweep_plot.c): the CSV's shape, the JSON's fields, the text table,
 * the HTML page, and the plot as PNG and SVG; failed outputs leave no
 * file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "sweep_plot.h"
#include "sweep_report.h"
#include "testutil.h"

typedef struct {
    SimSweep *sw;
    char *dir; /* temporary folder for outputs */
} Fixture;

/* One GPU, modes timeslice and mps at 30% (rounded) and 100%, N = 1, 2, 5
 * with a client limit of 4: configurations 0-2 time-sliced, 3-5 mps 30%,
 * 6-8 mps 100%; the mps N = 5 rows (5, 8) have a refused process. */
static int setup(void **state)
{
    Fixture *f = g_new0(Fixture, 1);
    SimSweepSpace sp;
    sim_sweep_space_init(&sp);
    SimScenario *sc = sim_scenario_new("dir/small, \"quoted\".json", "hqsim");
    sc->description = g_strdup("a <small> workload & more");
    SimProcessSpec *p = test_process(sc, "p", 1);
    p->iterations = 4;
    SimOp k = test_kernel(0, "k", 4, 256, SIM_US(50));
    sim_process_add_op(p, &k);
    SimOp s = test_simple(SIM_OP_DEVICE_SYNC, 0, 0);
    sim_process_add_op(p, &s);
    g_ptr_array_add(sp.workloads, sc);
    GpuModel *m = test_model(8);
    m->mps_max_clients = 4;
    g_ptr_array_add(sp.gpus, m);
    assert_true(sim_sweep_parse_processes("1,2,5", sp.processes, NULL));
    assert_true(sim_sweep_parse_modes("timeslice,mps", sp.modes, NULL));
    assert_true(sim_sweep_parse_pcts("30,100", sp.pcts, NULL));
    f->sw = sim_sweep_new(&sp, NULL);
    assert_non_null(f->sw);
    for (uint32_t i = 0; i < f->sw->n_configs; i++)
        sim_sweep_run_config(f->sw, i);
    f->dir = g_dir_make_tmp("hqsim-sweep-XXXXXX", NULL);
    assert_non_null(f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    GDir *d = g_dir_open(f->dir, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
        g_autofree char *p = g_build_filename(f->dir, name, NULL);
        g_unlink(p);
    }
    if (d)
        g_dir_close(d);
    g_rmdir(f->dir);
    g_free(f->dir);
    sim_sweep_free(f->sw);
    g_free(f);
    sim_sweep_plot_cleanup();
    return 0;
}

static char *path_in(const Fixture *f, const char *name)
{
    return g_build_filename(f->dir, name, NULL);
}

static char *read_all(const char *path, gsize *len)
{
    char *s = NULL;
    if (!g_file_get_contents(path, &s, len, NULL))
        fail_msg("cannot read %s", path);
    return s;
}

/* Files in the output folder (temporary siblings included). */
static guint files_in(const Fixture *f)
{
    GDir *d = g_dir_open(f->dir, 0, NULL);
    guint n = 0;
    while (g_dir_read_name(d))
        n++;
    g_dir_close(d);
    return n;
}

static const SimSlo slo = {1.0, 0};

/* 9 configurations (timeslice x 3, mps x 2 x 3); a row "all" per
 * configuration and one per process: 9 + (1+2+5) * 3 = 33 rows. */
static void test_sweep_report_csv_rows_and_quoting(void **state)
{
    Fixture *f = *state;
    g_autofree char *path = path_in(f, "s.csv");
    assert_true(sim_sweep_report_csv(f->sw, &slo, path, NULL));
    g_autofree char *csv = read_all(path, NULL);
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    assert_int_equal(g_strv_length(lines), 1 + 33 + 1);
    assert_true(g_str_has_prefix(lines[0], "config,workload,gpu,mode,n,"));
    assert_string_equal(lines[34], "");
    assert_true(g_str_has_prefix(
        lines[1], "0,\"dir/small, \"\"quoted\"\".json\",test,timeslice,1,1,"
                  "-,,default,all,ok,"));
    /* The mps 30% N = 5 configuration: 4 started, 1 refused; limits
     * joined by ';' so they stay one cell. */
    guint all_rows = 0;
    for (guint i = 1; lines[i] && *lines[i]; i++) {
        if (!strstr(lines[i], ",all,"))
            continue;
        all_rows++;
        if (g_str_has_prefix(lines[i], "5,") &&
            !strstr(lines[i], ",yes,4,1,0,mps_client_limit;"
                              "thread_pct_rounding,no,"))
            fail_msg("config 5: %s", lines[i]);
    }
    assert_int_equal(all_rows, 9);
}

static void test_sweep_report_json_fields(void **state)
{
    Fixture *f = *state;
    g_autoptr(GArray) answers = sim_slo_answer(f->sw, &slo);
    g_autofree char *text = sim_sweep_report_json(f->sw, &slo, answers);
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(j, "configurations");
    assert_int_equal(cJSON_GetArraySize(rows), 9);
    const cJSON *r5 = cJSON_GetArrayItem(rows, 5);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(r5, "mode")->valuestring, "mps");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(r5, "refused")->valueint,
                     1);
    assert_true(
        cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r5, "meets_slo")));
    const cJSON *lim = cJSON_GetObjectItemCaseSensitive(r5, "limits");
    assert_string_equal(cJSON_GetArrayItem(lim, 0)->valuestring,
                        "mps_client_limit");
    assert_string_equal(cJSON_GetArrayItem(lim, 1)->valuestring,
                        "thread_pct_rounding");
    assert_int_equal(
        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r5, "per_process")),
        5);
    const cJSON *ans = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(j, "slo"), "answers");
    assert_int_equal(cJSON_GetArraySize(ans), 2);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(rows, 0), "connections")));
    cJSON_Delete(j);
}

static void test_sweep_report_text_table(void **state)
{
    Fixture *f = *state;
    g_autoptr(GArray) answers = sim_slo_answer(f->sw, &slo);
    g_autoptr(GString) out = g_string_new(NULL);
    sim_sweep_report_text(f->sw, &slo, answers, out);
    if (!strstr(out->str, "hqsim sweep: 9 configurations") ||
        !strstr(out->str, "N copies of its 1 process\n") ||
        !strstr(out->str, "mps_client_limit (5, 8): 1 of 5 processes "
                          "refused") ||
        !strstr(out->str, "thread_pct_rounding (3-5): 30% of 8 SMs") ||
        !strstr(out->str, "Objectives: worst process p99 <= 1 ms")) {
        fputs(out->str, stderr);
        fail_msg("unexpected table (above)");
    }
    assert_null(strstr(out->str, "approximate"));
    /* a sampled sweep says so in its header (the table has no notes) */
    f->sw->space.sm_sample = 4;
    g_string_truncate(out, 0);
    sim_sweep_report_text(f->sw, &slo, answers, out);
    f->sw->space.sm_sample = 0;
    assert_non_null(strstr(out->str, "seed as each scenario says\n"
                                     "approximate (--sm-sample 4): every "
                                     "configuration simulates 1 SM in 4"));
}

static void test_sweep_plot_png_and_svg(void **state)
{
    Fixture *f = *state;
    g_autofree char *png = path_in(f, "s.png");
    g_autofree char *svg = path_in(f, "s.SVG");
    assert_true(sim_sweep_plot_write(f->sw, &slo, png, NULL));
    assert_true(sim_sweep_plot_write(f->sw, NULL, svg, NULL));
    gsize n = 0;
    g_autofree char *p = read_all(png, &n);
    assert_true(n > 1000);
    assert_memory_equal(p, "\x89PNG\r\n\x1a\n", 8);
    g_autofree char *s = read_all(svg, NULL);
    assert_non_null(strstr(s, "<svg"));
    assert_non_null(strstr(s, "</svg>"));
    assert_int_equal(files_in(f), 2);
}

static void test_sweep_plot_rejects_other_extensions(void **state)
{
    Fixture *f = *state;
    g_autofree char *path = path_in(f, "s.jpg");
    g_autoptr(GError) err = NULL;
    assert_false(sim_sweep_plot_write(f->sw, NULL, path, &err));
    assert_int_equal(err->code, SIM_ERROR_USAGE);
    assert_int_equal(files_in(f), 0);
}

/* Every row failed: the plot says there is nothing to draw. */
static void test_sweep_plot_all_failed(void **state)
{
    Fixture *f = *state;
    for (uint32_t i = 0; i < f->sw->n_configs; i++) {
        sim_sweep_row_clear(&f->sw->rows[i]);
        f->sw->rows[i].done = true;
        f->sw->rows[i].error = g_strdup("no fit");
    }
    g_autofree char *svg = sim_sweep_plot_svg(f->sw, &slo);
    assert_non_null(strstr(svg, "<svg"));
    g_autofree char *path = path_in(f, "s.png");
    assert_true(sim_sweep_plot_write(f->sw, &slo, path, NULL));
}

static void test_sweep_report_html_self_contained(void **state)
{
    Fixture *f = *state;
    g_autoptr(GArray) answers = sim_slo_answer(f->sw, &slo);
    g_autofree char *path = path_in(f, "s.html");
    assert_true(sim_sweep_report_html(f->sw, &slo, answers, path, NULL));
    g_autofree char *h = read_all(path, NULL);
    assert_true(g_str_has_prefix(h, "<!DOCTYPE html>"));
    assert_non_null(strstr(h, "<svg"));
    assert_null(strstr(h, "<?xml"));
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "http://example"));
    assert_non_null(strstr(h, "a &lt;small&gt; workload &amp; more"));
    assert_non_null(strstr(h, "<h2>Service-level objectives</h2>"));
    /* One table row per configuration, plus the header. */
    guint rows = 0;
    for (const char *p = h; (p = strstr(p, "<tr")); p++)
        rows++;
    assert_int_equal(rows, 10);
}

static void test_sweep_report_unwritable_leaves_nothing(void **state)
{
    Fixture *f = *state;
    g_autofree char *path = g_build_filename(f->dir, "no", "s.csv", NULL);
    g_autoptr(GError) err = NULL;
    assert_false(sim_sweep_report_csv(f->sw, NULL, path, &err));
    assert_int_equal(err->code, SIM_ERROR_IO);
    assert_non_null(strstr(err->message, path));
    assert_int_equal(files_in(f), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sweep_report_csv_rows_and_quoting,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_report_json_fields, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sweep_report_text_table, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sweep_plot_png_and_svg, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_sweep_plot_rejects_other_extensions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_plot_all_failed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sweep_report_html_self_contained,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_sweep_report_unwritable_leaves_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
