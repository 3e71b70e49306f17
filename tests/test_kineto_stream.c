/* test_kineto_stream.c -- Kineto traces read one event at a time
 * (import/kineto.c, streaming mode) give exactly what the whole cJSON tree
 * gave: the same trace, field by field, for every good file, and the same
 * error, word for word, for every bad one (the streaming path hands what
 * it cannot vouch for to the tree path).  And good files really are
 * streamed: the tree path is not taken for them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../import/trace.h"
#include "bounds.h"
#include "error.h"
#include "json.h"

#define DATA HQSIM_SOURCE_DIR "/tests/data/"

/* Everything the importer put in @tr, as text. */
static char *dump(const SimTrace *tr)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "gpu %s cc %d.%d abs %d skipped %llu\n",
                           tr->gpu_name ? tr->gpu_name : "-", tr->cc_major,
                           tr->cc_minor, tr->absolute,
                           (unsigned long long)tr->n_skipped);
    for (guint i = 0; i < tr->notes->len; i++)
        g_string_append_printf(s, "note %s\n",
                               (char *)g_ptr_array_index(tr->notes, i));
    for (guint i = 0; i < tr->processes->len; i++) {
        const SimTraceProcess *p = g_ptr_array_index(tr->processes, i);
        g_string_append_printf(s, "process %s pid %lld mem %llu\n", p->name,
                               (long long)p->pid,
                               (unsigned long long)p->mem_bytes);
        for (guint j = 0; j < p->streams->len; j++) {
            const SimTraceStream *st =
                &g_array_index(p->streams, SimTraceStream, j);
            g_string_append_printf(s, " stream %lld %d\n", (long long)st->id,
                                   st->priority);
        }
        for (guint j = 0; j < p->ops->len; j++) {
            const SimTraceOp *o = &g_array_index(p->ops, SimTraceOp, j);
            g_string_append_printf(
                s,
                " op %d line %u stream %lld event %lld gpu %lld-%lld "
                "api %lld-%lld blocks %d graph %d/%lld",
                o->kind, o->line, (long long)o->stream, (long long)o->event,
                (long long)o->start_ns, (long long)o->end_ns,
                (long long)o->api_start_ns, (long long)o->api_end_ns,
                o->api_blocks, o->in_graph, (long long)o->graph);
            if (o->kind == SIM_TRACE_KERNEL) {
                const SimTraceKernel *k = &o->u.kernel;
                g_string_append_printf(
                    s, " kernel %s %u,%u,%u %u,%u,%u regs %u smem %u+%u",
                    k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0],
                    k->block[1], k->block[2], k->regs_per_thread,
                    k->static_smem_bytes, k->dynamic_smem_bytes);
            } else if (o->kind == SIM_TRACE_COPY) {
                g_string_append_printf(s, " copy %llu dir %d pinned %d",
                                       (unsigned long long)o->u.copy.bytes,
                                       o->u.copy.dir, o->u.copy.pinned);
            } else if (o->kind == SIM_TRACE_MEMSET) {
                g_string_append_printf(s, " memset %llu",
                                       (unsigned long long)o->u.memset_bytes);
            }
            g_string_append_c(s, '\n');
        }
    }
    return g_string_free(s, FALSE);
}

/* Import @text both ways; "ok\n" + the trace, or "error: " + message. */
static char *import_as(const char *name, const char *text, size_t len,
                       bool tree)
{
    sim_kineto_force_tree(tree);
    SimTrace *tr = sim_trace_new(name, "kineto");
    GError *err = NULL;
    bool ok = sim_import_kineto(tr, text, len, &err);
    sim_kineto_force_tree(false);
    g_autofree char *body = ok ? dump(tr) : g_strdup(err->message);
    g_clear_error(&err);
    sim_trace_free(tr);
    return g_strconcat(ok ? "ok\n" : "error: ", body, NULL);
}

/* Both ways give the same answer; returns whether it was a success and
 * sets *streamed to whether the streaming path kept it to itself. */
static bool same_both_ways(const char *name, const char *text, size_t len,
                           bool *streamed)
{
    uint64_t before = sim_kineto_tree_reads();
    g_autofree char *s = import_as(name, text, len, false);
    *streamed = sim_kineto_tree_reads() == before;
    g_autofree char *t = import_as(name, text, len, true);
    if (strcmp(s, t))
        fail_msg("%s: streaming and tree differ:\n--- streaming\n%.2000s\n"
                 "--- tree\n%.2000s",
                 name, s, t);
    return g_str_has_prefix(s, "ok\n");
}

static const char *GOOD =
    "{\"schemaVersion\": 1,\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 11, \"args\": "
    "{\"name\": \"py ]}[{\\\" x\"}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
    "\"cudaLaunchKernel\", \"pid\": 11, \"tid\": 11, \"ts\": 100, \"dur\": "
    "3, \"args\": {\"correlation\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k<{[\\\\\\\"]}>\", "
    "\"pid\": 0, \"tid\": 7, \"ts\": 110, \"dur\": 20,\n"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1, "
    "\"grid\": [4, 2, 1], \"block\": [128, 1, 1], \"registers per "
    "thread\": 40, \"shared memory\": 1024, \"x\": [[{}], []]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
    "\"cudaMemcpyAsync\", \"pid\": 11, \"tid\": 11, \"ts\": 120, \"dur\": "
    "2, \"args\": {\"correlation\": 2}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD "
    "(Pinned -> Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 130, \"dur\": 4, "
    "\"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 2, "
    "\"bytes\": 4096}},\n"
    "  {\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 11, \"ts\": 131, "
    "\"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Total Reserved\": "
    "2097152}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
    "\"cudaDeviceSynchronize\", \"pid\": 11, \"tid\": 11, \"ts\": 140, "
    "\"dur\": 10, \"args\": {\"correlation\": 3}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"other\", \"pid\": 1, "
    "\"tid\": 7, \"ts\": 150, \"dur\": 5, \"args\": {\"device\": 1, "
    "\"stream\": 7, \"correlation\": 9, \"grid\": [1, 1, 1], \"block\": "
    "[32, 1, 1]}}\n"
    " ],\n"
    " \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB "
    "HBM3\", \"computeMajor\": 9, \"computeMinor\": 0}],\n"
    " \"baseTimeNanoseconds\": 1700000000000000123\n"
    "}\n";

/* Good traces of every shape: streamed, and the same as the tree. */
static void test_good_traces_are_streamed_and_identical(void **state)
{
    (void)state;
    bool streamed;
    assert_true(same_both_ways("good.json", GOOD, strlen(GOOD), &streamed));
    assert_true(streamed);
    /* The same events as a root array (no root fields). */
    const char *a = strstr(GOOD, "[\n");
    const char *z = strstr(GOOD, " ],\n");
    g_autofree char *arr = g_strdup_printf("%.*s]\n", (int)(z - a), a);
    assert_true(same_both_ways("arr.json", arr, strlen(arr), &streamed));
    assert_true(streamed);
    /* Compact, on one line, CRLF, tabs. */
    g_autofree char *one = g_strdup(GOOD);
    for (char *p = one; *p; p++)
        if (*p == '\n')
            *p = ' ';
    assert_true(same_both_ways("one.json", one, strlen(one), &streamed));
    assert_true(streamed);
    g_auto(GStrv) lines = g_strsplit(GOOD, "\n", -1);
    g_autofree char *crlf = g_strjoinv("\r\n\t", lines);
    assert_true(same_both_ways("crlf.json", crlf, strlen(crlf), &streamed));
    assert_true(streamed);
    /* No events at all: the same "no GPU events" error, still streamed. */
    const char *none = "{\"traceEvents\": [ ]}";
    assert_false(same_both_ways("none.json", none, strlen(none), &streamed));
    assert_true(streamed);
    /* The bundled and shared real traces. */
    static const char *const files[] = {
        "import/kineto_2021.json",
        "import/kineto_2024.json",
        "import/kineto_2pid.json",
        "import/kineto_memory.json",
        "../../traces/measured/h100/pytorch/torch_multistream_trace.json.gz",
        "../../traces/measured/h100/pytorch/torch_profile_trace.json.gz",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree char *path = g_strconcat(DATA, files[i], NULL);
        size_t len = 0;
        g_autofree char *text = sim_read_file(path, &len, NULL);
        assert_non_null(text);
        if (!same_both_ways(path, text, len, &streamed))
            fail_msg("%s does not import", path);
        if (!streamed)
            fail_msg("%s was not streamed", path);
    }
}

/* Bad traces: the same error both ways; a syntax error anywhere wins over
 * an earlier event's semantic error, as with the whole tree. */
static void test_bad_traces_give_the_tree_errors(void **state)
{
    (void)state;
    bool streamed;
    static const char *const bad[] = {
        /* a semantic error only: reported by the streaming path itself */
        "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
        "\"k\", \"ts\": -1e300, \"dur\": 1}\n]}",
        /* ... followed by a syntax error further down */
        "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
        "\"k\", \"ts\": -1e300, \"dur\": 1},\n{\"ph\": \"X\" \"cat\": 1}\n]}",
        "{\"traceEvents\": [\n5,\n{\"ph\": \"X\",\n",
        "{\"traceEvents\": [{}, ]}",
        "{\"traceEvents\": [{} {}]}",
        "{\"traceEvents\": [{}, , {}]}",
        "{\"traceEvents\": [{]}",
        "{\"traceEvents\": [{}]]}",
        "{\"traceEvents\": [{}]} x",
        "[{}] [",
        "{\"traceEvents\": [{}], \"a\": }",
        "{\"traceEvents\": {}}",
        "{\"traceEvent\": []}",
        "\xef\xbb\xbf{\"traceEvents\": []}",
        "{\"traceEvents\": [{\"name\": \"a\tb\"}]}",
        /* raw control bytes in an element's strings (the scan refuses
         * them: the whole text's shape check is not run first), before
         * and after the array */
        "{\"traceEvents\": [{\"na\nme\": \"ab\"}]}",
        "{\"traceEvents\": [{}, {\"args\": {\"x\": \"a\x01\"}}]}",
        "{\"a\": \"\x1f\", \"traceEvents\": [{}]}",
        "{\"traceEvents\": [{}], \"a\": \"b\rc\"}",
        "[{\"name\": \"a\x02\"}]",
        "{\"traceEvents\": [{\"name\": \"a\\\"}]}",
        "[1, 2, 3]",
        "\"traceEvents\"",
        "",
        "   ",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *name = g_strdup_printf("bad%zu.json", i);
        if (same_both_ways(name, bad[i], strlen(bad[i]), &streamed))
            fail_msg("%s imported: %s", name, bad[i]);
    }
    /* The first one is a plain semantic error: not handed over. */
    assert_false(same_both_ways("s.json", bad[0], strlen(bad[0]), &streamed));
    assert_true(streamed);
    assert_false(same_both_ways("t.json", bad[1], strlen(bad[1]), &streamed));
    assert_false(streamed);
}

/* Every Kineto case of the malformed corpus, and a good trace cut at
 * every 7th byte and with bytes replaced: the same answer both ways. */
static void test_corpus_and_mutations_agree(void **state)
{
    (void)state;
    bool streamed;
    g_autofree char *dir = g_strconcat(DATA, "malformed", NULL);
    GDir *d = g_dir_open(dir, 0, NULL);
    assert_non_null(d);
    const char *f;
    int n = 0;
    while ((f = g_dir_read_name(d))) {
        if (!g_str_has_prefix(f, "kineto-") &&
            !g_str_has_prefix(f, "imp-kineto-"))
            continue;
        g_autofree char *path = g_build_filename(dir, f, NULL);
        size_t len = 0;
        g_autofree char *text = sim_read_file(path, &len, NULL);
        if (text)
            same_both_ways(path, text, len, &streamed);
        n++;
    }
    g_dir_close(d);
    assert_true(n >= 30);
    size_t len = strlen(GOOD);
    for (size_t cut = 0; cut < len; cut += 7)
        same_both_ways("cut.json", GOOD, cut, &streamed);
    static const char subst[] = "]}[{,:\"\\ 0";
    for (size_t at = 0; at < len; at += 5) {
        g_autofree char *m = g_strdup(GOOD);
        m[at] = subst[at % (sizeof subst - 1)];
        same_both_ways("mut.json", m, len, &streamed);
    }
    /* a raw control byte anywhere: in strings, names, whitespace */
    for (size_t at = 0; at < len; at += 3) {
        g_autofree char *m = g_strdup(GOOD);
        m[at] = at % 2 ? '\x01' : '\n';
        same_both_ways("ctl.json", m, len, &streamed);
    }
    /* nesting at and past cJSON's limit inside an element */
    for (int extra = -1; extra <= 1; extra++) {
        int depth = CJSON_NESTING_LIMIT - 3 + extra;
        g_autofree char *open = g_strnfill((gsize)depth, '[');
        g_autofree char *close = g_strnfill((gsize)depth, ']');
        g_autofree char *m =
            g_strdup_printf("{\"traceEvents\": [{\"x\": %s%s}]}", open, close);
        same_both_ways("deep.json", m, strlen(m), &streamed);
    }
}

/* Pass 1 reads plain elements without a tree (kineto.c, flat_event),
 * and hands every other one to the tree: for each variant of an API call
 * or a GPU activity below -- fields of the wrong type, case or count,
 * repeated, out of range, numbers it does not convert, escapes, nesting --
 * the trace is the same, field by field (or the error word for word), as
 * from the whole tree. */
static void test_flat_reader_agrees_with_the_tree(void **state)
{
    (void)state;
    static const char *const variants[] = {
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, "
        "\"tid\": 7, \"ts\": 110, \"dur\": 20, \"args\": {\"device\": 0, "
        "\"stream\": 7, \"correlation\": 1, \"grid\": [4, 2, 1], \"block\": "
        "[128, 1, 1], \"registers per thread\": 40, \"shared memory\": 1024}",
        /* case, type and range of the optional kernel fields */
        "\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, "
        "2, "
        "1], \"block\": [128, 1, 1], \"Registers Per Thread\": 40}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, "
        "2, "
        "1], \"block\": [128, 1, 1], \"registers per thread\": \"40\"}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, "
        "2, "
        "1], \"block\": [128, 1, 1], \"registers per thread\": 40.5, "
        "\"shared memory\": 99999999999}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, "
        "2, "
        "1], \"block\": [128, 1, 1], \"shared memory\": 99999999999}",
        /* launch dimensions */
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, "
        "2], \"block\": [128, 1, 1]}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, "
        "2, "
        "1, 1], \"block\": [128, 1, 1]}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [0, "
        "2, "
        "1], \"block\": [128.5, 1, 1]}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": "
        "[\"4\", 2, 1], \"block\": [128, 1, 1]}",
        /* the stream from tid, the device from inDevice or pid */
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, "
        "\"tid\": \"stream 9\", \"ts\": 110, \"dur\": 20, \"args\": {\"grid\": "
        "[4, 2, 1], \"block\": [128, 1, 1]}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": \"0\", "
        "\"tid\": 9, \"ts\": 110, \"dur\": 20, \"args\": [4, 2, 1]",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"tid\": -3, "
        "\"ts\": 110, \"dur\": 20, \"args\": {\"inDevice\": 0, \"device\": -1, "
        "\"stream\": -2, \"grid\": [4, 2, 1], \"block\": [128, 1, 1]}",
        /* repeated members: the first counts */
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"ts\": 5, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, "
        "\"stream\": 8, \"grid\": [4, 2, 1], \"block\": [128, 1, 1]}, "
        "\"args\": "
        "{}",
        /* numbers only the tree converts, escapes, nesting, literals */
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1.1e2, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, "
        "2, "
        "1], \"block\": [128, 1, 1]}",
        /* 20 digits and more: 2^64 and 2^65 wrap a 64-bit integer to
         * exactly 0, which once read as 0 without a tree */
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, "
        "2, 1], \"block\": [128, 1, 1], \"registers per thread\": "
        "18446744073709551616}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 36893488147419103232, \"args\": {\"device\": 0, "
        "\"stream\": 7, \"grid\": [4, 2, 1], \"block\": [128, 1, 1]}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": "
        "1844674407370955161.6, \"dur\": 20, \"args\": {\"device\": 0, "
        "\"stream\": 18446744073709551616, \"grid\": [4, 2, 1], "
        "\"block\": [128, 1, 1]}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": "
        "1844674407370955161.6, \"dur\": 20, \"args\": {\"device\": 0, "
        "\"stream\": 7, \"grid\": [18446744073709551616, 2, 1], "
        "\"block\": [128, 1, 1]}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\\u0041\", \"ts\": "
        "110, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": "
        "[4, "
        "2, 1], \"block\": [128, 1, 1], \"x\": {\"y\": 1}}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, "
        "2, "
        "1], \"block\": [128, 1, 1], \"x\": {\"y\": 1}}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": null, \"ts\": 110, "
        "\"dur\": 20, \"flag\": true, \"args\": {\"device\": 0, \"stream\": 7, "
        "\"grid\": [4, 2, 1], \"block\": [128, 1, 1], \"x\": false}",
        /* times */
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 110, "
        "\"dur\": -1, \"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, "
        "2, "
        "1], \"block\": [128, 1, 1]}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": "
        "1700000000000000.5, \"dur\": 0.001, \"args\": {\"device\": 0, "
        "\"stream\": 7, \"grid\": [4, 2, 1], \"block\": [128, 1, 1]}",
        "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"dur\": 20, "
        "\"args\": {\"device\": 0, \"stream\": 7, \"grid\": [4, 2, 1], "
        "\"block\": [128, 1, 1]}",
        /* copies and memsets */
        "\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH "
        "(Device -> Pageable)\", \"ts\": 130, \"dur\": 4, \"args\": "
        "{\"device\": 0, \"stream\": 7, \"correlation\": 2, \"bytes\": 4096}",
        "\"ph\": \"X\", \"cat\": \"Memcpy\", \"name\": \"Memcpy HtoH\", "
        "\"ts\": 130, \"dur\": 4, \"args\": {\"device\": 0, \"stream\": 7, "
        "\"bytes\": 4096}",
        "\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset\", "
        "\"ts\": 130, \"dur\": 4, \"args\": {\"device\": 0, \"stream\": 7, "
        "\"bytes\": 4096.7}",
        "\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset\", "
        "\"ts\": 130, \"dur\": 4, \"args\": {\"device\": 0, \"stream\": 7, "
        "\"bytes\": \"4096\"}",
        /* API calls, syncs and the rest */
        "\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": "
        "\"cuLaunchKernel\", "
        "\"pid\": \"11\", \"ts\": 99, \"dur\": 30, \"args\": {\"correlation\": "
        "1}",
        "\"ph\": \"X\", \"cat\": \"Runtime\", \"name\": \"cudaMemcpy\", "
        "\"pid\": "
        "12, \"ts\": 125, \"dur\": 1, \"args\": {\"correlation\": 2.5}",
        "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
        "\"cudaStreamSynchronize\", \"pid\": 11, \"ts\": -5e15, \"dur\": 1, "
        "\"args\": {\"correlation\": 5}",
        /* an error the flat reader finds (it leaves it to the tree) */
        "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
        "\"cudaStreamSynchronize\", \"pid\": 11, \"ts\": "
        "-5000000000000000, \"dur\": 1, \"args\": {\"correlation\": 5}",
        "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
        "\"cudaStreamSynchronize\", \"pid\": 11, \"ts\": 120, \"dur\": "
        "\"1\", \"args\": {\"correlation\": 5}",
        "\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Sync\", "
        "\"pid\": 0, \"tid\": 7, \"ts\": 141, \"dur\": 2, \"args\": "
        "{\"device\": 0, \"stream\": 7, \"correlation\": 3}",
        "\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 12, \"args\": "
        "{\"name\": \"other\"}",
        "\"ph\": \"i\", \"cat\": \"kernel\", \"name\": \"k\"",
    };
    static const char *const head =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
        "\"cudaLaunchKernel\", \"pid\": 11, \"tid\": 11, \"ts\": 100, "
        "\"dur\": 3, \"args\": {\"correlation\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k0\", \"pid\": 0, "
        "\"tid\": 7, \"ts\": 90, \"dur\": 5, \"args\": {\"device\": 0, "
        "\"stream\": 7, \"grid\": [1, 1, 1], \"block\": [32, 1, 1]}},\n{";
    int ok = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(variants); i++) {
        g_autofree char *text =
            g_strdup_printf("%s%s}\n]}\n", head, variants[i]);
        g_autofree char *name = g_strdup_printf("flat%zu.json", i);
        bool streamed;
        ok += same_both_ways(name, text, strlen(text), &streamed);
    }
    /* Both answers occur: the variants are not all refused. */
    assert_true(ok > 10 && ok < (int)G_N_ELEMENTS(variants));
    /* A plain trace is read without a tree, element by element. */
    uint64_t before = sim_kineto_flat_reads();
    g_autofree char *plain = g_strdup_printf("%s%s}\n]}\n", head, variants[0]);
    bool streamed;
    assert_true(same_both_ways("plain.json", plain, strlen(plain), &streamed));
    assert_int_equal(sim_kineto_flat_reads() - before, 3);
    /* So are process names and "[memory]" events (api_event reads both
     * readers' elements through one view). */
    before = sim_kineto_flat_reads();
    g_autofree char *named = g_strdup_printf(
        "%s%s},\n{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 11, "
        "\"args\": {\"name\": \"py\"}},\n{\"ph\": \"i\", \"name\": "
        "\"[memory]\", \"pid\": 11, \"ts\": 131, \"args\": {\"Device "
        "Type\": 1, \"Device Id\": 0, \"Total Reserved\": 2097152}}\n]}\n",
        head, variants[0]);
    assert_true(same_both_ways("named.json", named, strlen(named), &streamed));
    assert_int_equal(sim_kineto_flat_reads() - before, 5);
}

/* Pass 1 reads the elements as the scan finds them (kineto.c, scan_read),
 * the flat reader's and the others (parsed there) alike, in the file's
 * order; at an error it stops and pass_api goes on from there.  The same
 * answer as the tree each time. */
static void test_scan_reads_in_order(void **state)
{
    (void)state;
    /* The host process's name: the last process_name event of its pid
     * wins, and the first API event of a correlation names the call (a
     * blocking cudaMemcpy or not): the first of each pair has an escape
     * (the flat reader refuses it), the second not. */
    static const char *const order =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 11, \"args\": "
        "{\"name\": \"fir\\u0073t\"}},\n"
        "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 11, \"args\": "
        "{\"name\": \"second\"}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
        "\"cudaMemcp\\u0079\", \"pid\": 11, \"ts\": 100, \"dur\": 9, "
        "\"args\": {\"correlation\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": "
        "\"cuMemcpyAsync\", \"pid\": 11, \"ts\": 101, \"dur\": 2, "
        "\"args\": {\"correlation\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD "
        "(Pinned -> Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 103, "
        "\"dur\": 4, \"args\": {\"device\": 0, \"stream\": 7, "
        "\"correlation\": 1, \"bytes\": 4096}}\n"
        "], \"baseTimeNanoseconds\": 5000}\n";
    bool streamed;
    assert_true(same_both_ways("order.json", order, strlen(order), &streamed));
    assert_true(streamed);
    g_autofree char *got = import_as("order.json", order, strlen(order), false);
    if (!strstr(got, "process second[11]") || !strstr(got, "blocks 1") ||
        !strstr(got, "gpu 108000-112000 api 105000-114000"))
        fail_msg("not read in order, or times not shifted:\n%s", got);
    /* An API call's error after elements read in the scan, inside an
     * element of several lines: its line; and the elements after it. */
    static const char *const err =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"a\",\n"
        " \"pid\": 11, \"ts\": 100,\n \"dur\": 9, \"args\": {}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"b\",\n"
        " \"pid\": 11,\n \"ts\": 100, \"dur\": -9, \"args\": {}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"c\", "
        "\"pid\": 11, \"ts\": 100, \"dur\": -8, \"args\": {}}\n"
        "]}\n";
    assert_false(same_both_ways("err.json", err, strlen(err), &streamed));
    assert_true(streamed);
    g_autofree char *msg = import_as("err.json", err, strlen(err), false);
    assert_string_equal(msg, "error: err.json:5: event 'b': field 'dur': -9 "
                             "is out of range [0, 1e12] us");
    /* Bytes after an element the flat reader read, before its comma: not
     * a JSON array (the tree's error). */
    static const char *const junk =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"a\", "
        "\"pid\": 11, \"ts\": 100, \"dur\": 9} x,\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"c\", "
        "\"pid\": 11, \"ts\": 100, \"dur\": 8} 5]}\n";
    assert_false(same_both_ways("junk.json", junk, strlen(junk), &streamed));
    assert_false(streamed);
    /* More values in one element than --limit json_values allows: the
     * scan refuses it, read by the flat reader or not. */
    GError *e = NULL;
    assert_true(sim_limit_set_arg("json_values=40", &e));
    g_autofree char *many = g_strdup_printf(
        "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", "
        "\"name\": \"k\", \"ts\": 1, \"dur\": 1, \"args\": {\"device\": "
        "0, \"stream\": 7, \"grid\": [1, 1, 1], \"block\": [1, 1, 1], "
        "\"x\": [%s1]}}\n]}\n",
        "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
        "1, 1, 1, 1, 1, 1, 1, 1, ");
    assert_false(same_both_ways("many.json", many, strlen(many), &streamed));
    assert_false(streamed);
    sim_limits_reset();
    assert_true(same_both_ways("many.json", many, strlen(many), &streamed));
    assert_true(streamed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_traces_are_streamed_and_identical),
        cmocka_unit_test(test_bad_traces_give_the_tree_errors),
        cmocka_unit_test(test_corpus_and_mutations_agree),
        cmocka_unit_test(test_flat_reader_agrees_with_the_tree),
        cmocka_unit_test(test_scan_reads_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
