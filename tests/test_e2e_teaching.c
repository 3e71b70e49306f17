/* test_e2e_teaching.c -- the teaching scenarios (traces/teaching/) run
 * through the real binary; each test checks, in numbers, the point its
 * scenario teaches (traces/teaching/README.md explains them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "e2e.h"

static cJSON *teach(const char *cmd, const char *name)
{
    g_autofree char *rel = g_strdup_printf("traces/teaching/%s.json", name);
    g_autofree char *f = source_path(rel);
    return run_hqsim_json(cmd, f, "--json", "-", "-q", NULL);
}

/* The process named @name in run @run (compare: "runs.N", run: "run"). */
static const cJSON *proc(const cJSON *run, const char *name)
{
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(run, "processes");
    const cJSON *p;
    cJSON_ArrayForEach(p, ps)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(p, "name");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
            return p;
    }
    fail_msg("no process '%s'", name);
    return NULL;
}

static const char *status(const cJSON *run, const char *name)
{
    const cJSON *s =
        cJSON_GetObjectItemCaseSensitive(proc(run, name), "status");
    assert_true(cJSON_IsString(s));
    return s->valuestring;
}

static const cJSON *run_at(const cJSON *j, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "runs"), i);
}

/* (a) One thread spinning: GPU-Util 100%, each nvidia-smi sample 100%, while
 * SM-active is 1/132 and occupancy 1/(132 x 64). */
static void test_teaching_a_one_thread_reads_100pct(void **state)
{
    (void)state;
    cJSON *j = teach("run", "a-one-thread-100pct");
    assert_true(jnum(j, "run.gpu_metrics.utilization.gpu") > 0.9999);
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(j, "run"), "gpu_metrics"),
        "utilization.gpu_samples");
    /* one nvidia-smi sample per sampling period of the model */
    double period = jnum(j, "run.gpu_metrics.nvml_sample_period_ms");
    double ms = jnum(j, "run.makespan_ms");
    assert_int_equal(cJSON_GetArraySize(samples), (int)ceil(ms / period));
    const cJSON *s;
    cJSON_ArrayForEach(s, samples) assert_true(s->valuedouble > 0.999);
    assert_true(jnum(j, "run.gpu_metrics.sm_active") < 1.0 / 132 + 1e-6);
    assert_true(jnum(j, "run.gpu_metrics.sm_occupancy") <
                1.0 / (132 * 64) + 1e-6);
    cJSON_Delete(j);
}

/* (b) MPS: GPU-Util falls (to about half) while throughput rises (about
 * double) and every request finishes sooner. */
static void test_teaching_b_mps_lower_util_yet_faster(void **state)
{
    (void)state;
    cJSON *j = teach("compare", "b-mps-lower-util-faster");
    double util_ts = jnum(j, "runs.0.gpu_metrics.utilization.gpu");
    double util_mps = jnum(j, "runs.1.gpu_metrics.utilization.gpu");
    double thr_ts = jnum(j, "runs.0.throughput_per_s");
    double thr_mps = jnum(j, "runs.1.throughput_per_s");
    if (!(util_mps < util_ts - 0.3 && thr_mps > 1.5 * thr_ts))
        fail_msg("GPU-Util %.3f -> %.3f, throughput %.1f -> %.1f", util_ts,
                 util_mps, thr_ts, thr_mps);
    assert_true(fabs(util_mps - 0.5) < 0.02);
    /* time-sliced, the GPU idles only while contexts switch */
    assert_true(util_ts > 0.8);
    assert_true(jnum(j, "runs.1.latency_p99_ms") <
                jnum(j, "runs.0.latency_p99_ms"));
    cJSON_Delete(j);
}

/* (c) The same 2000 kernels: the serial phase reads ~100% in its nvidia-smi
 * sample and takes ~1 s; the batched phase reads ~50% and takes a quarter
 * of that. */
static void test_teaching_c_utilization_is_not_speed(void **state)
{
    (void)state;
    cJSON *j = teach("run", "c-util-not-speed");
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(j, "run");
    const cJSON *serial = proc(run, "serial"), *batched = proc(run, "batched");
    double period = jnum(j, "run.gpu_metrics.nvml_sample_period_ms");
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(run, "gpu_metrics"),
        "utilization.gpu_samples");
    /* the nvidia-smi samples that lie wholly inside each phase */
    double s_sum[2] = {0, 0};
    int s_n[2] = {0, 0};
    const cJSON *phase[2] = {serial, batched};
    for (int i = 0; i < cJSON_GetArraySize(samples); i++) {
        double t0 = i * period, t1 = t0 + period;
        for (int k = 0; k < 2; k++)
            if (t0 >= jnum(phase[k], "start_ms") &&
                t1 <= jnum(phase[k], "end_ms")) {
                s_sum[k] += cJSON_GetArrayItem(samples, i)->valuedouble;
                s_n[k]++;
            }
    }
    assert_true(s_n[0] > 0 && s_n[1] > 0);
    assert_true(s_sum[0] / s_n[0] > 0.98);
    double b = s_sum[1] / s_n[1];
    if (!(b > 0.4 && b < 0.6))
        fail_msg("batched phase reads %.2f", b);
    double ms_serial = jnum(serial, "makespan_ms");
    double ms_batched = jnum(batched, "makespan_ms");
    assert_true(jnum(serial, "kernels") == jnum(batched, "kernels"));
    if (!(ms_batched < ms_serial / 3.5))
        fail_msg("serial %.1f ms, batched %.1f ms", ms_serial, ms_batched);
    cJSON_Delete(j);
}

/* (d) Two connections, 8 streams of A->B (10 ms each): depth-first issue
 * takes (8/2 + 1) x 10 = 50 ms, breadth-first 20 ms; with 8 connections
 * both take 20 ms. */
static void test_teaching_d_false_dependencies(void **state)
{
    (void)state;
    cJSON *j = teach("run", "d-false-dependencies");
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(j, "run");
    double depth = jnum(proc(run, "depth_first"), "makespan_ms");
    double breadth = jnum(proc(run, "breadth_first"), "makespan_ms");
    assert_true(depth >= 50 && depth < 50.5);
    assert_true(breadth >= 20 && breadth < 20.5);
    cJSON_Delete(j);
    g_autofree char *f = source_path("traces/teaching/d-false-dependencies."
                                     "json");
    j = run_hqsim_json("run", f, "--connections", "8", "--json", "-", "-q",
                       NULL);
    run = cJSON_GetObjectItemCaseSensitive(j, "run");
    depth = jnum(proc(run, "depth_first"), "makespan_ms");
    assert_true(depth >= 20 && depth < 20.5);
    cJSON_Delete(j);
}

/* (e) Each process fills the GPU: MPS overlaps nothing, it only saves
 * time-slicing's switches (~150 us per 2.09 ms slice and ~190 us lost per
 * resume on an H100): under 30% more throughput, with the GPU as full. */
static void test_teaching_e_mps_gains_nothing_on_full_gpu(void **state)
{
    (void)state;
    cJSON *j = teach("compare", "e-mps-no-gain-full-gpu");
    double ratio = jnum(j, "ratios_last_over_first.throughput");
    if (!(ratio > 1.0 && ratio < 1.3))
        fail_msg("MPS / timeslice throughput %.4f", ratio);
    assert_true(jnum(j, "runs.0.gpu_metrics.sm_occupancy") > 0.85);
    assert_true(jnum(j, "runs.1.gpu_metrics.sm_occupancy") > 0.99);
    cJSON_Delete(j);
}

/* (f) A fault in one client: time-sliced only it dies and the others finish
 * all their requests; under MPS every client dies. */
static void test_teaching_f_mps_fault_kills_every_client(void **state)
{
    (void)state;
    cJSON *j = teach("compare", "f-mps-fault-kills-all");
    const cJSON *ts = run_at(j, 0), *mps = run_at(j, 1);
    assert_string_equal(status(ts, "buggy"), "killed");
    assert_string_equal(status(ts, "server#0"), "ok");
    assert_string_equal(status(ts, "server#1"), "ok");
    assert_true(jnum(proc(ts, "server#0"), "iterations") == 100);
    assert_string_equal(status(mps, "buggy"), "killed");
    assert_string_equal(status(mps, "server#0"), "killed");
    assert_string_equal(status(mps, "server#1"), "killed");
    assert_true(jnum(proc(mps, "server#0"), "iterations") < 100);
    cJSON_Delete(j);
}

/* (g) Shared memory or registers: two 1-ms kernels serialize (2 ms); light
 * enough blocks share the SMs (1 ms).  Each phase is its own process: its
 * first kernel also waits for a context switch (~0.15 ms). */
static void test_teaching_g_occupancy_blocks_concurrency(void **state)
{
    (void)state;
    cJSON *j = teach("run", "g-occupancy-blocks-concurrency");
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(j, "run");
    double smem = jnum(proc(run, "smem"), "makespan_ms");
    double regs = jnum(proc(run, "regs"), "makespan_ms");
    double fits = jnum(proc(run, "fits"), "makespan_ms");
    assert_true(smem >= 2 && smem < 2.2);
    assert_true(regs >= 2 && regs < 2.2);
    assert_true(fits >= 1 && fits < 1.2);
    cJSON_Delete(j);
}

/* Every teaching scenario's report command works. */
static void test_teaching_reports_are_written(void **state)
{
    (void)state;
    /* The commands of traces/teaching/README.md. */
    static const char *const names[][2] = {
        {"run", "a-one-thread-100pct"},
        {"compare", "b-mps-lower-util-faster"},
        {"run", "c-util-not-speed"},
        {"run", "d-false-dependencies"},
        {"compare", "e-mps-no-gain-full-gpu"},
        {"compare", "f-mps-fault-kills-all"},
        {"run", "g-occupancy-blocks-concurrency"}};
    g_autoptr(GError) error = NULL;
    g_autofree char *dir = g_dir_make_tmp("hqsim-teach-XXXXXX", &error);
    assert_non_null(dir);
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *rel =
            g_strdup_printf("traces/teaching/%s.json", names[i][1]);
        g_autofree char *f = source_path(rel);
        g_autofree char *out = g_strdup_printf("%s/%s.html", dir, names[i][1]);
        Run r = run_hqsim(names[i][0], f, "--report", out, "-q", NULL);
        if (r.status != 0)
            fail_msg("%s: exit %d: %s", names[i][1], r.status, r.err);
        run_clear(&r);
        assert_true(g_file_test(out, G_FILE_TEST_IS_REGULAR));
        g_remove(out);
    }
    g_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_teaching_a_one_thread_reads_100pct),
        cmocka_unit_test(test_teaching_b_mps_lower_util_yet_faster),
        cmocka_unit_test(test_teaching_c_utilization_is_not_speed),
        cmocka_unit_test(test_teaching_d_false_dependencies),
        cmocka_unit_test(test_teaching_e_mps_gains_nothing_on_full_gpu),
        cmocka_unit_test(test_teaching_f_mps_fault_kills_every_client),
        cmocka_unit_test(test_teaching_g_occupancy_blocks_concurrency),
        cmocka_unit_test(test_teaching_reports_are_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
