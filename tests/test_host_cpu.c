/* test_host_cpu.c -- the host CPU as a shared resource (sim/engine_host.c).
 *
 * Host work of all processes shares `host_cores` by processor sharing.
 * Expected times are derived by hand on the test GPU (no API overheads):
 *   - 3 threads of 300 us on 1 core run at 1/3 each: all end at 900 us;
 *   - 100 us and 300 us on 1 core: both at 1/2 until 200 us, when the first
 *     is done; the other has 200 us left alone: it ends at 400 us;
 *   - 3 threads of 300 us on 2 cores run at 2/3: all end at 450 us;
 *   - a thread waiting on a synchronize takes no core.
 * With at least as many cores as processes nothing changes, to the byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine.h"
#include "report.h"
#include "testutil.h"

/* @n processes, each one host gap of gaps[i] us (one iteration). */
static SimScenario *gaps_scenario(const double *gaps_us, uint32_t n)
{
    SimScenario *sc = sim_scenario_new("(test)", "test");
    for (uint32_t i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%u", i);
        SimProcessSpec *p = test_process(sc, name, 1);
        SimOp g = test_gap(sim_time_from_us(gaps_us[i]));
        sim_process_add_op(p, &g);
    }
    return sc;
}

static SimResult *run_cores(const GpuModel *m, const SimScenario *sc,
                            uint32_t cores)
{
    SimOptions o;
    sim_options_init(&o);
    o.check_invariants = true;
    o.host_cores = cores;
    GError *err = NULL;
    SimResult *r = sim_engine_run(m, sc, &o, &err);
    if (!r)
        fail_msg("%s", err->message);
    return r;
}

static SimTime latency(const SimResult *r, uint32_t proc)
{
    assert_int_equal(r->procs[proc].latency_ns->len, 1);
    return g_array_index(r->procs[proc].latency_ns, SimTime, 0);
}

static void test_three_threads_one_core(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = test_model(4);
    const double gaps[] = {300, 300, 300};
    g_autoptr(SimScenario) sc = gaps_scenario(gaps, 3);
    g_autoptr(SimResult) r = run_cores(m, sc, 1);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(latency(r, i), SIM_US(900));
}

static void test_short_thread_leaves_its_share(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = test_model(4);
    const double gaps[] = {100, 300};
    g_autoptr(SimScenario) sc = gaps_scenario(gaps, 2);
    g_autoptr(SimResult) r = run_cores(m, sc, 1);
    assert_int_equal(latency(r, 0), SIM_US(200));
    assert_int_equal(latency(r, 1), SIM_US(400));
}

static void test_three_threads_two_cores(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = test_model(4);
    const double gaps[] = {300, 300, 300};
    g_autoptr(SimScenario) sc = gaps_scenario(gaps, 3);
    g_autoptr(SimResult) r = run_cores(m, sc, 2);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(latency(r, i), SIM_US(450));
}

/* Precedence: the option, else the scenario's host_cores, else the
 * model's, else unlimited. */
static void test_cores_precedence(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = test_model(4);
    const double gaps[] = {300, 300, 300};
    g_autoptr(SimScenario) sc = gaps_scenario(gaps, 3);
    g_autoptr(SimResult) none = run_cores(m, sc, 0);
    assert_int_equal(latency(none, 2), SIM_US(300));
    m->host_cores = 1;
    g_autoptr(SimResult) model = run_cores(m, sc, 0);
    assert_int_equal(latency(model, 2), SIM_US(900));
    sc->host_cores = 2;
    g_autoptr(SimResult) scen = run_cores(m, sc, 0);
    assert_int_equal(latency(scen, 2), SIM_US(450));
    g_autoptr(SimResult) opt = run_cores(m, sc, 3);
    assert_int_equal(latency(opt, 2), SIM_US(300));
}

/* A host thread blocked in a synchronize takes no core: the other
 * process's 500 us of host work runs alone on the one core. */
static void test_waiting_takes_no_core(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = test_model(4);
    g_autoptr(SimScenario) sc = sim_scenario_new("(test)", "test");
    SimProcessSpec *a = test_process(sc, "gpu", 1);
    SimOp k = test_kernel(0, "k", 4, 128, SIM_US(1000));
    SimOp sync = test_simple(SIM_OP_STREAM_SYNC, 0, 0);
    sim_process_add_op(a, &k);
    sim_process_add_op(a, &sync);
    SimProcessSpec *b = test_process(sc, "cpu", 1);
    SimOp g = test_gap(SIM_US(500));
    sim_process_add_op(b, &g);
    g_autoptr(SimResult) r = run_cores(m, sc, 1);
    assert_int_equal(latency(r, 0), SIM_US(1000));
    assert_int_equal(latency(r, 1), SIM_US(500));
}

/* With as many cores as processes the run is the one without a core
 * count, op for op and in its summary. */
static void test_enough_cores_change_nothing(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = test_model(4);
    m->launch_api_ns = SIM_US(5);
    m->sync_api_ns = SIM_US(2);
    g_autoptr(SimScenario) sc = sim_scenario_new("(test)", "test");
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        SimProcessSpec *p = test_process(sc, name, 1);
        p->iterations = 5;
        SimOp g = test_gap(SIM_US(40 + 10 * i));
        SimOp k = test_kernel(0, "k", 8, 256, SIM_US(30));
        SimOp sync = test_simple(SIM_OP_DEVICE_SYNC, 0, 0);
        sim_process_add_op(p, &g);
        sim_process_add_op(p, &k);
        sim_process_add_op(p, &sync);
    }
    g_autoptr(SimResult) base = run_cores(m, sc, 0);
    g_autoptr(SimResult) three = run_cores(m, sc, 3);
    g_autoptr(SimResult) one = run_cores(m, sc, 1);
    g_autofree char *jb = sim_report_json(base, m, sc);
    g_autofree char *j3 = sim_report_json(three, m, sc);
    g_autofree char *j1 = sim_report_json(one, m, sc);
    assert_string_equal(jb, j3);
    assert_int_equal(base->ops->len, three->ops->len);
    for (guint i = 0; i < base->ops->len; i++) {
        const SimOpRecord *a = &g_array_index(base->ops, SimOpRecord, i);
        const SimOpRecord *b = &g_array_index(three->ops, SimOpRecord, i);
        assert_int_equal(a->issue_ns, b->issue_ns);
        assert_int_equal(a->start_ns, b->start_ns);
        assert_int_equal(a->end_ns, b->end_ns);
        assert_int_equal(a->proc, b->proc);
    }
    /* ... and one core for three processes does change it: slower. */
    assert_true(strcmp(jb, j1) != 0);
    assert_true(one->makespan_ns > base->makespan_ns);
}

/* An open-loop request that finds its process idle pays the model's host
 * wake cost (host_wake_us, FINDINGS §59) before its first call; one that
 * queued behind the previous request, or the first request, pays none.
 * Requests of one 100 us host gap arrive at 0, 1000, 1050 and 5000 us;
 * table (200 us, 0), (1000 us, 10 us), (2000 us, 30 us):
 *   #0 first: 100 us;
 *   #1 idle 900 us: wake 10 x 700 / 800 = 8.75 us, latency 108.75 us;
 *   #2 arrives at 1050, #1 ends at 1108.75: queued, 158.75 us;
 *   #3 idle 3791.25 us, beyond the table: wake 30 us, 130 us.
 * Without the table: 100, 100, 150, 100 us. */
static void test_open_loop_wake_after_idle(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = test_model(4);
    g_autoptr(SimScenario) sc = sim_scenario_new("(test)", "test");
    SimProcessSpec *p = test_process(sc, "p", 1);
    SimOp g = test_gap(SIM_US(100));
    sim_process_add_op(p, &g);
    static const SimTime at_us[] = {0, 1000, 1050, 5000};
    p->arrivals.kind = SIM_ARRIVALS_LIST;
    p->arrivals.n_times = 4;
    p->arrivals.times_ns = g_new(SimTime, 4);
    for (uint32_t i = 0; i < 4; i++)
        p->arrivals.times_ns[i] = SIM_US(at_us[i]);
    const SimTime without[] = {100000, 100000, 150000, 100000};
    const SimTime with[] = {100000, 108750, 158750, 130000};
    g_autoptr(SimResult) off = run_cores(m, sc, 0);
    m->n_host_wake = 3;
    m->host_wake_gap_ns[0] = SIM_US(200);
    m->host_wake_cost_ns[0] = 0;
    m->host_wake_gap_ns[1] = SIM_US(1000);
    m->host_wake_cost_ns[1] = SIM_US(10);
    m->host_wake_gap_ns[2] = SIM_US(2000);
    m->host_wake_cost_ns[2] = SIM_US(30);
    g_autoptr(SimResult) on = run_cores(m, sc, 0);
    assert_int_equal(off->procs[0].latency_ns->len, 4);
    assert_int_equal(on->procs[0].latency_ns->len, 4);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(g_array_index(off->procs[0].latency_ns, SimTime, i),
                         without[i]);
        assert_int_equal(g_array_index(on->procs[0].latency_ns, SimTime, i),
                         with[i]);
    }
    /* The wake is host CPU work: on one core shared with nothing it is the
     * same; the request's clock still starts at its arrival. */
    g_autoptr(SimResult) one = run_cores(m, sc, 1);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(g_array_index(one->procs[0].latency_ns, SimTime, i),
                         with[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_threads_one_core),
        cmocka_unit_test(test_short_thread_leaves_its_share),
        cmocka_unit_test(test_three_threads_two_cores),
        cmocka_unit_test(test_cores_precedence),
        cmocka_unit_test(test_waiting_takes_no_core),
        cmocka_unit_test(test_enough_cores_change_nothing),
        cmocka_unit_test(test_open_loop_wake_after_idle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
