/* test_openloop.c -- closed- and open-loop PyTorch serving in N processes
 * on an H100, predicted from one profile of one process (issue 10, items
 * 4-5): traces/measured/h100/openloop/.
 *
 * Input per configuration: the Kineto profile of one process
 * (traces/measured/h100/launch/kineto/<config>.json.gz) and, from one
 * unprofiled process alone without MPS (closed loop), its request
 * latencies (spread/<config>.json, --request-spread) and the host scale
 * that makes its throughput come out right (fits.json).  Those are the only
 * fitted numbers.  Where ncu/<config>.csv.gz exists (Nsight Compute of one
 * request alone, without MPS: a measurement of the kernels, not a fit), it
 * goes with the trace, as in harness/openloop_predict.py; every entry below is another run (N processes, MPS,
 * thread percentages, Poisson arrivals: open-loop entries replay the
 * arrival times the measured processes drew), predicted the way
 * harness/openloop_predict.py and the README command do.
 *
 * Each entry's limits are the README table's errors plus a margin, so an
 * entry that regresses fails; the model runs fewer requests than the
 * README's table (speed), and the limits allow for that.  The same campaign
 * on an H200 (traces/measured/h200/openloop/, its own profiles and fits) has
 * its own entries, entries_h200.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <glib/gstdio.h>

#include "../plan/prepare.h"
#include "engine.h"
#include "json.h"
#include "report.h"

#define DIR HQSIM_SOURCE_DIR "/traces/measured/h100/openloop/"
#define TRACES HQSIM_SOURCE_DIR "/traces/measured/h100/launch/kineto/"
#define DIR200 HQSIM_SOURCE_DIR "/traces/measured/h200/openloop/"

/* One GPU's serving data: the folder of summary.csv, fits.json, spread/,
 * arrivals/ and ncu/, and the folder of its Kineto profiles.  The profile
 * names its GPU (the H200's traces run on models/h200.json, as
 * openloop_predict.py --gpu h200). */
typedef struct {
    const char *dir;
    const char *traces;
} DataSet;

static const DataSet h100 = {DIR, TRACES};
static const DataSet h200 = {DIR200, DIR200 "kineto/"};

typedef struct {
    const char *config;  /* <model>_b<batch>_<graph|eager> */
    const char *sharing; /* nomps, mps, mps50, mps25 */
    int n;
    const char *loop;     /* closed, open0.5, open0.8 */
    double thr, p50, p99; /* limits on |error| */
} Entry;

/* ENTRIES-BEGIN (README "Open loop": error today + margin) */
static const Entry entries[] = {
    {"decoder_b1_graph", "mps", 1, "closed", 0.09, 0.08, 0.16},
    {"decoder_b1_graph", "mps", 2, "closed", 0.06, 0.07, 0.12},
    {"decoder_b1_graph", "mps", 4, "closed", 0.08, 0.10, 0.13},
    {"decoder_b1_graph", "mps", 4, "open0.5", 0.06, 0.16, 0.19},
    {"decoder_b1_graph", "mps", 4, "open0.8", 0.06, 0.18, 0.29},
    {"decoder_b1_graph", "mps", 8, "closed", 0.06, 0.07, 0.13},
    {"decoder_b1_graph", "mps25", 4, "closed", 0.27, 0.24, 0.28},
    {"decoder_b1_graph", "mps50", 4, "closed", 0.07, 0.08, 0.15},
    {"decoder_b1_graph", "nomps", 1, "closed", 0.06, 0.06, 0.12},
    {"decoder_b1_graph", "nomps", 1, "open0.5", 0.06, 0.14, 0.18},
    {"decoder_b1_graph", "nomps", 1, "open0.8", 0.06, 0.19, 0.32},
    {"decoder_b1_graph", "nomps", 2, "closed", 0.07, 0.07, 0.16},
    {"decoder_b1_graph", "nomps", 4, "closed", 0.06, 0.08, 0.15},
    {"decoder_b1_graph", "nomps", 4, "open0.5", 0.06, 0.19, 0.15},
    {"decoder_b1_graph", "nomps", 4, "open0.8", 0.06, 0.13, 0.24},
    {"decoder_b1_graph", "nomps", 8, "closed", 0.06, 0.07, 0.13},
    {"encoder_b8_graph", "mps", 1, "closed", 0.06, 0.07, 0.13},
    {"encoder_b8_graph", "mps", 2, "closed", 0.16, 0.18, 0.19},
    {"encoder_b8_graph", "mps", 4, "closed", 0.30, 0.39, 0.47},
    {"encoder_b8_graph", "mps", 4, "open0.5", 0.06, 0.16, 0.50},
    {"encoder_b8_graph", "mps", 4, "open0.8", 0.08, 3.28, 1.98},
    {"encoder_b8_graph", "mps", 8, "closed", 0.21, 0.32, 0.39},
    {"encoder_b8_graph", "mps25", 1, "closed", 0.12, 0.14, 0.26},
    {"encoder_b8_graph", "mps50", 1, "closed", 0.12, 0.14, 0.24},
    {"encoder_b8_graph", "mps25", 4, "closed", 0.06, 0.07, 0.15},
    {"encoder_b8_graph", "mps50", 4, "closed", 0.18, 0.29, 0.30},
    {"encoder_b8_graph", "nomps", 1, "closed", 0.06, 0.06, 0.11},
    {"encoder_b8_graph", "nomps", 1, "open0.5", 0.06, 0.06, 0.17},
    {"encoder_b8_graph", "nomps", 1, "open0.8", 0.06, 0.17, 0.28},
    {"encoder_b8_graph", "nomps", 2, "closed", 0.06, 0.06, 0.15},
    {"encoder_b8_graph", "nomps", 4, "closed", 0.06, 0.07, 0.14},
    {"encoder_b8_graph", "nomps", 4, "open0.5", 0.06, 0.07, 0.29},
    {"encoder_b8_graph", "nomps", 4, "open0.8", 0.06, 0.11, 0.20},
    {"encoder_b8_graph", "nomps", 8, "closed", 0.06, 0.07, 0.13},
    {"encoder_b1_graph", "mps", 1, "closed", 0.07, 0.08, 0.13},
    {"encoder_b1_graph", "mps", 2, "closed", 0.06, 0.07, 0.12},
    {"encoder_b1_graph", "mps", 4, "closed", 0.07, 0.08, 0.13},
    {"encoder_b1_graph", "mps", 4, "open0.5", 0.06, 0.10, 0.13},
    {"encoder_b1_graph", "mps", 4, "open0.8", 0.06, 0.13, 0.59},
    {"encoder_b1_graph", "mps", 8, "closed", 0.11, 0.12, 0.14},
    {"encoder_b1_graph", "mps25", 1, "closed", 0.10, 0.11, 0.17},
    {"encoder_b1_graph", "mps50", 1, "closed", 0.10, 0.10, 0.14},
    {"encoder_b1_graph", "mps25", 4, "closed", 0.17, 0.17, 0.24},
    {"encoder_b1_graph", "mps50", 4, "closed", 0.09, 0.09, 0.12},
    {"encoder_b1_graph", "nomps", 1, "closed", 0.06, 0.06, 0.12},
    {"encoder_b1_graph", "nomps", 1, "open0.5", 0.06, 0.10, 0.33},
    {"encoder_b1_graph", "nomps", 1, "open0.8", 0.06, 0.08, 0.18},
    {"encoder_b1_graph", "nomps", 2, "closed", 0.07, 0.08, 0.13},
    {"encoder_b1_graph", "nomps", 4, "closed", 0.07, 0.08, 0.12},
    {"encoder_b1_graph", "nomps", 4, "open0.5", 0.06, 0.18, 0.12},
    {"encoder_b1_graph", "nomps", 4, "open0.8", 0.06, 0.10, 0.19},
    {"encoder_b1_graph", "nomps", 8, "closed", 0.07, 0.08, 0.12},
    {"cnn_b1_graph", "mps", 2, "closed", 0.13, 0.15, 0.16},
    {"cnn_b1_graph", "mps50", 1, "closed", 0.17, 0.19, 0.22},
    {"cnn_b1_graph", "nomps", 1, "open0.5", 0.06, 0.09, 0.13},
    {"cnn_b1_graph", "nomps", 4, "closed", 0.06, 0.06, 0.14},
    {"cnn_b8_graph", "mps", 4, "closed", 0.17, 0.16, 0.21},
    {"cnn_b8_graph", "nomps", 4, "open0.5", 0.07, 0.09, 0.12},
    /* eager: no target (README, reported apart); today's error + margin */
    {"cnn_b1_eager", "mps", 4, "closed", 0.34, 0.42, 0.28},
    {"decoder_b1_eager", "nomps", 2, "closed", 0.46, 1.00, 0.26},
    {"encoder_b8_eager", "nomps", 1, "open0.8", 0.06, 0.18, 0.32},
    {"encoder_b8_eager", "nomps", 4, "closed", 0.06, 0.07, 0.20},
};
/* ENTRIES-END */

/* The same serving campaign on an H200 (traces/measured/h200/openloop/,
 * harness/serving_campaign.sh), predicted from the H200's own one-process
 * profile on models/h200.json as shipped; fitted: fits.json (the N = 1
 * no-MPS closed rows' host scales) and the H200 host's host_wake_us (its
 * idle-gap sweeps, FINDINGS §70, §71), no row below.  Rows whose measurement a
 * second call repeated within ~5% (closed N >= 2, MPS N = 4) or that the
 * H100's table guards too; limits: README "... on an H200" error + margin
 * (thr +5, p50 +6, p99 +11 points, at least 6%).  The MPS misses carry over
 * from the H100 (decoder b16 / encoder b8 at N = 4, the 25% rows) and are
 * guarded as they are.  decoder b1 without MPS, N = 4, open 0.5 needs the
 * H200's host_wake_us (FINDINGS §70): without it its p50 is 13% short.
 * resnet50 b1 and decoder b1 at N = 8, open 0.5, need its 20 ms point
 * (FINDINGS §71): held at 10 ms their p50 is 17% / 14% short. */
/* ENTRIES-H200-BEGIN */
static const Entry entries_h200[] = {
    {"decoder_b1_graph", "nomps", 4, "closed", 0.06, 0.07, 0.12},
    {"decoder_b1_graph", "mps", 4, "closed", 0.06, 0.09, 0.16},
    {"decoder_b1_graph", "mps50", 4, "closed", 0.06, 0.07, 0.18},
    {"decoder_b1_graph", "mps25", 1, "closed", 0.38, 0.30, 0.41},
    {"decoder_b1_graph", "nomps", 1, "open0.5", 0.06, 0.07, 0.20},
    {"decoder_b16_graph", "nomps", 8, "closed", 0.06, 0.06, 0.12},
    {"decoder_b16_graph", "mps", 4, "closed", 0.15, 0.15, 0.24},
    {"decoder_b16_graph", "mps50", 1, "closed", 0.08, 0.08, 0.17},
    {"encoder_b1_graph", "nomps", 2, "closed", 0.07, 0.08, 0.16},
    {"encoder_b1_graph", "mps", 2, "closed", 0.09, 0.11, 0.30},
    {"encoder_b1_graph", "mps50", 1, "closed", 0.18, 0.18, 0.20},
    {"encoder_b1_graph", "mps25", 4, "closed", 0.22, 0.21, 0.27},
    {"encoder_b8_graph", "nomps", 4, "closed", 0.06, 0.07, 0.12},
    {"encoder_b8_graph", "mps", 4, "closed", 0.23, 0.35, 0.44},
    {"encoder_b8_graph", "mps25", 1, "closed", 0.10, 0.12, 0.18},
    {"encoder_b8_graph", "nomps", 4, "open0.8", 0.06, 0.18, 0.12},
    {"decoder_b1_graph", "nomps", 4, "open0.5", 0.06, 0.11, 0.20},
    {"cnn_b1_graph", "nomps", 8, "open0.5", 0.06, 0.10, 0.18},
    {"decoder_b1_graph", "nomps", 8, "open0.5", 0.06, 0.08, 0.26},
    {"cnn_b1_graph", "nomps", 4, "closed", 0.07, 0.08, 0.14},
    {"cnn_b1_graph", "mps", 2, "closed", 0.12, 0.13, 0.17},
    {"cnn_b8_graph", "nomps", 2, "closed", 0.07, 0.08, 0.14},
    {"cnn_b8_graph", "mps", 2, "closed", 0.10, 0.11, 0.15},
};
/* ENTRIES-H200-END */

/* The measured row of @ds's summary.csv: throughput per process, p50, p99
 * (ms) and the rate asked per process (0: closed). */
static void measured(const DataSet *ds, const Entry *e, double *thr,
                     double *p50, double *p99, double *rate)
{
    g_autofree char *text = NULL;
    g_autofree char *path = g_strconcat(ds->dir, "summary.csv", NULL);
    if (!g_file_get_contents(path, &text, NULL, NULL))
        fail_msg("cannot read %s", path);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (int i = 1; lines[i]; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
        if (g_strv_length(f) < 10 || strcmp(f[0], e->sharing) ||
            atoi(f[1]) != e->n || strcmp(f[2], e->config) ||
            strcmp(f[3], e->loop))
            continue;
        *rate = f[4][0] ? atof(f[4]) : 0;
        *thr = atof(f[5]);
        *p50 = atof(f[6]);
        *p99 = atof(f[8]);
        return;
    }
    fail_msg("%s %s n=%d %s: no row in %s", e->config, e->sharing, e->n,
             e->loop, path);
}

static double host_scale_in(const DataSet *ds, const char *config)
{
    GError *err = NULL;
    g_autofree char *path = g_strconcat(ds->dir, "fits.json", NULL);
    g_autoptr(SimJsonDoc) d = sim_json_doc_load(path, &err);
    if (!d)
        fail_msg("%s", err->message);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d->root, config);
    if (!cJSON_IsNumber(v))
        fail_msg("%s: no host scale for %s", path, config);
    return v->valuedouble;
}

/* The H100's host scale of @config. */
static double host_scale(const char *config)
{
    return host_scale_in(&h100, config);
}

static double err_of(double p, double m)
{
    return (p - m) / m;
}

/* @config's Kineto profile, with its Nsight Compute file of one request
 * where one was measured (each kernel's issue share and DRAM throughput),
 * loaded and targeted at @n processes under @po as openloop_predict.py does;
 * *@m receives the model of its GPU.  Fails the test on error.
 * Returns: (transfer full); *@m (transfer full). */
static SimScenario *config_scenario(const DataSet *ds, const char *config,
                                    int n, const PrepOptions *po, GpuModel **m)
{
    g_autofree char *trace =
        g_strdup_printf("%s%s.json.gz", ds->traces, config);
    g_autofree char *ncu = g_strdup_printf("%sncu/%s.csv.gz", ds->dir, config);
    const bool has_ncu = g_file_test(ncu, G_FILE_TEST_EXISTS);
    GError *err = NULL;
    char *files[] = {trace, ncu};
    g_autoptr(SimScenario) base = prep_load(files, has_ncu ? 2 : 1, po, &err);
    if (!base)
        fail_msg("%s", err->message);
    *m = sim_gpu_model_find(base->gpu, NULL, &err);
    assert_non_null(*m);
    SimScenario *sc = prep_target(base, *m, (uint32_t)n, po, NULL, &err);
    assert_non_null(sc);
    return sc;
}

/* Predicts entry @e of @ds as harness/openloop_predict.py does (an open
 * loop, @rate > 0, at the arrival times its processes drew): throughput per
 * process, p50 and p99 (ms); @arrivals, when given, receives process 0's
 * arrival times (ns). */
static void simulate(const DataSet *ds, const Entry *e, double rate,
                     double *thr, double *p50, double *p99, GArray *arrivals)
{
    g_autofree char *spread =
        g_strdup_printf("%sspread/%s.json", ds->dir, e->config);
    /* open loop: the arrival times the measured processes drew */
    g_autofree char *times =
        rate > 0 ? g_strdup_printf("%sarrivals/%s_n%d_%s_%s.json.gz", ds->dir,
                                   e->sharing, e->n, e->config, e->loop)
                 : NULL;
    PrepOptions po = {.loop_request = true,
                      .iterations = (uint32_t)MAX(40, 240 / e->n),
                      .host_scale = host_scale_in(ds, e->config),
                      .spread = spread,
                      .arrival_times = times};
    g_autoptr(GpuModel) m = NULL;
    g_autoptr(SimScenario) sc = config_scenario(ds, e->config, e->n, &po, &m);
    GError *err = NULL;
    SimOptions o;
    sim_options_init(&o);
    o.mode = strcmp(e->sharing, "nomps") ? SIM_SHARE_MPS : SIM_SHARE_TIMESLICE;
    o.active_thread_pct = !strcmp(e->sharing, "mps50")   ? 50
                          : !strcmp(e->sharing, "mps25") ? 25
                                                         : 0;
    o.seed = 1;
    o.record_ops = false;
    if (arrivals) {
        const SimProcessSpec *p0 = g_ptr_array_index(sc->processes, 0);
        assert_int_equal(p0->arrivals.kind, SIM_ARRIVALS_LIST);
        g_array_append_vals(arrivals, p0->arrivals.times_ns,
                            p0->arrivals.n_times);
    }
    g_autoptr(SimResult) r = sim_engine_run(m, sc, &o, &err);
    if (!r)
        fail_msg("%s", err->message);
    *thr = sim_result_total_throughput(r) / e->n;
    *p50 = sim_time_to_ms(sim_result_latency_pct(r, 50));
    *p99 = sim_time_to_ms(sim_result_latency_pct(r, 99));
}

static void check(const DataSet *ds, const Entry *e)
{
    double mthr = 0, m50 = 0, m99 = 0, rate = 0;
    measured(ds, e, &mthr, &m50, &m99, &rate);
    double thr = 0, p50 = 0, p99 = 0;
    simulate(ds, e, rate, &thr, &p50, &p99, NULL);
    double et = err_of(thr, mthr), e50 = err_of(p50, m50),
           e99 = err_of(p99, m99);
    print_message("%-17s %-5s N=%d %-7s thr %+6.1f%% p50 %+6.1f%% p99 "
                  "%+6.1f%%\n",
                  e->config, e->sharing, e->n, e->loop, 100 * et, 100 * e50,
                  100 * e99);
    if (fabs(et) > e->thr || fabs(e50) > e->p50 || fabs(e99) > e->p99)
        fail_msg("%s %s N=%d %s: throughput %+.1f%% p50 %+.1f%% p99 %+.1f%% "
                 "(limits %.0f/%.0f/%.0f%%)",
                 e->config, e->sharing, e->n, e->loop, 100 * et, 100 * e50,
                 100 * e99, 100 * e->thr, 100 * e->p50, 100 * e->p99);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Pooled-latency p50 (ms, nearest rank as harness/openloop_summary.py) of
 * one process serving one request at a time from @arr (ns): the Lindley
 * recursion start = max(arrival, previous end), each service one of @lat
 * (us) drawn by a seeded LCG and scaled by @k. */
static double queue_p50(const GArray *arr, const double *lat, size_t n_lat,
                        double k, uint64_t seed)
{
    g_autofree double *resp = g_new(double, arr->len);
    double end = 0;
    for (guint i = 0; i < arr->len; i++) {
        double t = (double)g_array_index(arr, SimTime, i) / 1e3; /* us */
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        end = MAX(t, end) + lat[(seed >> 33) % n_lat] * k;
        resp[i] = end - t;
    }
    qsort(resp, arr->len, sizeof *resp, cmp_double);
    return resp[(size_t)(0.5 * (arr->len - 1) + 0.5)] / 1e3;
}

/* One process at 0.8 load is a single-server queue (FINDINGS §22): hqsim's
 * open-loop p50 at the recorded arrivals is the Lindley queue's with the
 * lone process's latency spread scaled to hqsim's own closed-loop
 * throughput.  Measured from launch instead of arrival, or with the
 * requests overlapping, it would come out near one service time, less
 * than half the queue's. */
static void test_open_loop_is_a_queue(void **state)
{
    (void)state;
    if (g_getenv("HQSIM_VALGRIND"))
        skip();
    const Entry closed = {"encoder_b8_graph", "nomps", 1, "closed", 0, 0, 0};
    const Entry open = {"encoder_b8_graph", "nomps", 1, "open0.8", 0, 0, 0};
    double thr = 0, p50 = 0, p99 = 0;
    simulate(&h100, &closed, 0, &thr, &p50, &p99, NULL);
    g_autoptr(GArray) arr = g_array_new(FALSE, FALSE, sizeof(SimTime));
    double o50 = 0, o99 = 0, othr = 0;
    simulate(&h100, &open, 1, &othr, &o50, &o99, arr);
    assert_true(arr->len > 100);
    GError *err = NULL;
    g_autoptr(SimJsonDoc) d =
        sim_json_doc_load(DIR "spread/encoder_b8_graph.json", &err);
    assert_non_null(d);
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(d->root, "latencies_us");
    size_t n = (size_t)cJSON_GetArraySize(l);
    assert_true(n > 100);
    g_autofree double *lat = g_new(double, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += lat[i] = cJSON_GetArrayItem(l, (int)i)->valuedouble;
    /* service mean = 1 / closed-loop throughput */
    const double k = 1e6 / thr / (sum / (double)n);
    double q[9];
    for (int s = 0; s < 9; s++)
        q[s] = queue_p50(arr, lat, n, k, (uint64_t)s + 1);
    qsort(q, 9, sizeof q[0], cmp_double);
    print_message("encoder_b8_graph N=1 at 0.8 load: hqsim p50 %.3f ms, "
                  "queue %.3f ms (%.3f-%.3f), one service %.3f ms\n",
                  o50, q[4], q[0], q[8], 1e3 / thr);
    assert_true(q[4] > 1.5e3 / thr); /* the queueing is most of it */
    assert_true(fabs(o50 / q[4] - 1) < 0.05);
}

/* The host wake after an idle gap (host_wake_us, FINDINGS §59), end to end:
 * the decoder b1 graph's profile as openloop_predict.py runs it (host
 * scale, request spread, ncu), one process, a request every 2.5 ms (it
 * never queues: idle ~2 ms before each).  With the H100 model each request
 * after the first ends exactly host_wake(its idle gap) later than with the
 * table removed, everything else equal (the spread is drawn per request);
 * the mean added latency is the table's ~2 ms value, the measured sweeps'
 * median excess there (idle/gaps.csv, fitted: 8.7-44.2 us, median 13). */
static void test_open_loop_idle_wake(void **state)
{
    (void)state;
    if (g_getenv("HQSIM_VALGRIND"))
        skip();
    const char *cfg = "decoder_b1_graph";
    g_autofree char *trace = g_strdup_printf(TRACES "%s.json.gz", cfg);
    g_autofree char *spread = g_strdup_printf(DIR "spread/%s.json", cfg);
    g_autofree char *ncu = g_strdup_printf(DIR "ncu/%s.csv.gz", cfg);
    PrepOptions po = {.loop_request = true,
                      .iterations = 40,
                      .host_scale = host_scale(cfg),
                      .spread = spread};
    GError *err = NULL;
    char *files[] = {trace, ncu};
    g_autoptr(SimScenario) base = prep_load(files, 2, &po, &err);
    assert_non_null(base);
    g_autoptr(GpuModel) m = sim_gpu_model_find(base->gpu, NULL, &err);
    assert_non_null(m);
    assert_true(m->n_host_wake > 0);
    g_autoptr(SimScenario) sc = prep_target(base, m, 1, &po, NULL, &err);
    assert_non_null(sc);
    SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    const uint32_t n = 40;
    const SimTime period = SIM_US(2500);
    p->arrivals.kind = SIM_ARRIVALS_LIST;
    p->arrivals.n_times = n;
    g_free(p->arrivals.times_ns);
    p->arrivals.times_ns = g_new(SimTime, n);
    for (uint32_t i = 0; i < n; i++)
        p->arrivals.times_ns[i] = period * i;
    SimOptions o;
    sim_options_init(&o);
    o.mode = SIM_SHARE_TIMESLICE;
    o.seed = 1;
    o.record_ops = false;
    g_autoptr(GpuModel) off = sim_gpu_model_copy(m);
    off->n_host_wake = 0;
    g_autoptr(SimResult) a = sim_engine_run(off, sc, &o, &err);
    g_autoptr(SimResult) b = sim_engine_run(m, sc, &o, &err);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->procs[0].latency_ns->len, n);
    assert_int_equal(b->procs[0].latency_ns->len, n);
    double added = 0;
    for (uint32_t i = 0; i < n; i++) {
        SimTime la = g_array_index(a->procs[0].latency_ns, SimTime, i);
        SimTime lb = g_array_index(b->procs[0].latency_ns, SimTime, i);
        SimTime want = 0;
        if (i) {
            SimTime prev =
                g_array_index(b->procs[0].latency_ns, SimTime, i - 1);
            assert_true(prev < period); /* idle before each request */
            want = sim_gpu_model_host_wake(m, period - prev);
        }
        if (lb != la + want)
            fail_msg("request %u: %llu ns with the wake, %llu without, "
                     "want +%llu",
                     i, (unsigned long long)lb, (unsigned long long)la,
                     (unsigned long long)want);
        added += (double)(lb - la) / 1e3;
    }
    added /= n - 1;
    print_message("%s, a request every 2.5 ms: +%.2f us a request (host "
                  "wake at 2 ms: %.1f us)\n",
                  cfg, added, sim_gpu_model_host_wake(m, SIM_MS(2)) / 1e3);
    assert_true(added > 12.5 && added < 14.0);
}

/* ------------------------------------------------------------------------
 * A lone MPS client's kernels under a thread percentage (FINDINGS.md §36):
 * resnet50's kernels measured at 100, 50 and 25% of the threads
 * (traces/measured/h100/mpspct/cnn/kernels.csv, one request's distinct
 * kernels: name cut to 60, grid, launches per request, median us) against
 * hqsim's run of the one profile (all SMs, no MPS) with its ncu file.  Kept:
 * kernels that run as often per request in all three settings (the
 * libraries choose other kernels for fewer SMs).  Compared: the kept
 * kernels' time per request over its own at 100% (the lone client's cost at
 * 100% is another parameter's).  kernel_fixed_us is fitted on b1; b8 is
 * predicted.  With kernel_fixed_us 0 (the shipped model's, for now) b1
 * fails here already at 50%: 1.282 against 1.202 measured (+6.7%). */
#define MPSPCT HQSIM_SOURCE_DIR "/traces/measured/h100/mpspct/"

typedef struct {
    char *key;     /* name (60 characters) '|' blocks: the table's key,
                      freed by the table */
    double n;      /* launches per request */
    double us[3];  /* median at 100, 50, 25% (measured) */
    double sim[3]; /* summed over the request (hqsim) */
    int seen[3];   /* hqsim launches per request */
} PctKernel;

static GHashTable *pct_measured(const char *config)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents(MPSPCT "cnn/kernels.csv", &text, NULL, NULL))
        fail_msg("cannot read " MPSPCT "cnn/kernels.csv");
    GHashTable *h =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    static const char *const settings[3] = {"mps100", "mps50", "mps25"};
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (int i = 1; lines[i] && lines[i][0]; i++) {
        /* config,setting,kernel,grid,block,per_request,median: a name
         * with commas is in quotes (Python's csv) */
        g_auto(GStrv) head = g_strsplit(lines[i], ",", 3);
        if (g_strv_length(head) < 3 || strcmp(head[0], config))
            continue;
        const char *nm = head[2], *end;
        if (nm[0] == '"') {
            nm++;
            end = strchr(nm, '"');
        } else {
            end = strchr(nm, ',');
        }
        if (!end || !end[0] || !end[1])
            continue;
        g_auto(GStrv) tail = g_strsplit(end + (end[0] == '"' ? 2 : 1), ",", -1);
        if (g_strv_length(tail) < 4)
            continue;
        int s = 0;
        while (s < 3 && strcmp(head[1], settings[s]))
            s++;
        if (s == 3)
            continue;
        g_auto(GStrv) g = g_strsplit(tail[0], "x", 3);
        if (g_strv_length(g) != 3)
            continue; /* the "(all kernels)" rows */
        uint64_t blocks = g_ascii_strtoull(g[0], NULL, 10) *
                          g_ascii_strtoull(g[1], NULL, 10) *
                          g_ascii_strtoull(g[2], NULL, 10);
        g_autofree char *name = g_strndup(nm, (gsize)(end - nm));
        char *key = g_strdup_printf("%s|%" PRIu64, name, blocks);
        PctKernel *k = g_hash_table_lookup(h, key);
        if (!k) {
            k = g_new0(PctKernel, 1);
            k->key = key;
            k->n = -1;
            g_hash_table_insert(h, key, k);
        } else {
            g_free(key);
        }
        double n = atof(tail[2]);
        k->n = s == 0 ? n : (fabs(k->n - n) < 0.01 ? k->n : -2);
        k->us[s] = atof(tail[3]);
    }
    return h;
}

/* hqsim's third request of @config alone at @pct: kernel time per key. */
static void pct_simulate(const char *config, int s, double pct, GHashTable *h,
                         SimTime fixed)
{
    g_autofree char *trace = g_strdup_printf(TRACES "%s.json.gz", config);
    g_autofree char *ncu = g_strdup_printf(MPSPCT "ncu/%s.csv.gz", config);
    PrepOptions po = {.loop_request = true,
                      .iterations = 3,
                      .host_scale = host_scale(config)};
    GError *err = NULL;
    char *files[] = {trace, ncu};
    g_autoptr(SimScenario) base = prep_load(files, 2, &po, &err);
    if (!base)
        fail_msg("%s", err->message);
    g_autoptr(GpuModel) m = sim_gpu_model_find(base->gpu, NULL, &err);
    assert_non_null(m);
    m->kernel_fixed_ns = fixed;
    g_autoptr(SimScenario) sc = prep_target(base, m, 1, &po, NULL, &err);
    assert_non_null(sc);
    SimOptions o;
    sim_options_init(&o);
    o.mode = SIM_SHARE_MPS;
    o.active_thread_pct = pct < 100 ? pct : 0;
    o.seed = 1;
    o.record_ops = true;
    g_autoptr(SimResult) r = sim_engine_run(m, sc, &o, &err);
    if (!r)
        fail_msg("%s", err->message);
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *op = &g_array_index(r->ops, SimOpRecord, i);
        if (op->kind != SIM_OP_KERNEL || op->iteration != 2)
            continue;
        g_autofree char *name = g_strndup(op->name, 60);
        g_autofree char *key =
            g_strdup_printf("%s|%" PRIu64, name, (uint64_t)op->blocks);
        PctKernel *k = g_hash_table_lookup(h, key);
        if (!k)
            continue;
        k->sim[s] += (double)(op->end_ns - op->start_ns) / 1e3;
        k->seen[s]++;
    }
}

/* Growth of the kept kernels' time at 50 and 25% over 100%: measured and
 * hqsim's; fails if hqsim's is off by more than @limit (relative). */
static void pct_growth(const char *config, double limit, SimTime fixed)
{
    g_autoptr(GHashTable) h = pct_measured(config);
    const double pct[3] = {100, 50, 25};
    for (int s = 0; s < 3; s++)
        pct_simulate(config, s, pct[s], h, fixed);
    double meas[3] = {0}, sim[3] = {0};
    int kept = 0;
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, h);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const PctKernel *k = v;
        if (k->n <= 0 || k->us[1] <= 0 || k->us[2] <= 0 ||
            k->seen[0] != (int)lround(k->n) || k->seen[1] != k->seen[0] ||
            k->seen[2] != k->seen[0])
            continue;
        kept++;
        for (int s = 0; s < 3; s++) {
            meas[s] += k->n * k->us[s];
            sim[s] += k->sim[s];
        }
    }
    assert_true(kept >= 30);
    for (int s = 1; s < 3; s++) {
        double gm = meas[s] / meas[0], gs = sim[s] / sim[0];
        print_message("%s at %.0f%%: %d kernels, growth measured %.3f, hqsim "
                      "%.3f (%+.1f%%)\n",
                      config, pct[s], kept, gm, gs, 100 * (gs / gm - 1));
        if (fabs(gs / gm - 1) > limit)
            fail_msg("%s at %.0f%%: growth %.3f against %.3f measured", config,
                     pct[s], gs, gm);
    }
}

static void test_thread_pct_kernel_growth(void **state)
{
    (void)state;
    if (g_getenv("HQSIM_VALGRIND"))
        skip();
    /* the fitted 2.0 us (not yet in models/h100-sxm.json: FINDINGS §36) */
    pct_growth("cnn_b1_graph", 0.04, SIM_US(2)); /* fitted: +1.7 / +0.9% */
    pct_growth("cnn_b8_graph", 0.20, SIM_US(2)); /* predicted: +11.4/+16.8% */
}

static void test_openloop_entries(void **state)
{
    (void)state;
    if (g_getenv("HQSIM_VALGRIND"))
        skip(); /* minutes under valgrind; test_jitter and test_graph cover
                   the engine paths there */
    for (size_t i = 0; i < G_N_ELEMENTS(entries); i++)
        check(&h100, &entries[i]);
}

static void test_openloop_entries_h200(void **state)
{
    (void)state;
    if (g_getenv("HQSIM_VALGRIND"))
        skip();
    for (size_t i = 0; i < G_N_ELEMENTS(entries_h200); i++)
        check(&h200, &entries_h200[i]);
}

/* The request spread is fitted on N = 1 alone: without it every closed
 * request of one process takes the same time. */
static void test_spread_file_errors(void **state)
{
    (void)state;
    /* A private folder: concurrent test runs never share a path. */
    g_autofree char *dir = g_dir_make_tmp("hqsim-spread-XXXXXX", NULL);
    assert_non_null(dir);
    g_autofree char *bad = g_build_filename(dir, "spread-bad.json", NULL);
    g_file_set_contents(bad, "{\"latencies_us\": [10,\n -3]}", -1, NULL);
    PrepOptions po = {.loop_request = true, .iterations = 5, .spread = bad};
    char *files[] = {(char *)TRACES "decoder_b1_graph.json.gz"};
    GError *err = NULL;
    SimScenario *sc = prep_load(files, 1, &po, &err);
    assert_null(sc);
    assert_non_null(strstr(err->message, ":2:"));
    assert_non_null(strstr(err->message, "latencies_us"));
    g_clear_error(&err);
    g_remove(bad);
    g_rmdir(dir);
    /* arrival times: one list per process after replication */
    po = (PrepOptions){.loop_request = true,
                       .iterations = 5,
                       .arrival_times = DIR
                       "arrivals/nomps_n2_decoder_b1_graph_open0.5.json.gz"};
    g_autoptr(SimScenario) base = prep_load(files, 1, &po, &err);
    assert_non_null(base);
    g_autoptr(GpuModel) m = sim_gpu_model_find(base->gpu, NULL, &err);
    assert_non_null(m);
    sc = prep_target(base, m, 4, &po, NULL, &err);
    assert_null(sc);
    assert_non_null(strstr(err->message, "one array of arrival times per "
                                         "process (4)"));
    g_clear_error(&err);
    g_autoptr(SimScenario) two = prep_target(base, m, 2, &po, NULL, &err);
    assert_non_null(two);
    const SimProcessSpec *p1 = g_ptr_array_index(two->processes, 1);
    assert_int_equal(p1->arrivals.kind, SIM_ARRIVALS_LIST);
    assert_true(p1->arrivals.n_times > 100);
}

/* ------------------------------------------------------------------------
 * A graph's GPU span as the unprofiled process runs it (FINDINGS §61).
 * Measured without a profiler (traces/measured/h100/openloop/tsspan/, python3
 * harness/ts_span_summary.py traces/measured/h100/openloop/tsspan/ts_span.tar.gz
 * traces/measured/h100/openloop/switch.csv): the median span between CUDA
 * events of a graph queued behind a kernel, alone (the mean of the two lone
 * phases) and while a second process serves (taking turns), less the
 * model's graph_wait_latency_us (the event is written as the kernel ahead
 * ends; the graph's first node starts that much later).  hqsim runs the
 * Kineto profile with --host-scale, as the serving table does: without
 * profiler_kernel_us and the unprofiled memset spacing its spans are the
 * profile's, 4.7% (decoder b1) and 7.0% (resnet50 b1, 9 small memsets)
 * longer alone.  profiler_kernel_us is fitted on the decoder b1 rows; the
 * decoder b16 and resnet50 b1 rows are predicted.
 * ------------------------------------------------------------------------ */
typedef struct {
    const char *config;
    int n;          /* 1: alone; 2: two processes taking turns */
    double meas_us; /* median event span less graph_wait_latency_us */
} SpanEntry;

/* hqsim's median GPU span (first graph node start to last graph node end)
 * of process 0's requests after the first two, in a closed loop of @e->n
 * processes without MPS. */
static double sim_span_us(const SpanEntry *e)
{
    g_autofree char *spread = g_strdup_printf(DIR "spread/%s.json", e->config);
    PrepOptions po = {.loop_request = true,
                      .iterations = 24,
                      .host_scale = host_scale(e->config),
                      .spread = spread};
    g_autoptr(GpuModel) m = NULL;
    g_autoptr(SimScenario) sc =
        config_scenario(&h100, e->config, e->n, &po, &m);
    GError *err = NULL;
    SimOptions o;
    sim_options_init(&o);
    o.mode = SIM_SHARE_TIMESLICE;
    o.seed = 1;
    o.record_ops = true;
    g_autoptr(SimResult) r = sim_engine_run(m, sc, &o, &err);
    if (!r)
        fail_msg("%s", err->message);
    double first[24], last[24];
    for (int i = 0; i < 24; i++)
        first[i] = 1e300, last[i] = 0;
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *op = &g_array_index(r->ops, SimOpRecord, i);
        if (op->proc != 0 || op->node == SIM_NO_INDEX || op->iteration >= 24)
            continue;
        first[op->iteration] = MIN(first[op->iteration], (double)op->start_ns);
        last[op->iteration] = MAX(last[op->iteration], (double)op->end_ns);
    }
    double span[22];
    for (int i = 2; i < 24; i++) {
        assert_true(last[i] > first[i]);
        span[i - 2] = (last[i] - first[i]) / 1e3;
    }
    qsort(span, 22, sizeof span[0], cmp_double);
    return (span[10] + span[11]) / 2;
}

static void test_unprofiled_graph_span(void **state)
{
    (void)state;
    if (g_getenv("HQSIM_VALGRIND"))
        skip();
    static const SpanEntry spans[] = {
        {"decoder_b1_graph", 1, 424.2 - 2.5},
        {"decoder_b1_graph", 2, 373.8 - 2.5},
        {"decoder_b16_graph", 1, 645.7 - 2.5},
        {"decoder_b16_graph", 2, 587.3 - 2.5},
        {"cnn_b1_graph", 1, 901.4 - 2.5},
        {"cnn_b1_graph", 2, 829.6 - 2.5},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(spans); i++) {
        double s = sim_span_us(&spans[i]);
        print_message("%-17s N=%d graph span %.1f us, unprofiled %.1f "
                      "(%+.1f%%)\n",
                      spans[i].config, spans[i].n, s, spans[i].meas_us,
                      100 * err_of(s, spans[i].meas_us));
        assert_true(fabs(err_of(s, spans[i].meas_us)) < 0.015);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spread_file_errors),
        cmocka_unit_test(test_open_loop_is_a_queue),
        cmocka_unit_test(test_open_loop_idle_wake),
        cmocka_unit_test(test_unprofiled_graph_span),
        cmocka_unit_test(test_thread_pct_kernel_growth),
        cmocka_unit_test(test_openloop_entries),
        cmocka_unit_test(test_openloop_entries_h200),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
