/* test_perfetto_check.c -- viz/perfetto_check.c, the offline restatement
 * of trace_processor's JSON import rules, and the Perfetto export held to
 * it: each rule on a small hand-made trace that breaks it (and the same
 * trace mended, which must pass), then the exporter's output at every
 * detail level for scenarios that once broke a rule (a process with more
 * streams than its pid: tid 0 is read as tid = pid) or that show Hyper-Q
 * (each MPS client's own queues on Volta and later, the server's shared
 * queues before).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glib/gstdio.h>
#include <string.h>

#include "engine.h"
#include "perfetto_check.h"
#include "viz.h"

/* Problems of @json as one string, lines joined by '\n' (transfer full). */
static char *problems_of(const char *json)
{
    GPtrArray *p = sim_perfetto_check_text(json, strlen(json));
    g_ptr_array_add(p, NULL);
    char *s = g_strjoinv("\n", (char **)p->pdata);
    g_ptr_array_unref(p);
    return s;
}

#define HEAD "{\"traceEvents\":["
#define PNAME(pid)                                                             \
    "{\"ph\":\"M\",\"pid\":" #pid ",\"tid\":0,\"name\":\"process_name\","      \
    "\"args\":{\"name\":\"p\"}}"
#define TNAME(pid, tid, n)                                                     \
    "{\"ph\":\"M\",\"pid\":" #pid ",\"tid\":" #tid                             \
    ",\"name\":\"thread_name\","                                               \
    "\"args\":{\"name\":\"" n "\"}}"

/* A rule, a trace that breaks it, the problem expected, and the same trace
 * mended. */
typedef struct {
    const char *rule, *bad, *expect, *good;
} Case;

static const Case CASES[] = {
    {"partial overlap on one track",
     HEAD PNAME(1) "," TNAME(1, 1, "a") ","
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":0,\"dur\":10},"
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":5,\"dur\":10}]}",
     "slice_spill_overlapping_complete_event",
     HEAD PNAME(1) "," TNAME(1, 1, "a") ","
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":0,\"dur\":10},"
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":5,\"dur\":5}]}"},
    /* Equal starts: the sorter keeps file order, so the longer must come
     * first to be the parent. */
    {"equal start, shorter first",
     HEAD PNAME(1) "," TNAME(1, 1, "a") ","
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":1,\"dur\":2},"
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":1,\"dur\":9}]}",
     "slice_spill_overlapping_complete_event",
     HEAD PNAME(1) "," TNAME(1, 1, "a") ","
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":1,\"dur\":9},"
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":1,\"dur\":2}]}"},
    /* tid 0 is the pid's own thread: here thread 3 of pid 3. */
    {"tid 0 read as tid = pid",
     HEAD PNAME(3) "," TNAME(3, 3, "stream") "," TNAME(
         3, 0, "context") ","
                          "{\"ph\":\"X\",\"pid\":3,\"tid\":3,\"name\":\"k\","
                          "\"ts\":0,\"dur\":10},"
                          "{\"ph\":\"X\",\"pid\":3,\"tid\":0,\"name\":\"c\","
                          "\"ts\":4,\"dur\":10}]}",
     "two tracks merged",
     HEAD PNAME(3) "," TNAME(3, 3, "stream") "," TNAME(
         3, 9, "context") ","
                          "{\"ph\":\"X\",\"pid\":3,\"tid\":3,\"name\":\"k\","
                          "\"ts\":0,\"dur\":10},"
                          "{\"ph\":\"X\",\"pid\":3,\"tid\":9,\"name\":\"c\","
                          "\"ts\":4,\"dur\":10}]}"},
    {"X without dur",
     HEAD PNAME(1) "," TNAME(
         1, 1,
         "a") ","
              "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"k\",\"ts\":0}]}",
     "json_parser_failure",
     HEAD PNAME(1) "," TNAME(1, 1, "a") ","
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":0,\"dur\":0}]}"},
    {"negative dur",
     HEAD PNAME(1) "," TNAME(1, 1, "a") ","
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":5,\"dur\":-1}]}",
     "slice_negative_duration",
     HEAD PNAME(1) "," TNAME(1, 1, "a") ","
                                        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"k\",\"ts\":5,\"dur\":1}]}"},
    {"ts missing",
     HEAD PNAME(1) ",{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"c\","
                   "\"args\":{\"value\":0}}]}",
     "json_tokenizer_failure",
     HEAD PNAME(1) ",{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"c\","
                   "\"ts\":0,\"args\":{\"value\":0}}]}"},
    {"counter value not a number",
     HEAD PNAME(1) ",{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"c\","
                   "\"ts\":0,\"args\":{\"value\":true}}]}",
     "json_parser_failure",
     HEAD PNAME(1) ",{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"c\","
                   "\"ts\":0,\"args\":{\"value\":0}}]}"},
    {"counter without args",
     HEAD PNAME(1) ",{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"c\","
                   "\"ts\":0,\"args\":{}}]}",
     "json_parser_failure",
     HEAD PNAME(1) ",{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"c\","
                   "\"ts\":0,\"args\":{\"v\":0}}]}"},
    {"counter starting non-zero",
     HEAD PNAME(1) ",{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"c\","
                   "\"ts\":0,\"args\":{\"value\":7}}]}",
     "not 0 at 0",
     HEAD PNAME(1) ",{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"c\","
                   "\"ts\":0,\"args\":{\"value\":0}},{\"ph\":\"C\",\"pid\":1,"
                   "\"tid\":0,"
                   "\"name\":\"c\",\"ts\":0,\"args\":{\"value\":7}}]}"},
    {"thread_name without a name", HEAD PNAME(1) "," TNAME(1, 1, "") "]}",
     "json_parser_failure", HEAD PNAME(1) "," TNAME(1, 1, "a") "]}"},
    {"sort index not a number",
     HEAD PNAME(1) ",{\"ph\":\"M\",\"pid\":1,\"tid\":0,"
                   "\"name\":\"process_sort_index\",\"args\":{\"sort_index\":"
                   "\"1\"}}]}",
     "json_parser_failure",
     HEAD PNAME(
         1) ",{\"ph\":\"M\",\"pid\":1,\"tid\":0,"
            "\"name\":\"process_sort_index\",\"args\":{\"sort_index\":1}}]}"},
    {"pid out of range",
     HEAD "{\"ph\":\"C\",\"pid\":-1,\"tid\":0,\"name\":\"c\",\"ts\":0,"
          "\"args\":{\"value\":0}}]}",
     "CoerceToUint32",
     HEAD PNAME(
         4294967295) ",{\"ph\":\"C\",\"pid\":4294967295,\"tid\":0,"
                     "\"name\":\"c\",\"ts\":0,\"args\":{\"value\":0}}]}"},
    {"displayTimeUnit",
     "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[" PNAME(1) "]}",
     "json_display_time_unit", HEAD PNAME(1) "]}"},
    {"traceEvents not an array", "{\"traceEvents\":{}}", "not an array",
     HEAD "]}"},
    {"data after the end", HEAD "]} {", "after the end", HEAD "]} \n"},
    {"not JSON", HEAD "{\"ph\":\"X\",]}", "not JSON", HEAD "]}"},
    {"no ph", HEAD "{\"pid\":1,\"tid\":1}]}", "json_tokenizer_failure",
     HEAD "{}]}"},
    {"unnamed process", HEAD TNAME(5, 1, "a") "]}", "no process_name",
     HEAD PNAME(5) "," TNAME(5, 1, "a") "]}"},
    {"unnamed thread",
     HEAD PNAME(1) ",{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":2,"
                   "\"name\":\"e\",\"ts\":3}]}",
     "no thread_name",
     HEAD PNAME(1) "," TNAME(
         1, 2, "s") ",{\"ph\":\"i\",\"s\":\"t\","
                    "\"pid\":1,\"tid\":2,\"name\":\"e\",\"ts\":3}]}"},
};

static void test_each_rule_catches_its_break(void **state)
{
    (void)state;
    for (size_t i = 0; i < G_N_ELEMENTS(CASES); i++) {
        g_autofree char *bad = problems_of(CASES[i].bad);
        if (!strstr(bad, CASES[i].expect))
            fail_msg("%s: expected '%s', got '%s'", CASES[i].rule,
                     CASES[i].expect, bad);
        g_autofree char *good = problems_of(CASES[i].good);
        if (*good)
            fail_msg("%s, mended: %s", CASES[i].rule, good);
    }
}

/* Instants stack on one another and close a slice ending at their ts;
 * a slice nested in another and one starting at another's end are fine. */
static void test_valid_nesting_passes(void **state)
{
    (void)state;
    g_autofree char *p = problems_of(HEAD PNAME(1) "," TNAME(
        1, 1,
        "a") ","
             "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"k\",\"ts\":0,"
             "\"dur\":10},"
             "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"k\",\"ts\":2,"
             "\"dur\":3},"
             "{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":1,\"name\":\"e\","
             "\"ts\":10},"
             "{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":1,\"name\":\"e\","
             "\"ts\":10},"
             "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"k\",\"ts\":10,"
             "\"dur\":0.001},"
             "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"k\",\"ts\":10.001,"
             "\"dur\":4}]}");
    assert_string_equal(p, "");
}

/* Two processes, the first with 12 streams (more than its pid's offset:
 * before the fix its context track, tid 0, landed on a stream's track). */
static const char SCENARIO[] =
    "{\"hqsim_scenario\": 1, \"processes\": ["
    " {\"name\": \"wide\", \"streams\": [{\"name\": \"s{i}\", \"count\": 12}],"
    "  \"iterations\": 2,"
    "  \"ops\": [{\"op\": \"repeat\", \"count\": 12, \"ops\": ["
    "    {\"op\": \"kernel\", \"name\": \"k\", \"stream\": \"s{i}\","
    "     \"grid\": 4, \"block\": 128, \"duration_us\": 50}]},"
    "   {\"op\": \"copy\", \"stream\": \"s0\", \"dir\": \"d2h\","
    "    \"bytes\": 65536},"
    "   {\"op\": \"device_sync\"}]},"
    " {\"name\": \"narrow\", \"streams\": [{\"name\": \"main\"}],"
    "  \"iterations\": 3,"
    "  \"ops\": [{\"op\": \"kernel\", \"name\": \"big\", \"stream\": \"main\","
    "    \"grid\": 500, \"block\": 256, \"duration_us\": 120},"
    "   {\"op\": \"stream_sync\", \"stream\": \"main\"}]}]}";

/* Export @gpu's timeslice and MPS runs of SCENARIO at @detail; returns
 * the file's text (transfer full) after checking it has no problem. */
static char *export(const char *gpu, SimPerfettoDetail detail)
{
    GError *error = NULL;
    GpuModel *m = sim_gpu_model_find(gpu, NULL, &error);
    SimScenario *sc =
        m ? sim_scenario_parse("wide.json", SCENARIO, strlen(SCENARIO), &error)
          : NULL;
    if (!sc)
        fail_msg("%s", error->message);
    SimResult *runs[2];
    SimShareMode modes[2] = {SIM_SHARE_TIMESLICE, SIM_SHARE_MPS};
    for (int i = 0; i < 2; i++) {
        SimOptions o;
        sim_options_init(&o);
        o.mode = modes[i];
        o.record_timeline = true;
        runs[i] = sim_engine_run(m, sc, &o, &error);
        if (!runs[i])
            fail_msg("%s", error->message);
    }
    g_autofree char *dir = g_dir_make_tmp("hqsim-pfc-XXXXXX", &error);
    assert_non_null(dir);
    g_autofree char *path = g_build_filename(dir, "t.json", NULL);
    assert_true(sim_viz_perfetto_detail(runs, 2, m, sc, path, detail, &error));
    GPtrArray *p = sim_perfetto_check_file(path, &error);
    assert_non_null(p);
    for (guint i = 0; i < p->len; i++)
        print_error("%s %d: %s\n", gpu, (int)detail, (char *)p->pdata[i]);
    assert_int_equal(p->len, 0);
    g_ptr_array_unref(p);
    char *text = NULL;
    assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_unlink(path);
    g_rmdir(dir);
    for (int i = 0; i < 2; i++)
        sim_result_free(runs[i]);
    sim_scenario_free(sc);
    sim_gpu_model_free(m);
    return text;
}

static void test_export_imports_cleanly_at_every_level(void **state)
{
    (void)state;
    const char *gpus[] = {"h100-sxm", "p100"};
    for (size_t g = 0; g < G_N_ELEMENTS(gpus); g++)
        for (int d = SIM_PERFETTO_OPS; d <= SIM_PERFETTO_FULL; d++) {
            g_autofree char *t = export(gpus[g], (SimPerfettoDetail)d);
            /* The SMs group exists except at "ops". */
            assert_int_equal(strstr(t, "· SMs (resident warps") != NULL,
                             d != SIM_PERFETTO_OPS);
        }
}

/* Hyper-Q: on Volta and later each MPS client has its own queues (two
 * per client: the wide client's 12 streams on queues 0 and 1); before
 * Volta the clients share the server's. */
static void test_queue_tracks_show_each_client(void **state)
{
    (void)state;
    g_autofree char *v = export("h100-sxm", SIM_PERFETTO_DEFAULT);
    assert_non_null(strstr(v, "\"queue 0 of wide (MPS client): streams s0, "
                              "s2, s4, s6, ...\""));
    assert_non_null(strstr(v, "\"queue 1 of wide (MPS client): streams s1, "
                              "s3, s5, s7, ...\""));
    assert_non_null(strstr(v, "\"queue 0 of narrow (MPS client): stream "
                              "main\""));
    /* Time-sliced: each its own context, 8 connections by default. */
    assert_non_null(strstr(v, "\"queue 7 of wide (own context): stream "
                              "s7\""));
    assert_non_null(strstr(v, "\"queue 0 of wide (own context): streams "
                              "s0, s8\""));
    assert_null(strstr(v, "of MPS server"));
    g_autofree char *p = export("p100", SIM_PERFETTO_DEFAULT);
    assert_non_null(strstr(p, "\"queue 0 of MPS server (shared by its "
                              "clients: pre-Volta)\""));
    assert_null(strstr(p, "of wide (MPS client)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_rule_catches_its_break),
        cmocka_unit_test(test_valid_nesting_passes),
        cmocka_unit_test(test_export_imports_cleanly_at_every_level),
        cmocka_unit_test(test_queue_tracks_show_each_client),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
