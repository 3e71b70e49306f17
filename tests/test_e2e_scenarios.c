/* test_e2e_scenarios.c -- the bundled scenarios (traces/NAME.json) run
 * through the real binary, checked against numbers derived by hand from the
 * rules (and, for the Titan V case, a published measurement).
 *
 * Launch overheads of the bundled models (launch API time, launch latency)
 * shift results by microseconds; where they matter the bound says so and
 * reads them from the model file rather than hard-coding them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "e2e.h"
#include "gpu_model.h"

static GpuModel *model(const char *name)
{
    GError *err = NULL;
    GpuModel *m = sim_gpu_model_find(name, NULL, &err);
    if (!m)
        fail_msg("%s", err->message);
    return m;
}

/* simpleHyperQ, depth-first, C connections: 32/C + 1 slots of 10 ms (see
 * traces/simplehyperq-depth.json).  Each of the 64 launches costs the host
 * launch_api and each kernel waits launch latency after reaching its queue
 * head, so the makespan lies in [(32/C+1) T, (32/C+1)(T + L) + 64 api].
 * Breadth-first: 2 T, plus the same overheads. */
static void test_e2e_simplehyperq_connections_table(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = model("h100-sxm");
    g_autofree char *depth = source_path("traces/simplehyperq-depth.json");
    g_autofree char *breadth = source_path("traces/simplehyperq-breadth.json");
    const double T = 10.0, L = m->kernel_launch_latency_ns / 1e6,
                 api = m->launch_api_ns / 1e6;
    const int conns[] = {1, 2, 4, 8, 16, 32};
    for (size_t i = 0; i < G_N_ELEMENTS(conns); i++) {
        char c[8];
        snprintf(c, sizeof c, "%d", conns[i]);
        double slots = 32.0 / conns[i] + 1;
        cJSON *j = run_hqsim_json("run", depth, "--connections", c, "--json",
                                  "-", "-q", NULL);
        double ms = jnum(j, "run.makespan_ms");
        if (ms < slots * T || ms > slots * (T + L) + 64 * api)
            fail_msg("depth-first C=%d: %.3f ms, expected %.0f ms", conns[i],
                     ms, slots * T);
        cJSON_Delete(j);
        j = run_hqsim_json("run", breadth, "--connections", c, "--json", "-",
                           "-q", NULL);
        ms = jnum(j, "run.makespan_ms");
        if (ms < 2 * T || ms > 2 * (T + L) + 64 * api)
            fail_msg("breadth-first C=%d: %.3f ms, expected 20 ms", conns[i],
                     ms);
        cJSON_Delete(j);
    }
}

/* One 1-thread kernel spinning 2 s: GPU-Util 100% (a kernel runs the whole
 * time but for the few microseconds of its launch), SM-active 1/132 of
 * that, achieved occupancy 1/(132 x 64). */
static void test_e2e_spin_one_thread_gpu_util_myth(void **state)
{
    (void)state;
    g_autofree char *f = source_path("traces/spin-1thread.json");
    cJSON *j = run_hqsim_json("run", f, "--json", "-", "-q", NULL);
    double util = jnum(j, "run.gpu_metrics.utilization.gpu");
    double active = jnum(j, "run.gpu_metrics.sm_active");
    double occ = jnum(j, "run.gpu_metrics.sm_occupancy");
    assert_true(util > 0.9999 && util <= 1.0);
    assert_true(fabs(active - util / 132) < 1e-9);
    assert_true(fabs(occ - util / (132 * 64.0)) < 1e-9);
    assert_true(jnum(j, "run.gpu_metrics.utilization.gpu_max_sample") == 1.0);
    cJSON_Delete(j);
}

/* The span's growth per node, us, of the lone graph client in
 * tests/data/@dir/@spec.json (200 requests of @nodes nodes) as the only
 * MPS client against its own context. */
static double lone_growth(const char *dir, const char *spec, uint32_t nodes)
{
    g_autofree char *rel = g_strdup_printf("tests/data/%s/%s.json", dir, spec);
    g_autofree char *f = source_path(rel);
    cJSON *j = run_hqsim_json("compare", f, "--json", "-", "-q", NULL);
    double own = jnum(j, "runs.0.makespan_ms");
    double mps = jnum(j, "runs.1.makespan_ms");
    cJSON_Delete(j);
    return (mps - own) * 1000 / (200.0 * nodes);
}

/* A lone MPS client on the H100 (FINDINGS §31 addendum, traces/measured/
 * h100/mpspct/var/funcmem3, written as scenarios by harness/
 * mps_fetch_predict.py into tests/data/mps_fetch/): 32 graph nodes
 * alternating a 1-block writer and a probe, function i mod F. */
static double wp_growth(const char *spec)
{
    return lone_growth("mps_fetch", spec, 32);
}

static void check_growth(double got, double measured, const char *what)
{
    if (fabs(got - measured) > 0.03)
        fail_msg("%s: %+.3f us per node, measured %+.3f", what, got, measured);
}

/* Measured per node (funcmem3, both passes pooled: python3 harness/
 * mps_var_summary.py --wp traces/measured/h100/mpspct/var/funcmem3).
 * Fitted on wpD1m (with wpD0, wpT10, wpG1024): mps_func_fetch_us from its
 * F8 - F1; predicted: wpG1 (1-block probes pay nothing: no
 * mps_client_kernel, no fetch) and wpW132 (a 132-block writer: no narrow
 * kernel before the probe, no fetch). */
static void test_e2e_mps_lone_client_function_fetch(void **state)
{
    (void)state;
    check_growth(wp_growth("wpD1mF8") - wp_growth("wpD1mF1"), 0.085,
                 "wpD1m F8 - F1 (fitted)");
    check_growth(wp_growth("wpG1F8"), 0.027, "wpG1F8");
    check_growth(wp_growth("wpW132F8") - wp_growth("wpW132F1"), -0.003,
                 "wpW132 F8 - F1");
}

/* A lone MPS client's PyTorch kernels by the number of distinct functions
 * it cycles through (FINDINGS §55, traces/measured/h100/mpspct/lone/
 * funcs.tar.gz, written as scenarios by harness/mps_lone_predict.py into
 * tests/data/mps_evict/): 64 chained 1-block elementwise graph nodes over 1
 * / 8 / 16 functions, each lasting what it measured without MPS. */
static double evict_growth(const char *spec)
{
    return lone_growth("mps_evict", spec, 64);
}

/* Measured (median span per replay, two rounds pooled: python3 harness/
 * mps_lone_summary.py traces/measured/h100/mpspct/lone/funcs.tar.gz).
 * Fitted: mps_func_evict_us on f16 (every node at LRU distance 15);
 * predicted: f8 (distance 7: nothing, mps_func_evict_lru) and one
 * function. */
static void test_e2e_mps_lone_client_function_evict(void **state)
{
    (void)state;
    check_growth(evict_growth("f16"), 0.235, "f16 (fitted)");
    check_growth(evict_growth("f8"), 0.018, "f8");
    check_growth(evict_growth("add"), 0.037, "add");
}

/* VT (32 chained 1-block 5 us graph nodes) beside one MPS client that
 * streams 8 MiB of fresh DRAM per 1024-block node (FINDINGS §32 and §37;
 * traces/measured/h100/mpspct/var/burst{,2}, written as
 * scenarios by harness/mps_burst_predict.py --work into tests/data/
 * mps_xreload/).  VT's latency p50 per node, us. */
static double vt_node_us(const char *spec)
{
    g_autofree char *rel =
        g_strdup_printf("tests/data/mps_xreload/%s_n2.json", spec);
    g_autofree char *f = source_path(rel);
    cJSON *j =
        run_hqsim_json("run", f, "--mode", "mps", "--json", "-", "-q", NULL);
    double ms = jnum(j, "run.processes.0.latency_p50_ms");
    cJSON_Delete(j);
    return ms * 1000 / 32;
}

static void check_xreload(double got, double measured, const char *what)
{
    if (fabs(got - measured) > 0.1)
        fail_msg("%s: %+.3f us per VT node, measured %+.3f", what, got,
                 measured);
}

/* A neighbour's function fetches cost VT: the same streaming client on 8
 * functions (b8F8, every wide node 7 functions old after a 1-block node)
 * against on one (b8): measured +0.47 / +0.54 per node (burst2, two
 * passes; python3 harness/mps_var_summary.py), mps_func_xreload_us fitted
 * on it.  Predicted: mixwD (7 functions) against mixwD1 (one), +0.31 /
 * +0.33 (burst's mixwD +0.58 / +0.57 minus burst2's mixwD1 +0.27 / +0.25:
 * two calls). */
static void test_e2e_mps_cross_client_reload(void **state)
{
    (void)state;
    check_xreload(vt_node_us("b8F8") - vt_node_us("b8"), 0.505,
                  "b8F8 - b8 (fitted)");
    check_xreload(vt_node_us("mixwD") - vt_node_us("mixwD1"), 0.32,
                  "mixwD - mixwD1");
}

/* Decoder b1 (its 100% graph profile with its ncu data, 2 passes of its 8
 * recorded requests: `hqsim import` as harness/lat_replay.py does) beside
 * FINDINGS §54's neighbour graphs at 50% threads (lat_replay.py's gfast,
 * spinning at ~250k kernels/s, and gdram, reading DRAM at 355 GB/s),
 * written into tests/data/mps_memload/; encoder b1 the same way
 * (`lat_replay.py --victim encoder --out`: enc.json.gz, its own gdram
 * long enough to cover it, FINDINGS §64, §65).  Time added per victim
 * kernel, us: the victim's mean request over alone, @kernels a request,
 * on @model. */
static double memload_added(const char *model, const char *victim,
                            const char *nb, const char *host_scale, int kernels)
{
    double t[2];
    for (int i = 0; i < 2; i++) {
        g_autofree char *rel = g_strdup_printf(
            "tests/data/mps_memload/w_%s%s.json", victim, i ? nb : "alone");
        g_autofree char *f = source_path(rel);
        cJSON *j = run_hqsim_json("run", f, "--mode", "mps", "--gpu", model,
                                  "--thread-pct", "50", "--host-scale",
                                  host_scale, "--json", "-", "-q", NULL);
        /* the victim is the last process of the workload */
        t[i] = jnum(j, i ? "run.processes.1.latency_mean_ms"
                         : "run.processes.0.latency_mean_ms");
        cJSON_Delete(j);
    }
    return (t[1] - t[0]) * 1000 / 8 / kernels;
}

static double dec_added(const char *model, const char *nb)
{
    return memload_added(model, "", nb, "0.1427", 143);
}

/* The H100 model with the memory-path term's values replaced (hold,
 * memory part, half, per-trip share), written into @dir as @name. */
static char *memload_model(const char *dir, const char *name, double hold,
                           double mem, double half, double trip)
{
    g_autofree char *src = source_path("models/h100-sxm.json");
    g_autofree char *text = NULL;
    assert_true(g_file_get_contents(src, &text, NULL, NULL));
    cJSON *m = cJSON_Parse(text);
    assert_non_null(m);
    cJSON_SetNumberValue(cJSON_GetObjectItem(m, "mps_fend_hold_us"), hold);
    cJSON_SetNumberValue(cJSON_GetObjectItem(m, "mps_mem_load_us"), mem);
    cJSON_SetNumberValue(cJSON_GetObjectItem(m, "mps_mem_load_half"), half);
    cJSON_SetNumberValue(cJSON_GetObjectItem(m, "mps_mem_trip_share"), trip);
    char *out = cJSON_Print(m);
    cJSON_Delete(m);
    char *f = g_build_filename(dir, name, NULL);
    assert_true(g_file_set_contents(f, out, -1, NULL));
    cJSON_free(out);
    return f;
}

/* The other clients' load on the memory path (FINDINGS §60, §62, §65):
 * measured 0.822 us a decoder kernel beside gdram (kernel time + node
 * gaps, §54), on which (with gdramt32 / gdramt512, and resnet50 b1 beside
 * the three) the memory part was fitted: the H100 model as shipped gives
 * 0.71; without the memory part 0.13.  Predicted, not fitted: encoder b1
 * beside gdram, measured 2.067 (§64), 1.66 as shipped; without the
 * per-trip part 0.70, and 1.16 with §62's 0.93 us a kernel (its long
 * attention and GEMM kernels wait per dependent round trip, §65).  The launch part (off as shipped) at §60's joint fit
 * (hold 1.0, memory part 0.7, half 0.02): 0.12 beside gfast, measured
 * 0.140. */
static void test_e2e_mps_memory_path_wait(void **state)
{
    const E2eTmpdir *t = *state;
    g_autofree char *shipped = source_path("models/h100-sxm.json");
    g_autofree char *off = memload_model(t->dir, "h100-nomem.json", 0, 0, 0, 0);
    g_autofree char *joint =
        memload_model(t->dir, "h100-joint.json", 1.0, 0.7, 0.02, 0);
    double dram = dec_added(shipped, "gdram");
    if (fabs(dram - 0.822) > 0.15)
        fail_msg("beside gdram: %+.3f us a kernel, measured +0.822", dram);
    double dram0 = dec_added(off, "gdram");
    if (dram0 > 0.3)
        fail_msg("beside gdram without the memory part: %+.3f us a kernel",
                 dram0);
    double enc = memload_added(shipped, "enc_", "gdram", "0.9438", 78);
    if (fabs(enc - 2.067) > 0.5)
        fail_msg("encoder b1 beside gdram: %+.3f us a kernel, measured "
                 "+2.067",
                 enc);
    double fast = dec_added(joint, "gfast");
    if (fabs(fast - 0.140) > 0.05)
        fail_msg("beside gfast (§60's joint fit): %+.3f us a kernel, "
                 "measured +0.140",
                 fast);
}

/* A published Titan V measurement (traces/titanv-1block.json): a one-block
 * kernel of 3518 ms alone.  Two processes without MPS took 6854 and 6838
 * ms, with MPS 3467 ms each; four without MPS about 13950 ms, with MPS
 * about 3500 ms.  hqsim must be within 5% of each. */
static void check_within(double got, double want, const char *what)
{
    if (fabs(got - want) > 0.05 * want)
        fail_msg("%s: %.1f ms, published %.1f ms (%.1f%% off)", what, got, want,
                 100 * (got - want) / want);
}

static void test_e2e_titan_v_published_measurement(void **state)
{
    (void)state;
    g_autofree char *f = source_path("traces/titanv-1block.json");
    cJSON *j = run_hqsim_json("compare", f, "--processes", "2", "--json", "-",
                              "-q", NULL);
    check_within(jnum(j, "runs.0.processes.0.makespan_ms"), 6854,
                 "N=2 time-sliced, process 0");
    check_within(jnum(j, "runs.0.processes.1.makespan_ms"), 6838,
                 "N=2 time-sliced, process 1");
    check_within(jnum(j, "runs.1.processes.0.makespan_ms"), 3467,
                 "N=2 MPS, process 0");
    check_within(jnum(j, "runs.1.processes.1.makespan_ms"), 3467,
                 "N=2 MPS, process 1");
    cJSON_Delete(j);
    j = run_hqsim_json("compare", f, "--processes", "4", "--json", "-", "-q",
                       NULL);
    for (int p = 0; p < 4; p++) {
        char path[64];
        snprintf(path, sizeof path, "runs.0.processes.%d.makespan_ms", p);
        check_within(jnum(j, path), 13950, "N=4 time-sliced");
        snprintf(path, sizeof path, "runs.1.processes.%d.makespan_ms", p);
        check_within(jnum(j, path), 3500, "N=4 MPS");
    }
    cJSON_Delete(j);
}

/* Two kernels of 132 one-per-SM blocks: with 120 KiB of shared memory each
 * (2 x 121 KiB > 228 KiB) they cannot share an SM and run one after the
 * other, 2 ms; with 60 KiB they share every SM and, each using 16 of 64
 * warps, overlap at full speed, 1 ms.  Overheads: launch API and latency,
 * a few microseconds. */
static void test_e2e_occupancy_limits_concurrency(void **state)
{
    (void)state;
    g_autofree char *serial = source_path("traces/occupancy-serial.json");
    g_autofree char *conc = source_path("traces/occupancy-concurrent.json");
    cJSON *j = run_hqsim_json("run", serial, "--json", "-", "-q", NULL);
    double ms = jnum(j, "run.makespan_ms");
    assert_true(ms >= 2.0 && ms < 2.05);
    cJSON_Delete(j);
    j = run_hqsim_json("run", conc, "--json", "-", "-q", NULL);
    ms = jnum(j, "run.makespan_ms");
    assert_true(ms >= 1.0 && ms < 1.05);
    cJSON_Delete(j);
}

/* An MPS client at p% of the H100's 66 TPCs (2 SMs each) may use
 * round(p% x 66) TPCs (the model's rounding rule); its kernel of 132
 * whole-SM blocks (1 ms alone) then runs ceil(132 / SMs) waves of 1 ms
 * less the model's fixed part, which only its first wave carries
 * (kernel_fixed_us, FINDINGS.md §36). */
static void test_e2e_mps_thread_percentage(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = model("h100-sxm");
    g_autofree char *f = source_path("traces/mps-thread-pct.json");
    const char *pcts[] = {"10", "25", "33", "50", "75", "100"};
    for (size_t i = 0; i < G_N_ELEMENTS(pcts); i++) {
        double pct = atof(pcts[i]);
        double tpcs = pct / 100 * 66;
        double t = m->mps_pct_rounding == SIM_ROUND_DOWN ? floor(tpcs + 1e-9)
                   : m->mps_pct_rounding == SIM_ROUND_UP ? ceil(tpcs - 1e-9)
                                                         : floor(tpcs + 0.5);
        int sms = (int)MAX(1, MIN(66, t)) * 2;
        int waves = (132 + sms - 1) / sms;
        cJSON *j = run_hqsim_json("run", f, "--thread-pct", pcts[i], "--json",
                                  "-", "-q", NULL);
        assert_int_equal((int)jnum(j, "run.processes.0.sm_limit"), sms);
        double ms = jnum(j, "run.makespan_ms");
        double fixed = sim_time_to_ms(MIN(m->kernel_fixed_ns, SIM_US(500)));
        double want = fixed + waves * (1 - fixed);
        if (ms < want || ms > want + 0.05)
            fail_msg("%s%%: %.3f ms, expected %.3f: %d waves of 1 ms on %d "
                     "SMs, the first with the fixed %.3f ms",
                     pcts[i], ms, want, waves, sms, fixed);
        cJSON_Delete(j);
    }
}

/* The CSV names the SMs each kernel used: at 25%, 32 distinct SMs. */
static void test_e2e_csv_lists_sms_used(void **state)
{
    const E2eTmpdir *t = *state;
    g_autofree char *f = source_path("traces/mps-thread-pct.json");
    g_autofree char *csv = g_build_filename(t->dir, "sms.csv", NULL);
    Run r = run_hqsim("run", f, "--csv", csv, "-q", NULL);
    assert_int_equal(r.status, 0);
    run_clear(&r);
    g_autofree char *text = NULL;
    assert_true(g_file_get_contents(csv, &text, NULL, NULL));
    unlink(csv);
    assert_contains(text, "process,stream,op,iteration,kind,name,context,"
                          "queue,issue_us,start_us,end_us");
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    assert_non_null(lines[1]);
    g_auto(GStrv) cols = g_strsplit(lines[1], ",", -1);
    assert_string_equal(cols[5], "whole_sm_blocks");
    assert_int_equal(atoi(cols[13]), 32);
    /* and, last on every row, the model it ran on and its calibration
     * (the scenario names the H100; an uncalibrated model says no, on
     * every row) */
    assert_contains(lines[0], ",aborted,gpu,gpu_calibrated");
    assert_true(g_str_has_suffix(lines[1], ",h100-sxm,yes"));
    g_autofree char *def = source_path("traces/default.json");
    r = run_hqsim("run", def, "--gpu", "v100", "--iterations", "2", "--csv",
                  csv, "-q", NULL);
    assert_int_equal(r.status, 0);
    run_clear(&r);
    g_autofree char *v100 = NULL;
    assert_true(g_file_get_contents(csv, &v100, NULL, NULL));
    unlink(csv);
    g_auto(GStrv) vl = g_strsplit(v100, "\n", -1);
    for (int i = 1; vl[i] && *vl[i]; i++)
        if (!g_str_has_suffix(vl[i], ",v100,no"))
            fail_msg("row %d does not end with the model: %s", i, vl[i]);
}

/* The default job: four small-batch inference processes.  Kernels that
 * fill a fraction of the GPU gain from MPS: more throughput, lower tail
 * latency, higher SM-active, while nvidia-smi's GPU-Util cannot tell. */
static void test_e2e_default_mps_helps_small_kernels(void **state)
{
    (void)state;
    g_autofree char *f = source_path("traces/default.json");
    cJSON *j = run_hqsim_json("compare", f, "--json", "-", "-q", NULL);
    double tp_ts = jnum(j, "runs.0.throughput_per_s");
    double tp_mps = jnum(j, "runs.1.throughput_per_s");
    assert_true(tp_mps > 1.5 * tp_ts);
    assert_true(jnum(j, "runs.1.latency_p99_ms") <
                jnum(j, "runs.0.latency_p99_ms"));
    assert_true(jnum(j, "runs.1.gpu_metrics.sm_active") >
                jnum(j, "runs.0.gpu_metrics.sm_active"));
    assert_true(jnum(j, "runs.0.gpu_metrics.context_switches") > 0);
    assert_true(jnum(j, "runs.1.gpu_metrics.context_switches") == 0);
    cJSON_Delete(j);
}

/* traces/spread.json: its jitter spreads the latencies (p50 < p90 < p99,
 * the mean in between), --no-jitter narrows them (not to one value: under
 * MPS the requests' kernels share SMs greedy-then-oldest, engine_issue.c,
 * so the older request's go first), the same
 * seed gives the same bytes and another seed other draws; its host threads
 * share 2 cores: 4 cores serve more under MPS, 1 core far less. */
static void test_e2e_latency_spread_and_host_cores(void **state)
{
    (void)state;
    g_autofree char *f = source_path("traces/spread.json");
    Run a = run_hqsim("run", f, "--mode", "mps", "--json", "-", "-q", NULL);
    Run b = run_hqsim("run", f, "--mode", "mps", "--json", "-", "-q", NULL);
    assert_int_equal(a.status, 0);
    assert_string_equal(a.out, b.out);
    cJSON *j = cJSON_Parse(a.out);
    double p50 = jnum(j, "run.latency_p50_ms"),
           p90 = jnum(j, "run.latency_p90_ms");
    double p99 = jnum(j, "run.latency_p99_ms"),
           mean = jnum(j, "run.latency_mean_ms");
    assert_true(p50 < p90 && p90 < p99 && mean > p50 * 0.9 && mean < p99);
    assert_true(p99 > 1.2 * p50);
    assert_true(jnum(j, "run.processes.0.latency_p90_ms") > 0);
    double tp2 = jnum(j, "run.throughput_per_s");
    cJSON_Delete(j);
    run_clear(&a);
    run_clear(&b);
    j = run_hqsim_json("run", f, "--mode", "mps", "--seed", "7", "--json", "-",
                       "-q", NULL);
    assert_true(jnum(j, "run.latency_p99_ms") != p99);
    cJSON_Delete(j);
    j = run_hqsim_json("run", f, "--mode", "mps", "--no-jitter", "--json", "-",
                       "-q", NULL);
    assert_true(jnum(j, "run.latency_p90_ms") < p90);
    assert_true(jnum(j, "run.latency_p99_ms") < p99);
    cJSON_Delete(j);
    j = run_hqsim_json("run", f, "--mode", "mps", "--host-cores", "4", "--json",
                       "-", "-q", NULL);
    assert_true(jnum(j, "run.throughput_per_s") > 1.03 * tp2);
    cJSON_Delete(j);
    j = run_hqsim_json("run", f, "--mode", "mps", "--host-cores", "1", "--json",
                       "-", "-q", NULL);
    assert_true(jnum(j, "run.throughput_per_s") < 0.75 * tp2);
    cJSON_Delete(j);
    Run t = run_hqsim("compare", f, NULL);
    assert_int_equal(t.status, 0);
    assert_contains(t.out, "latency p90 (ms)");
    assert_contains(t.out, "latency mean (ms)");
    run_clear(&t);
    t = run_hqsim("run", f, NULL);
    assert_contains(t.out, "p90_ms");
    assert_contains(t.out, "mean_ms");
    run_clear(&t);
    t = run_hqsim("run", f, "--host-cores", "-1", NULL);
    assert_int_equal(t.status, 2);
    assert_contains(t.err, "--host-cores");
    run_clear(&t);
    t = run_hqsim("sweep", f, "-n", "1,2", "--host-cores", "1", "--no-jitter",
                  "--csv", "-", "-q", NULL);
    assert_int_equal(t.status, 0);
    assert_contains(t.out, "latency_p90_ms,latency_p99_ms,latency_mean_ms");
    run_clear(&t);
}

/* Bad input: clear message, non-zero exit, no output file left behind. */
static void test_e2e_bad_input_is_reported(void **state)
{
    const E2eTmpdir *t = *state;
    g_autofree char *out = g_build_filename(t->dir, "never.json", NULL);
    Run r = run_hqsim("run", "/nonexistent.json", "--json", out, NULL);
    assert_int_not_equal(r.status, 0);
    assert_contains(r.err, "nonexistent.json");
    assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
    run_clear(&r);
    r = run_hqsim("run", "--connections", "99", "x.json", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "--connections");
    run_clear(&r);
    r = run_hqsim("compare", "--modes", "timeslice,bogus",
                  HQSIM_SOURCE_DIR "/traces/spin-1thread.json", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "bogus");
    run_clear(&r);
    r = run_hqsim("run", "--gpu", "h999",
                  HQSIM_SOURCE_DIR "/traces/spin-1thread.json", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "h999");
    run_clear(&r);
}

/* A native scenario keeps its processes' start times when loaded through
 * the workload loader (regression: they were reset to 0). */
static void test_e2e_start_times_survive_loading(void **state)
{
    const E2eTmpdir *t = *state;
    g_autofree char *path = g_build_filename(t->dir, "start.json", NULL);
    const char *text =
        "{\"hqsim_scenario\": 1, \"processes\": [\n"
        " {\"name\": \"a\", \"streams\": [{\"name\": \"s\"}], \"ops\": [\n"
        "  {\"op\": \"kernel\", \"name\": \"k\", \"stream\": \"s\",\n"
        "   \"grid\": 1, \"block\": 32, \"duration_us\": 100}]},\n"
        " {\"name\": \"b\", \"start_us\": 5000, \"streams\": "
        "[{\"name\": \"s\"}], \"ops\": [\n"
        "  {\"op\": \"kernel\", \"name\": \"k\", \"stream\": \"s\",\n"
        "   \"grid\": 1, \"block\": 32, \"duration_us\": 100}]}]}\n";
    assert_true(g_file_set_contents(path, text, -1, NULL));
    cJSON *j = run_hqsim_json("run", path, "--json", "-", "-q", NULL);
    unlink(path);
    assert_true(jnum(j, "run.processes.1.start_ms") == 5.0);
    assert_true(jnum(j, "run.processes.0.start_ms") == 0.0);
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e2e_simplehyperq_connections_table),
        cmocka_unit_test(test_e2e_spin_one_thread_gpu_util_myth),
        cmocka_unit_test(test_e2e_titan_v_published_measurement),
        cmocka_unit_test(test_e2e_occupancy_limits_concurrency),
        cmocka_unit_test(test_e2e_mps_thread_percentage),
        cmocka_unit_test_setup_teardown(test_e2e_csv_lists_sms_used,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
        cmocka_unit_test(test_e2e_default_mps_helps_small_kernels),
        cmocka_unit_test(test_e2e_latency_spread_and_host_cores),
        cmocka_unit_test(test_e2e_mps_lone_client_function_fetch),
        cmocka_unit_test(test_e2e_mps_lone_client_function_evict),
        cmocka_unit_test(test_e2e_mps_cross_client_reload),
        cmocka_unit_test_setup_teardown(test_e2e_mps_memory_path_wait,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_e2e_bad_input_is_reported,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_e2e_start_times_survive_loading,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
