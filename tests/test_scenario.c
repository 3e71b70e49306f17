/* test_scenario.c -- the native scenario format: loading, expansion of
 * repeats/counts/replicas, errors with file:line:field, and the writer's
 * round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounds.h"
#include "error.h"
#include "json.h"
#include "scenario.h"

static SimScenario *parse(const char *text, GError **err)
{
    return sim_scenario_parse("t.json", text, strlen(text), err);
}

/* Parse @text expecting failure; the message must contain each of the
 * NULL-terminated substrings. */
static void expect_error(const char *text, int code, ...)
{
    GError *err = NULL;
    SimScenario *sc = parse(text, &err);
    if (sc)
        fail_msg("expected an error for:\n%s", text);
    assert_non_null(err);
    if (code >= 0)
        assert_int_equal(err->code, code);
    va_list ap;
    va_start(ap, code);
    const char *needle;
    while ((needle = va_arg(ap, const char *)))
        if (!strstr(err->message, needle))
            fail_msg("message '%s' lacks '%s'", err->message, needle);
    va_end(ap);
    g_error_free(err);
}

static const char *FULL =
    "{\n"
    "  \"hqsim_scenario\": 1,\n"
    "  \"description\": \"everything\",\n"
    "  \"gpu\": \"h100-sxm\",\n"
    "  \"seed\": 7,\n"
    "  \"processes\": [\n"
    "    {\"name\": \"a\", \"start_us\": 12.5, \"mps\": true,\n"
    "     \"active_thread_pct\": 50, \"device_mem_mib\": 1024,\n"
    "     \"mps_mem_limit_mib\": 2048, \"connections\": 4,\n"
    "     \"iterations\": 3,\n"
    "     \"streams\": [{\"name\": \"s{i}\", \"count\": 3, \"priority\": -1},\n"
    "                   {\"name\": \"x\"}],\n"
    "     \"ops\": [\n"
    "       {\"op\": \"repeat\", \"count\": 3, \"ops\": [\n"
    "         {\"op\": \"kernel\", \"name\": \"k{i}\", \"stream\": \"s{i}\",\n"
    "          \"grid\": [2, 3, 1], \"block\": 128, \"regs_per_thread\": 40,\n"
    "          \"static_smem_bytes\": 100, \"dynamic_smem_bytes\": 200,\n"
    "          \"duration_us\": 10.25, \"sm_intensity\": 0.5, "
    "\"sm_pipe_share\": 0.75}]},\n"
    "       {\"op\": \"copy\", \"stream\": \"x\", \"dir\": \"d2h\",\n"
    "        \"bytes\": 4096, \"pinned\": false, \"api_us\": 3},\n"
    "       {\"op\": \"event_record\", \"event\": \"e\", \"stream\": \"x\"},\n"
    "       {\"op\": \"event_wait\", \"event\": \"e\", \"stream\": \"s0\"},\n"
    "       {\"op\": \"event_sync\", \"event\": \"e\"},\n"
    "       {\"op\": \"host_gap\", \"duration_us\": 5},\n"
    "       {\"op\": \"stream_sync\", \"stream\": \"s1\"},\n"
    "       {\"op\": \"device_sync\"},\n"
    "       {\"op\": \"kernel\", \"name\": \"b\", \"stream\": \"x\", \"grid\": "
    "1,\n"
    "        \"block\": 32, \"block_time_us\": 1}\n"
    "     ]},\n"
    "    {\"name\": \"open\", \"replicas\": 2,\n"
    "     \"arrivals\": {\"rate_per_s\": 100, \"count\": 10,\n"
    "                    \"distribution\": \"uniform\"},\n"
    "     \"streams\": [{\"name\": \"s\"}],\n"
    "     \"ops\": [{\"op\": \"kernel\", \"name\": \"k\", \"stream\": \"s\",\n"
    "               \"grid\": 1, \"block\": 1, \"duration_us\": 1}]}\n"
    "  ]\n"
    "}\n";

static void test_scenario_loads_every_field(void **state)
{
    (void)state;
    GError *err = NULL;
    g_autoptr(SimScenario) sc = parse(FULL, &err);
    if (!sc)
        fail_msg("%s", err->message);
    assert_string_equal(sc->description, "everything");
    assert_string_equal(sc->gpu, "h100-sxm");
    assert_int_equal(sc->seed, 7);
    /* the replicas became open#0 and open#1 */
    assert_int_equal(sc->processes->len, 3);
    SimProcessSpec *a = g_ptr_array_index(sc->processes, 0);
    assert_int_equal(a->start_ns, 12500);
    assert_true(a->mps);
    assert_float_equal(a->active_thread_pct, 50, 0);
    assert_int_equal(a->device_mem_bytes, 1024ull << 20);
    assert_int_equal(a->mps_mem_limit_bytes, 2048ull << 20);
    assert_int_equal(a->connections, 4);
    assert_int_equal(a->iterations, 3);
    assert_int_equal(a->n_streams, 4);
    assert_string_equal(a->streams[2].name, "s2");
    assert_int_equal(a->streams[2].priority, -1);
    assert_string_equal(a->streams[3].name, "x");
    /* 3 kernels from the repeat + 8 more */
    assert_int_equal(a->n_ops, 11);
    for (uint32_t i = 0; i < 3; i++) {
        const SimKernelSpec *k = &a->ops[i].u.kernel;
        char name[8];
        snprintf(name, sizeof name, "k%u", i);
        assert_string_equal(k->name, name);
        assert_int_equal(a->ops[i].stream, i);
        assert_int_equal(k->grid[0], 2);
        assert_int_equal(k->grid[1], 3);
        assert_int_equal(k->block[0], 128);
        assert_int_equal(k->regs_per_thread, 40);
        assert_int_equal(k->static_smem_bytes, 100);
        assert_int_equal(k->dynamic_smem_bytes, 200);
        assert_int_equal(k->duration_ns, 10250);
        assert_float_equal(k->sm_intensity, 0.5, 0);
        assert_float_equal(k->sm_pipe_share, 0.75, 0);
        assert_int_equal(a->ops[i].api_ns, SIM_TIME_NEVER);
    }
    assert_int_equal(a->ops[3].kind, SIM_OP_COPY);
    assert_int_equal(a->ops[3].u.copy.dir, SIM_COPY_D2H);
    assert_false(a->ops[3].u.copy.pinned);
    assert_int_equal(a->ops[3].api_ns, 3000);
    assert_int_equal(a->ops[4].kind, SIM_OP_EVENT_RECORD);
    assert_int_equal(a->ops[5].kind, SIM_OP_EVENT_WAIT);
    assert_int_equal(a->ops[5].stream, 0);
    assert_int_equal(a->ops[6].kind, SIM_OP_EVENT_SYNC);
    assert_int_equal(a->ops[7].u.gap_ns, 5000);
    assert_int_equal(a->ops[8].kind, SIM_OP_STREAM_SYNC);
    assert_int_equal(a->ops[9].kind, SIM_OP_DEVICE_SYNC);
    assert_int_equal(a->ops[10].u.kernel.block_time_ns, 1000);
    /* lines point at each op's object */
    assert_int_equal(a->ops[0].line, 15);
    assert_int_equal(a->ops[10].line, 27);
    SimProcessSpec *o1 = g_ptr_array_index(sc->processes, 2);
    assert_string_equal(o1->name, "open#1");
    assert_int_equal(o1->arrivals.kind, SIM_ARRIVALS_UNIFORM);
    assert_int_equal(o1->arrivals.count, 10);
}

/* Writing and reading back gives the same scenario. */
static void test_scenario_write_round_trips(void **state)
{
    (void)state;
    GError *err = NULL;
    g_autoptr(SimScenario) sc = parse(FULL, &err);
    assert_non_null(sc);
    g_autofree char *text = sim_scenario_to_json(sc);
    g_autoptr(SimScenario) back = parse(text, &err);
    if (!back)
        fail_msg("%s\n%s", err->message, text);
    assert_int_equal(back->processes->len, sc->processes->len);
    for (guint i = 0; i < sc->processes->len; i++) {
        SimProcessSpec *p = g_ptr_array_index(sc->processes, i);
        SimProcessSpec *q = g_ptr_array_index(back->processes, i);
        assert_string_equal(p->name, q->name);
        assert_int_equal(p->n_ops, q->n_ops);
        assert_int_equal(p->n_streams, q->n_streams);
        assert_int_equal(p->start_ns, q->start_ns);
        assert_int_equal(p->iterations, q->iterations);
        for (uint32_t j = 0; j < p->n_ops; j++) {
            assert_int_equal(p->ops[j].kind, q->ops[j].kind);
            assert_int_equal(p->ops[j].stream, q->ops[j].stream);
            assert_int_equal(p->ops[j].api_ns, q->ops[j].api_ns);
            if (p->ops[j].kind == SIM_OP_KERNEL) {
                assert_string_equal(p->ops[j].u.kernel.name,
                                    q->ops[j].u.kernel.name);
                assert_int_equal(p->ops[j].u.kernel.duration_ns,
                                 q->ops[j].u.kernel.duration_ns);
            }
        }
    }
    /* a run of identical ops is written once, as a repeat */
    g_autoptr(SimScenario) rep = sim_scenario_new("r", "test");
    SimProcessSpec *p = sim_scenario_add_process(rep, "p");
    sim_process_add_stream(rep, p, "s", 0);
    SimOp g;
    memset(&g, 0, sizeof g);
    g.kind = SIM_OP_HOST_GAP;
    g.api_ns = SIM_TIME_NEVER;
    g.u.gap_ns = 1000;
    for (int i = 0; i < 1000; i++)
        sim_process_add_op(p, &g);
    g_autofree char *rt = sim_scenario_to_json(rep);
    assert_non_null(strstr(rt, "\"count\": 1000"));
    assert_true(strlen(rt) < 1000);
}

/* A scenario of two 1-block kernels on one stream, kernel "a" with the
 * extra JSON members @a_fields (", \"ilp\": 4", ...) on line 4 and "b"
 * with none: the text the optional-field tests below parse. */
static char *two_kernels(const char *a_fields)
{
    return g_strdup_printf(
        "{\"hqsim_scenario\": 1, \"processes\": [\n"
        "{\"name\": \"p\", \"streams\": [{\"name\": \"s\"}],\n"
        " \"ops\": [\n"
        "{\"op\": \"kernel\", \"name\": \"a\", \"stream\": \"s\", "
        "\"grid\": 1, \"block\": 32, \"duration_us\": 1%s},\n"
        "{\"op\": \"kernel\", \"name\": \"b\", \"stream\": \"s\", "
        "\"grid\": 1, \"block\": 32, \"duration_us\": 1}]}]}",
        a_fields);
}

/* @sc written out and read back (owned by the caller); @member (e.g.
 * "\"ilp\": 4") must appear in the text exactly once: kernel a's only. */
static SimScenario *written_back(const SimScenario *sc, const char *member)
{
    g_autofree char *out = sim_scenario_to_json(sc);
    const char *c = strstr(out, member);
    assert_non_null(c);
    assert_null(strstr(c + 1, member)); /* kernel a only */
    GError *err = NULL;
    SimScenario *back = parse(out, &err);
    if (!back)
        fail_msg("%s\n%s", err->message, out);
    return back;
}

/* A kernel's measured shared-memory configuration and preferred carveout
 * (smem_config.c): read, written back only when given, and a preference
 * out of [0, 100] refused naming the field. */
static void check_smem_fields(const SimScenario *sc)
{
    const SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    const SimKernelSpec *a = &p->ops[0].u.kernel, *b = &p->ops[1].u.kernel;
    assert_int_equal(a->smem_config_bytes, 8192);
    assert_true(a->has_carveout_pct);
    assert_int_equal(a->carveout_pct, 0);
    assert_int_equal(b->smem_config_bytes, 0);
    assert_false(b->has_carveout_pct);
}

static void test_scenario_smem_config_fields(void **state)
{
    (void)state;
    g_autofree char *text =
        two_kernels(", \"smem_config_bytes\": 8192, \"carveout_pct\": 0");
    GError *err = NULL;
    g_autoptr(SimScenario) sc = parse(text, &err);
    if (!sc)
        fail_msg("%s", err->message);
    check_smem_fields(sc);
    g_autoptr(SimScenario) back = written_back(sc, "\"carveout_pct\": 0");
    check_smem_fields(back);
    g_autoptr(SimScenario) back2 =
        written_back(sc, "\"smem_config_bytes\": 8192");
    check_smem_fields(back2);
    g_autofree char *bad = g_strdup(text);
    memcpy(strstr(bad, "\"carveout_pct\": 0"), "\"carveout_pct\":-1", 17);
    expect_error(bad, SIM_ERROR_INVALID, "t.json:4:", "carveout_pct", NULL);
}

/* A kernel's ilp (independent chains per warp, engine_issue.c): read,
 * written back only when given, and a value outside 1..64 refused naming
 * line and field. */
static void test_scenario_ilp_field(void **state)
{
    (void)state;
    g_autofree char *text = two_kernels(", \"ilp\": 4");
    GError *err = NULL;
    g_autoptr(SimScenario) sc = parse(text, &err);
    if (!sc)
        fail_msg("%s", err->message);
    const SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    assert_int_equal(p->ops[0].u.kernel.ilp, 4);
    assert_int_equal(p->ops[1].u.kernel.ilp, 0);
    g_autoptr(SimScenario) back = written_back(sc, "\"ilp\": 4");
    p = g_ptr_array_index(back->processes, 0);
    assert_int_equal(p->ops[0].u.kernel.ilp, 4);
    g_autofree char *bad = g_strdup(text);
    memcpy(strstr(bad, "\"ilp\": 4"), "\"ilp\": 0", 8);
    expect_error(bad, SIM_ERROR_INVALID, "t.json:4:", "ilp", NULL);
}

/* "l2_served" (FINDINGS §69): a kernel's L2-served share of its loads, in
 * [0, 1], kept where given and absent otherwise (the model's default then
 * applies), written back at the precision the writer promises (%.6g), and
 * refused outside its range with the line and the field. */
static void test_scenario_l2_served_field(void **state)
{
    (void)state;
    g_autofree char *text = two_kernels(", \"l2_served\": 0.625");
    GError *err = NULL;
    g_autoptr(SimScenario) sc = parse(text, &err);
    if (!sc)
        fail_msg("%s", err->message);
    const SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    assert_true(p->ops[0].u.kernel.has_l2_served);
    assert_float_equal(p->ops[0].u.kernel.l2_served, 0.625, 0);
    assert_false(p->ops[1].u.kernel.has_l2_served);
    g_autoptr(SimScenario) back = written_back(sc, "\"l2_served\": 0.625");
    p = g_ptr_array_index(back->processes, 0);
    assert_true(p->ops[0].u.kernel.has_l2_served);
    assert_float_equal(p->ops[0].u.kernel.l2_served, 0.625, 0);
    assert_false(p->ops[1].u.kernel.has_l2_served);
    g_autofree char *bad = g_strdup(text);
    memcpy(strstr(bad, "\"l2_served\": 0.625"), "\"l2_served\": 1.625", 18);
    expect_error(bad, SIM_ERROR_INVALID, "t.json:4:", "l2_served", NULL);
    memcpy(strstr(bad, "\"l2_served\": 1.625"), "\"l2_served\": \"0.6\"", 18);
    expect_error(bad, SIM_ERROR_INVALID, "t.json:4:", "l2_served", NULL);
}

static void test_scenario_errors_name_line_and_field(void **state)
{
    (void)state;
    const char *head = "{\"hqsim_scenario\": 1, \"processes\": [\n"
                       "{\"name\": \"p\", \"streams\": [{\"name\": \"s\"}],\n"
                       " \"ops\": [\n";
#define WITH(op) g_strconcat(head, op, "]}]}", NULL)
    g_autofree char *t1 = WITH("{\"op\": \"kernel\", \"name\": \"k\", "
                               "\"stream\": \"s\", \"grid\": 1, \"block\": "
                               "1, \"duration_us\": 1, \"colour\": 3}");
    expect_error(t1, SIM_ERROR_INVALID, "t.json:4:", "unknown field 'colour'",
                 "process 'p'", NULL);
    g_autofree char *t2 = WITH("{\"op\": \"kernel\", \"name\": \"k\", "
                               "\"stream\": \"s\", \"block\": 1, "
                               "\"duration_us\": 1}");
    expect_error(t2, SIM_ERROR_INVALID, "t.json:4:", "missing field 'grid'",
                 NULL);
    g_autofree char *t3 = WITH("{\"op\": \"kernel\", \"name\": \"k\", "
                               "\"stream\": \"nope\", \"grid\": 1, "
                               "\"block\": 1, \"duration_us\": 1}");
    expect_error(t3, SIM_ERROR_INVALID, "no stream named 'nope'", NULL);
    g_autofree char *t4 = WITH("{\"op\": \"kernel\", \"name\": \"k\", "
                               "\"stream\": \"s\", \"grid\": 0, \"block\": "
                               "1, \"duration_us\": 1}");
    expect_error(t4, SIM_ERROR_INVALID, "field 'grid'", "out of range", NULL);
    g_autofree char *t5 = WITH("{\"op\": \"kernel\", \"name\": \"k\", "
                               "\"stream\": \"s\", \"grid\": 1, \"block\": "
                               "1, \"duration_us\": 1, \"block_time_us\": "
                               "1}");
    expect_error(t5, SIM_ERROR_INVALID, "exactly one of", NULL);
    g_autofree char *t6 = WITH("{\"op\": \"kernel\", \"name\": \"k\", "
                               "\"stream\": \"s\", \"grid\": 1.5, "
                               "\"block\": 1, \"duration_us\": 1}");
    expect_error(t6, SIM_ERROR_INVALID, "expected an integer", NULL);
    g_autofree char *t7 = WITH("{\"op\": \"kernel\", \"name\": \"k\", "
                               "\"stream\": \"s\", \"grid\": 1, \"block\": "
                               "1, \"duration_us\": -4}");
    expect_error(t7, SIM_ERROR_INVALID, "duration_us", NULL);
    g_autofree char *t8 = WITH("{\"op\": \"teleport\"}");
    expect_error(t8, SIM_ERROR_INVALID, "'teleport' is not one of", NULL);
    g_autofree char *t9 = WITH("{\"op\": \"event_wait\", \"event\": "
                               "\"never\", \"stream\": \"s\"}");
    expect_error(t9, SIM_ERROR_DEADLOCK, "t.json:4:", "never recorded",
                 "deadlock", NULL);
    g_autofree char *t10 = WITH("{\"op\": \"copy\", \"stream\": \"s\", "
                                "\"dir\": \"sideways\", \"bytes\": 1}");
    expect_error(t10, SIM_ERROR_INVALID, "'sideways'", NULL);
#undef WITH
    expect_error("{\"hqsim_scenario\": 1, \"processes\": []}",
                 SIM_ERROR_INVALID, "non-empty", NULL);
    expect_error("{\"hqsim_scenario\": 2, \"processes\": []}",
                 SIM_ERROR_INVALID, "hqsim_scenario", NULL);
    expect_error("{\"processes\": []}", SIM_ERROR_INVALID,
                 "missing field 'hqsim_scenario'", NULL);
    expect_error("{\"hqsim_scenario\": 1, \"processes\": [\n{\"name\": "
                 "\"p\",\n \"streams\": [{\"name\": \"s\"}",
                 SIM_ERROR_PARSE, "t.json:3", NULL);
    expect_error("{\"hqsim_scenario\": 1, \"processes\": [{\"name\": "
                 "\"p\", \"streams\": [{\"name\": \"s\"}], \"ops\": [], "
                 "\"name\": \"q\"}]}",
                 SIM_ERROR_INVALID, "given twice", NULL);
    expect_error("{\"hqsim_scenario\": 1, \"description\": \"\xff\xfe\"}",
                 SIM_ERROR_PARSE, "UTF-8", NULL);
    expect_error("", SIM_ERROR_PARSE, "t.json", NULL);
    expect_error("[1, 2]", SIM_ERROR_INVALID, "object", NULL);
}

static void test_scenario_load_reads_files_and_gzip(void **state)
{
    (void)state;
    GError *err = NULL;
    g_autofree char *path = NULL;
    int fd = g_file_open_tmp("hqsim-XXXXXX.json", &path, &err);
    assert_true(fd >= 0);
    close(fd);
    assert_true(g_file_set_contents(path, FULL, -1, &err));
    g_autoptr(SimScenario) sc = sim_scenario_load(path, &err);
    assert_non_null(sc);
    assert_string_equal(sc->source, path);
    g_autoptr(SimScenario) none =
        sim_scenario_load("/nonexistent/x.json", &err);
    assert_null(none);
    assert_int_equal(err->code, SIM_ERROR_IO);
    g_clear_error(&err);
    /* ".gz" that is not gzip */
    g_autofree char *gz = g_strconcat(path, ".gz", NULL);
    assert_true(g_file_set_contents(gz, FULL, -1, &err));
    assert_null(sim_scenario_load(gz, &err));
    assert_non_null(strstr(err->message, "not gzip"));
    g_clear_error(&err);
    unlink(gz);
    unlink(path);
}

/* The input_bytes limit: a file of exactly the limit is read, one byte
 * more is refused from its size, and a file that grows past the limit
 * while it is read (a /proc file: size 0, then text) is refused too.
 * read_all asks for at most limit + 1 - len bytes, so its guint length
 * cannot wrap near a limit of 4 GiB. */
static void test_read_file_limit_holds(void **state)
{
    (void)state;
    GError *err = NULL;
    g_autofree char *path = NULL;
    int fd = g_file_open_tmp("hqsim-XXXXXX.json", &path, &err);
    assert_true(fd >= 0);
    close(fd);
    assert_true(sim_limit_set_arg("input_bytes=100", NULL));
    g_autofree char *hundred = g_strnfill(100, 'x');
    assert_true(g_file_set_contents(path, hundred, 100, &err));
    size_t len = 0;
    g_autofree char *got = sim_read_file(path, &len, &err);
    assert_non_null(got);
    assert_int_equal(len, 100);
    assert_int_equal(got[100], '\0');
    g_autofree char *more = g_strconcat(hundred, "y", NULL);
    assert_true(g_file_set_contents(path, more, 101, &err));
    assert_null(sim_read_file(path, &len, &err));
    assert_int_equal(err->code, SIM_ERROR_LIMIT);
    assert_non_null(strstr(err->message, "the file has 101 bytes"));
    g_clear_error(&err);
    struct stat st;
    if (stat("/proc/self/maps", &st) == 0 && st.st_size == 0) {
        assert_null(sim_read_file("/proc/self/maps", &len, &err));
        assert_int_equal(err->code, SIM_ERROR_LIMIT);
        assert_non_null(strstr(err->message, "the file grew past 0 bytes"));
        assert_non_null(strstr(err->message, "--limit input_bytes=N"));
        g_clear_error(&err);
    }
    sim_limits_reset();
    unlink(path);
}

/* A scenario big enough to be streamed out in several pieces. */
static SimScenario *big_scenario(void)
{
    SimScenario *sc = sim_scenario_new("big", "test");
    SimProcessSpec *p = sim_scenario_add_process(sc, "p");
    sim_process_add_stream(sc, p, "s", 0);
    SimOp g;
    memset(&g, 0, sizeof g);
    g.kind = SIM_OP_HOST_GAP;
    g.api_ns = SIM_TIME_NEVER;
    for (int i = 0; i < 60000; i++) {
        g.u.gap_ns = 1000 + (uint64_t)i; /* all different: no repeats */
        sim_process_add_op(p, &g);
    }
    return sc;
}

/* A write error while the scenario is streamed out fails the write with
 * the path and the reason, and leaves no file behind: neither the
 * temporary nor a partial target. */
static void test_scenario_write_errors_leave_nothing(void **state)
{
    (void)state;
    g_autoptr(SimScenario) sc = big_scenario();
    GError *err = NULL;
    if (access("/dev/full", W_OK) == 0) {
        assert_false(sim_scenario_write(sc, "/dev/full", &err));
        assert_non_null(strstr(err->message, "/dev/full"));
        assert_non_null(strstr(err->message, g_strerror(ENOSPC)));
        g_clear_error(&err);
    }
    /* A regular file past RLIMIT_FSIZE: write fails with EFBIG (SIGXFSZ
     * ignored) after the first pieces went to the temporary file. */
    g_autofree char *dir = g_dir_make_tmp("hqsim-XXXXXX", &err);
    assert_non_null(dir);
    g_autofree char *out = g_build_filename(dir, "s.json", NULL);
    struct rlimit old, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 1 << 20;
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    bool ok = sim_scenario_write(sc, out, &err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, was);
    assert_false(ok);
    assert_non_null(strstr(err->message, out));
    assert_non_null(strstr(err->message, g_strerror(EFBIG)));
    g_clear_error(&err);
    GDir *d = g_dir_open(dir, 0, NULL);
    assert_non_null(d);
    const char *left = g_dir_read_name(d);
    if (left)
        fail_msg("left behind in %s: %s", dir, left);
    g_dir_close(d);
    /* Without the limit the same scenario is written whole. */
    assert_true(sim_scenario_write(sc, out, &err));
    struct stat st;
    assert_int_equal(stat(out, &st), 0);
    assert_true(st.st_size > (1 << 20));
    unlink(out);
    rmdir(dir);
}

/* The engine's cost floor (bounds.h 'placements'): each kernel launch
 * counts min(blocks, SMs), graph kernel nodes too, x iterations or
 * arrivals, replicas each. */
static void test_scenario_placements_count(void **state)
{
    (void)state;
    GError *err = NULL;
    SimScenario *sc = parse(FULL, &err);
    assert_non_null(sc);
    /* 'a': 3 iterations of 3 x k{i} (6 blocks) + b (1 block); 'open': 2
     * replicas of 10 arrivals of one 1-block kernel. */
    assert_int_equal(sim_scenario_placements(sc, 132), 3 * (3 * 6 + 1) + 20);
    assert_int_equal(sim_scenario_placements(sc, 4), 3 * (3 * 4 + 1) + 20);
    sim_scenario_free(sc);
    const char *graph =
        "{\"hqsim_scenario\": 1, \"processes\": [{\"name\": \"p\",\n"
        " \"iterations\": 2, \"streams\": [{\"name\": \"s\"}],\n"
        " \"ops\": [{\"op\": \"graph\", \"stream\": \"s\", \"nodes\": [\n"
        "  {\"op\": \"kernel\", \"name\": \"a\", \"grid\": 64, \"block\": 32,\n"
        "   \"duration_us\": 1},\n"
        "  {\"op\": \"memset\", \"bytes\": 64, \"duration_us\": 1},\n"
        "  {\"op\": \"kernel\", \"name\": \"b\", \"grid\": [100, 2],\n"
        "   \"block\": 32, \"duration_us\": 1}]}]}]}\n";
    sc = parse(graph, &err);
    if (!sc)
        fail_msg("%s", err->message);
    assert_int_equal(sim_scenario_placements(sc, 132), 2 * (64 + 132));
    assert_int_equal(sim_scenario_placements(sc, 50), 2 * (50 + 50));
    sim_scenario_free(sc);
}

/* Nested repeats are checked against the ops limit before expanding,
 * multiplied out (a round counts as one, as it does while expanding):
 * 3 x (1 + 4 x (1 + 1)) = 27.  At the limit the scenario loads, one
 * below it the outer repeat's count is named, on its own line. */
static void test_scenario_nested_repeats_refused_before_expanding(void **s)
{
    (void)s;
    const char *text =
        "{\"hqsim_scenario\": 1, \"processes\": [{\"name\": \"p\",\n"
        " \"streams\": [{\"name\": \"s\"}], \"ops\": [\n"
        "  {\"op\": \"repeat\",\n"
        "   \"count\": 3, \"ops\": [{\"op\": \"repeat\", \"count\": 4,\n"
        "    \"ops\": [{\"op\": \"kernel\", \"name\": \"k\", \"stream\": "
        "\"s\",\n"
        "     \"grid\": 1, \"block\": 32, \"duration_us\": 1}]}]}]}]}\n";
    GError *err = NULL;
    assert_true(sim_limit_set_arg("ops=27", NULL));
    SimScenario *sc = parse(text, &err);
    if (!sc)
        fail_msg("%s", err->message);
    sim_scenario_free(sc);
    assert_true(sim_limit_set_arg("ops=26", NULL));
    expect_error(text, SIM_ERROR_LIMIT,
                 "t.json:4: process 'p': field 'count': 3 rounds of this "
                 "repeat expand to 27 ops and rounds (nested repeats "
                 "multiplied out) more than 26 ops after expanding repeats",
                 "--limit ops=N", NULL);
    /* A bad field inside a repeat within the limit is still that field's
     * error, not a limit error. */
    sim_limits_reset();
    const char *bad =
        "{\"hqsim_scenario\": 1, \"processes\": [{\"name\": \"p\",\n"
        " \"streams\": [{\"name\": \"s\"}], \"ops\": [\n"
        "  {\"op\": \"repeat\", \"count\": 1000, \"ops\": [\n"
        "   {\"op\": \"kernel\", \"name\": \"k\", \"stream\": \"s\",\n"
        "    \"grid\": -1, \"block\": 32, \"duration_us\": 1}]}]}]}\n";
    expect_error(bad, SIM_ERROR_INVALID, "t.json:5:", "field 'grid'", NULL);
}

/* Every limit the reader checks is reported as SIM_ERROR_LIMIT (not as
 * a bad field), at the line of what exceeds it, with the limit's hint:
 * the ops (one by one as repeats expand), streams, replicas (against
 * processes and ops) and a kernel's blocks. */
static void test_scenario_limits_are_limit_errors(void **s)
{
    (void)s;
    const char *head =
        "{\"hqsim_scenario\": 1, \"processes\": [{\"name\": \"p\",\n";
    const char *kernel = "{\"op\": \"kernel\", \"name\": \"k\", \"stream\": "
                         "\"s\", \"grid\": 4, \"block\": 32, "
                         "\"duration_us\": 1}";
    const struct {
        const char *limit, *body, *where, *hint;
    } cases[] = {
        {"ops=2", "\"streams\": [{\"name\": \"s\"}], \"ops\": [\n%s,\n%s,\n%s]",
         "t.json:5:", "--limit ops=N"},
        {"streams=2",
         "\"streams\": [{\"name\": \"s\"},\n{\"name\": \"t{i}\", "
         "\"count\": 2}], \"ops\": [%s]",
         "t.json:3:", "--limit streams=N"},
        {"processes=2",
         "\"replicas\": 3,\n\"streams\": [{\"name\": \"s\"}], \"ops\": "
         "[%s]",
         "t.json:2:", "--limit processes=N"},
        {"blocks=3", "\"streams\": [{\"name\": \"s\"}], \"ops\": [\n%s]",
         "t.json:3:", "--limit blocks=N"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *body =
            g_strdup_printf(cases[i].body, kernel, kernel, kernel);
        g_autofree char *text = g_strconcat(head, body, "}]}\n", NULL);
        sim_limits_reset();
        /* Within the default limits it loads. */
        SimScenario *sc = parse(text, NULL);
        assert_non_null(sc);
        sim_scenario_free(sc);
        assert_true(sim_limit_set_arg(cases[i].limit, NULL));
        expect_error(text, SIM_ERROR_LIMIT, cases[i].where, cases[i].hint,
                     NULL);
    }
    sim_limits_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_loads_every_field),
        cmocka_unit_test(test_scenario_write_round_trips),
        cmocka_unit_test(test_scenario_l2_served_field),
        cmocka_unit_test(test_scenario_smem_config_fields),
        cmocka_unit_test(test_scenario_errors_name_line_and_field),
        cmocka_unit_test(test_scenario_load_reads_files_and_gzip),
        cmocka_unit_test(test_scenario_placements_count),
        cmocka_unit_test(test_scenario_nested_repeats_refused_before_expanding),
        cmocka_unit_test(test_scenario_limits_are_limit_errors),
        cmocka_unit_test(test_scenario_ilp_field),
        cmocka_unit_test(test_read_file_limit_holds),
        cmocka_unit_test(test_scenario_write_errors_leave_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
