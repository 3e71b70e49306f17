/* test_sweep_threads.c -- the engine is reentrant: configurations of a
 * sweep run on several threads at once give the rows of a serial run, bit
 * for bit, and touch no shared mutable state.
 *
 * The threads are plain POSIX threads, not a GThreadPool, so that
 * ThreadSanitizer sees every happens-before edge (create and join); GLib's
 * futex-based mutexes are invisible to it and would drown a real race in
 * false reports.  `make tsan` runs this binary under ThreadSanitizer; the
 * other builds run it as an ordinary test (ASan catches a run freeing
 * what another still reads).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"
#include "testutil.h"

#define N_THREADS 4

/* Two processes with different kernels, copies 1-4, every mode and a
 * rounded thread percentage: the engine's paths for contexts, time slices,
 * MPS limits and refusals (client limit 6) all run. */
static SimSweep *make_sweep(void)
{
    SimSweepSpace sp;
    sim_sweep_space_init(&sp);
    SimScenario *sc = sim_scenario_new("threads.json", "hqsim");
    SimProcessSpec *a = test_process(sc, "a", 2);
    a->iterations = 3;
    SimOp k1 = test_kernel(0, "wide", 12, 256, SIM_US(80));
    SimOp k2 = test_kernel(1, "narrow", 1, 64, SIM_US(30));
    SimOp sync = test_simple(SIM_OP_DEVICE_SYNC, 0, 0);
    sim_process_add_op(a, &k1);
    sim_process_add_op(a, &k2);
    sim_process_add_op(a, &sync);
    SimProcessSpec *b = test_process(sc, "b", 1);
    b->mps = true;
    SimOp k3 = test_kernel(0, "b", 4, 128, SIM_US(200));
    sim_process_add_op(b, &k3);
    g_ptr_array_add(sp.workloads, sc);
    GpuModel *m = test_model(8);
    m->mps_max_clients = 6;
    g_ptr_array_add(sp.gpus, m);
    g_assert(sim_sweep_parse_processes("1-4", sp.processes, NULL));
    g_assert(sim_sweep_parse_modes("timeslice,mps,scenario", sp.modes, NULL));
    g_assert(sim_sweep_parse_pcts("equal,30", sp.pcts, NULL));
    g_assert(sim_sweep_parse_connections("default,1", sp.connections, NULL));
    SimSweep *sw = sim_sweep_new(&sp, NULL);
    g_assert(sw);
    return sw;
}

typedef struct {
    SimSweep *sw;
    uint32_t first; /* runs configurations first, first + N_THREADS, ... */
} Job;

static void *worker(void *arg)
{
    Job *j = arg;
    for (uint32_t i = j->first; i < j->sw->n_configs; i += N_THREADS)
        sim_sweep_run_config(j->sw, i);
    return NULL;
}

static void test_sweep_threads_engine_is_reentrant(void **state)
{
    (void)state;
    SimSweep *serial = make_sweep();
    SimSweep *par = make_sweep();
    assert_int_equal(serial->n_configs, 2 * (1 + 2 + 2) * 4);
    for (uint32_t i = 0; i < serial->n_configs; i++)
        sim_sweep_run_config(serial, i);

    pthread_t t[N_THREADS];
    Job jobs[N_THREADS];
    for (uint32_t k = 0; k < N_THREADS; k++) {
        jobs[k] = (Job){par, k};
        assert_int_equal(pthread_create(&t[k], NULL, worker, &jobs[k]), 0);
    }
    for (uint32_t k = 0; k < N_THREADS; k++)
        assert_int_equal(pthread_join(t[k], NULL), 0);

    GByteArray *a = g_byte_array_new(), *b = g_byte_array_new();
    bool refused = false;
    for (uint32_t i = 0; i < serial->n_configs; i++) {
        assert_true(par->rows[i].done);
        assert_null(par->rows[i].error);
        refused |= par->rows[i].refused > 0;
        sim_sweep_row_pack(&serial->rows[i], a);
        sim_sweep_row_pack(&par->rows[i], b);
    }
    assert_true(refused);
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->data, b->data, a->len);
    g_byte_array_unref(a);
    g_byte_array_unref(b);
    sim_sweep_free(serial);
    sim_sweep_free(par);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_threads_engine_is_reentrant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
