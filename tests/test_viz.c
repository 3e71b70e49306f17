/* test_viz.c -- the viz module (viz/): the Chrome/Perfetto trace export is
 * parsed back and its structure checked; pictures and the HTML report are
 * checked for format, self-containment, escaping and determinism; the
 * plotting helpers for their arithmetic.
 *
 * The fixture simulates a small in-code scenario (two processes, three
 * streams, kernels, copies and events) time-sliced and under MPS on the
 * bundled H100 model, and writes into a fresh temporary folder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <zlib.h>

#include "engine.h"
#include "error.h"
#include "pictures.h"
#include "perfetto_check.h"
#include "plot.h"
#include "viz.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cJSON, cJSON_Delete)

static const char SCENARIO[] =
    "{\"hqsim_scenario\": 1, \"processes\": ["
    " {\"name\": \"a<b>&c\", \"iterations\": 3,"
    "  \"streams\": [{\"name\": \"s0\"}, {\"name\": \"s1\"}],"
    "  \"events\": [\"e\"],"
    "  \"ops\": ["
    "   {\"op\": \"copy\", \"stream\": \"s0\", \"dir\": \"h2d\","
    "    \"bytes\": 1048576},"
    "   {\"op\": \"kernel\", \"name\": \"k0\", \"stream\": \"s0\","
    "    \"grid\": [40, 1, 1], \"block\": 256, \"duration_us\": 300},"
    "   {\"op\": \"event_record\", \"event\": \"e\", \"stream\": \"s0\"},"
    "   {\"op\": \"event_wait\", \"event\": \"e\", \"stream\": \"s1\"},"
    "   {\"op\": \"kernel\", \"name\": \"k1\", \"stream\": \"s1\","
    "    \"grid\": 20, \"block\": 128, \"duration_us\": 200},"
    "   {\"op\": \"kernel\", \"name\": \"k2\", \"stream\": \"s0\","
    "    \"grid\": 200, \"block\": 512, \"duration_us\": 500},"
    "   {\"op\": \"device_sync\"}]},"
    " {\"name\": \"other\", \"iterations\": 4,"
    "  \"streams\": [{\"name\": \"main\"}],"
    "  \"ops\": ["
    "   {\"op\": \"kernel\", \"name\": \"big\", \"stream\": \"main\","
    "    \"grid\": 1056, \"block\": 256, \"duration_us\": 400},"
    "   {\"op\": \"copy\", \"stream\": \"main\", \"dir\": \"d2h\","
    "    \"bytes\": 65536},"
    "   {\"op\": \"stream_sync\", \"stream\": \"main\"}]}]}";

typedef struct {
    GpuModel *m;
    SimScenario *sc;
    SimResult *runs[2]; /* timeslice, mps */
    char *dir;
} Fixture;

static int setup(void **state)
{
    Fixture *f = g_new0(Fixture, 1);
    GError *error = NULL;
    f->m = sim_gpu_model_find("h100-sxm", NULL, &error);
    f->sc = f->m ? sim_scenario_parse("viz-test.json", SCENARIO,
                                      strlen(SCENARIO), &error)
                 : NULL;
    if (!f->sc)
        fail_msg("%s", error->message);
    SimShareMode modes[2] = {SIM_SHARE_TIMESLICE, SIM_SHARE_MPS};
    for (int i = 0; i < 2; i++) {
        SimOptions o;
        sim_options_init(&o);
        o.mode = modes[i];
        o.record_timeline = true;
        f->runs[i] = sim_engine_run(f->m, f->sc, &o, &error);
        if (!f->runs[i])
            fail_msg("%s", error->message);
    }
    f->dir = g_dir_make_tmp("hqsim-viz-XXXXXX", &error);
    if (!f->dir)
        fail_msg("%s", error->message);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    g_autoptr(GDir) d = g_dir_open(f->dir, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
        g_autofree char *p = g_build_filename(f->dir, name, NULL);
        g_unlink(p);
    }
    g_rmdir(f->dir);
    g_free(f->dir);
    for (int i = 0; i < 2; i++)
        sim_result_free(f->runs[i]);
    sim_scenario_free(f->sc);
    sim_gpu_model_free(f->m);
    g_free(f);
    return 0;
}

static char *path_in(const Fixture *f, const char *name)
{
    return g_build_filename(f->dir, name, NULL);
}

static char *slurp(const char *path, gsize *len)
{
    char *data = NULL;
    GError *error = NULL;
    if (!g_file_get_contents(path, &data, len, &error))
        fail_msg("%s", error->message);
    return data;
}

static uint32_t count_kernels(const SimResult *r)
{
    uint32_t n = 0;
    for (guint i = 0; i < r->ops->len; i++)
        n += g_array_index(r->ops, SimOpRecord, i).kind == SIM_OP_KERNEL;
    return n;
}

static uint32_t folder_entries(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    uint32_t n = 0;
    while (d && g_dir_read_name(d))
        n++;
    return n;
}

/* ------------------------------------------------------------------------
 * Perfetto / Chrome trace
 * ------------------------------------------------------------------------ */

static const cJSON *field(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = field(o, k);
    if (!cJSON_IsNumber(v))
        fail_msg("event without numeric '%s'", k);
    return v->valuedouble;
}

/* Check the trace's structure; returns the number of kernel slices on
 * stream tracks per run (@n runs). */
static void check_trace(const cJSON *root, SimResult *const *runs, uint32_t n)
{
    const cJSON *events = field(root, "traceEvents");
    assert_true(cJSON_IsArray(events));
    assert_true(cJSON_IsObject(field(root, "otherData")));
    /* Perfetto before 2022 read "displayTimeUnit": "ns" as ts in ns
     * (viz/perfetto-ui-check/README.md): ts is always us, so none. */
    assert_null(cJSON_GetObjectItemCaseSensitive(root, "displayTimeUnit"));
    /* Every counter track's first sample is a 0 at ts 0: the 2021 UI fails
     * an assertion drawing a counter that starts non-zero at ts 0. */
    g_autoptr(GHashTable) counter_seen =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    /* pid -> has process_name; (pid,tid) -> last end of X events. */
    g_autoptr(GHashTable) named =
        g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GHashTable) last_end =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    g_autoptr(GHashTable) used_pids =
        g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autofree uint32_t *kernels = g_new0(uint32_t, n);
    uint32_t counters = 0, slices = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        const cJSON *ph = field(e, "ph");
        assert_true(cJSON_IsString(ph));
        int pid = (int)num(e, "pid");
        int tid = (int)num(e, "tid");
        g_hash_table_add(used_pids, GINT_TO_POINTER(pid));
        const char *p = ph->valuestring;
        if (!strcmp(p, "M")) {
            const cJSON *nm = field(e, "name");
            assert_true(cJSON_IsString(nm));
            assert_true(cJSON_IsObject(field(e, "args")));
            if (!strcmp(nm->valuestring, "process_name"))
                g_hash_table_add(named, GINT_TO_POINTER(pid));
            continue;
        }
        assert_true(cJSON_IsString(field(e, "name")));
        double ts = num(e, "ts");
        assert_true(ts >= 0);
        if (!strcmp(p, "C")) {
            const cJSON *val = field(field(e, "args"), "value");
            assert_true(cJSON_IsNumber(val));
            char *key =
                g_strdup_printf("%d/%s", pid, field(e, "name")->valuestring);
            if (!g_hash_table_contains(counter_seen, key)) {
                if (ts != 0 || val->valuedouble != 0)
                    fail_msg("counter %s starts with %g at %.3f us, not 0 "
                             "at 0",
                             key, val->valuedouble, ts);
                g_hash_table_add(counter_seen, key);
            } else {
                g_free(key);
            }
            counters++;
        } else if (!strcmp(p, "X")) {
            double dur = num(e, "dur");
            assert_true(dur >= 0);
            assert_true(cJSON_IsString(field(e, "cat")));
            slices++;
            /* Sorted and never overlapping on one track (Perfetto's
             * nesting rule); times are exact to the nanosecond. */
            gint64 key = ((gint64)pid << 32) | (uint32_t)tid;
            double *end = g_hash_table_lookup(last_end, &key);
            if (end && ts < *end - 1e-6)
                fail_msg("overlap on pid %d tid %d at %.3f us (previous "
                         "ends %.3f)",
                         pid, tid, ts, *end);
            if (!end) {
                end = g_new(double, 1);
                g_hash_table_insert(last_end, g_memdup2(&key, sizeof key), end);
            }
            *end = ts + dur;
            const cJSON *cat = field(e, "cat");
            /* Stream tracks are tid >= 1 of process pids (run * 100000 +
             * 10 + p): count kernels there, once per kernel. */
            int run = pid / 100000, local = pid % 100000;
            if (!strcmp(cat->valuestring, "kernel") && local >= 10 &&
                tid >= 1) {
                assert_true(run >= 0 && (uint32_t)run < n);
                kernels[run]++;
                const cJSON *args = field(e, "args");
                assert_true(cJSON_IsString(field(args, "grid")));
                assert_true(cJSON_IsString(field(args, "block")));
                assert_true(cJSON_IsNumber(field(args, "sms_used")));
                assert_true(cJSON_IsNumber(field(args, "queue")));
                assert_true(cJSON_IsNumber(field(args, "iteration")));
            }
        } else if (strcmp(p, "i")) {
            fail_msg("unexpected phase '%s'", p);
        }
    }
    /* Every process group is named; every kernel appears once. */
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, used_pids);
    while (g_hash_table_iter_next(&it, &k, NULL))
        if (!g_hash_table_contains(named, k))
            fail_msg("pid %d has no process_name", GPOINTER_TO_INT(k));
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(kernels[i], count_kernels(runs[i]));
    assert_true(counters > 0);
    assert_true(slices > 0);
}

/* Zero import errors by trace_processor's rules (viz/perfetto_check.c). */
static void assert_imports_cleanly(const char *path)
{
    GError *error = NULL;
    GPtrArray *p = sim_perfetto_check_file(path, &error);
    assert_non_null(p);
    for (guint i = 0; i < p->len; i++)
        print_error("%s\n", (char *)p->pdata[i]);
    assert_int_equal(p->len, 0);
    g_ptr_array_unref(p);
}

static cJSON *parse_file(const char *path)
{
    gsize len = 0;
    g_autofree char *text = slurp(path, &len);
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (!j)
        fail_msg("%s is not JSON near offset %ld", path,
                 end ? (long)(end - text) : -1L);
    return j;
}

static void test_viz_perfetto_structure_one_run(void **state)
{
    Fixture *f = *state;
    g_autofree char *p = path_in(f, "one.json");
    GError *error = NULL;
    assert_true(sim_viz_perfetto(f->runs, 1, f->m, f->sc, p, &error));
    g_autoptr(cJSON) j = parse_file(p);
    check_trace(j, f->runs, 1);
    assert_imports_cleanly(p);
}

static void test_viz_perfetto_compare_has_separate_groups(void **state)
{
    Fixture *f = *state;
    g_autofree char *p = path_in(f, "two.json");
    GError *error = NULL;
    assert_true(sim_viz_perfetto(f->runs, 2, f->m, f->sc, p, &error));
    g_autoptr(cJSON) j = parse_file(p);
    check_trace(j, f->runs, 2);
    assert_imports_cleanly(p);
    /* Process names carry the mode. */
    gsize len = 0;
    g_autofree char *text = slurp(p, &len);
    assert_non_null(strstr(text, "\"timeslice · GPU"));
    assert_non_null(strstr(text, "\"mps · GPU"));
    assert_non_null(strstr(text, "a<b>&c"));
}

static void test_viz_perfetto_is_deterministic_and_gz_matches(void **state)
{
    Fixture *f = *state;
    g_autofree char *a = path_in(f, "a.json");
    g_autofree char *b = path_in(f, "b.json");
    g_autofree char *z = path_in(f, "c.json.gz");
    GError *error = NULL;
    assert_true(sim_viz_perfetto(f->runs, 2, f->m, f->sc, a, &error));
    assert_true(sim_viz_perfetto(f->runs, 2, f->m, f->sc, b, &error));
    assert_true(sim_viz_perfetto(f->runs, 2, f->m, f->sc, z, &error));
    gsize la = 0, lb = 0;
    g_autofree char *ta = slurp(a, &la);
    g_autofree char *tb = slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(ta, tb, la);
    /* The .gz is gzip and holds the same bytes. */
    gzFile gz = gzopen(z, "rb");
    assert_non_null(gz);
    g_autofree char *tz = g_malloc(la + 16);
    int got = gzread(gz, tz, (unsigned)(la + 16));
    gzclose(gz);
    assert_int_equal(got, (int)la);
    assert_memory_equal(ta, tz, la);
}

static void test_viz_perfetto_unwritable_path_fails_cleanly(void **state)
{
    Fixture *f = *state;
    g_autofree char *p = g_build_filename(f->dir, "no", "such", "t.json", NULL);
    GError *error = NULL;
    assert_false(sim_viz_perfetto(f->runs, 1, f->m, f->sc, p, &error));
    assert_non_null(error);
    assert_int_equal(error->code, SIM_ERROR_IO);
    g_error_free(error);
}

/* ------------------------------------------------------------------------
 * Pictures
 * ------------------------------------------------------------------------ */

static void test_viz_picture_png_and_svg_by_extension(void **state)
{
    Fixture *f = *state;
    g_autofree char *png = path_in(f, "p.png");
    g_autofree char *svg = path_in(f, "p.SVG");
    GError *error = NULL;
    assert_true(sim_viz_picture(f->runs, 2, f->m, f->sc, SIM_VIZ_PICTURE_ALL,
                                png, &error));
    assert_true(sim_viz_picture(f->runs, 1, f->m, f->sc,
                                SIM_VIZ_PICTURE_TIMELINE, svg, &error));
    gsize len = 0;
    g_autofree char *p = slurp(png, &len);
    assert_true(len > 1000);
    assert_memory_equal(p, "\x89PNG\r\n\x1a\n", 8);
    /* IHDR width, big-endian at offset 16. */
    uint32_t w = ((uint32_t)(uint8_t)p[16] << 24) |
                 ((uint32_t)(uint8_t)p[17] << 16) |
                 ((uint32_t)(uint8_t)p[18] << 8) | (uint8_t)p[19];
    assert_int_equal(w, SIM_VIZ_PICTURE_WIDTH);
    g_autofree char *s = slurp(svg, &len);
    assert_non_null(strstr(s, "<svg"));
    assert_non_null(strstr(s, "</svg>"));
}

static void test_viz_picture_is_deterministic(void **state)
{
    Fixture *f = *state;
    GError *error = NULL;
    for (int fmt = 0; fmt < 2; fmt++) {
        g_autoptr(GBytes) a =
            sim_viz_picture_render(f->runs, 2, f->m, f->sc, SIM_VIZ_PICTURE_ALL,
                                   TRUE, (VizFormat)fmt, &error);
        g_autoptr(GBytes) b =
            sim_viz_picture_render(f->runs, 2, f->m, f->sc, SIM_VIZ_PICTURE_ALL,
                                   TRUE, (VizFormat)fmt, &error);
        assert_non_null(a);
        assert_non_null(b);
        assert_true(g_bytes_equal(a, b));
    }
}

static void test_viz_picture_bad_extension_writes_nothing(void **state)
{
    Fixture *f = *state;
    g_autofree char *p = path_in(f, "p.jpg");
    GError *error = NULL;
    uint32_t before = folder_entries(f->dir);
    assert_false(sim_viz_picture(f->runs, 1, f->m, f->sc, SIM_VIZ_PICTURE_ALL,
                                 p, &error));
    assert_non_null(error);
    assert_int_equal(error->code, SIM_ERROR_USAGE);
    g_error_free(error);
    assert_int_equal(folder_entries(f->dir), before);
}

static void test_viz_picture_kind_parse_lists(void **state)
{
    (void)state;
    SimVizPictureKind k;
    GError *error = NULL;
    assert_true(sim_viz_picture_kind_parse("all", &k, &error));
    assert_int_equal(k, SIM_VIZ_PICTURE_ALL);
    assert_true(sim_viz_picture_kind_parse("sm, util", &k, &error));
    assert_int_equal(k, SIM_VIZ_PICTURE_SM | SIM_VIZ_PICTURE_UTIL);
    assert_false(sim_viz_picture_kind_parse("gantt", &k, &error));
    assert_int_equal(error->code, SIM_ERROR_USAGE);
    g_clear_error(&error);
    assert_false(sim_viz_picture_kind_parse("", &k, &error));
    g_clear_error(&error);
}

/* Many streams: the timeline merges them per process and still draws. */
static void test_viz_picture_many_streams_and_processes(void **state)
{
    Fixture *f = *state;
    GError *error = NULL;
    g_autoptr(GString) t = g_string_new("{\"hqsim_scenario\": 1, "
                                        "\"processes\": [{\"name\": "
                                        "\"a-process-with-a-very-long-name-"
                                        "that-does-not-fit\", \"replicas\": "
                                        "50, \"streams\": [{\"name\": "
                                        "\"s{i}\", \"count\": 3}], \"ops\": "
                                        "[{\"op\": \"repeat\", \"count\": "
                                        "3, \"ops\": [{\"op\": \"kernel\", "
                                        "\"name\": \"k\", \"stream\": "
                                        "\"s{i}\", \"grid\": 2, \"block\": "
                                        "64, \"duration_us\": 50}]}]}]}");
    g_autoptr(SimScenario) sc =
        sim_scenario_parse("many.json", t->str, t->len, &error);
    assert_non_null(sc);
    SimOptions o;
    sim_options_init(&o);
    o.mode = SIM_SHARE_MPS;
    o.record_timeline = true;
    g_autoptr(SimResult) r = sim_engine_run(f->m, sc, &o, &error);
    assert_non_null(r);
    g_autoptr(GBytes) b = sim_viz_picture_render(
        &r, 1, f->m, sc, SIM_VIZ_PICTURE_ALL, TRUE, VIZ_FORMAT_PNG, &error);
    assert_non_null(b);
}

/* ------------------------------------------------------------------------
 * Report
 * ------------------------------------------------------------------------ */

static uint32_t occurrences(const char *hay, const char *needle)
{
    uint32_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_viz_report_is_self_contained_and_escaped(void **state)
{
    Fixture *f = *state;
    g_autofree char *p = path_in(f, "r.html");
    GError *error = NULL;
    assert_true(sim_viz_report(f->runs, 2, f->m, f->sc, p, &error));
    gsize len = 0;
    g_autofree char *h = slurp(p, &len);
    assert_true(g_str_has_prefix(h, "<!DOCTYPE html>"));
    assert_non_null(strstr(h, "</html>"));
    /* Three pictures, inline; nothing fetched from anywhere. */
    assert_int_equal(occurrences(h, "src=\"data:image/"), 3);
    assert_int_equal(occurrences(h, "http://"), 0);
    assert_int_equal(occurrences(h, "https://"), 0);
    assert_int_equal(occurrences(h, "<script"), 0);
    assert_int_equal(occurrences(h, "<link"), 0);
    /* Tables: summary with the ratio column, processes, streams. */
    assert_non_null(strstr(h, "mps / timeslice"));
    assert_non_null(strstr(h, "id=\"processes\""));
    assert_non_null(strstr(h, "id=\"streams\""));
    /* The workload's strings are escaped. */
    assert_non_null(strstr(h, "a&lt;b&gt;&amp;c"));
    assert_null(strstr(h, "a<b>"));
}

static void test_viz_report_is_deterministic(void **state)
{
    Fixture *f = *state;
    g_autofree char *a = path_in(f, "a.html");
    g_autofree char *b = path_in(f, "b.html");
    GError *error = NULL;
    assert_true(sim_viz_report(f->runs, 1, f->m, f->sc, a, &error));
    assert_true(sim_viz_report(f->runs, 1, f->m, f->sc, b, &error));
    gsize la = 0, lb = 0;
    g_autofree char *ta = slurp(a, &la);
    g_autofree char *tb = slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(ta, tb, la);
}

/* ------------------------------------------------------------------------
 * Plot helpers
 * ------------------------------------------------------------------------ */

static void test_viz_plot_nice_step_is_1_2_5(void **state)
{
    (void)state;
    assert_true(fabs(viz_plot_nice_step(100, 10) - 10) < 1e-12);
    assert_true(fabs(viz_plot_nice_step(276.77, 10) - 20) < 1e-12);
    assert_true(fabs(viz_plot_nice_step(0.9, 4) - 0.2) < 1e-12);
    assert_true(fabs(viz_plot_nice_step(7, 2) - 5) < 1e-12);
    assert_true(fabs(viz_plot_nice_step(0, 5) - 1) < 1e-12);
}

static void test_viz_plot_time_unit_keeps_labels_short(void **state)
{
    (void)state;
    double div = 0;
    assert_string_equal(viz_plot_time_unit(SIM_S(3), &div), "s");
    assert_true(div == 1e9);
    assert_string_equal(viz_plot_time_unit(SIM_MS(276), &div), "ms");
    assert_string_equal(viz_plot_time_unit(SIM_US(40), &div), "µs");
    assert_string_equal(viz_plot_time_unit(500, &div), "ns");
}

static void test_viz_plot_text_fits_its_box(void **state)
{
    (void)state;
    VizPlot *p = viz_plot_new(VIZ_FORMAT_SVG, 400, 80);
    cairo_t *cr = viz_plot_cr(p);
    const char *long_name = "inference-server-with-a-name-far-too-long-to-fit";
    double full = viz_plot_text_width(cr, long_name);
    double w = viz_plot_text(cr, 0, 20, VIZ_ALIGN_LEFT, 80, long_name);
    assert_true(full > 80);
    assert_true(w <= 80);
    assert_true(w > 40);
    /* Short text is untouched; invalid UTF-8 does not crash. */
    assert_true(fabs(viz_plot_text(cr, 0, 40, VIZ_ALIGN_LEFT, 200, "ok") -
                     viz_plot_text_width(cr, "ok")) < 1e-9);
    viz_plot_text(cr, 0, 60, VIZ_ALIGN_RIGHT, 50, "bad \xff\xfe bytes");
    GError *error = NULL;
    g_autoptr(GBytes) b = viz_plot_finish(p, &error);
    assert_non_null(b);
}

static void test_viz_plot_heat_colour_is_ordered(void **state)
{
    (void)state;
    /* Luminance grows along the scale (viridis). */
    double prev = -1;
    for (int i = 0; i <= 20; i++) {
        VizRgb c = viz_plot_heat_colour(i / 20.0);
        double lum = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
        assert_true(lum > prev);
        prev = lum;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_viz_perfetto_structure_one_run,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_viz_perfetto_compare_has_separate_groups, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_viz_perfetto_is_deterministic_and_gz_matches, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_viz_perfetto_unwritable_path_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_viz_picture_png_and_svg_by_extension, setup, teardown),
        cmocka_unit_test_setup_teardown(test_viz_picture_is_deterministic,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_viz_picture_bad_extension_writes_nothing, setup, teardown),
        cmocka_unit_test(test_viz_picture_kind_parse_lists),
        cmocka_unit_test_setup_teardown(
            test_viz_picture_many_streams_and_processes, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_viz_report_is_self_contained_and_escaped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_viz_report_is_deterministic, setup,
                                        teardown),
        cmocka_unit_test(test_viz_plot_nice_step_is_1_2_5),
        cmocka_unit_test(test_viz_plot_time_unit_keeps_labels_short),
        cmocka_unit_test(test_viz_plot_text_fits_its_box),
        cmocka_unit_test(test_viz_plot_heat_colour_is_ordered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
