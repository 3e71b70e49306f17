/* test_sweep.c -- the sweep's configuration space, one configuration's run
 * and summary row, the limits read from the result, running on several
 * threads, and rows as bytes (plan/sweep.c, plan/pool.c).
 *
 * Runs use the small in-code GPU of testutil.h (8 SMs, TPCs of 2, no
 * launch overheads), so the limits each test provokes are derived by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "pool.h"
#include "report.h"
#include "sweep.h"
#include "testutil.h"

/* ------------------------------------------------------------------------
 * Fixture: a space over one small workload on the 8-SM test GPU
 * ------------------------------------------------------------------------ */

typedef struct {
    SimSweepSpace sp;
    GpuModel *m;     /* owned by sp.gpus once added */
    SimScenario *sc; /* owned by sp.workloads once added */
} Fixture;

/* One closed-loop process: 5 iterations of a 2-block kernel of 256
 * threads, 100 us alone, then a device sync. */
static SimScenario *small_workload(void)
{
    SimScenario *sc = sim_scenario_new("small.json", "hqsim");
    SimProcessSpec *p = test_process(sc, "p", 1);
    p->iterations = 5;
    p->device_mem_bytes = 1000ull << 20;
    SimOp k = test_kernel(0, "k", 2, 256, SIM_US(100));
    sim_process_add_op(p, &k);
    SimOp s = test_simple(SIM_OP_DEVICE_SYNC, 0, 0);
    sim_process_add_op(p, &s);
    return sc;
}

static int setup(void **state)
{
    Fixture *f = g_new0(Fixture, 1);
    sim_sweep_space_init(&f->sp);
    f->m = test_model(8);
    f->sc = small_workload();
    g_ptr_array_add(f->sp.gpus, f->m);
    g_ptr_array_add(f->sp.workloads, f->sc);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    sim_sweep_space_clear(&f->sp);
    g_free(f);
    return 0;
}

static void add_axes(Fixture *f, const char *n, const char *modes,
                     const char *pcts)
{
    assert_true(sim_sweep_parse_processes(n, f->sp.processes, NULL));
    assert_true(sim_sweep_parse_modes(modes, f->sp.modes, NULL));
    if (pcts)
        assert_true(sim_sweep_parse_pcts(pcts, f->sp.pcts, NULL));
}

static SimSweep *new_sweep(Fixture *f)
{
    GError *err = NULL;
    SimSweep *sw = sim_sweep_new(&f->sp, &err);
    if (!sw)
        fail_msg("%s", err->message);
    return sw;
}

static void run_all(SimSweep *sw)
{
    for (uint32_t i = 0; i < sw->n_configs; i++)
        sim_sweep_run_config(sw, i);
}

static GByteArray *pack_all(const SimSweep *sw)
{
    GByteArray *b = g_byte_array_new();
    for (uint32_t i = 0; i < sw->n_configs; i++)
        sim_sweep_row_pack(&sw->rows[i], b);
    return b;
}

static const char *detail_of(const SimSweepRow *r, uint32_t bit)
{
    const char *name = sim_sweep_limit_name(bit);
    for (char **d = r->limit_details; d && *d; d++)
        if (g_str_has_prefix(*d, name))
            return *d;
    fail_msg("no detail for %s", name);
    return NULL;
}

/* ------------------------------------------------------------------------
 * Parsing the axes
 * ------------------------------------------------------------------------ */

static void test_sweep_parse_processes_ranges_sorted_distinct(void **state)
{
    (void)state;
    g_autoptr(GArray) a = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    assert_true(sim_sweep_parse_processes("8, 1-3,2,4-4", a, NULL));
    assert_int_equal(a->len, 5);
    const uint32_t want[] = {1, 2, 3, 4, 8};
    for (guint i = 0; i < a->len; i++)
        assert_int_equal(g_array_index(a, uint32_t, i), want[i]);
}

static void test_sweep_parse_processes_rejects_bad_lists(void **state)
{
    (void)state;
    const char *bad[] = {"0",    "5-2", "a",  "",    "1,,2",
                         "4097", "1-",  "-3", "2.5", "1-4097"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GArray) a = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_autoptr(GError) err = NULL;
        assert_false(sim_sweep_parse_processes(bad[i], a, &err));
        assert_int_equal(err->code, SIM_ERROR_USAGE);
        if (!strstr(err->message, "--processes"))
            fail_msg("'%s': %s", bad[i], err->message);
    }
}

static void test_sweep_parse_pcts_connections_modes(void **state)
{
    (void)state;
    g_autoptr(GArray) p = g_array_new(FALSE, FALSE, sizeof(SimSweepPct));
    assert_true(sim_sweep_parse_pcts("equal,25,100,25,scenario", p, NULL));
    assert_int_equal(p->len, 4);
    assert_int_equal(g_array_index(p, SimSweepPct, 0).kind,
                     SIM_SWEEP_PCT_EQUAL);
    assert_true(g_array_index(p, SimSweepPct, 1).value == 25);
    assert_int_equal(g_array_index(p, SimSweepPct, 3).kind,
                     SIM_SWEEP_PCT_SCENARIO);
    const char *bad_pct[] = {"0", "101", "x", "nan", "inf", "-5", "25%"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad_pct); i++) {
        g_autoptr(GError) err = NULL;
        assert_false(sim_sweep_parse_pcts(bad_pct[i], p, &err));
        assert_non_null(strstr(err->message, "--thread-pct"));
    }

    g_autoptr(GArray) c = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    assert_true(sim_sweep_parse_connections("default,2,8,2", c, NULL));
    assert_int_equal(c->len, 3);
    assert_int_equal(g_array_index(c, uint32_t, 0), 0);
    assert_int_equal(g_array_index(c, uint32_t, 2), 8);
    const char *bad_conn[] = {"0", "33", "two"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad_conn); i++) {
        g_autoptr(GError) err = NULL;
        assert_false(sim_sweep_parse_connections(bad_conn[i], c, &err));
        assert_non_null(strstr(err->message, "--connections"));
    }

    g_autoptr(GArray) m = g_array_new(FALSE, FALSE, sizeof(SimShareMode));
    assert_true(sim_sweep_parse_modes("mps,timeslice,mps", m, NULL));
    assert_int_equal(m->len, 2);
    assert_int_equal(g_array_index(m, SimShareMode, 0), SIM_SHARE_MPS);
    g_autoptr(GError) err = NULL;
    assert_false(sim_sweep_parse_modes("mps,shared", m, &err));
    assert_non_null(strstr(err->message, "unknown mode 'shared'"));
}

/* ------------------------------------------------------------------------
 * The configurations
 * ------------------------------------------------------------------------ */

/* N innermost; time-slicing ignores the percentages: 1 x 2 + 2 x 2. */
static void test_sweep_configs_order_timeslice_ignores_pct(void **state)
{
    Fixture *f = *state;
    add_axes(f, "1,2", "timeslice,mps", "equal,50");
    g_autoptr(SimSweep) sw = new_sweep(f);
    assert_int_equal(sw->n_configs, 6);
    const struct {
        SimShareMode mode;
        SimSweepPctKind kind;
        uint32_t n;
    } want[] = {
        {SIM_SHARE_TIMESLICE, SIM_SWEEP_PCT_SCENARIO, 1},
        {SIM_SHARE_TIMESLICE, SIM_SWEEP_PCT_SCENARIO, 2},
        {SIM_SHARE_MPS, SIM_SWEEP_PCT_EQUAL, 1},
        {SIM_SHARE_MPS, SIM_SWEEP_PCT_EQUAL, 2},
        {SIM_SHARE_MPS, SIM_SWEEP_PCT_VALUE, 1},
        {SIM_SHARE_MPS, SIM_SWEEP_PCT_VALUE, 2},
    };
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        assert_int_equal(sw->configs[i].index, i);
        assert_int_equal(sw->configs[i].mode, want[i].mode);
        assert_int_equal(sw->configs[i].pct.kind, want[i].kind);
        assert_int_equal(sw->configs[i].n, want[i].n);
        assert_int_equal(sw->rows[i].cfg.index, i);
    }
    /* The space was taken over. */
    assert_null(f->sp.workloads);
}

static void test_sweep_new_rejects_empty_axis(void **state)
{
    Fixture *f = *state;
    assert_true(sim_sweep_parse_modes("mps", f->sp.modes, NULL));
    g_autoptr(GError) err = NULL;
    assert_null(sim_sweep_new(&f->sp, &err));
    assert_int_equal(err->code, SIM_ERROR_USAGE);
}

/* 'equal' is 100 / the processes of the configuration: N copies of a
 * 2-process workload at N = 2 are 4 processes at 25%. */
static void test_sweep_equal_pct_divides_among_processes(void **state)
{
    Fixture *f = *state;
    SimProcessSpec *q = test_process(f->sc, "q", 1);
    SimOp k = test_kernel(0, "k", 1, 32, SIM_US(10));
    sim_process_add_op(q, &k);
    add_axes(f, "2", "mps", "equal");
    g_autoptr(SimSweep) sw = new_sweep(f);
    SimOptions o;
    sim_sweep_options(sw, 0, &o);
    assert_int_equal(sim_sweep_scenario(sw, 0)->processes->len, 4);
    assert_true(o.active_thread_pct == 25.0);
    assert_false(o.record_ops);
    run_all(sw);
    assert_true(sw->rows[0].thread_pct == 25.0);
    for (uint32_t i = 0; i < 4; i++)
        assert_true(sw->rows[0].procs[i].thread_pct == 25.0);
}

/* A row holds what `hqsim run --processes N --mode M` would report. */
static void test_sweep_row_matches_direct_engine_run(void **state)
{
    Fixture *f = *state;
    add_axes(f, "1,3", "timeslice,mps", "50");
    g_autoptr(SimSweep) sw = new_sweep(f);
    run_all(sw);
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        const SimSweepRow *row = &sw->rows[i];
        g_autoptr(SimScenario) sc = small_workload();
        sim_scenario_replicate_process(sc, 0, row->cfg.n);
        SimOptions o;
        sim_options_init(&o);
        o.mode = row->cfg.mode;
        o.active_thread_pct = row->cfg.mode == SIM_SHARE_MPS ? 50 : 0;
        g_autoptr(SimResult) r = sim_engine_run(f->m, sc, &o, NULL);
        assert_non_null(r);
        assert_true(row->done);
        assert_null(row->error);
        assert_int_equal(row->n_procs, r->n_procs);
        assert_true(row->throughput == sim_result_total_throughput(r));
        assert_int_equal(row->p50_ns, sim_result_latency_pct(r, 50));
        assert_int_equal(row->p99_ns, sim_result_latency_pct(r, 99));
        assert_int_equal(row->makespan_ns, r->makespan_ns);
        assert_int_equal(row->mem_used_bytes, r->device_mem_used_bytes);
        assert_int_equal(row->started, r->n_procs);
        for (uint32_t p = 0; p < r->n_procs; p++)
            assert_string_equal(row->procs[p].name, r->procs[p].name);
    }
    /* Time-slicing 3 copies: the same throughput, p99 about 3x. */
    assert_true(sw->rows[1].p99_worst_ns > 2 * sw->rows[0].p99_worst_ns);
}

/* ------------------------------------------------------------------------
 * Limits, from the result's statuses and SM limits
 * ------------------------------------------------------------------------ */

/* 4 clients at most with 2 connections each: 6 copies leave 2 refused.
 * Also pins the engine's wording that sweep.c classifies. */
static void test_sweep_limit_mps_client_limit(void **state)
{
    Fixture *f = *state;
    f->m->mps_max_clients = 4;
    add_axes(f, "4,6", "mps", NULL);
    g_autoptr(SimSweep) sw = new_sweep(f);
    run_all(sw);
    assert_int_equal(sw->rows[0].limits, 0);
    assert_int_equal(sw->rows[0].refused, 0);
    const SimSweepRow *r = &sw->rows[1];
    assert_int_equal(r->limits, SIM_SWEEP_LIMIT_MPS_CLIENTS);
    assert_int_equal(r->refused, 2);
    assert_int_equal(r->started, 4);
    assert_true(sim_sweep_row_fits_memory(r));
    assert_non_null(strstr(detail_of(r, SIM_SWEEP_LIMIT_MPS_CLIENTS),
                           "2 of 6 processes refused: the MPS server "
                           "already has 4 clients"));
    assert_int_equal(r->procs[5].status, SIM_PROC_NOT_STARTED);
    assert_non_null(r->procs[5].reason);
}

/* 80000 MiB: time-sliced, 1000 MiB + a 500 MiB context each. */
static void test_sweep_limit_device_memory(void **state)
{
    Fixture *f = *state;
    SimProcessSpec *p = g_ptr_array_index(f->sc->processes, 0);
    p->device_mem_bytes = 30000ull << 20;
    add_axes(f, "2,3", "timeslice", NULL);
    g_autoptr(SimSweep) sw = new_sweep(f);
    run_all(sw);
    assert_true(sim_sweep_row_fits_memory(&sw->rows[0]));
    const SimSweepRow *r = &sw->rows[1];
    assert_int_equal(r->limits, SIM_SWEEP_LIMIT_DEVICE_MEM);
    assert_false(sim_sweep_row_fits_memory(r));
    assert_int_equal(r->refused, 1);
    assert_int_equal(r->mem_used_bytes, 2 * (30500ull << 20));
    assert_non_null(strstr(detail_of(r, SIM_SWEEP_LIMIT_DEVICE_MEM),
                           "out of device memory"));
}

static void test_sweep_limit_mps_memory_limit(void **state)
{
    Fixture *f = *state;
    SimProcessSpec *p = g_ptr_array_index(f->sc->processes, 0);
    p->mps_mem_limit_bytes = 500ull << 20;
    add_axes(f, "1", "timeslice,mps", NULL);
    g_autoptr(SimSweep) sw = new_sweep(f);
    run_all(sw);
    assert_int_equal(sw->rows[0].limits, 0); /* not an MPS client */
    assert_int_equal(sw->rows[1].limits, SIM_SWEEP_LIMIT_MPS_MEM);
    assert_false(sim_sweep_row_fits_memory(&sw->rows[1]));
    assert_non_null(strstr(detail_of(&sw->rows[1], SIM_SWEEP_LIMIT_MPS_MEM),
                           "over its MPS memory limit"));
}

/* 30% of 8 SMs is 2.4 SMs: whole TPCs of 2, rounded down, give 2.  50% is
 * 4 SMs exactly: no rounding. */
static void test_sweep_limit_thread_pct_rounding(void **state)
{
    Fixture *f = *state;
    add_axes(f, "1,3", "mps", "30,50");
    g_autoptr(SimSweep) sw = new_sweep(f);
    run_all(sw);
    for (uint32_t i = 0; i < 2; i++) {
        const SimSweepRow *r = &sw->rows[i];
        assert_int_equal(r->limits, SIM_SWEEP_LIMIT_PCT_ROUNDING);
        assert_int_equal(r->procs[0].sm_limit, 2);
        assert_string_equal(detail_of(r, SIM_SWEEP_LIMIT_PCT_ROUNDING),
                            "thread_pct_rounding: 30% of 8 SMs is 2.40 SMs; "
                            "the client may use 2 (whole TPCs of 2, rounded "
                            "down)");
    }
    assert_int_equal(sw->rows[2].limits, 0);
    assert_int_equal(sw->rows[3].limits, 0);
    assert_int_equal(sw->rows[3].procs[2].sm_limit, 4);
    /* One rounding note per client becomes one note with a count. */
    char **notes = sw->rows[1].notes;
    assert_non_null(notes[0]);
    assert_null(notes[1]);
    assert_non_null(strstr(notes[0], "MPS client 'p':"));
    assert_non_null(strstr(notes[0], "(x3)"));
}

static void test_sweep_limit_pre_volta_and_no_mps(void **state)
{
    Fixture *f = *state;
    GpuModel *kepler = test_model(8);
    g_free(kepler->name);
    kepler->name = g_strdup("kepler");
    kepler->mps_volta = false;
    GpuModel *none = test_model(8);
    g_free(none->name);
    none->name = g_strdup("nomps");
    none->mps_supported = false;
    g_ptr_array_add(f->sp.gpus, kepler);
    g_ptr_array_add(f->sp.gpus, none);
    add_axes(f, "2", "mps", "50");
    g_autoptr(SimSweep) sw = new_sweep(f);
    run_all(sw);
    assert_int_equal(sw->rows[0].limits, 0);
    assert_int_equal(sw->rows[1].limits, SIM_SWEEP_LIMIT_PCT_IGNORED);
    assert_int_equal(sw->rows[1].procs[0].sm_limit, 8);
    assert_int_equal(sw->rows[2].limits, SIM_SWEEP_LIMIT_NO_MPS);
    assert_non_null(strstr(detail_of(&sw->rows[2], SIM_SWEEP_LIMIT_NO_MPS),
                           "nomps does not support MPS"));
}

/* A kernel that fits on no SM of one GPU fails that configuration only. */
static void test_sweep_failed_run_is_a_row(void **state)
{
    Fixture *f = *state;
    SimProcessSpec *p = g_ptr_array_index(f->sc->processes, 0);
    p->ops[0].u.kernel.dynamic_smem_bytes = 100 * 1024;
    GpuModel *small = test_model(8);
    small->smem_per_sm_bytes = 64 * 1024;
    small->max_smem_per_block_bytes = 200 * 1024;
    g_ptr_array_add(f->sp.gpus, small);
    add_axes(f, "1", "timeslice", NULL);
    g_autoptr(SimSweep) sw = new_sweep(f);
    run_all(sw);
    assert_null(sw->rows[0].error);
    assert_non_null(sw->rows[1].error);
    assert_true(sw->rows[1].done);
    assert_int_equal(sw->rows[1].n_procs, 1);
    assert_true(sw->rows[1].throughput == 0);
}

/* ------------------------------------------------------------------------
 * Threads, schedule, bytes
 * ------------------------------------------------------------------------ */

static void run_item(uint32_t item, gpointer data)
{
    sim_sweep_run_config(data, item);
}

static void count_progress(uint32_t done, uint32_t total, gpointer data)
{
    uint32_t *last = data;
    assert_true(done <= total);
    assert_true(done >= *last);
    *last = done;
}

/* The engine shares nothing mutable between runs: configurations run on 4
 * threads at once give the rows of a serial run, bit for bit.  (Under
 * ASan this also checks for use-after-free across threads; `make tsan`
 * runs it under ThreadSanitizer.) */
static void test_sweep_threads_give_serial_rows(void **state)
{
    Fixture *f = *state;
    add_axes(f, "1-6", "timeslice,mps", "equal,30,100");
    SimSweepSpace copy;
    sim_sweep_space_init(&copy);
    g_ptr_array_add(copy.workloads, sim_scenario_copy(f->sc));
    g_ptr_array_add(copy.gpus, sim_gpu_model_copy(f->m));
    g_array_append_vals(copy.processes, f->sp.processes->data,
                        f->sp.processes->len);
    g_array_append_vals(copy.modes, f->sp.modes->data, f->sp.modes->len);
    g_array_append_vals(copy.pcts, f->sp.pcts->data, f->sp.pcts->len);
    g_autoptr(SimSweep) serial = new_sweep(f);
    GError *err = NULL;
    g_autoptr(SimSweep) threaded = sim_sweep_new(&copy, &err);
    assert_non_null(threaded);
    sim_sweep_space_clear(&copy);

    run_all(serial);
    g_autofree uint32_t *order = sim_sweep_schedule(threaded);
    uint32_t last = 0;
    sim_pool_run(order, threaded->n_configs, 4, run_item, threaded,
                 count_progress, &last);
    assert_int_equal(last, threaded->n_configs);
    g_autoptr(GByteArray) a = pack_all(serial);
    g_autoptr(GByteArray) b = pack_all(threaded);
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->data, b->data, a->len);
}

static void test_sweep_schedule_runs_largest_first(void **state)
{
    Fixture *f = *state;
    add_axes(f, "1,4,2", "timeslice,mps", NULL);
    g_autoptr(SimSweep) sw = new_sweep(f);
    g_autofree uint32_t *order = sim_sweep_schedule(sw);
    /* Configs: ts 1,2,4 (0-2), mps 1,2,4 (3-5). */
    const uint32_t want[] = {2, 5, 1, 4, 0, 3};
    for (uint32_t i = 0; i < sw->n_configs; i++)
        assert_int_equal(order[i], want[i]);
}

static void hit(uint32_t item, gpointer data)
{
    g_atomic_int_inc(&((gint *)data)[item]);
}

static void test_sweep_pool_each_item_once(void **state)
{
    (void)state;
    uint32_t items[100];
    for (uint32_t i = 0; i < 100; i++)
        items[i] = 99 - i;
    for (uint32_t threads = 1; threads <= 8; threads *= 2) {
        gint hits[100] = {0};
        uint32_t last = 0;
        sim_pool_run(items, 100, threads, hit, hits, count_progress, &last);
        assert_int_equal(last, 100);
        for (uint32_t i = 0; i < 100; i++)
            assert_int_equal(hits[i], 1);
    }
    assert_true(sim_pool_default_threads(1) >= 1);
    assert_int_equal(sim_pool_default_threads(100000), 1);
}

/* Unpacked rows are the rows: packing them again gives the same bytes. */
static void test_sweep_pack_roundtrip(void **state)
{
    Fixture *f = *state;
    f->m->mps_max_clients = 4;
    add_axes(f, "1,5", "timeslice,mps", "30");
    SimSweepSpace copy;
    sim_sweep_space_init(&copy);
    g_ptr_array_add(copy.workloads, sim_scenario_copy(f->sc));
    g_ptr_array_add(copy.gpus, sim_gpu_model_copy(f->m));
    g_array_append_vals(copy.processes, f->sp.processes->data,
                        f->sp.processes->len);
    g_array_append_vals(copy.modes, f->sp.modes->data, f->sp.modes->len);
    g_array_append_vals(copy.pcts, f->sp.pcts->data, f->sp.pcts->len);
    g_autoptr(SimSweep) sw = new_sweep(f);
    g_autoptr(SimSweep) back = sim_sweep_new(&copy, NULL);
    sim_sweep_space_clear(&copy);
    run_all(sw);
    g_autoptr(GByteArray) a = pack_all(sw);
    const guint8 *p = a->data, *end = a->data + a->len;
    while (p < end) {
        GError *err = NULL;
        if (!sim_sweep_row_unpack(back, &p, end, &err))
            fail_msg("%s", err->message);
    }
    g_autoptr(GByteArray) b = pack_all(back);
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->data, b->data, a->len);
    assert_int_equal(back->rows[3].limits, SIM_SWEEP_LIMIT_MPS_CLIENTS |
                                               SIM_SWEEP_LIMIT_PCT_ROUNDING);

    /* A row sent twice is refused. */
    g_autoptr(GByteArray) one = g_byte_array_new();
    sim_sweep_row_pack(&sw->rows[0], one);
    p = one->data;
    g_autoptr(GError) err = NULL;
    assert_false(sim_sweep_row_unpack(back, &p, one->data + one->len, &err));
    assert_int_equal(err->code, SIM_ERROR_PARSE);
}

/* Every truncation of a packed row is an error, never a crash or leak. */
static void test_sweep_unpack_truncated_fails_cleanly(void **state)
{
    Fixture *f = *state;
    add_axes(f, "3", "mps", "30");
    g_autoptr(SimSweep) sw = new_sweep(f);
    run_all(sw);
    g_autoptr(GByteArray) a = pack_all(sw);
    for (guint cut = 0; cut < a->len; cut++) {
        sim_sweep_row_clear(&sw->rows[0]);
        const guint8 *p = a->data;
        g_autoptr(GError) err = NULL;
        if (sim_sweep_row_unpack(sw, &p, a->data + cut, &err))
            fail_msg("a row cut at %u of %u bytes was accepted", cut, a->len);
        assert_false(sw->rows[0].done);
    }
    sim_sweep_row_clear(&sw->rows[0]);
    const guint8 *p = a->data;
    assert_true(sim_sweep_row_unpack(sw, &p, a->data + a->len, NULL));
    assert_ptr_equal(p, a->data + a->len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_parse_processes_ranges_sorted_distinct),
        cmocka_unit_test(test_sweep_parse_processes_rejects_bad_lists),
        cmocka_unit_test(test_sweep_parse_pcts_connections_modes),
        cmocka_unit_test_setup_teardown(
            test_sweep_configs_order_timeslice_ignores_pct, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_new_rejects_empty_axis,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_sweep_equal_pct_divides_among_processes, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_sweep_row_matches_direct_engine_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_limit_mps_client_limit,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_limit_device_memory, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sweep_limit_mps_memory_limit,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_limit_thread_pct_rounding,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_limit_pre_volta_and_no_mps,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_failed_run_is_a_row, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sweep_threads_give_serial_rows,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_schedule_runs_largest_first,
                                        setup, teardown),
        cmocka_unit_test(test_sweep_pool_each_item_once),
        cmocka_unit_test_setup_teardown(test_sweep_pack_roundtrip, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_sweep_unpack_truncated_fails_cleanly, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
