/* test_options.c -- the simulate commands' option table (plan/options.h):
 * every row reads its values as its type says, against its range, with
 * the command line's messages; names and short names are unique per
 * command; the settings reach PrepOptions and SimOptions; the output
 * options name the formats the output tables write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "error.h"
#include "options.h"
#include "optrange.h"
#include "outfile.h"
#include "sweep_report.h"
#include "viz.h"

static const PlanCommand commands[] = {PLAN_CMD_RUN,    PLAN_CMD_COMPARE,
                                       PLAN_CMD_SWEEP,  PLAN_CMD_IMPORT,
                                       PLAN_CMD_REPLAY, PLAN_CMD_VALIDATE};

/* One row per long name and per short name within each command; every
 * row has help, and a number has a range row (sim/optrange.c). */
static void test_options_table_is_consistent(void **state)
{
    (void)state;
    size_t n = 0;
    const PlanOption *rows = plan_opt_table(&n);
    assert_true(n > 30);
    for (size_t c = 0; c < G_N_ELEMENTS(commands); c++) {
        for (size_t i = 0; i < n; i++) {
            if (!(rows[i].commands & commands[c]))
                continue;
            assert_ptr_equal(plan_opt_find(rows[i].name, commands[c]),
                             &rows[i]);
            for (size_t j = i + 1; j < n; j++)
                if ((rows[j].commands & commands[c]) && rows[i].short_name)
                    assert_int_not_equal(rows[i].short_name,
                                         rows[j].short_name);
        }
    }
    for (size_t i = 0; i < n; i++) {
        assert_true(rows[i].commands != 0);
        assert_true(strlen(rows[i].help) > 10);
        bool number = rows[i].type == PLAN_ARG_INT ||
                      rows[i].type == PLAN_ARG_INT64 ||
                      rows[i].type == PLAN_ARG_DOUBLE;
        if (number)
            assert_non_null(sim_opt_range(rows[i].name));
        assert_true((rows[i].arg == NULL) == (rows[i].type == PLAN_ARG_FLAG));
    }
    assert_null(plan_opt_find("modes", PLAN_CMD_RUN));
    assert_null(plan_opt_find("mode", PLAN_CMD_SWEEP));
    assert_true(plan_opt_known("fixed"));
    assert_false(plan_opt_known("limit"));
}

/* Each type reads its text: numbers against their ranges (the message
 * names the option and the range), flags, texts replaced, files
 * appended; `sweep --processes` is a list read later. */
static void test_options_set_reads_each_type(void **state)
{
    (void)state;
    PlanSettings s = {0};
    GError *e = NULL;
    assert_true(
        plan_opt_set(&s, plan_opt_find("processes", PLAN_CMD_RUN), "12", &e));
    assert_int_equal(s.processes, 12);
    assert_false(plan_opt_set(&s, plan_opt_find("processes", PLAN_CMD_COMPARE),
                              "0", &e));
    assert_int_equal(e->code, SIM_ERROR_USAGE);
    assert_string_equal(e->message,
                        "--processes 0: expected a whole number in 1-4096");
    g_clear_error(&e);
    assert_int_equal(s.processes, 12);
    assert_true(plan_opt_set(&s, plan_opt_find("processes", PLAN_CMD_SWEEP),
                             "0,1-4", &e));
    assert_string_equal(s.processes_list, "0,1-4");
    assert_true(plan_opt_set(&s, plan_opt_find("seed", PLAN_CMD_RUN),
                             "9007199254740992", &e));
    assert_true(s.seed == 9007199254740992LL);
    assert_true(plan_opt_set(&s, plan_opt_find("thread-pct", PLAN_CMD_RUN),
                             " 37.5 ", &e));
    assert_true(s.thread_pct == 37.5);
    assert_false(
        plan_opt_set(&s, plan_opt_find("host-scale", PLAN_CMD_RUN), "inf", &e));
    assert_non_null(strstr(e->message, "--host-scale inf"));
    g_clear_error(&e);
    const PlanOption *jit = plan_opt_find("no-jitter", PLAN_CMD_SWEEP);
    assert_true(plan_opt_set(&s, jit, NULL, &e)); /* the command line */
    assert_true(s.no_jitter);
    assert_true(plan_opt_set(&s, jit, "No", &e));
    assert_false(s.no_jitter);
    assert_false(plan_opt_set(&s, jit, "maybe", &e));
    assert_non_null(strstr(e->message, "'no-jitter'"));
    g_clear_error(&e);
    const PlanOption *gpu = plan_opt_find("gpu", PLAN_CMD_RUN);
    assert_true(plan_opt_set(&s, gpu, "a100", &e));
    assert_true(plan_opt_set(&s, gpu, "h100-sxm", &e));
    assert_string_equal(s.gpu, "h100-sxm");
    const PlanOption *fixed = plan_opt_find("fixed", PLAN_CMD_SWEEP);
    assert_true(plan_opt_set(&s, fixed, "a.json", &e));
    assert_true(plan_opt_set(&s, fixed, "b.json", &e));
    assert_int_equal(g_strv_length(s.fixed), 2);
    assert_string_equal(s.fixed[1], "b.json");
    plan_settings_clear(&s);
    assert_null(s.gpu);
    assert_null(s.fixed);
}

/* --help shows the range of a number and of each item of a list; the
 * modes' names fill the mode rows. */
static void test_options_help_shows_ranges(void **state)
{
    (void)state;
    g_autofree char *n_run =
        plan_opt_help(plan_opt_find("processes", PLAN_CMD_RUN));
    assert_true(g_str_has_suffix(n_run, " [1-4096]"));
    g_autofree char *n_sweep =
        plan_opt_help(plan_opt_find("processes", PLAN_CMD_SWEEP));
    assert_true(g_str_has_suffix(n_sweep, " [each 1-4096]"));
    g_autofree char *mode = plan_opt_help(plan_opt_find("mode", PLAN_CMD_RUN));
    g_autofree char *names = sim_share_mode_help();
    assert_non_null(strstr(mode, names));
    g_autofree char *gpu = plan_opt_help(plan_opt_find("gpu", PLAN_CMD_RUN));
    assert_null(strchr(gpu, '['));
}

/* The settings reach the modules below as the command line gave them. */
static void test_options_settings_reach_modules(void **state)
{
    (void)state;
    PlanSettings s = {0};
    static const char *const kv[] = {
        "connections", "4",     "thread-pct", "50",  "seed",          "7",
        "host-cores",  "3",     "no-jitter",  "1",   "time-limit-ms", "2.5",
        "iterations",  "9",     "host-scale", "0.5", "mem-mib",       "100",
        "perfetto",    "t.json"};
    for (size_t i = 0; i < G_N_ELEMENTS(kv); i += 2)
        assert_true(plan_opt_set(&s, plan_opt_find(kv[i], PLAN_CMD_RUN),
                                 kv[i + 1], NULL));
    SimOptions so;
    plan_settings_sim(&s, &so);
    assert_int_equal(so.connections, 4);
    assert_true(so.active_thread_pct == 50);
    assert_int_equal(so.seed, 7);
    assert_int_equal(so.host_cores, 3);
    assert_true(so.no_jitter);
    assert_int_equal(so.time_limit_ns, 2500000);
    assert_true(so.record_ops && so.record_timeline);
    PrepOptions po;
    plan_settings_prep(&s, &po);
    assert_int_equal(po.iterations, 9);
    assert_true(po.host_scale == 0.5);
    assert_string_equal(po.mem_mib, "100");
    plan_settings_clear(&s);
}

/* Load @file as `run` does with option @name set to @value (NULL: none);
 * the solo-time inference's last round into *@solo. */
static SimScenario *load_run(const char *file, const char *name,
                             const char *value, SimResult **solo)
{
    g_auto(PlanSettings) s = {0};
    if (name)
        assert_true(
            plan_opt_set(&s, plan_opt_find(name, PLAN_CMD_RUN), value, NULL));
    char *files[] = {(char *)file, NULL};
    g_autoptr(GError) error = NULL;
    SimScenario *sc = plan_settings_load_run(files, 1, &s, NULL, solo, &error);
    if (!sc)
        fail_msg("%s", error->message);
    return sc;
}

/* A trace's solo-time inference hands `run` its last round, which is the
 * run of the prepared scenario with the default options, op for op; no
 * round when a later step rewrites the workload or the inference did not
 * run; options that change the simulation or what it records rule the
 * round out. */
static void test_options_solo_run_is_the_run(void **state)
{
    (void)state;
    const char *trace = "tests/data/import/kineto_2024.json";
    g_autoptr(SimResult) solo = NULL;
    g_autoptr(SimScenario) sc = load_run(trace, NULL, NULL, &solo);
    assert_non_null(solo);
    g_autoptr(GError) error = NULL;
    g_autoptr(GpuModel) m = sim_gpu_model_find(sc->gpu, NULL, &error);
    assert_non_null(m);
    g_auto(PlanSettings) s = {0};
    SimOptions so;
    plan_settings_sim(&s, &so);
    assert_true(plan_run_is_solo_run(&so, sc, 0));
    g_autoptr(SimResult) r = sim_engine_run(m, sc, &so, &error);
    assert_non_null(r);
    assert_int_equal(r->makespan_ns, solo->makespan_ns);
    assert_int_equal(r->events, solo->events);
    assert_int_equal(r->ops->len, solo->ops->len);
    assert_true(r->ops->len > 0);
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *a = &g_array_index(r->ops, SimOpRecord, i);
        const SimOpRecord *b = &g_array_index(solo->ops, SimOpRecord, i);
        assert_int_equal(a->issue_ns, b->issue_ns);
        assert_int_equal(a->start_ns, b->start_ns);
        assert_int_equal(a->end_ns, b->end_ns);
        assert_string_equal(a->name, b->name);
    }
    static const char *const rewrite[][2] = {{"processes", "2"},
                                             {"iterations", "3"},
                                             {"as-recorded", "1"},
                                             {"host-scale", "0.5"},
                                             {"gpu", "h100-sxm"}};
    for (size_t i = 0; i < G_N_ELEMENTS(rewrite); i++) {
        SimResult *none = (SimResult *)1;
        sim_scenario_free(load_run(trace, rewrite[i][0], rewrite[i][1], &none));
        assert_null(none);
    }
    SimResult *none = (SimResult *)1;
    sim_scenario_free(load_run("traces/default.json", NULL, NULL, &none));
    assert_null(none);
    /* The recorded GPU named: no rewrite. */
    g_autoptr(SimResult) same = NULL;
    sim_scenario_free(load_run(trace, "gpu", sc->gpu, &same));
    assert_non_null(same);
    assert_int_equal(same->makespan_ns, solo->makespan_ns);
    static const char *const differ[][2] = {
        {"no-jitter", "1"},   {"seed", "12345"},        {"connections", "2"},
        {"thread-pct", "50"}, {"time-limit-ms", "100"}, {"perfetto", "t.json"}};
    for (size_t i = 0; i < G_N_ELEMENTS(differ); i++) {
        g_auto(PlanSettings) d = {0};
        assert_true(plan_opt_set(&d, plan_opt_find(differ[i][0], PLAN_CMD_RUN),
                                 differ[i][1], NULL));
        plan_settings_sim(&d, &so);
        assert_false(plan_run_is_solo_run(&so, sc, 0));
    }
    plan_settings_sim(&s, &so);
    so.mode = SIM_SHARE_MPS;
    assert_false(plan_run_is_solo_run(&so, sc, 0));
}

/* --sm-sample M samples the solo-time inference's rounds too: the round
 * handed to `run` is the run with M, op for op, and not one without it;
 * a sweep's configurations run with M. */
static void test_options_sampled_solo_run_is_the_run(void **state)
{
    (void)state;
    const char *trace = "tests/data/import/kineto_2024.json";
    g_autoptr(SimResult) solo = NULL;
    g_autoptr(SimScenario) sc = load_run(trace, "sm-sample", "4", &solo);
    assert_non_null(solo);
    g_autoptr(GError) error = NULL;
    g_autoptr(GpuModel) m = sim_gpu_model_find(sc->gpu, NULL, &error);
    assert_non_null(m);
    g_auto(PlanSettings) s = {0};
    assert_true(
        plan_opt_set(&s, plan_opt_find("sm-sample", PLAN_CMD_RUN), "4", NULL));
    SimOptions so;
    plan_settings_sim(&s, &so);
    assert_int_equal(so.sm_sample, 4);
    assert_true(plan_run_is_solo_run(&so, sc, 4));
    assert_false(plan_run_is_solo_run(&so, sc, 0));
    g_autoptr(SimResult) r = sim_engine_run(m, sc, &so, &error);
    assert_non_null(r);
    assert_int_equal(r->makespan_ns, solo->makespan_ns);
    assert_int_equal(r->events, solo->events);
    assert_int_equal(r->ops->len, solo->ops->len);
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *a = &g_array_index(r->ops, SimOpRecord, i);
        const SimOpRecord *b = &g_array_index(solo->ops, SimOpRecord, i);
        assert_int_equal(a->start_ns, b->start_ns);
        assert_int_equal(a->end_ns, b->end_ns);
    }
    /* The sampled round says so; the exact inference's does not. */
    assert_true(solo->notes->len > 0 &&
                strstr(g_ptr_array_index(solo->notes, solo->notes->len - 1),
                       "--sm-sample 4"));
    g_autoptr(SimResult) exact = NULL;
    sim_scenario_free(load_run(trace, NULL, NULL, &exact));
    assert_non_null(exact);
    for (guint i = 0; i < exact->notes->len; i++)
        assert_null(strstr(g_ptr_array_index(exact->notes, i), "sm-sample"));
    /* A sweep takes the option into every configuration. */
    g_auto(PlanSettings) w = {0};
    assert_true(plan_opt_set(&w, plan_opt_find("sm-sample", PLAN_CMD_SWEEP),
                             "4", NULL));
    char *files[] = {(char *)trace, NULL};
    SimSweepSpace sp;
    sim_sweep_space_init(&sp);
    assert_true(plan_settings_sweep_space(&w, files, &sp, &error));
    assert_int_equal(sp.sm_sample, 4);
    g_autoptr(SimSweep) sw = sim_sweep_new(&sp, &error);
    assert_non_null(sw);
    SimOptions o;
    sim_sweep_options(sw, 0, &o);
    assert_int_equal(o.sm_sample, 4);
    sim_sweep_space_clear(&sp);
}

/* Every output format of a run and of a sweep has its option (the
 * format's name) in the table, as a file, for that command. */
static void test_options_name_every_output(void **state)
{
    (void)state;
    size_t n = 0;
    const SimOutputFormat *f = sim_viz_outputs(&n);
    for (size_t i = 0; i < n; i++) {
        const PlanOption *r = plan_opt_find(f[i].name, PLAN_CMD_COMPARE);
        assert_non_null(r);
        assert_int_equal(r->type, PLAN_ARG_FILE);
    }
    f = sim_sweep_outputs(&n);
    for (size_t i = 0; i < n; i++) {
        const PlanOption *r = plan_opt_find(f[i].name, PLAN_CMD_SWEEP);
        assert_non_null(r);
        assert_int_equal(r->type, PLAN_ARG_FILE);
    }
}

/* The checks that need no input, in the command line's order. */
static void test_options_check(void **state)
{
    (void)state;
    PlanSettings s = {0};
    GError *e = NULL;
    s.mode = g_strdup("fast");
    s.picture = g_strdup("x.jpg");
    assert_false(plan_settings_check(&s, PLAN_CMD_RUN, &e));
    assert_non_null(strstr(e->message, "fast"));
    g_clear_error(&e);
    assert_false(plan_settings_check(&s, PLAN_CMD_COMPARE, &e));
    assert_string_equal(e->message,
                        "--picture x.jpg: the name must end in .png or .svg");
    g_clear_error(&e);
    g_free(s.picture);
    s.picture = NULL;
    s.modes = g_strdup("");
    assert_false(plan_settings_check(&s, PLAN_CMD_COMPARE, &e));
    assert_string_equal(e->message, "--modes is empty");
    g_clear_error(&e);
    assert_true(plan_settings_check(&s, PLAN_CMD_SWEEP, &e));
    plan_settings_clear(&s);
}

/* Import's times are converted as `import` always did, and only when
 * given: --from-ms 0 is a window from 0, not no window. */
static void test_options_import_given(void **state)
{
    (void)state;
    PlanSettings s = {0};
    SimImportOptions opt;
    plan_settings_import(&s, &opt);
    assert_int_equal(opt.launch_latency_ns, SIM_TIME_NEVER);
    assert_int_equal(opt.window_end_ns, SIM_TIME_NEVER);
    assert_false(plan_settings_given(&s, "from-ms", PLAN_CMD_IMPORT));
    static const char *const kv[] = {
        "from-ms",   "0",       "to-ms", "2.5",     "launch-latency-us",
        "3.0000004", "process", "12",    "process", "python3"};
    for (size_t i = 0; i < G_N_ELEMENTS(kv); i += 2)
        assert_true(plan_opt_set(&s, plan_opt_find(kv[i], PLAN_CMD_IMPORT),
                                 kv[i + 1], NULL));
    assert_true(plan_settings_given(&s, "from-ms", PLAN_CMD_IMPORT));
    plan_settings_import(&s, &opt);
    assert_int_equal(opt.window_start_ns, 0);
    assert_int_equal(opt.window_end_ns, 2500000);
    assert_int_equal(opt.launch_latency_ns, 3000);
    assert_string_equal(opt.processes[1], "python3");
    plan_settings_clear(&s);
    assert_false(plan_settings_given(&s, "from-ms", PLAN_CMD_IMPORT));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_table_is_consistent),
        cmocka_unit_test(test_options_set_reads_each_type),
        cmocka_unit_test(test_options_help_shows_ranges),
        cmocka_unit_test(test_options_settings_reach_modules),
        cmocka_unit_test(test_options_solo_run_is_the_run),
        cmocka_unit_test(test_options_sampled_solo_run_is_the_run),
        cmocka_unit_test(test_options_name_every_output),
        cmocka_unit_test(test_options_check),
        cmocka_unit_test(test_options_import_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
