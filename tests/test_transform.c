/* test_transform.c -- what-if rewrites of a workload (sim/transform.c).
 *
 * --loop-request (sim_scenario_loop_request) on hand-built profiles: a
 * request is the device work up to and including a device synchronize; a
 * synchronize with no kernel, copy or graph since the previous one ends no
 * request (a profile's trailing syncs), so it neither becomes a near-free
 * row of the spread nor shifts the median pick; a profile with fewer than
 * two requests is refused, naming the file and the process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "error.h"
#include "jitter.h"
#include "testutil.h"
#include "transform.h"

/* A profile of one process: a kernel of each of @us (µs), each followed by
 * a device synchronize, then @n_trailing more synchronizes with a 5 µs host
 * gap before each (the resnet18 profile ends with one such). */
static SimScenario *profile(const SimTime *us, uint32_t n, uint32_t n_trailing)
{
    SimScenario *sc = sim_scenario_new("profile.json", "test");
    SimProcessSpec *p = test_process(sc, "p", 1);
    SimOp sync = test_simple(SIM_OP_DEVICE_SYNC, 0, 0);
    for (uint32_t i = 0; i < n; i++) {
        SimOp k = test_kernel(0, "k", 4, 128, SIM_US(us[i]));
        sim_process_add_op(p, &k);
        sim_process_add_op(p, &sync);
    }
    for (uint32_t i = 0; i < n_trailing; i++) {
        SimOp g = test_gap(SIM_US(5));
        sim_process_add_op(p, &g);
        sim_process_add_op(p, &sync);
    }
    return sc;
}

/* Warm-up 100 µs, then requests of 10, 20 and 30 µs, then two syncs with
 * only host time between them: the kept request is the median of the three
 * (20 µs), and the spread has their three rows (kernel time over the kept
 * one's: 0.5, 1, 1.5; no copies or host time in the kept one: 1).  Before
 * the empty segment was dropped the pick was the 10 µs request and a fourth
 * row said a request's kernels take 1/1000 of the kept one's. */
static void test_loop_request_skips_syncs_without_work(void **state)
{
    (void)state;
    const SimTime us[] = {100, 10, 20, 30};
    g_autoptr(SimScenario) sc = profile(us, 4, 2);
    GError *err = NULL;
    assert_true(sim_scenario_loop_request(sc, 7, NULL, &err));
    const SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    assert_int_equal(p->iterations, 7);
    assert_int_equal(p->n_ops, 2);
    assert_int_equal(p->ops[0].kind, SIM_OP_KERNEL);
    assert_int_equal(p->ops[0].u.kernel.duration_ns, SIM_US(20));
    assert_int_equal(p->ops[1].kind, SIM_OP_DEVICE_SYNC);
    assert_non_null(p->jitter);
    assert_int_equal(p->jitter->n_rows, 3);
    const double kernel[] = {0.5, 1, 1.5}; /* sorted by GPU work */
    for (uint32_t i = 0; i < 3; i++) {
        const double *row = p->jitter->rows + (size_t)i * SIM_JIT_N_CLASSES;
        assert_float_equal(row[SIM_JIT_KERNEL], kernel[i], 1e-12);
        assert_float_equal(row[SIM_JIT_COPY], 1, 0);
        assert_float_equal(row[SIM_JIT_HOST], 1, 0);
    }
}

/* One request and trailing syncs: nothing to loop after the warm-up, so
 * the profile is refused with its file, process and the reason. */
static void test_loop_request_needs_two_requests_with_work(void **state)
{
    (void)state;
    const SimTime us[] = {100};
    g_autoptr(SimScenario) sc = profile(us, 1, 3);
    GError *err = NULL;
    assert_false(sim_scenario_loop_request(sc, 7, NULL, &err));
    assert_non_null(err);
    assert_true(g_error_matches(err, SIM_ERROR, SIM_ERROR_INVALID));
    assert_non_null(strstr(err->message, "profile.json: process 'p' has 1 "
                                         "device synchronizes that end "
                                         "device work"));
    assert_non_null(strstr(err->message, "--loop-request needs at least two"));
    g_error_free(err);
    /* two requests with work are enough */
    const SimTime two[] = {100, 10};
    g_autoptr(SimScenario) ok = profile(two, 2, 3);
    assert_true(sim_scenario_loop_request(ok, 7, NULL, &err));
    const SimProcessSpec *p = g_ptr_array_index(ok->processes, 0);
    assert_int_equal(p->ops[0].u.kernel.duration_ns, SIM_US(10));
    assert_int_equal(p->jitter->n_rows, 1);
}

/* --host-scale (sim_scenario_scale_host) multiplies host gaps and recorded
 * API times, but a graph launch's recorded host time is dropped for the
 * model's (graph_launch_api_us + nodes x graph_node_api_us): the profiler
 * inflates cudaGraphLaunch by a factor of its own (FINDINGS §48).  API
 * times left to the model stay so. */
static void test_scale_host_leaves_graph_launch_to_model(void **state)
{
    (void)state;
    g_autoptr(SimScenario) sc = sim_scenario_new("profile.json", "test");
    SimProcessSpec *p = test_process(sc, "p", 1);
    SimGraph *g = sim_scenario_new_graph(sc);
    SimGraphNode n;
    memset(&n, 0, sizeof n);
    n.op = test_kernel(0, "a", 1, 32, SIM_US(10));
    n.kind = SIM_NODE_KERNEL;
    sim_graph_add_node(g, &n, NULL, 0);
    uint32_t bad;
    assert_true(sim_graph_finish(g, &bad));
    SimOp gap = test_gap(SIM_US(10));
    SimOp k = test_kernel(0, "k", 4, 128, SIM_US(5));
    k.api_ns = SIM_US(8);
    SimOp k2 = test_kernel(0, "k2", 4, 128, SIM_US(5));
    SimOp launch = test_simple(SIM_OP_GRAPH, 0, 0);
    launch.u.graph = g;
    launch.api_ns = SIM_US(230);
    sim_process_add_op(p, &gap);
    sim_process_add_op(p, &k);
    sim_process_add_op(p, &k2);
    sim_process_add_op(p, &launch);
    sim_scenario_scale_host(sc, 0.25);
    assert_int_equal(p->ops[0].u.gap_ns, 2500);
    assert_int_equal(p->ops[1].api_ns, SIM_US(2));
    assert_int_equal(p->ops[2].api_ns, k2.api_ns);
    assert_int_equal(p->ops[3].api_ns, SIM_TIME_NEVER);
}

/* sim_scenario_unprofile_graphs (prep_load under --host-scale on a trace)
 * takes the profiler's cost out of every graph kernel node's recorded
 * duration, once per graph however many ops launch it, leaves at least 1 ns,
 * marks the graph unprofiled (its small memsets spaced as kernels), and
 * leaves copy and memset nodes and stream kernels as recorded (FINDINGS
 * §61: measured on graph replays only). */
static void test_unprofile_graphs_takes_profiler_cost_out(void **state)
{
    (void)state;
    g_autoptr(SimScenario) sc = sim_scenario_new("profile.json", "test");
    SimProcessSpec *p = test_process(sc, "p", 1);
    SimGraph *g = sim_scenario_new_graph(sc);
    SimGraphNode n;
    memset(&n, 0, sizeof n);
    n.op = test_kernel(0, "a", 1, 32, SIM_US(10));
    n.kind = SIM_NODE_KERNEL;
    sim_graph_add_node(g, &n, NULL, 0);
    n.op = test_kernel(0, "tiny", 1, 32, 100);
    sim_graph_add_node(g, &n, NULL, 0);
    memset(&n, 0, sizeof n);
    n.op = test_copy(0, SIM_COPY_D2D, 64, true);
    n.op.u.copy.duration_ns = SIM_US(1);
    n.kind = SIM_NODE_MEMSET;
    sim_graph_add_node(g, &n, NULL, 0);
    uint32_t bad;
    assert_true(sim_graph_finish(g, &bad));
    SimOp k = test_kernel(0, "k", 4, 128, SIM_US(5));
    SimOp launch = test_simple(SIM_OP_GRAPH, 0, 0);
    launch.u.graph = g;
    sim_process_add_op(p, &k);
    sim_process_add_op(p, &launch);
    sim_process_add_op(p, &launch); /* the same graph twice: cut once */
    assert_false(g->unprofiled);
    sim_scenario_unprofile_graphs(sc, 140);
    assert_true(g->unprofiled);
    assert_int_equal(g->nodes[0].op.u.kernel.duration_ns, SIM_US(10) - 140);
    assert_int_equal(g->nodes[1].op.u.kernel.duration_ns, 1);
    assert_int_equal(g->nodes[2].op.u.copy.duration_ns, SIM_US(1));
    assert_int_equal(p->ops[0].u.kernel.duration_ns, SIM_US(5));
    /* a copy (--processes N) keeps the mark */
    g_autoptr(SimScenario) c = sim_scenario_copy(sc);
    assert_true(((SimGraph *)g_ptr_array_index(c->graphs, 0))->unprofiled);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_request_skips_syncs_without_work),
        cmocka_unit_test(test_loop_request_needs_two_requests_with_work),
        cmocka_unit_test(test_scale_host_leaves_graph_launch_to_model),
        cmocka_unit_test(test_unprofile_graphs_takes_profiler_cost_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
