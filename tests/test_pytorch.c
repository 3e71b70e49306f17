/* test_pytorch.c -- predicting N PyTorch inference processes from one
 * profiled process (issue 4): traces/measured/h100/pytorch.
 *
 * Input: the PyTorch profiler (Kineto) trace of one resnet18 process
 * (batch 8) on an H100.  The profiler slows the host about threefold, so
 * the one calibration is the host-time scale that makes one unprofiled
 * process (N = 1, no MPS: 467 requests/s measured) come out right; N = 2,
 * 4, 8 without MPS and N = 1..8 with MPS are then predictions, compared
 * with the measured request logs (300 requests per process; the model runs
 * 100, enough for the steady state).
 *
 * Tolerances: throughput within 25% for every case (the README lists each
 * error), and the shapes the measurements show: without MPS throughput
 * saturates from 4 processes; with MPS it keeps rising and beats
 * time-slicing from 2 processes on.
 *
 * Latency spread (issue 10): --loop-request keeps the profile's other
 * requests as per-request jitter (sim/jitter.h), nothing fitted to the
 * spread; p99 of all requests (300 per process for N <= 2, 100 beyond, as
 * N = 8 under MPS costs seconds per 100) is compared with the measured
 * p99 within each entry's limit below (the README's table: today's error
 * plus a margin, so an entry that regresses fails), and the spread must be
 * there (p99 > p50 where the real runs spread).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plan/prepare.h"
#include "engine.h"
#include "report.h"
#include "transform.h"

#define DIR HQSIM_SOURCE_DIR "/traces/measured/h100/pytorch/"

/* Measured requests per second of a request log: requests / (last end -
 * first start) over all processes. */
static double measured_file(const char *path)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        fail_msg("cannot read %s", path);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    double lo = INFINITY, hi = -INFINITY;
    int count = 0;
    for (int i = 1; lines[i]; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
        if (g_strv_length(f) < 6)
            continue;
        lo = MIN(lo, atof(f[3]));
        hi = MAX(hi, atof(f[4]));
        count++;
    }
    return count / ((hi - lo) / 1e9);
}

static double measured(const char *mode, int n)
{
    g_autofree char *path =
        g_strdup_printf(DIR "torch_%s_n%d_requests.csv", mode, n);
    return measured_file(path);
}

typedef struct {
    GpuModel *m;
    SimScenario *base; /* one request, looped; host time as profiled */
} Fix;

static SimResult *simulate_cores(const Fix *f, double host_scale, int n,
                                 SimShareMode mode, uint32_t iterations,
                                 uint32_t host_cores)
{
    g_autoptr(SimScenario) sc = sim_scenario_copy(f->base);
    sim_scenario_scale_host(sc, host_scale);
    if (iterations)
        ((SimProcessSpec *)g_ptr_array_index(sc->processes, 0))->iterations =
            iterations;
    sim_scenario_replicate_process(sc, 0, (uint32_t)n);
    SimOptions o;
    sim_options_init(&o);
    o.mode = mode;
    o.record_ops = false;
    o.host_cores = host_cores;
    GError *err = NULL;
    SimResult *r = sim_engine_run(f->m, sc, &o, &err);
    if (!r)
        fail_msg("%s", err->message);
    return r;
}

static SimResult *simulate(const Fix *f, double host_scale, int n,
                           SimShareMode mode, uint32_t iterations)
{
    return simulate_cores(f, host_scale, n, mode, iterations, 0);
}

static double predict(const Fix *f, double host_scale, int n, SimShareMode mode)
{
    g_autoptr(SimResult) r = simulate(f, host_scale, n, mode, 0);
    return sim_result_total_throughput(r);
}

/* Measured latency percentile (ms, nearest rank as sim_percentile) of
 * every request of a run. */
static double measured_pct(const char *mode, int n, double pct)
{
    g_autofree char *path =
        g_strdup_printf(DIR "torch_%s_n%d_requests.csv", mode, n);
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        fail_msg("cannot read %s", path);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autoptr(GArray) lat = g_array_new(FALSE, FALSE, sizeof(SimTime));
    for (int i = 1; lines[i]; i++) {
        g_auto(GStrv) fl = g_strsplit(lines[i], ",", -1);
        if (g_strv_length(fl) < 6)
            continue;
        SimTime t = (SimTime)g_ascii_strtoull(fl[5], NULL, 10);
        g_array_append_val(lat, t);
    }
    return sim_time_to_ms(sim_percentile(lat, pct));
}

/* Each entry's limit on |p99 error| (README, "Latency spread"). */
static const struct {
    const char *mode;
    int n;
    double p99_limit;
} p99_entries[] = {
    {"nomps", 1, 0.40}, {"nomps", 2, 0.27}, {"nomps", 4, 0.18},
    {"nomps", 8, 0.17}, {"mps", 1, 0.26},   {"mps", 2, 0.20},
    {"mps", 4, 0.17},   {"mps", 8, 0.08},
};

/* 8 processes without MPS, taskset to C cores (traces/measured/h100/
 * hostcores/, 200 requests each): throughput within each entry's limit
 * (README, "Host cores"; C = 2 is a listed miss: the real threads spin in
 * their synchronizes and take cores hqsim leaves free), and the shape: one
 * core serves about half of what 8 do. */
static const struct {
    int cores;
    double limit;
} core_entries[] = {{1, 0.08}, {2, 0.35}, {4, 0.10}, {8, 0.12}};

static void check_host_cores(const Fix *f, double scale)
{
    double pred[G_N_ELEMENTS(core_entries)];
    for (size_t i = 0; i < G_N_ELEMENTS(core_entries); i++) {
        int c = core_entries[i].cores;
        g_autofree char *path =
            g_strdup_printf(HQSIM_SOURCE_DIR "/traces/measured/h100/hostcores/"
                                             "hostcores_n8_c%d_requests.csv",
                            c);
        double m = measured_file(path);
        g_autoptr(SimResult) r =
            simulate_cores(f, scale, 8, SIM_SHARE_TIMESLICE, 100, (uint32_t)c);
        pred[i] = sim_result_total_throughput(r);
        double e = (pred[i] - m) / m;
        print_message("8 processes on %d cores: measured %7.1f/s predicted "
                      "%7.1f/s %+5.1f%%\n",
                      c, m, pred[i], 100 * e);
        if (fabs(e) > core_entries[i].limit)
            fail_msg("%d cores: %+.1f%% (limit %.0f%%)", c, 100 * e,
                     100 * core_entries[i].limit);
    }
    assert_true(pred[0] < 0.6 * pred[3]);
}

static void check_p99(const Fix *f, double scale)
{
    for (size_t i = 0; i < G_N_ELEMENTS(p99_entries); i++) {
        const char *mode = p99_entries[i].mode;
        int n = p99_entries[i].n;
        bool mps = !strcmp(mode, "mps");
        g_autoptr(SimResult) r =
            simulate(f, scale, n, mps ? SIM_SHARE_MPS : SIM_SHARE_TIMESLICE,
                     n <= 2 ? 300 : 100);
        double p50 = sim_time_to_ms(sim_result_latency_pct(r, 50));
        double p99 = sim_time_to_ms(sim_result_latency_pct(r, 99));
        double m50 = measured_pct(mode, n, 50), m99 = measured_pct(mode, n, 99);
        double e = (p99 - m99) / m99;
        print_message("N=%d %-5s p99 measured %.2f ms predicted %.2f ms "
                      "%+5.1f%%; p99/p50 measured %.2f predicted %.2f\n",
                      n, mode, m99, p99, 100 * e, m99 / m50, p99 / p50);
        if (fabs(e) > p99_entries[i].p99_limit)
            fail_msg("N=%d %s: p99 %+.1f%% (limit %.0f%%)", n, mode, 100 * e,
                     100 * p99_entries[i].p99_limit);
        /* the spread is there wherever the GPU is not the whole story */
        if (n <= 2 || mps)
            assert_true(p99 / p50 > 1.05);
    }
}

static int setup(void **state)
{
    Fix *f = g_new0(Fix, 1);
    GError *err = NULL;
    /* The pipeline of `run --loop-request` (plan/prepare.h): the median
     * request by recorded GPU work, its times alone inferred, looped. */
    char *paths[] = {(char *)DIR "torch_profile_trace.json.gz"};
    PrepOptions po = {.loop_request = true, .iterations = 100};
    f->base = prep_load(paths, 1, &po, &err);
    if (!f->base)
        return -1;
    f->m = sim_gpu_model_find(f->base->gpu, NULL, &err);
    if (!f->m)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fix *f = *state;
    sim_scenario_free(f->base);
    sim_gpu_model_free(f->m);
    g_free(f);
    return 0;
}

static void test_pytorch_n_processes_from_one_trace(void **state)
{
    Fix *f = *state;
    if (g_getenv("HQSIM_VALGRIND"))
        skip(); /* minutes under valgrind; the engine is covered there by
                   the other tests */
    /* The profile is the model's resnet18 on the H100 it was recorded on. */
    assert_string_equal(f->m->name, "h100-sxm");
    /* Calibrate: host time scale for the unprofiled single process. */
    double target = measured("nomps", 1);
    double lo = 0.05, hi = 1.0;
    for (int i = 0; i < 18; i++) {
        double mid = (lo + hi) / 2;
        if (predict(f, mid, 1, SIM_SHARE_TIMESLICE) > target)
            lo = mid;
        else
            hi = mid;
    }
    double scale = (lo + hi) / 2;
    print_message("host scale %.3f (profiled host time x scale = unprofiled;"
                  " calibrated on N=1 without MPS, %.1f requests/s)\n",
                  scale, target);
    assert_true(scale > 0.2 && scale < 0.6); /* the profiler's overhead */
    const int ns[] = {1, 2, 4, 8};
    double pred[2][4];
    for (int mode = 0; mode < 2; mode++)
        for (int i = 0; i < 4; i++) {
            const char *mname = mode ? "mps" : "nomps";
            double m = measured(mname, ns[i]);
            double p = predict(f, scale, ns[i],
                               mode ? SIM_SHARE_MPS : SIM_SHARE_TIMESLICE);
            pred[mode][i] = p;
            double e = (p - m) / m;
            print_message("N=%d %-5s measured %7.1f/s predicted %7.1f/s "
                          "%+5.1f%%%s\n",
                          ns[i], mname, m, p, 100 * e,
                          mode == 0 && ns[i] == 1 ? " (calibration)" : "");
            if (fabs(e) > 0.25)
                fail_msg("N=%d %s: %+.1f%%", ns[i], mname, 100 * e);
        }
    /* Shapes: time-slicing saturates from 4 processes (measured 1004 and
     * 1002 requests/s); MPS keeps rising and wins from 2 processes on. */
    assert_true(fabs(pred[0][3] - pred[0][2]) / pred[0][2] < 0.05);
    assert_true(pred[1][3] > pred[1][2]);
    for (int i = 1; i < 4; i++)
        assert_true(pred[1][i] > pred[0][i]);
    check_p99(f, scale);
    check_host_cores(f, scale);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pytorch_n_processes_from_one_trace),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
