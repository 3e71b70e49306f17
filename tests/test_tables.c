/* test_tables.c -- the extension tables are well formed: importers
 * (import/registry.c), sharing-mode names (sim/engine_share.c), and the
 * output formats of runs (viz/outputs.c) and sweeps (plan/sweep_report.c).
 * Their behaviour is covered by the end-to-end tests; these check what a
 * new row could get wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>

#include "engine.h"
#include "error.h"
#include "import.h"
#include "outfile.h"
#include "registry.h"
#include "sweep_report.h"
#include "viz.h"

/* Every importer: a unique name, exactly one reader, some detector; the
 * format list is the table's names in order. */
static void test_importer_rows(void **state)
{
    (void)state;
    const char *const *names = sim_import_formats();
    for (size_t i = 0; i < sim_n_importers; i++) {
        const SimImporter *imp = &sim_importers[i];
        assert_string_equal(names[i], imp->name);
        assert_ptr_equal(sim_importer_find(imp->name), imp);
        int readers = (imp->read_native != NULL) + (imp->read_path != NULL) +
                      (imp->read_text != NULL);
        assert_int_equal(readers, 1);
        assert_true(imp->detect_json || imp->detect_line ||
                    (imp->magic_len && imp->detect_file));
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(sim_importers[j].name, imp->name);
    }
    assert_null(names[sim_n_importers]);
    assert_null(sim_importer_find("nvvp"));
}

/* Line detectors do not overlap where table order would hide one: each
 * format's own header line is taken by it, the first in table order. */
static void test_importer_detect_lines(void **state)
{
    (void)state;
    static const struct {
        const char *line, *format;
    } cases[] = {
        {"\"Start\",\"Duration\",\"Grid X\"", "nvprof"},
        {"\"Device\",\"Context\",\"Stream\",\"Kernel\",\"Name\"", "nvprof"},
        {"Start (ns),Duration (ns),CorrId,Name", "nsys-csv"},
        {"\"Start (ns)\",\"Duration (ns)\",\"Name\"", "nsys-csv"},
        {"\"ID\",\"Process ID\",\"Process Name\"", "ncu"},
    };
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        const char *found = NULL;
        size_t n = strlen(cases[c].line);
        for (size_t i = 0; i < sim_n_importers && !found; i++)
            if (sim_importers[i].detect_line &&
                sim_importers[i].detect_line(cases[c].line, n))
                found = sim_importers[i].name;
        assert_non_null(found);
        assert_string_equal(found, cases[c].format);
    }
}

/* Every mode's name parses back to it; an unknown one lists them all. */
static void test_share_mode_names(void **state)
{
    (void)state;
    const SimShareMode modes[] = {SIM_SHARE_TIMESLICE, SIM_SHARE_MPS,
                                  SIM_SHARE_AS_SCENARIO};
    for (size_t i = 0; i < G_N_ELEMENTS(modes); i++) {
        SimShareMode back = (SimShareMode)-1;
        assert_true(
            sim_share_mode_parse(sim_share_mode_name(modes[i]), &back, NULL));
        assert_int_equal(back, modes[i]);
        assert_non_null(sim_share_mode_phrase(modes[i]));
    }
    /* What each mode decides: which processes are MPS clients (none, all,
     * those that ask), and whether a thread percentage applies. */
    for (int asks = 0; asks < 2; asks++) {
        assert_false(sim_share_mode_mps(SIM_SHARE_TIMESLICE, asks));
        assert_true(sim_share_mode_mps(SIM_SHARE_MPS, asks));
        assert_int_equal(sim_share_mode_mps(SIM_SHARE_AS_SCENARIO, asks), asks);
    }
    assert_false(sim_share_mode_takes_pct(SIM_SHARE_TIMESLICE));
    assert_true(sim_share_mode_takes_pct(SIM_SHARE_MPS));
    assert_true(sim_share_mode_takes_pct(SIM_SHARE_AS_SCENARIO));
    char *help = sim_share_mode_help();
    assert_string_equal(help, "timeslice (own contexts), mps (MPS clients) "
                              "or scenario (as each process says)");
    g_free(help);
    SimShareMode m;
    assert_true(sim_share_mode_parse("time-slicing", &m, NULL));
    assert_int_equal(m, SIM_SHARE_TIMESLICE);
    GError *e = NULL;
    assert_false(sim_share_mode_parse("MPS", &m, &e));
    assert_int_equal(e->code, SIM_ERROR_USAGE);
    assert_string_equal(e->message,
                        "unknown mode 'MPS' (use timeslice, mps or scenario)");
    g_error_free(e);
}

static void check_outputs(const SimOutputFormat *f, size_t n,
                          const char *const *expect, size_t n_expect)
{
    assert_int_equal(n, n_expect);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(f[i].name, expect[i]);
        assert_non_null(f[i].ext);
        assert_non_null(f[i].write);
        assert_int_equal(sim_output_find(f, n, f[i].name), (int)i);
    }
    assert_int_equal(sim_output_find(f, n, "pdf"), -1);
}

/* The run and sweep output tables: unique names in the order outputs are
 * written; nothing asked for, nothing written. */
static void test_output_tables(void **state)
{
    (void)state;
    size_t n = 0;
    const SimOutputFormat *runs = sim_viz_outputs(&n);
    const char *const run_names[] = {"json", "csv", "perfetto", "picture",
                                     "report"};
    check_outputs(runs, n, run_names, G_N_ELEMENTS(run_names));
    const char *none[G_N_ELEMENTS(run_names)] = {NULL};
    assert_true(sim_outputs_write(runs, n, none, NULL, NULL));

    const SimOutputFormat *sweeps = sim_sweep_outputs(&n);
    const char *const sweep_names[] = {"csv", "json", "plot", "report"};
    check_outputs(sweeps, n, sweep_names, G_N_ELEMENTS(sweep_names));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_importer_rows),
        cmocka_unit_test(test_importer_detect_lines),
        cmocka_unit_test(test_share_mode_names),
        cmocka_unit_test(test_output_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
