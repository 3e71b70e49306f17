/* test_api.c -- the public C API (include/hqsim.h), seen as a program
 * linked to libhqsim sees it: this file is compiled with include/ as its
 * only project include path (Makefile), so it can use nothing else.
 *
 * The numbers the accessors give are checked against the JSON summary the
 * same result writes (the command line's --json, tests/test_python.py
 * checks that side), options against what they must change, and errors for
 * their domain, code and the file/line/field of the message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "hqsim.h"

#define SRC HQSIM_SOURCE_DIR "/"

/* Four closed-loop workers, 50 iterations each: small enough for valgrind. */
static const char *const workload[] = {
    SRC "traces/teaching/b-mps-lower-util-faster.json", NULL};

static HqsimOptions *opts(const char *const *kv)
{
    HqsimOptions *o = hqsim_options_new();
    for (; kv && kv[0]; kv += 2) {
        GError *e = NULL;
        assert_true(hqsim_options_set(o, kv[0], kv[1], &e));
        assert_null(e);
    }
    return o;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_non_null(v);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

/* The JSON prints every double with 17 significant digits: equal to the
 * accessor's value to the last bit but one. */
static void assert_close(double a, double b)
{
    assert_true(fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)) + 1e-12);
}

/* Every accessor of run @i against the "run" object @j of the JSON. */
static void check_run_against_json(const HqsimResult *r, uint32_t i,
                                   const cJSON *j)
{
    assert_string_equal(hqsim_result_mode(r, i),
                        cJSON_GetObjectItem(j, "mode")->valuestring);
    assert_close(hqsim_result_makespan_ms(r, i), num(j, "makespan_ms"));
    assert_close(hqsim_result_throughput(r, i), num(j, "throughput_per_s"));
    assert_close(hqsim_result_latency_ms(r, i, 99), num(j, "latency_p99_ms"));
    const cJSON *g = cJSON_GetObjectItem(j, "gpu_metrics");
    assert_close(hqsim_result_util(r, i, HQSIM_UTIL_GPU),
                 num(g, "utilization.gpu"));
    assert_close(hqsim_result_util(r, i, HQSIM_UTIL_SM_ACTIVE),
                 num(g, "sm_active"));
    assert_close(hqsim_result_util(r, i, HQSIM_UTIL_OCCUPANCY),
                 num(g, "sm_occupancy"));
    const cJSON *procs = cJSON_GetObjectItem(j, "processes");
    assert_int_equal(hqsim_result_n_procs(r, i), cJSON_GetArraySize(procs));
    for (uint32_t p = 0; p < hqsim_result_n_procs(r, i); p++) {
        const cJSON *jp = cJSON_GetArrayItem(procs, (int)p);
        assert_string_equal(hqsim_result_proc_name(r, i, p),
                            cJSON_GetObjectItem(jp, "name")->valuestring);
        assert_string_equal(hqsim_result_proc_status(r, i, p),
                            cJSON_GetObjectItem(jp, "status")->valuestring);
        assert_close(hqsim_result_proc_throughput(r, i, p),
                     num(jp, "throughput_per_s"));
        assert_close(hqsim_result_proc_latency_ms(r, i, p, 50),
                     num(jp, "latency_p50_ms"));
        assert_close(hqsim_result_proc_latency_ms(r, i, p, 90),
                     num(jp, "latency_p90_ms"));
        assert_close(hqsim_result_proc_latency_ms(r, i, p, 99),
                     num(jp, "latency_p99_ms"));
    }
}

static void test_run(void **state)
{
    (void)state;
    GError *e = NULL;
    HqsimResult *r = hqsim_run(workload, NULL, &e);
    assert_null(e);
    assert_non_null(r);
    assert_int_equal(hqsim_result_n_runs(r), 1);
    assert_string_equal(hqsim_result_gpu(r), "h100-sxm");
    assert_true(hqsim_result_makespan_ms(r, 0) > 0);
    char *json = hqsim_result_json(r);
    cJSON *doc = cJSON_Parse(json);
    assert_non_null(doc);
    check_run_against_json(r, 0, cJSON_GetObjectItem(doc, "run"));
    char *text = hqsim_result_text(r);
    assert_non_null(strstr(text, "h100-sxm"));
    hqsim_free(text);
    cJSON_Delete(doc);
    hqsim_free(json);
    hqsim_result_free(r);
}

/* Options change what runs: N copies of each process and the mode. */
static void test_run_options(void **state)
{
    (void)state;
    HqsimResult *one = hqsim_run(workload, NULL, NULL);
    HqsimOptions *o = opts((const char *const[]){
        "processes", "3", "mode", "mps", "no-jitter", "yes", NULL});
    HqsimResult *three = hqsim_run(workload, o, NULL);
    assert_non_null(one);
    assert_non_null(three);
    assert_int_equal(hqsim_result_n_procs(three, 0),
                     3 * hqsim_result_n_procs(one, 0));
    assert_string_equal(hqsim_result_mode(three, 0), "mps");
    assert_true(hqsim_result_makespan_ms(three, 0) !=
                hqsim_result_makespan_ms(one, 0));
    hqsim_result_free(one);
    hqsim_result_free(three);
    hqsim_options_free(o);
}

static void test_compare(void **state)
{
    (void)state;
    HqsimOptions *o =
        opts((const char *const[]){"modes", "mps,timeslice", NULL});
    GError *e = NULL;
    HqsimResult *r = hqsim_compare(workload, o, &e);
    assert_null(e);
    assert_int_equal(hqsim_result_n_runs(r), 2);
    char *json = hqsim_result_json(r);
    cJSON *doc = cJSON_Parse(json);
    const cJSON *runs = cJSON_GetObjectItem(doc, "runs");
    assert_int_equal(cJSON_GetArraySize(runs), 2);
    for (uint32_t i = 0; i < 2; i++)
        check_run_against_json(r, i, cJSON_GetArrayItem(runs, (int)i));
    assert_string_equal(hqsim_result_mode(r, 0), "mps");
    assert_string_equal(hqsim_result_mode(r, 1), "timeslice");
    cJSON_Delete(doc);
    hqsim_free(json);
    hqsim_result_free(r);
    hqsim_options_free(o);
}

/* processes 1,2 x modes timeslice,mps: four configurations, in order. */
static void test_sweep(void **state)
{
    (void)state;
    HqsimOptions *o = opts((const char *const[]){
        "processes", "1,2", "threads", "2", "slo-p99-ms", "50", NULL});
    GError *e = NULL;
    HqsimSweep *s = hqsim_sweep(workload, o, &e);
    assert_null(e);
    assert_int_equal(hqsim_sweep_n_configs(s), 4);
    char *json = hqsim_sweep_json(s);
    cJSON *doc = cJSON_Parse(json);
    const cJSON *cfgs = cJSON_GetObjectItem(doc, "configurations");
    assert_int_equal(cJSON_GetArraySize(cfgs), 4);
    char *text = hqsim_sweep_text(s);
    assert_true(strlen(text) > 0);
    hqsim_free(text);
    cJSON_Delete(doc);
    hqsim_free(json);
    hqsim_sweep_free(s);
    hqsim_options_free(o);
}

static void assert_usage(GError *e, const char *phrase)
{
    assert_non_null(e);
    assert_true(e->domain == HQSIM_ERROR);
    assert_int_equal(e->code, HQSIM_ERROR_USAGE);
    assert_non_null(strstr(e->message, phrase));
    g_error_free(e);
}

static void test_option_errors(void **state)
{
    (void)state;
    HqsimOptions *o = hqsim_options_new();
    GError *e = NULL;
    /* --quiet is the command line's alone: the API prints nothing. */
    assert_false(hqsim_options_set(o, "quiet", "1", &e));
    assert_usage(e, "'quiet'");
    e = NULL;
    assert_false(hqsim_options_set(o, "no-such-option", "1", &e));
    assert_usage(e, "'no-such-option'");
    e = NULL;
    /* "plot" is the sweep's output, not the run's. */
    assert_true(hqsim_options_set(o, "plot", "x.png", NULL));
    assert_null(hqsim_run(workload, o, &e));
    assert_usage(e, "'plot'");
    e = NULL;
    assert_true(hqsim_options_set(o, "plot", NULL, NULL));
    /* Out of the command line's range (sim/optrange.c: 1-4096). */
    assert_true(hqsim_options_set(o, "processes", "0", NULL));
    assert_null(hqsim_run(workload, o, &e));
    assert_usage(e, "processes");
    e = NULL;
    /* A sweep reads "processes" as a list, with the same range. */
    assert_null(hqsim_sweep(workload, o, &e));
    assert_usage(e, "processes");
    e = NULL;
    assert_true(hqsim_options_set(o, "processes", NULL, NULL));
    assert_true(hqsim_options_set(o, "modes", "mps", NULL));
    assert_null(hqsim_run(workload, o, &e));
    assert_usage(e, "'modes'");
    e = NULL;
    assert_true(hqsim_options_set(o, "modes", NULL, NULL));
    assert_true(hqsim_options_set(o, "mode", "fast", NULL));
    assert_null(hqsim_run(workload, o, &e));
    assert_usage(e, "fast");
    e = NULL;
    assert_true(hqsim_options_set(o, "mode", NULL, NULL));
    assert_true(hqsim_options_set(o, "no-jitter", "maybe", NULL));
    assert_null(hqsim_run(workload, o, &e));
    assert_usage(e, "no-jitter");
    hqsim_options_free(o);
}

/* A bad field: the error names the file, the line and the field
 * (tests/data/malformed/MANIFEST: scn-startus-neg.json, line 8). */
static void test_input_error(void **state)
{
    (void)state;
    const char *const files[] = {
        SRC "tests/data/malformed/scn-startus-neg.json", NULL};
    GError *e = NULL;
    assert_null(hqsim_run(files, NULL, &e));
    assert_non_null(e);
    assert_true(e->domain == HQSIM_ERROR);
    assert_int_equal(e->code, HQSIM_ERROR_INVALID);
    assert_non_null(strstr(e->message, "scn-startus-neg.json:8:"));
    assert_non_null(strstr(e->message, "field 'start_us'"));
    g_error_free(e);
    const char *const none[] = {SRC "tests/data/no-such-file.json", NULL};
    e = NULL;
    assert_null(hqsim_compare(none, NULL, &e));
    assert_int_equal(e->code, HQSIM_ERROR_IO);
    g_error_free(e);
}

/* The whole contents of @path (or NULL); free with g_free. */
static char *slurp(const char *path)
{
    char *text = NULL;
    return g_file_get_contents(path, &text, NULL, NULL) ? text : NULL;
}

/* Output files named in the options are written as `--json FILE --csv
 * FILE` write them: the JSON file is hqsim_result_json's text; the CSV
 * has one row per op after its header.  An unwritable one fails the
 * command, naming the file, and leaves no file. */
static void test_output_files(void **state)
{
    (void)state;
    char *dir = g_dir_make_tmp("hqsim-api-XXXXXX", NULL);
    assert_non_null(dir);
    char *json_path = g_build_filename(dir, "out.json", NULL);
    char *csv_path = g_build_filename(dir, "out.csv", NULL);
    HqsimOptions *o = opts((const char *const[]){
        "json", json_path, "csv", csv_path, "modes", "timeslice", NULL});
    GError *e = NULL;
    HqsimResult *r = hqsim_compare(workload, o, &e);
    assert_null(e);
    char *want = hqsim_result_json(r);
    char *got = slurp(json_path);
    assert_non_null(got);
    assert_string_equal(got, want);
    char *csv = slurp(csv_path);
    assert_non_null(csv);
    assert_true(strchr(csv, '\n') != NULL);
    g_free(csv);
    g_free(got);
    hqsim_free(want);
    hqsim_result_free(r);
    g_remove(json_path);
    g_remove(csv_path);

    /* A sweep's JSON file is hqsim_sweep_json's text. */
    HqsimOptions *so = opts((const char *const[]){
        "json", json_path, "processes", "1,2", "threads", "1", NULL});
    HqsimSweep *s = hqsim_sweep(workload, so, &e);
    assert_null(e);
    want = hqsim_sweep_json(s);
    got = slurp(json_path);
    assert_non_null(got);
    assert_string_equal(got, want);
    g_free(got);
    hqsim_free(want);
    hqsim_sweep_free(s);
    hqsim_options_free(so);
    g_remove(json_path);

    /* Into a folder that does not exist: no result, no file. */
    char *bad = g_build_filename(dir, "missing", "out.json", NULL);
    assert_true(hqsim_options_set(o, "json", bad, NULL));
    assert_null(hqsim_compare(workload, o, &e));
    assert_non_null(e);
    assert_int_equal(e->code, HQSIM_ERROR_IO);
    assert_non_null(strstr(e->message, bad));
    g_error_free(e);
    assert_false(g_file_test(csv_path, G_FILE_TEST_EXISTS));
    g_free(bad);
    hqsim_options_free(o);
    assert_int_equal(g_rmdir(dir), 0);
    g_free(json_path);
    g_free(csv_path);
    g_free(dir);
}

typedef struct {
    uint32_t calls;
    uint64_t done, total; /* the last call's */
    bool backwards;       /* done went down within one run or sweep */
} Progress;

static void on_progress(uint64_t done, uint64_t total, void *data)
{
    Progress *p = data;
    p->backwards |= p->calls > 0 && done < p->done && total == p->total;
    p->calls++;
    p->done = done;
    p->total = total;
}

/* The progress callback: a run ends at all its GPU ops done; a sweep
 * counts configurations finished. */
static void test_progress(void **state)
{
    (void)state;
    Progress p = {0};
    HqsimOptions *o = hqsim_options_new();
    hqsim_options_set_progress(o, on_progress, &p);
    HqsimResult *r = hqsim_run(workload, o, NULL);
    assert_non_null(r);
    assert_true(p.calls >= 1);
    assert_false(p.backwards);
    assert_true(p.total > 0);
    assert_int_equal(p.done, p.total);
    hqsim_result_free(r);

    Progress q = {0};
    hqsim_options_set_progress(o, on_progress, &q);
    assert_true(hqsim_options_set(o, "processes", "1-3", NULL));
    assert_true(hqsim_options_set(o, "threads", "2", NULL));
    HqsimSweep *s = hqsim_sweep(workload, o, NULL);
    assert_non_null(s);
    /* On several threads, calls come as configurations finish and every
     * 250 ms; done never goes back, and the last call is the end. */
    assert_true(q.calls >= 1);
    assert_false(q.backwards);
    assert_int_equal(q.done, hqsim_sweep_n_configs(s));
    assert_int_equal(q.total, hqsim_sweep_n_configs(s));
    hqsim_sweep_free(s);
    hqsim_options_free(o);
}

/* Stops after @data calls (the count of calls so far goes in first). */
typedef struct {
    uint32_t calls, stop_at;
    uint64_t done, total;
} Stopper;

static gboolean stop_after(uint64_t done, uint64_t total, void *data)
{
    Stopper *s = data;
    s->calls++;
    s->done = done;
    s->total = total;
    return s->calls < s->stop_at;
}

/* A callback that returns FALSE stops the work: a run at its next
 * progress call (every 65536 engine events), mid-way, a sweep before its
 * next configuration; both fail with HQSIM_ERROR_CANCELLED, no result and
 * no output file.  Returning TRUE changes nothing. */
static void test_progress_stop(void **state)
{
    (void)state;
    char *dir = g_dir_make_tmp("hqsim-api-XXXXXX", NULL);
    char *json_path = g_build_filename(dir, "out.json", NULL);
    /* 4 processes x 4000 iterations: far more than 65536 events. */
    HqsimOptions *o = opts((const char *const[]){
        "iterations", "4000", "json", json_path, "mode", "mps", NULL});
    Stopper st = {0, 1, 0, 0};
    hqsim_options_set_progress_stop(o, stop_after, &st);
    GError *e = NULL;
    assert_null(hqsim_run(workload, o, &e));
    assert_non_null(e);
    assert_int_equal(e->code, HQSIM_ERROR_CANCELLED);
    assert_non_null(strstr(e->message, "progress callback"));
    g_error_free(e);
    e = NULL;
    assert_int_equal(st.calls, 1);
    assert_true(st.done > 0 && st.done < st.total);
    assert_false(g_file_test(json_path, G_FILE_TEST_EXISTS));

    /* A sweep on one thread: the first configuration's call stops it. */
    HqsimOptions *w = opts((const char *const[]){"processes", "1-3", "threads",
                                                 "1", "modes", "mps", NULL});
    Stopper sw = {0, 1, 0, 0};
    hqsim_options_set_progress_stop(w, stop_after, &sw);
    assert_null(hqsim_sweep(workload, w, &e));
    assert_non_null(e);
    assert_int_equal(e->code, HQSIM_ERROR_CANCELLED);
    g_error_free(e);
    e = NULL;
    assert_int_equal(sw.calls, 1);
    assert_int_equal(sw.done, 1);
    assert_int_equal(sw.total, 3);
    /* Going on to the end: the sweep completes, the last call at 3 of 3. */
    sw = (Stopper){0, UINT32_MAX, 0, 0};
    HqsimSweep *s = hqsim_sweep(workload, w, &e);
    assert_null(e);
    assert_non_null(s);
    assert_int_equal(sw.done, 3);
    hqsim_sweep_free(s);
    hqsim_options_free(w);
    hqsim_options_free(o);
    assert_int_equal(g_rmdir(dir), 0);
    g_free(json_path);
    g_free(dir);
}

/* Validation against the measured H100 data bundled in the tree: a few
 * experiments through the "filter" option (three predictions of the
 * connections category, one calibration, one excluded with its reason in
 * calibration.txt).  Every row is in the result with its role, the
 * summaries count what the rows say, the JSON holds the same numbers,
 * and bad input fails as the command does. */
static void test_validate(void **state)
{
    (void)state;
    const char *data = SRC "traces/measured/h100";
    HqsimOptions *o = opts((const char *const[]){
        "filter", "^hq_df32_c(1|2|4)$|^cp_bidir$|^ts2_full$", NULL});
    GError *e = NULL;
    HqsimValidation *v = hqsim_validate(data, o, &e);
    assert_null(e);
    assert_non_null(v);
    assert_string_equal(v->gpu, "h100-sxm");
    assert_string_equal(v->dir, data);
    assert_int_equal(v->n_rows, 5);
    uint32_t pred = 0, cal = 0, skipped = 0;
    double max_err = 0;
    for (uint32_t i = 0; i < v->n_rows; i++) {
        const HqsimValidationRow *r = v->rows[i];
        if (r->skipped) {
            /* calibration.txt's "!ts2_full reason" line */
            assert_string_equal(r->id, "ts2_full");
            assert_non_null(strstr(r->skipped, "switch cost"));
            skipped++;
            continue;
        }
        assert_true(r->measured_ms > 0 && r->predicted_ms > 0);
        assert_true(r->ends > 0 && r->ends_within10 <= r->ends);
        assert_true(r->processes >= 1 && r->iterations >= 1);
        if (r->calibration) {
            assert_string_equal(r->id, "cp_bidir");
            assert_string_equal(r->category, "copies");
            cal++;
        } else {
            assert_string_equal(r->category, "connections");
            max_err = fmax(max_err, fabs(r->error));
            pred++;
        }
    }
    assert_int_equal(pred, 3);
    assert_int_equal(cal, 1);
    assert_int_equal(skipped, 1);
    assert_int_equal(v->prediction.n, 3);
    assert_int_equal(v->calibration.n, 1);
    assert_true(v->prediction.max_abs_error == max_err);
    HqsimValidationSummary c =
        hqsim_validation_summary(v, FALSE, "connections");
    assert_int_equal(c.n, 3);
    assert_true(c.median_abs_error == v->prediction.median_abs_error);
    assert_int_equal(hqsim_validation_summary(v, TRUE, "connections").n, 0);
    assert_int_equal(hqsim_validation_summary(v, TRUE, NULL).n, 1);

    char *json = hqsim_validation_json(v);
    cJSON *doc = cJSON_Parse(json);
    assert_non_null(doc);
    const cJSON *rows = cJSON_GetObjectItem(doc, "rows");
    assert_int_equal(cJSON_GetArraySize(rows), 5);
    for (uint32_t i = 0; i < v->n_rows; i++) {
        const cJSON *j = cJSON_GetArrayItem(rows, (int)i);
        assert_string_equal(cJSON_GetObjectItem(j, "id")->valuestring,
                            v->rows[i]->id);
        assert_string_equal(cJSON_GetObjectItem(j, "role")->valuestring,
                            v->rows[i]->calibration ? "calibration"
                                                    : "prediction");
        if (!v->rows[i]->skipped)
            assert_close(num(j, "predicted_ms"), v->rows[i]->predicted_ms);
    }
    assert_int_equal(num(cJSON_GetObjectItem(doc, "prediction"), "n"), 3);
    cJSON_Delete(doc);
    hqsim_free(json);
    hqsim_validation_free(v);

    /* --markdown is the command line's alone; a bad regular expression,
     * a missing data set and an unknown model fail. */
    assert_false(hqsim_options_set(o, "markdown", "x.md", &e));
    assert_usage(e, "'markdown'");
    e = NULL;
    assert_true(hqsim_options_set(o, "filter", "(", NULL));
    assert_null(hqsim_validate(data, o, &e));
    assert_usage(e, "--filter");
    e = NULL;
    assert_true(hqsim_options_set(o, "filter", NULL, NULL));
    assert_null(hqsim_validate(SRC "tests/data/no-such-dir", o, &e));
    assert_int_equal(e->code, HQSIM_ERROR_IO);
    assert_non_null(strstr(e->message, "manifest.json"));
    g_error_free(e);
    e = NULL;
    assert_true(hqsim_options_set(o, "gpu", "no-such-gpu", NULL));
    assert_null(hqsim_validate(data, o, &e));
    assert_non_null(e);
    assert_non_null(strstr(e->message, "no-such-gpu"));
    g_error_free(e);
    e = NULL;
    /* A run's option is not validate's. */
    assert_true(hqsim_options_set(o, "gpu", NULL, NULL));
    assert_true(hqsim_options_set(o, "processes", "2", NULL));
    assert_null(hqsim_validate(data, o, &e));
    assert_usage(e, "'processes'");
    hqsim_options_free(o);
}

/* A work limit set through the API stops a run that needs more, with the
 * command line's message; reset, the run goes through. */
static void test_limits(void **state)
{
    (void)state;
    GError *e = NULL;
    assert_true(hqsim_limit_set("ops", "10", &e));
    assert_null(hqsim_run(workload, NULL, &e));
    assert_non_null(e);
    /* The scenario reader finds it, at the line of the ops, and reports
     * it as a limit, not as a bad field. */
    assert_int_equal(e->code, HQSIM_ERROR_LIMIT);
    assert_non_null(strstr(e->message, "b-mps-lower-util-faster.json:8:"));
    assert_non_null(strstr(e->message, "(limit 'ops' = 10; raise it with "
                                       "--limit ops=N)"));
    g_error_free(e);
    e = NULL;
    hqsim_limits_reset();
    HqsimResult *r = hqsim_run(workload, NULL, &e);
    assert_null(e);
    hqsim_result_free(r);
    assert_false(hqsim_limit_set("no-such-limit", "10", &e));
    assert_usage(e, "no-such-limit");
    e = NULL;
    assert_false(hqsim_limit_set("ops", "-1", &e));
    assert_usage(e, "-1");
}

/* Import: the traces as one native scenario, processes kept by the
 * "process" filter (names or pids, ','-separated); replay: one row per
 * file with "each", its numbers consistent (makespan error = simulated /
 * recorded - 1), and the importers' errors naming the file. */
static void test_import_replay(void **state)
{
    (void)state;
    const char *const two[] = {SRC "tests/data/import/kineto_2pid.json", NULL};
    GError *e = NULL;
    char *json = hqsim_import(two, NULL, &e);
    assert_null(e);
    cJSON *doc = cJSON_Parse(json);
    assert_int_equal(num(doc, "hqsim_scenario"), 1);
    const cJSON *procs = cJSON_GetObjectItem(doc, "processes");
    assert_int_equal(cJSON_GetArraySize(procs), 2);
    cJSON_Delete(doc);
    hqsim_free(json);
    HqsimOptions *o = opts((const char *const[]){"process", "22,nobody", NULL});
    json = hqsim_import(two, o, &e);
    assert_null(e);
    doc = cJSON_Parse(json);
    procs = cJSON_GetObjectItem(doc, "processes");
    assert_int_equal(cJSON_GetArraySize(procs), 1);
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetArrayItem(procs, 0), "name")->valuestring,
        "worker[22]");
    cJSON_Delete(doc);
    hqsim_free(json);
    hqsim_options_free(o);

    const char *const both[] = {SRC "tests/data/import/kineto_2pid.json",
                                SRC "tests/data/import/kineto_2024.json", NULL};
    o = opts((const char *const[]){"each", "yes", NULL});
    json = hqsim_replay(both, o, &e);
    assert_null(e);
    doc = cJSON_Parse(json);
    assert_int_equal(cJSON_GetArraySize(doc), 2);
    for (int i = 0; i < 2; i++) {
        const cJSON *row = cJSON_GetArrayItem(doc, i);
        assert_true(num(row, "ops") >= 2);
        assert_close(num(row, "makespan_error"),
                     num(row, "simulated_ms") / num(row, "recorded_ms") - 1);
        assert_true(num(row, "worst_end_error") >=
                    num(row, "median_end_error"));
    }
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetArrayItem(doc, 1), "trace")->valuestring,
        "kineto_2024.json");
    cJSON_Delete(doc);
    hqsim_free(json);
    /* A run's option is not a replay's. */
    assert_true(hqsim_options_set(o, "processes", "2", NULL));
    assert_null(hqsim_replay(both, o, &e));
    assert_usage(e, "'processes'");
    e = NULL;
    hqsim_options_free(o);
    const char *const bad[] = {
        SRC "tests/data/import/bad/kineto_missing_dur.json", NULL};
    assert_null(hqsim_import(bad, NULL, &e));
    assert_non_null(e);
    assert_non_null(strstr(e->message, "kineto_missing_dur.json"));
    g_error_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run),
        cmocka_unit_test(test_run_options),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_option_errors),
        cmocka_unit_test(test_input_error),
        cmocka_unit_test(test_output_files),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_import_replay),
        cmocka_unit_test(test_progress_stop),
        cmocka_unit_test(test_validate),
    };
    assert_non_null(hqsim_version());
    return cmocka_run_group_tests(tests, NULL, NULL);
}
