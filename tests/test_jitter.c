/* test_jitter.c -- seeded variation of op times (sim/jitter.c) and how the
 * engine applies it.
 *
 * Draws: each is a pure function of (seed, process, iteration, op, class),
 * in range for its distribution, with the distribution's shape over many
 * draws.  Engine, on the test GPU (no API overheads, so a request's time is
 * exactly its host gap, or its kernel's time): each iteration's latency is
 * the op's time times the factor the module gives for that key; without a
 * jitter, or with --no-jitter, every request is the same.  Format: errors
 * name file, line and field; a written scenario reads back the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "engine.h"
#include "jitter.h"
#include "report.h"
#include "testutil.h"

static SimJitter *dist_jitter(SimJitClass c, SimDistKind kind, double a,
                              double b)
{
    SimJitter *j = g_new0(SimJitter, 1);
    j->op[c].kind = kind;
    j->op[c].a = a;
    j->op[c].b = b;
    return j;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------------
 * Draws
 * ------------------------------------------------------------------------ */

static void test_no_jitter_is_exactly_one(void **state)
{
    (void)state;
    assert_true(sim_jitter_factor(NULL, NULL, 7, 1, 2, 3, SIM_JIT_HOST) == 1.0);
    g_autoptr(SimJitter) j = g_new0(SimJitter, 1);
    assert_true(sim_jitter_factor(j, NULL, 7, 1, 2, 3, SIM_JIT_KERNEL) == 1.0);
    assert_null(sim_jitter_row(j, 7, 1, 2));
    assert_int_equal(sim_jitter_scale(123456789, 1.0), 123456789);
    assert_int_equal(sim_jitter_scale(1000, 1.5), 1500);
}

/* The same key gives the same factor whatever was drawn before; another
 * iteration, process, op, class or seed gives another. */
static void test_draws_are_pure(void **state)
{
    (void)state;
    g_autoptr(SimJitter) j =
        dist_jitter(SIM_JIT_KERNEL, SIM_DIST_LOGNORMAL, 0.3, 0);
    j->op[SIM_JIT_HOST] = j->op[SIM_JIT_KERNEL];
    double f = sim_jitter_factor(j, NULL, 5, 2, 10, 4, SIM_JIT_KERNEL);
    for (uint32_t i = 0; i < 100; i++)
        (void)sim_jitter_factor(j, NULL, 5, i % 3, i, i, SIM_JIT_KERNEL);
    assert_true(sim_jitter_factor(j, NULL, 5, 2, 10, 4, SIM_JIT_KERNEL) == f);
    assert_true(sim_jitter_factor(j, NULL, 5, 2, 11, 4, SIM_JIT_KERNEL) != f);
    assert_true(sim_jitter_factor(j, NULL, 5, 3, 10, 4, SIM_JIT_KERNEL) != f);
    assert_true(sim_jitter_factor(j, NULL, 5, 2, 10, 5, SIM_JIT_KERNEL) != f);
    assert_true(sim_jitter_factor(j, NULL, 6, 2, 10, 4, SIM_JIT_KERNEL) != f);
    assert_true(sim_jitter_factor(j, NULL, 5, 2, 10, 4, SIM_JIT_HOST) != f);
}

/* Lognormal: median 1, standard deviation of the log = sigma (20000
 * draws: the sample median of exp(sigma z) is within 1%, the sample sd
 * within 3%). */
static void test_lognormal_shape(void **state)
{
    (void)state;
    const double sigma = 0.2;
    g_autoptr(SimJitter) j =
        dist_jitter(SIM_JIT_HOST, SIM_DIST_LOGNORMAL, sigma, 0);
    enum { N = 20000 };
    double *v = g_new(double, N);
    double s = 0, s2 = 0;
    for (uint32_t i = 0; i < N; i++) {
        v[i] = sim_jitter_factor(j, NULL, 1, i % 7, i, 3, SIM_JIT_HOST);
        double l = log(v[i]);
        s += l;
        s2 += l * l;
    }
    qsort(v, N, sizeof *v, cmp_double);
    double sd = sqrt(s2 / N - (s / N) * (s / N));
    print_message("lognormal sigma %.2f: median %.4f, sd of log %.4f\n", sigma,
                  v[N / 2], sd);
    assert_true(fabs(v[N / 2] - 1) < 0.01);
    assert_true(fabs(sd - sigma) < 0.03 * sigma);
    g_free(v);
}

static void test_uniform_and_empirical_ranges(void **state)
{
    (void)state;
    g_autoptr(SimJitter) u =
        dist_jitter(SIM_JIT_COPY, SIM_DIST_UNIFORM, 0.8, 1.3);
    double lo = 2, hi = 0, sum = 0;
    for (uint32_t i = 0; i < 10000; i++) {
        double f = sim_jitter_factor(u, NULL, 3, 0, i, 0, SIM_JIT_COPY);
        lo = MIN(lo, f);
        hi = MAX(hi, f);
        sum += f;
    }
    assert_true(lo >= 0.8 && lo < 0.81 && hi <= 1.3 && hi > 1.29);
    assert_true(fabs(sum / 10000 - 1.05) < 0.01);
    g_autoptr(SimJitter) e =
        dist_jitter(SIM_JIT_KERNEL, SIM_DIST_EMPIRICAL, 0, 0);
    const double vals[] = {0.9, 1.0, 1.7};
    e->op[SIM_JIT_KERNEL].values = g_memdup2(vals, sizeof vals);
    e->op[SIM_JIT_KERNEL].n = 3;
    uint32_t count[3] = {0};
    for (uint32_t i = 0; i < 9000; i++) {
        double f = sim_jitter_factor(e, NULL, 3, 1, i, 2, SIM_JIT_KERNEL);
        int k = f == 0.9 ? 0 : f == 1.0 ? 1 : f == 1.7 ? 2 : -1;
        assert_true(k >= 0);
        count[k]++;
    }
    for (int k = 0; k < 3; k++)
        assert_true(count[k] > 2800 && count[k] < 3200);
}

/* ------------------------------------------------------------------------
 * The engine
 * ------------------------------------------------------------------------ */

/* One process (or @replicas), @iters iterations of one host gap. */
static SimScenario *gap_loop(SimTime gap, uint32_t iters, SimJitter *j,
                             uint32_t replicas)
{
    SimScenario *sc = sim_scenario_new("(test)", "test");
    sc->seed = 42;
    SimProcessSpec *p = test_process(sc, "p", 1);
    p->iterations = iters;
    SimOp g = test_gap(gap);
    sim_process_add_op(p, &g);
    p->jitter = j;
    sim_scenario_replicate_process(sc, 0, replicas);
    return sc;
}

static SimResult *run(const GpuModel *m, const SimScenario *sc, bool off)
{
    SimOptions o;
    sim_options_init(&o);
    o.check_invariants = true;
    o.no_jitter = off;
    GError *err = NULL;
    SimResult *r = sim_engine_run(m, sc, &o, &err);
    if (!r)
        fail_msg("%s", err->message);
    return r;
}

static SimTime lat(const SimResult *r, uint32_t p, uint32_t i)
{
    return g_array_index(r->procs[p].latency_ns, SimTime, i);
}

/* Host gaps: iteration i takes gap x factor(seed 42, process, i, op 0,
 * host), rounded to the ns; processes draw apart; --no-jitter: all 1 ms. */
static void test_engine_host_gap_factors(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = test_model(4);
    SimJitter *j = dist_jitter(SIM_JIT_HOST, SIM_DIST_UNIFORM, 0.5, 1.5);
    g_autoptr(SimScenario) sc = gap_loop(SIM_US(1000), 50, j, 2);
    const SimJitter *pj =
        ((SimProcessSpec *)g_ptr_array_index(sc->processes, 1))->jitter;
    g_autoptr(SimResult) r = run(m, sc, false);
    bool differ = false;
    for (uint32_t p = 0; p < 2; p++)
        for (uint32_t i = 0; i < 50; i++) {
            double f = sim_jitter_factor(pj, NULL, 42, p, i, 0, SIM_JIT_HOST);
            assert_int_equal(lat(r, p, i), llround(1e6 * f));
            differ |= lat(r, 0, i) != lat(r, 1, i);
        }
    assert_true(differ);
    assert_true(sim_percentile(r->procs[0].latency_ns, 99) >
                sim_percentile(r->procs[0].latency_ns, 50));
    g_autoptr(SimResult) off = run(m, sc, true);
    for (uint32_t i = 0; i < 50; i++)
        assert_int_equal(lat(off, 0, i), SIM_US(1000));
    /* the same inputs, the same bytes */
    g_autoptr(SimResult) again = run(m, sc, false);
    g_autofree char *a = sim_report_json(r, m, sc);
    g_autofree char *b = sim_report_json(again, m, sc);
    assert_string_equal(a, b);
}

/* Request rows: one row per iteration, applied to all its ops; with a row
 * of host factor 1 or 3, each iteration takes 1 or 3 ms, and which one is
 * sim_jitter_row's pick. */
static void test_engine_request_rows(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = test_model(4);
    SimJitter *j = g_new0(SimJitter, 1);
    const double rows[] = {1, 1, 1, 2, 2, 3};
    j->rows = g_memdup2(rows, sizeof rows);
    j->n_rows = 2;
    g_autoptr(SimScenario) sc = gap_loop(SIM_US(1000), 100, j, 1);
    g_autoptr(SimResult) r = run(m, sc, false);
    uint32_t slow = 0;
    for (uint32_t i = 0; i < 100; i++) {
        const double *row = sim_jitter_row(j, 42, 0, i);
        assert_int_equal(lat(r, 0, i), SIM_US(1000) * (SimTime)row[2]);
        slow += row[2] == 3;
    }
    assert_true(slow > 30 && slow < 70);
    assert_int_equal(sim_percentile(r->procs[0].latency_ns, 99), SIM_US(3000));
    assert_int_equal(sim_percentile(r->procs[0].latency_ns, 10), SIM_US(1000));
    /* Open loop: requests every 10 ms (they never queue), the same rows. */
    SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    p->arrivals.kind = SIM_ARRIVALS_LIST;
    p->arrivals.n_times = 40;
    p->arrivals.times_ns = g_new(SimTime, 40);
    for (uint32_t i = 0; i < 40; i++)
        p->arrivals.times_ns[i] = SIM_MS(10) * i;
    g_autoptr(SimResult) open = run(m, sc, false);
    assert_int_equal(open->procs[0].latency_ns->len, 40);
    for (uint32_t i = 0; i < 40; i++) {
        const double *row = sim_jitter_row(j, 42, 0, i);
        assert_int_equal(lat(open, 0, i), SIM_US(1000) * (SimTime)row[2]);
    }
}

/* Kernel work and copy time scale by their class's factor: a 100 us
 * kernel (alone on the GPU) and a 100 us copy (1e6 bytes at 10 bytes/ns)
 * on one stream, then a synchronize: iteration i takes
 * 100 us x kernel factor + 100 us x copy factor (to the ns). */
static void test_engine_kernel_and_copy_factors(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = test_model(4);
    SimJitter *j = dist_jitter(SIM_JIT_KERNEL, SIM_DIST_UNIFORM, 1, 2);
    j->op[SIM_JIT_COPY].kind = SIM_DIST_LOGNORMAL;
    j->op[SIM_JIT_COPY].a = 0.3;
    g_autoptr(SimScenario) sc = sim_scenario_new("(test)", "test");
    SimProcessSpec *p = test_process(sc, "p", 1);
    p->iterations = 40;
    p->jitter = j;
    SimOp k = test_kernel(0, "k", 4, 128, SIM_US(100));
    SimOp c = test_copy(0, SIM_COPY_H2D, 1000000, true);
    SimOp s = test_simple(SIM_OP_DEVICE_SYNC, 0, 0);
    sim_process_add_op(p, &k);
    sim_process_add_op(p, &c);
    sim_process_add_op(p, &s);
    g_autoptr(SimResult) r = run(m, sc, false);
    g_autoptr(SimResult) off = run(m, sc, true);
    for (uint32_t i = 0; i < 40; i++) {
        double fk = sim_jitter_factor(j, NULL, 1, 0, i, 0, SIM_JIT_KERNEL);
        double fc = sim_jitter_factor(j, NULL, 1, 0, i, 1, SIM_JIT_COPY);
        double want = 1e5 * fk + 1e5 * fc;
        assert_int_equal(lat(off, 0, i), SIM_US(200));
        if (fabs((double)lat(r, 0, i) - want) > 2)
            fail_msg("iteration %u: %llu ns, want %.1f", i,
                     (unsigned long long)lat(r, 0, i), want);
    }
}

/* ------------------------------------------------------------------------
 * The scenario format
 * ------------------------------------------------------------------------ */

static const char good[] =
    "{\"hqsim_scenario\": 1, \"seed\": 9, \"host_cores\": 2,\n"
    " \"jitter\": {\"kernel\": {\"dist\": \"lognormal\", \"sigma\": 0.1},\n"
    "            \"requests\": [[1, 1, 1], [1.2, 1, 0.9]]},\n"
    " \"processes\": [\n"
    "  {\"name\": \"a\", \"streams\": [{\"name\": \"s\"}], \"ops\": [\n"
    "    {\"op\": \"host_gap\", \"duration_us\": 5}]},\n"
    "  {\"name\": \"b\", \"streams\": [{\"name\": \"s\"}],\n"
    "   \"jitter\": {\"host\": {\"dist\": \"empirical\", \"values\": [1, 2]},\n"
    "              \"copy\": {\"dist\": \"uniform\", \"min\": 0.9, \"max\": "
    "1.1}},\n"
    "   \"ops\": [{\"op\": \"host_gap\", \"duration_us\": 5}]}]}\n";

static void check_good(const SimScenario *sc)
{
    assert_int_equal(sc->host_cores, 2);
    const SimProcessSpec *a = g_ptr_array_index(sc->processes, 0);
    const SimProcessSpec *b = g_ptr_array_index(sc->processes, 1);
    assert_non_null(a->jitter);
    assert_int_equal(a->jitter->op[SIM_JIT_KERNEL].kind, SIM_DIST_LOGNORMAL);
    assert_true(a->jitter->op[SIM_JIT_KERNEL].a == 0.1);
    assert_int_equal(a->jitter->n_rows, 2);
    assert_true(a->jitter->rows[3] == 1.2 && a->jitter->rows[5] == 0.9);
    /* a process's own jitter replaces the scenario's */
    assert_int_equal(b->jitter->op[SIM_JIT_KERNEL].kind, SIM_DIST_NONE);
    assert_int_equal(b->jitter->n_rows, 0);
    assert_int_equal(b->jitter->op[SIM_JIT_HOST].n, 2);
    assert_true(b->jitter->op[SIM_JIT_HOST].values[1] == 2);
    assert_true(b->jitter->op[SIM_JIT_COPY].b == 1.1);
}

static void test_format_round_trip(void **state)
{
    (void)state;
    GError *err = NULL;
    g_autoptr(SimScenario) sc =
        sim_scenario_parse("good.json", good, strlen(good), &err);
    if (!sc)
        fail_msg("%s", err->message);
    check_good(sc);
    g_autofree char *text = sim_scenario_to_json(sc);
    g_autoptr(SimScenario) back =
        sim_scenario_parse("back.json", text, strlen(text), &err);
    if (!back)
        fail_msg("%s\n%s", err->message, text);
    check_good(back);
    g_autoptr(SimScenario) copy = sim_scenario_copy(sc);
    check_good(copy);
}

static void expect_error(const char *jitter, const char *want)
{
    g_autofree char *text = g_strdup_printf(
        "{\"hqsim_scenario\": 1,\n"
        " \"processes\": [{\"name\": \"a\", \"streams\": [{\"name\": "
        "\"s\"}],\n"
        "   \"jitter\": %s,\n"
        "   \"ops\": [{\"op\": \"host_gap\", \"duration_us\": 5}]}]}\n",
        jitter);
    GError *err = NULL;
    SimScenario *sc = sim_scenario_parse("bad.json", text, strlen(text), &err);
    assert_null(sc);
    assert_non_null(err);
    if (!strstr(err->message, want) || !strstr(err->message, "bad.json:3"))
        fail_msg("got '%s', want '%s' at line 3", err->message, want);
    g_error_free(err);
}

static void test_format_errors(void **state)
{
    (void)state;
    expect_error("{\"kernel\": {\"dist\": \"lognormal\"}}", "sigma");
    expect_error("{\"kernel\": {\"dist\": \"gamma\"}}", "dist");
    expect_error("{\"host\": {\"dist\": \"uniform\", \"min\": 2, \"max\": 1}}",
                 "'max' is below 'min'");
    expect_error("{\"host\": {\"dist\": \"empirical\", \"values\": []}}",
                 "values");
    expect_error("{\"copy\": {\"dist\": \"empirical\", \"values\": [0]}}",
                 "factors must be numbers");
    expect_error("{\"requests\": [[1, 1]]}", "[kernel, copy, host]");
    expect_error("{\"kernels\": {}}", "kernels");
    expect_error("[1]", "'jitter' must be an object");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_jitter_is_exactly_one),
        cmocka_unit_test(test_draws_are_pure),
        cmocka_unit_test(test_lognormal_shape),
        cmocka_unit_test(test_uniform_and_empirical_ranges),
        cmocka_unit_test(test_engine_host_gap_factors),
        cmocka_unit_test(test_engine_request_rows),
        cmocka_unit_test(test_engine_kernel_and_copy_factors),
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_format_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
