/* test_sweep_slo.c -- service-level questions over a sweep (plan/slo.c):
 * which rows meet the objectives and why not, the largest N per workload,
 * GPU and mode, the best thread percentage at that N, the runner-up, and
 * the closest miss at the next N.
 *
 * The rows are filled by hand (no engine runs), so every answer is stated
 * exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "slo.h"
#include "sweep.h"
#include "testutil.h"

/* A sweep over N = 1, 2, 4, 8 with modes timeslice and mps at thread
 * percentages equal and 50: configs 0-3 timeslice, 4-7 mps equal, 8-11
 * mps 50.  Rows start done, meeting nothing in particular. */
static int setup(void **state)
{
    SimSweepSpace sp;
    sim_sweep_space_init(&sp);
    SimScenario *sc = sim_scenario_new("w.json", "hqsim");
    SimProcessSpec *p = test_process(sc, "p", 1);
    SimOp k = test_kernel(0, "k", 1, 32, SIM_US(10));
    sim_process_add_op(p, &k);
    g_ptr_array_add(sp.workloads, sc);
    g_ptr_array_add(sp.gpus, test_model(8));
    assert_true(sim_sweep_parse_processes("1,2,4,8", sp.processes, NULL));
    assert_true(sim_sweep_parse_modes("timeslice,mps", sp.modes, NULL));
    assert_true(sim_sweep_parse_pcts("equal,50", sp.pcts, NULL));
    SimSweep *sw = sim_sweep_new(&sp, NULL);
    assert_non_null(sw);
    assert_int_equal(sw->n_configs, 12);
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        SimSweepRow *r = &sw->rows[i];
        r->done = true;
        r->n_procs = r->cfg.n;
        r->started = r->cfg.n;
        r->throughput = 100.0 * r->cfg.n;
        r->p99_worst_ns = SIM_MS(r->cfg.n);
    }
    *state = sw;
    return 0;
}

static int teardown(void **state)
{
    sim_sweep_free(*state);
    return 0;
}

static const SimSloAnswer *answer(const GArray *a, SimShareMode mode)
{
    for (guint i = 0; i < a->len; i++)
        if (g_array_index(a, SimSloAnswer, i).mode == mode)
            return &g_array_index(a, SimSloAnswer, i);
    fail_msg("no answer for mode %d", mode);
    return NULL;
}

static void test_slo_meets_boundaries_inclusive(void **state)
{
    SimSweep *sw = *state;
    SimSweepRow *r = &sw->rows[2]; /* N = 4: 4 ms, 400/s */
    SimSlo slo = {4.0, 400.0};
    assert_true(sim_slo_meets(&slo, r, NULL));
    slo.p99_ms = 3.999;
    g_autoptr(GString) why = g_string_new(NULL);
    assert_false(sim_slo_meets(&slo, r, why));
    assert_string_equal(why->str, "worst p99 4.000 ms > 3.999 ms");
    slo = (SimSlo){0, 400.5};
    g_string_truncate(why, 0);
    assert_false(sim_slo_meets(&slo, r, why));
    assert_string_equal(why->str, "throughput 400.0/s < 400.5/s");
    assert_false(sim_slo_active(&(SimSlo){0, 0}));
    assert_true(sim_slo_active(&slo));
}

/* Refused, killed or failed configurations never meet the objectives,
 * however good their numbers. */
static void test_slo_refused_killed_failed_miss(void **state)
{
    SimSweep *sw = *state;
    SimSlo slo = {100, 0};
    SimSweepRow *r = &sw->rows[3];
    r->refused = 2;
    r->started = 6;
    r->limits = SIM_SWEEP_LIMIT_DEVICE_MEM | SIM_SWEEP_LIMIT_PCT_ROUNDING;
    g_autoptr(GString) why = g_string_new(NULL);
    assert_false(sim_slo_meets(&slo, r, why));
    assert_string_equal(why->str, "2 of 8 processes refused (device_memory)");
    r = &sw->rows[2];
    r->killed = 1;
    g_string_truncate(why, 0);
    assert_false(sim_slo_meets(&slo, r, why));
    assert_string_equal(why->str, "1 of 4 processes killed by a fault");
    r = &sw->rows[1];
    r->error = g_strdup("deadlock");
    g_string_truncate(why, 0);
    assert_false(sim_slo_meets(&slo, r, why));
    assert_string_equal(why->str, "the run failed: deadlock");
}

/* p99 = N ms: with <= 4 ms, time-slicing gets N = 4 and N = 8 misses. */
static void test_slo_largest_n_and_next_miss(void **state)
{
    SimSweep *sw = *state;
    SimSlo slo = {4, 0};
    g_autoptr(GArray) a = sim_slo_answer(sw, &slo);
    assert_int_equal(a->len, 2);
    const SimSloAnswer *ts = answer(a, SIM_SHARE_TIMESLICE);
    assert_int_equal(ts->best, 2);
    assert_int_equal(ts->runner_up, SIM_SLO_NONE);
    assert_int_equal(ts->next_n, 8);
    assert_int_equal(ts->next, 3);
    assert_int_equal(ts->next_count, 1);
}

/* The best thread percentage at the largest N: the higher throughput;
 * the other is the runner-up. */
static void test_slo_best_pct_and_runner_up(void **state)
{
    SimSweep *sw = *state;
    sw->rows[10].throughput = 450; /* mps 50, N = 4 */
    sw->rows[6].throughput = 420;  /* mps equal, N = 4 */
    SimSlo slo = {4, 0};
    g_autoptr(GArray) a = sim_slo_answer(sw, &slo);
    const SimSloAnswer *mps = answer(a, SIM_SHARE_MPS);
    assert_int_equal(mps->best, 10);
    assert_int_equal(mps->runner_up, 6);
    assert_int_equal(mps->next_n, 8);
    assert_int_equal(mps->next_count, 2);
    /* Equal throughput: the lower worst p99 wins, then sweep order. */
    sw->rows[6].throughput = 450;
    sw->rows[6].p99_worst_ns = SIM_MS(3);
    g_autoptr(GArray) b = sim_slo_answer(sw, &slo);
    assert_int_equal(answer(b, SIM_SHARE_MPS)->best, 6);
    sw->rows[6].p99_worst_ns = sw->rows[10].p99_worst_ns;
    g_autoptr(GArray) c = sim_slo_answer(sw, &slo);
    assert_int_equal(answer(c, SIM_SHARE_MPS)->best, 6);
    assert_int_equal(answer(c, SIM_SHARE_MPS)->runner_up, 10);
}

/* Latency need not grow with N: the largest N that meets wins even when a
 * smaller one misses. */
static void test_slo_not_monotone_takes_largest(void **state)
{
    SimSweep *sw = *state;
    SimSlo slo = {4, 0};
    sw->rows[1].p99_worst_ns = SIM_MS(9); /* timeslice N = 2 misses */
    sw->rows[3].p99_worst_ns = SIM_MS(1); /* timeslice N = 8 meets */
    g_autoptr(GArray) a = sim_slo_answer(sw, &slo);
    const SimSloAnswer *ts = answer(a, SIM_SHARE_TIMESLICE);
    assert_int_equal(ts->best, 3);
    assert_int_equal(ts->next_n, 0); /* 8 is the largest swept */
    assert_int_equal(ts->next, SIM_SLO_NONE);
}

/* Nothing meets: the answer says so and explains the smallest N.  The
 * closest miss prefers a configuration whose processes all started. */
static void test_slo_nothing_meets_closest_miss(void **state)
{
    SimSweep *sw = *state;
    SimSlo slo = {0.5, 0};
    sw->rows[4].refused = 1;      /* mps equal N = 1: refused */
    sw->rows[4].p99_worst_ns = 1; /* ... with a tempting latency */
    g_autoptr(GArray) a = sim_slo_answer(sw, &slo);
    const SimSloAnswer *mps = answer(a, SIM_SHARE_MPS);
    assert_int_equal(mps->best, SIM_SLO_NONE);
    assert_int_equal(mps->runner_up, SIM_SLO_NONE);
    assert_int_equal(mps->next_n, 1);
    assert_int_equal(mps->next, 8);
    g_autofree char *d = sim_slo_describe(&(SimSlo){20, 500});
    assert_string_equal(d, "worst process p99 <= 20 ms, throughput >= 500 "
                           "iterations/s, every process started");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_slo_meets_boundaries_inclusive,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_slo_refused_killed_failed_miss,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_slo_largest_n_and_next_miss, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_slo_best_pct_and_runner_up, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_slo_not_monotone_takes_largest,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_slo_nothing_meets_closest_miss,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
