/* test_graph.c -- CUDA graph ops: the scenario format (loader errors,
 * writer round trip), the engine (one host call, root latency, node
 * spacing by transition, parallel branches, resident-grid slots, MPS
 * client costs, faults), the importers (Kineto and nsys SQLite graph
 * launches, dependencies from the timeline) and identity replay of the
 * committed H100 graph and eager traces (regression: 3% of the makespan,
 * 2% of the span per op).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "../import/import.h"
#include "../import/replay.h"
#include "engine.h"
#include "error.h"
#include "gpu_model.h"
#include "scenario.h"
#include "testutil.h"

#define SRC HQSIM_SOURCE_DIR "/"

/* ------------------------------------------------------------------------
 * Scenario format
 * ------------------------------------------------------------------------ */

#define HEAD                                                                   \
    "{\"hqsim_scenario\": 1, \"processes\": [{\"name\": \"p\",\n"              \
    "\"streams\": [{\"name\": \"s\"}], \"ops\": [\n"
#define TAIL "\n]}]}"
#define K(extra)                                                               \
    "{\"op\": \"kernel\", \"name\": \"k\", \"grid\": 1, \"block\": 32, "       \
    "\"duration_us\": 10" extra "}"

static void expect_load_error(const char *text, const char *const *parts)
{
    g_autoptr(GError) error = NULL;
    SimScenario *sc = sim_scenario_parse("g.json", text, strlen(text), &error);
    if (sc) {
        sim_scenario_free(sc);
        fail_msg("accepted: %s", text);
    }
    for (const char *const *p = parts; *p; p++)
        if (!strstr(error->message, *p))
            fail_msg("error '%s' lacks '%s'", error->message, *p);
}

static void test_load_graph(void **state)
{
    (void)state;
    const char *text = HEAD
        "{\"op\": \"graph\", \"stream\": \"s\", \"api_us\": 5, \"nodes\": "
        "[\n" K(", \"id\": \"a\"") ",\n" K(
            "") ",\n"
                "{\"op\": \"memset\", \"id\": \"m\", \"after\": [\"a\"], "
                "\"bytes\": 64, "
                "\"duration_us\": 1},\n"
                "{\"op\": \"copy\", \"after\": [], \"dir\": \"d2d\", "
                "\"bytes\": 8},\n" K(", \"after\": [\"m\", \"a\"]") "]}" TAIL;
    g_autoptr(GError) error = NULL;
    SimScenario *sc = sim_scenario_parse("g.json", text, strlen(text), &error);
    if (!sc)
        fail_msg("%s", error->message);
    const SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    assert_int_equal(p->n_ops, 1);
    const SimOp *op = &p->ops[0];
    assert_int_equal(op->kind, SIM_OP_GRAPH);
    assert_int_equal(op->api_ns, 5000);
    const SimGraph *g = op->u.graph;
    assert_int_equal(g->n_nodes, 5);
    assert_int_equal(g->n_kernels, 3);
    /* node 1: default chain after node 0; node 3: a root; node 4: two */
    assert_int_equal(g->nodes[1].n_deps, 1);
    assert_int_equal(g->nodes[1].deps[0], 0);
    assert_int_equal(g->nodes[2].kind, SIM_NODE_MEMSET);
    assert_int_equal(g->nodes[2].op.u.copy.dir, SIM_COPY_D2D);
    assert_int_equal(g->nodes[3].n_deps, 0);
    assert_int_equal(g->nodes[3].kind, SIM_NODE_COPY);
    assert_int_equal(g->nodes[4].n_deps, 2);
    assert_int_equal(g->nodes[4].deps[0], 2);
    assert_int_equal(g->nodes[4].deps[1], 0);
    /* successors of node 0: 1 and 2 and 4 */
    assert_int_equal(g->succ_off[1] - g->succ_off[0], 3);
    assert_string_equal(g->nodes[0].id, "a");
    sim_scenario_free(sc);
}

/* The JSON pieces below read as the file they build. */
/* clang-format off */
static void test_load_graph_errors(void **state)
{
    (void)state;
    /* a cycle: a after b, b after a (line 3) */
    expect_load_error(
        HEAD "{\"op\": \"graph\", \"stream\": \"s\", \"nodes\": [\n"
        K(", \"id\": \"a\", \"after\": [\"b\"]") ",\n"
        K(", \"id\": \"b\", \"after\": [\"a\"]") "]}" TAIL,
        (const char *const[]){"g.json:", "field 'after'", "cycle", NULL});
    expect_load_error(
        HEAD "{\"op\": \"graph\", \"stream\": \"s\", \"nodes\": [\n"
        K(", \"id\": \"a\"") ",\n" K(", \"after\": [\"zz\"]") "]}" TAIL,
        (const char *const[]){"g.json:5:", "field 'after'",
                              "no node with id 'zz'", NULL});
    expect_load_error(
        HEAD "{\"op\": \"graph\", \"stream\": \"s\", \"nodes\": [\n"
        K(", \"id\": \"a\"") ",\n" K(", \"id\": \"a\"") "]}" TAIL,
        (const char *const[]){"g.json:5:", "field 'id'", "'a'", NULL});
    expect_load_error(
        HEAD "{\"op\": \"graph\", \"stream\": \"s\", \"nodes\": [\n"
        "{\"op\": \"memset\", \"bytes\": 4, \"dir\": \"h2d\"}]}" TAIL,
        (const char *const[]){"g.json:", "dir", NULL});
    expect_load_error(
        HEAD "{\"op\": \"graph\", \"stream\": \"s\", \"nodes\": [\n"
        K(", \"stream\": \"s\"") "]}" TAIL,
        (const char *const[]){"g.json:", "stream", NULL});
    expect_load_error(HEAD "{\"op\": \"graph\", \"stream\": \"s\", "
                           "\"nodes\": []}" TAIL,
                      (const char *const[]){"g.json:", "field 'nodes'", NULL});
    expect_load_error(
        HEAD "{\"op\": \"graph\", \"stream\": \"s\", \"nodes\": [\n"
        "{\"op\": \"event_record\"}]}" TAIL,
        (const char *const[]){"g.json:", "op", NULL});
    expect_load_error(
        HEAD "{\"op\": \"graph\", \"stream\": \"s\", \"nodes\": [\n"
        K(", \"after\": [\"a\", \"a\"], \"id\": \"a\"") "]}" TAIL,
        (const char *const[]){"g.json:", "field 'after'", NULL});
}
/* clang-format on */

/* The bundled example: written, read back, written again, the same. */
static void test_write_roundtrip(void **state)
{
    (void)state;
    g_autoptr(GError) error = NULL;
    SimScenario *sc =
        sim_scenario_load(SRC "traces/graph-inference.json", &error);
    if (!sc)
        fail_msg("%s", error->message);
    g_autofree char *a = sim_scenario_to_json(sc);
    assert_non_null(strstr(a, "\"after\": [\"attn_out\", \"mlp_down\", "
                              "\"zero_acc\"]"));
    SimScenario *b = sim_scenario_parse("b.json", a, strlen(a), &error);
    if (!b)
        fail_msg("%s\n%s", error->message, a);
    g_autofree char *a2 = sim_scenario_to_json(b);
    assert_string_equal(a, a2);
    /* a copy (--processes N) keeps the graphs */
    SimScenario *c = sim_scenario_copy(b);
    sim_scenario_replicate_process(c, 0, 3);
    g_autofree char *a3 = sim_scenario_to_json(c);
    assert_non_null(strstr(a3, "\"zero_acc\""));
    sim_scenario_free(c);
    sim_scenario_free(b);
    sim_scenario_free(sc);
}

/* ------------------------------------------------------------------------
 * Engine
 * ------------------------------------------------------------------------ */

/* A test GPU with round graph parameters. */
static GpuModel *graph_model(void)
{
    GpuModel *m = test_model(4);
    m->submit_latency_ns = 1000;
    m->kernel_launch_latency_ns = 2000;
    m->launch_api_ns = 4000;
    m->graph_launch_api_ns = 3000;
    m->graph_node_api_ns = 100;
    m->graph_launch_latency_ns = 500;
    m->graph_wait_latency_ns = 2500;
    m->graph_node_spacing_ns = 400;
    m->graph_node_spacing_sliced_ns = 400;
    m->graph_to_memset_ns = 1000;
    m->graph_from_memset_ns = 3000;
    m->graph_memset_slow_max_bytes = 4096;
    m->graph_branch_stagger_ns = 200;
    return m;
}

static SimGraphNode node_kernel(uint32_t stream, const char *name, SimTime dur)
{
    SimGraphNode n;
    memset(&n, 0, sizeof n);
    n.op = test_kernel(stream, name, 1, 32, dur);
    n.kind = SIM_NODE_KERNEL;
    return n;
}

/* The op launching @g on stream 0, once its nodes are in (the graph is
 * finished here and must be valid). */
static SimOp graph_op(SimGraph *g)
{
    uint32_t bad;
    assert_true(sim_graph_finish(g, &bad));
    SimOp op = test_simple(SIM_OP_GRAPH, 0, 0);
    op.u.graph = g;
    return op;
}

/* A stream synchronize of no host cost at the end of @p's ops. */
static void add_free_sync(SimProcessSpec *p)
{
    SimOp sync = test_simple(SIM_OP_STREAM_SYNC, 0, 0);
    sync.api_ns = 0;
    sim_process_add_op(p, &sync);
}

static SimGraphNode node_memset(uint32_t stream, uint64_t bytes, SimTime dur)
{
    SimGraphNode n;
    memset(&n, 0, sizeof n);
    n.op = test_copy(stream, SIM_COPY_D2D, bytes, true);
    n.op.u.copy.duration_ns = dur;
    n.kind = SIM_NODE_MEMSET;
    return n;
}

/* Graph: a(10) -> {b(20), c(5) -> m(memset 2)} -> d(10) after b and m;
 * the memset sets @memset_bytes. */
static SimScenario *fork_join_memset(uint64_t memset_bytes)
{
    SimScenario *sc = sim_scenario_new("fork", "hqsim");
    SimProcessSpec *p = test_process(sc, "p", 1);
    SimGraph *g = sim_scenario_new_graph(sc);
    SimGraphNode a = node_kernel(0, "a", SIM_US(10));
    SimGraphNode b = node_kernel(0, "b", SIM_US(20));
    SimGraphNode c = node_kernel(0, "c", SIM_US(5));
    SimGraphNode mm = node_memset(0, memset_bytes, SIM_US(2));
    SimGraphNode d = node_kernel(0, "d", SIM_US(10));
    uint32_t zero = 0, two = 2, bd[2] = {1, 3};
    sim_graph_add_node(g, &a, NULL, 0);
    sim_graph_add_node(g, &b, &zero, 1);
    sim_graph_add_node(g, &c, &zero, 1);
    sim_graph_add_node(g, &mm, &two, 1);
    sim_graph_add_node(g, &d, bd, 2);
    SimOp op = graph_op(g);
    sim_process_add_op(p, &op);
    add_free_sync(p);
    return sc;
}

static SimScenario *fork_join(void)
{
    return fork_join_memset(64);
}

static const SimOpRecord *node_rec(const SimResult *r, uint32_t proc,
                                   uint32_t node)
{
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord, i);
        if (o->proc == proc && o->node == node && o->iteration == 0)
            return o;
    }
    fail_msg("no record of node %u", node);
    return NULL;
}

static void test_engine_fork_join(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = graph_model();
    g_autoptr(SimScenario) sc = fork_join();
    g_autoptr(SimResult) r = test_run(m, sc, SIM_SHARE_AS_SCENARIO);
    assert_non_null(r);
    /* host: 3 us + 5 nodes x 0.1 us; visible 1 us later; roots 0.5 us
     * after reaching an idle queue head */
    SimTime t0 = 3500 + 1000 + 500;
    const SimOpRecord *a = node_rec(r, 0, 0), *b = node_rec(r, 0, 1),
                      *c = node_rec(r, 0, 2), *mm = node_rec(r, 0, 3),
                      *d = node_rec(r, 0, 4);
    assert_int_equal(a->issue_ns, 3500);
    assert_int_equal(a->start_ns, t0);
    assert_int_equal(a->end_ns, t0 + SIM_US(10));
    /* b and c made ready by a at once: 0.4 us spacing, 0.2 us apart */
    assert_int_equal(b->start_ns, a->end_ns + 400);
    assert_int_equal(c->start_ns, a->end_ns + 400 + 200);
    assert_int_equal(b->end_ns, b->start_ns + SIM_US(20)); /* in parallel */
    /* kernel -> memset 1 us; d after b (kernel, 0.4) and m (memset, 3) */
    assert_int_equal(mm->start_ns, c->end_ns + 1000);
    assert_int_equal(mm->end_ns, mm->start_ns + SIM_US(2));
    SimTime ready = MAX(b->end_ns + 400, mm->end_ns + 3000);
    assert_int_equal(d->start_ns, ready);
    assert_string_equal(mm->name, "memset");
    /* the stream sync returns when the graph's last node ends */
    assert_int_equal(r->procs[0].end_ns, d->end_ns);
    assert_int_equal(r->procs[0].kernels, 4);
}

/* A memset node above graph_memset_slow_max_bytes (4 KiB here, as
 * measured on an H100: FINDINGS.md §35) is entered and left like a kernel
 * node; one of exactly the limit keeps the memset spacings. */
static void test_engine_large_memset_spacing(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = graph_model();
    static const struct {
        uint64_t bytes;
        SimTime before, after;
    } cases[] = {{4096, 1000, 3000}, {4097, 400, 400}, {16384, 400, 400}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(SimScenario) sc = fork_join_memset(cases[i].bytes);
        g_autoptr(SimResult) r = test_run(m, sc, SIM_SHARE_AS_SCENARIO);
        assert_non_null(r);
        const SimOpRecord *b = node_rec(r, 0, 1), *c = node_rec(r, 0, 2),
                          *mm = node_rec(r, 0, 3), *d = node_rec(r, 0, 4);
        assert_int_equal(mm->start_ns, c->end_ns + cases[i].before);
        assert_int_equal(d->start_ns,
                         MAX(b->end_ns + 400, mm->end_ns + cases[i].after));
    }
}

/* An unprofiled graph (--host-scale on a trace: FINDINGS §61) spaces its
 * small memset nodes as kernel nodes: the memset spacings were measured
 * under CUPTI, and resnet50 b1's unprofiled span has no room for them. */
static void test_engine_unprofiled_memset_spacing(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = graph_model();
    for (int unprof = 0; unprof < 2; unprof++) {
        g_autoptr(SimScenario) sc = fork_join_memset(64);
        ((SimGraph *)g_ptr_array_index(sc->graphs, 0))->unprofiled = unprof;
        g_autoptr(SimResult) r = test_run(m, sc, SIM_SHARE_AS_SCENARIO);
        assert_non_null(r);
        const SimOpRecord *b = node_rec(r, 0, 1), *c = node_rec(r, 0, 2),
                          *mm = node_rec(r, 0, 3), *d = node_rec(r, 0, 4);
        SimTime before = unprof ? 400 : 1000, after = unprof ? 400 : 3000;
        assert_int_equal(mm->start_ns, c->end_ns + before);
        assert_int_equal(d->start_ns, MAX(b->end_ns + 400, mm->end_ns + after));
    }
}

/* Two contexts time-sliced, each launching a chain a -> b: the first
 * holder's graph runs before any switch (graph_node_spacing); the second
 * runs after the GPU has switched contexts (graph_node_spacing_sliced, as
 * measured on an H100, FINDINGS.md §33).  As MPS clients they share one
 * context, which never switches: both keep graph_node_spacing. */
static SimScenario *two_chains(void)
{
    SimScenario *sc = sim_scenario_new("chains", "hqsim");
    for (int i = 0; i < 2; i++) {
        SimProcessSpec *p = test_process(sc, i ? "q" : "p", 1);
        SimGraph *g = sim_scenario_new_graph(sc);
        SimGraphNode a = node_kernel(0, "a", SIM_US(10));
        SimGraphNode b = node_kernel(0, "b", SIM_US(10));
        uint32_t zero = 0;
        sim_graph_add_node(g, &a, NULL, 0);
        sim_graph_add_node(g, &b, &zero, 1);
        SimOp op = graph_op(g);
        sim_process_add_op(p, &op);
        add_free_sync(p);
    }
    return sc;
}

static void test_engine_sliced_spacing(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = graph_model();
    m->graph_node_spacing_sliced_ns = 100;
    g_autoptr(SimScenario) sc = two_chains();
    g_autoptr(SimResult) ts = test_run(m, sc, SIM_SHARE_TIMESLICE);
    assert_non_null(ts);
    assert_int_equal(ts->context_switches, 1);
    /* p held the GPU from the start: no switch before its graph */
    assert_int_equal(node_rec(ts, 0, 1)->start_ns,
                     node_rec(ts, 0, 0)->end_ns + 400);
    /* q ran after the switch */
    assert_true(node_rec(ts, 1, 0)->start_ns > node_rec(ts, 0, 1)->end_ns);
    assert_int_equal(node_rec(ts, 1, 1)->start_ns,
                     node_rec(ts, 1, 0)->end_ns + 100);
    /* as MPS clients they share one context: never switched */
    g_autoptr(SimResult) mps = test_run(m, sc, SIM_SHARE_MPS);
    assert_non_null(mps);
    assert_int_equal(mps->context_switches, 0);
    for (uint32_t i = 0; i < 2; i++)
        assert_int_equal(node_rec(mps, i, 1)->start_ns,
                         node_rec(mps, i, 0)->end_ns + 400);
}

/* A graph behind a kernel of its stream: its roots start the wait
 * latency after the kernel ends; a kernel behind the graph waits for its
 * last node.  Two graph launches in a row, the same. */
static void test_engine_stream_order(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = graph_model();
    g_autoptr(SimScenario) sc = sim_scenario_new("order", "hqsim");
    SimProcessSpec *p = test_process(sc, "p", 1);
    SimOp k = test_kernel(0, "first", 1, 32, SIM_US(50));
    sim_process_add_op(p, &k);
    SimGraph *g = sim_scenario_new_graph(sc);
    SimGraphNode x = node_kernel(0, "x", SIM_US(10));
    sim_graph_add_node(g, &x, NULL, 0);
    SimOp op = graph_op(g);
    sim_process_add_op(p, &op);
    sim_process_add_op(p, &op);
    SimOp after = test_kernel(0, "after", 1, 32, SIM_US(1));
    sim_process_add_op(p, &after);
    g_autoptr(SimResult) r = test_run(m, sc, SIM_SHARE_AS_SCENARIO);
    assert_non_null(r);
    const SimOpRecord *first = test_op(r, 0, 0);
    const SimOpRecord *g1 = test_op(r, 0, 1), *g2 = test_op(r, 0, 2);
    const SimOpRecord *last = test_op(r, 0, 3);
    assert_int_equal(g1->start_ns, first->end_ns + 2500);
    assert_int_equal(g2->start_ns, g1->end_ns + 2500);
    assert_int_equal(last->start_ns, g2->end_ns + 2000);
}

/* 130 parallel kernel nodes on a GPU with 128 resident-grid slots: two of
 * them wait for a slot, and start when the first ones end. */
static void test_engine_grid_slots(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = graph_model();
    m->graph_branch_stagger_ns = 0;
    g_autoptr(SimScenario) sc = sim_scenario_new("slots", "hqsim");
    SimProcessSpec *p = test_process(sc, "p", 1);
    SimGraph *g = sim_scenario_new_graph(sc);
    for (int i = 0; i < 130; i++) {
        SimGraphNode n = node_kernel(0, "w", SIM_US(100 + i));
        sim_graph_add_node(g, &n, NULL, 0);
    }
    SimOp op = graph_op(g);
    sim_process_add_op(p, &op);
    g_autoptr(SimResult) r = test_run(m, sc, SIM_SHARE_AS_SCENARIO);
    assert_non_null(r);
    SimTime t0 = node_rec(r, 0, 0)->start_ns;
    for (uint32_t i = 0; i < 128; i++)
        assert_int_equal(node_rec(r, 0, i)->start_ns, t0);
    /* node 0 (100 us) frees the first slot, node 1 the second */
    assert_int_equal(node_rec(r, 0, 128)->start_ns, node_rec(r, 0, 0)->end_ns);
    assert_int_equal(node_rec(r, 0, 129)->start_ns, node_rec(r, 0, 1)->end_ns);
}

/* An MPS client pays the model's extra per call, sync, launch and node. */
static void test_engine_mps_costs(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = graph_model();
    m->sync_api_ns = 1000;
    m->mps_client_api_ns = 700;
    m->mps_client_sync_ns = 300;
    m->mps_client_launch_ns = 250;
    m->mps_client_node_ns = 50;
    m->mps_client_kernel_ns = 100;
    g_autoptr(SimScenario) sc = fork_join();
    SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    p->ops[1].api_ns = SIM_TIME_NEVER; /* the model's sync time */
    SimOp k = test_kernel(0, "eager", 2, 32, SIM_US(1));
    sim_process_add_op(p, &k);
    g_autoptr(SimResult) a = test_run(m, sc, SIM_SHARE_TIMESLICE);
    g_autoptr(SimResult) b = test_run(m, sc, SIM_SHARE_MPS);
    assert_non_null(a);
    assert_non_null(b);
    /* graph call +0.7 us */
    assert_int_equal(node_rec(b, 0, 0)->issue_ns,
                     node_rec(a, 0, 0)->issue_ns + 700);
    /* a -> b: one spacing +0.05 us; b has one block: no kernel cost */
    assert_int_equal(node_rec(b, 0, 1)->start_ns - node_rec(b, 0, 0)->end_ns,
                     node_rec(a, 0, 1)->start_ns - node_rec(a, 0, 0)->end_ns +
                         50);
    /* the eager kernel (2 blocks) after the sync: sync +0.3, call +0.7,
     * launch latency +0.25, kernel +0.1 */
    const SimOpRecord *ka = test_op(a, 0, 2), *kb = test_op(b, 0, 2);
    SimTime da = ka->start_ns - node_rec(a, 0, 4)->end_ns;
    SimTime db = kb->start_ns - node_rec(b, 0, 4)->end_ns;
    assert_int_equal(db, da + 300 + 700 + 250 + 100);
}

/* Function names for kernels cycling through up to 20 functions (more
 * than an LRU of SIM_MAX_FUNC_LRU holds). */
static const char *const fn_names[] = {
    "f0",  "f1",  "f2",  "f3",  "f4",  "f5",  "f6",  "f7",  "f8",  "f9",
    "f10", "f11", "f12", "f13", "f14", "f15", "f16", "f17", "f18", "f19"};

/* Kernel @k as node @j of the chain @g (after node j - 1), or without a
 * graph as the next stream op of @p. */
static void chain_add(SimProcessSpec *p, SimGraph *g, const SimOp *k,
                      uint32_t j)
{
    if (!g) {
        sim_process_add_op(p, k);
        return;
    }
    SimGraphNode nd;
    memset(&nd, 0, sizeof nd);
    nd.op = *k;
    nd.kind = SIM_NODE_KERNEL;
    uint32_t prev = j - 1;
    sim_graph_add_node(g, &nd, j ? &prev : NULL, j ? 1 : 0);
}

/* Ends @p's ops: its chain @g launched (if any), then a free sync. */
static void chain_end(SimProcessSpec *p, SimGraph *g)
{
    if (g) {
        SimOp op = graph_op(g);
        sim_process_add_op(p, &op);
    }
    add_free_sync(p);
}

/* wp (FINDINGS §31 addendum): @n chained graph nodes alternating a 1-block
 * writer (2 us) and a @wide-block probe (1 us, @probe_bytes of DRAM),
 * node j running function j mod @F; as stream kernels with @stream. */
static SimScenario *wp_scenario(uint32_t n, uint32_t F, uint32_t wide,
                                uint64_t probe_bytes, bool stream)
{
    SimScenario *sc = sim_scenario_new("wp", "hqsim");
    SimProcessSpec *p = test_process(sc, "p", 1);
    SimGraph *g = stream ? NULL : sim_scenario_new_graph(sc);
    for (uint32_t j = 0; j < n; j++) {
        bool probe = j % 2;
        SimOp k = test_kernel(0, fn_names[j % F], probe ? wide : 1, 32,
                              SIM_US(probe ? 1 : 2));
        k.api_ns = 0;
        if (probe)
            k.u.kernel.dram_bytes = probe_bytes;
        chain_add(p, g, &k, j);
    }
    chain_end(p, g);
    return sc;
}

/* Start of kernel @j minus the end of kernel @j - 1 (graph node or stream
 * op), MPS client minus own context. */
static int64_t wp_extra(const SimResult *a, const SimResult *b, uint32_t j,
                        bool stream)
{
    const SimOpRecord *a0 =
        stream ? test_op(a, 0, j - 1) : node_rec(a, 0, j - 1);
    const SimOpRecord *a1 = stream ? test_op(a, 0, j) : node_rec(a, 0, j);
    const SimOpRecord *b0 =
        stream ? test_op(b, 0, j - 1) : node_rec(b, 0, j - 1);
    const SimOpRecord *b1 = stream ? test_op(b, 0, j) : node_rec(b, 0, j);
    return ((int64_t)b1->start_ns - (int64_t)b0->end_ns) -
           ((int64_t)a1->start_ns - (int64_t)a0->end_ns);
}

static GpuModel *fetch_model(void)
{
    GpuModel *m = graph_model();
    m->mps_func_fetch_ns = 1000;
    const double w[] = {0, 0, 0, 0, 0.13, 0.25, 0.6, 1};
    memcpy(m->mps_func_lru_weight, w, sizeof w);
    m->n_mps_func_lru_weight = G_N_ELEMENTS(w);
    return m;
}

/* The function fetch: a graph probe of >= 2 blocks after the client's
 * 1-block kernel pays mps_func_fetch x w(d); nothing else does. */
static void test_engine_mps_fetch(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = fetch_model();
    struct {
        uint32_t F, wide;
        bool stream;
        SimTime probe, late_probe; /* first probe (function new), node 9 */
    } cases[] = {
        {8, 4, false, 1000, 1000}, /* d = 7: all of it */
        {4, 4, false, 1000, 0},    /* d = 3: nothing once seen */
        {6, 4, false, 1000, 250},  /* node 9 (f3) last ran at node 3: d = 5 */
        {8, 1, false, 0, 0},       /* 1-block probes pay nothing */
        {8, 4, true, 0, 0},        /* stream launches: no fetch */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(SimScenario) sc =
            wp_scenario(16, cases[i].F, cases[i].wide, 0, cases[i].stream);
        g_autoptr(SimResult) a = test_run(m, sc, SIM_SHARE_TIMESLICE);
        g_autoptr(SimResult) b = test_run(m, sc, SIM_SHARE_MPS);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(wp_extra(a, b, 1, cases[i].stream), cases[i].probe);
        assert_int_equal(wp_extra(a, b, 9, cases[i].stream),
                         cases[i].late_probe);
        for (uint32_t j = 2; j < 16; j += 2) /* writers never pay */
            assert_int_equal(wp_extra(a, b, j, cases[i].stream), 0);
    }
}

/* A wide kernel after a wide one pays no fetch, and mps_client_kernel is
 * paid by every kernel of >= 2 blocks, stream or graph. */
static void test_engine_mps_fetch_needs_narrow(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = fetch_model();
    m->mps_client_kernel_ns = 100;
    g_autoptr(SimScenario) sc = wp_scenario(16, 8, 4, 0, false);
    SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    const SimGraph *g = p->ops[0].u.graph;
    for (uint32_t j = 0; j < g->n_nodes; j += 2) /* writers 2 blocks too */
        ((SimGraphNode *)&g->nodes[j])->op.u.kernel.grid[0] = 2;
    g_autoptr(SimResult) a = test_run(m, sc, SIM_SHARE_TIMESLICE);
    g_autoptr(SimResult) b = test_run(m, sc, SIM_SHARE_MPS);
    assert_non_null(a);
    assert_non_null(b);
    for (uint32_t j = 1; j < 16; j++)
        assert_int_equal(wp_extra(a, b, j, false), 100);
}

/* The fetch grows with the loaded DRAM latency L(P) at the probe's own
 * pressure alone: share 1/2 of B with n = 2 is r = 0.5 / sqrt(0.75), L =
 * sqrt(1 + r^2). */
static void test_engine_mps_fetch_dram(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = fetch_model();
    m->dram_achievable_gbps = 1000;
    m->dram_bandwidth_gbps = 1000;
    m->dram_curve_exponent = 2;
    /* 500 kB in its 1 us alone: 500 GB/s */
    g_autoptr(SimScenario) sc = wp_scenario(16, 8, 4, 500000, false);
    g_autoptr(SimResult) a = test_run(m, sc, SIM_SHARE_TIMESLICE);
    g_autoptr(SimResult) b = test_run(m, sc, SIM_SHARE_MPS);
    assert_non_null(a);
    assert_non_null(b);
    double r = 0.5 / sqrt(0.75);
    int64_t want = llround(1000 * sqrt(1 + r * r));
    assert_int_equal(want, 1155);
    assert_int_equal(wp_extra(a, b, 9, false), want);
}

/* @n chained 1 us kernels of @grid blocks, kernel j running function j mod
 * @F, as graph nodes or (@stream) stream kernels. */
static SimScenario *cycle_scenario(uint32_t n, uint32_t F, uint32_t grid,
                                   bool stream)
{
    SimScenario *sc = sim_scenario_new("cycle", "hqsim");
    SimProcessSpec *p = test_process(sc, "p", 1);
    SimGraph *g = stream ? NULL : sim_scenario_new_graph(sc);
    for (uint32_t j = 0; j < n; j++) {
        SimOp k = test_kernel(0, fn_names[j % F], grid, 32, SIM_US(1));
        k.api_ns = 0;
        chain_add(p, g, &k, j);
    }
    chain_end(p, g);
    return sc;
}

/* mps_func_evict (FINDINGS §55): a graph kernel node of any width whose
 * function is at LRU distance >= mps_func_evict_lru in its client pays it,
 * as does one no longer among the client's last SIM_MAX_FUNC_LRU functions;
 * a function's first run while fewer than SIM_MAX_FUNC_LRU ran, a nearer
 * function and stream launches pay nothing.  A first run once that many
 * ran pays too: the LRU cannot tell it from an evicted function. */
static void test_engine_mps_func_evict(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = graph_model();
    m->mps_func_evict_ns = 1000;
    m->mps_func_evict_lru = 8;
    struct {
        uint32_t F, grid;
        bool stream;
        SimTime pays; /* every kernel after the first min(F, 16) */
    } cases[] = {
        {16, 1, false, 1000}, /* d = 15 */
        {9, 1, false, 1000},  /* d = 8: the first distance that pays */
        {8, 1, false, 0},     /* d = 7 */
        {20, 1, false, 1000}, /* beyond the LRU (first runs 17..20 too) */
        {16, 4, false, 1000}, /* any width */
        {16, 1, true, 0},     /* stream launches */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(SimScenario) sc =
            cycle_scenario(40, cases[i].F, cases[i].grid, cases[i].stream);
        g_autoptr(SimResult) a = test_run(m, sc, SIM_SHARE_TIMESLICE);
        g_autoptr(SimResult) b = test_run(m, sc, SIM_SHARE_MPS);
        assert_non_null(a);
        assert_non_null(b);
        for (uint32_t j = 1; j < 40; j++)
            assert_int_equal(
                wp_extra(a, b, j, cases[i].stream),
                j < MIN(cases[i].F, SIM_MAX_FUNC_LRU) ? 0 : cases[i].pays);
    }
}

/* Two MPS clients: the wp neighbour (64 nodes, @F functions) and a
 * victim, a graph of 6 chained 1-block 10 us nodes of one function. */
static SimScenario *xreload_scenario(uint32_t F)
{
    SimScenario *sc = wp_scenario(64, F, 4, 0, false);
    SimProcessSpec *v = test_process(sc, "v", 1);
    SimGraph *g = sim_scenario_new_graph(sc);
    for (uint32_t j = 0; j < 6; j++) {
        SimOp k = test_kernel(0, "v", 1, 32, SIM_US(10));
        k.api_ns = 0;
        chain_add(v, g, &k, j);
    }
    chain_end(v, g);
    return sc;
}

/* A fetch in one MPS client holds up the others: every victim node after
 * the first follows the neighbour's fetches (w = 1 at d = 7, L = 1: ~3 in
 * each 10 us gap) and starts mps_func_xreload later, once whatever the
 * number of fetches; a neighbour on one function fetches nothing, and the
 * victim's own context (time-slicing) pays nothing. */
static void test_engine_mps_xreload(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m0 = fetch_model();
    g_autoptr(GpuModel) m1 = fetch_model();
    m1->mps_func_xreload_ns = 700;
    for (uint32_t F = 1; F <= 8; F += 7) {
        g_autoptr(SimScenario) sc = xreload_scenario(F);
        g_autoptr(SimResult) a = test_run(m0, sc, SIM_SHARE_MPS);
        g_autoptr(SimResult) b = test_run(m1, sc, SIM_SHARE_MPS);
        g_autoptr(SimResult) ta = test_run(m0, sc, SIM_SHARE_TIMESLICE);
        g_autoptr(SimResult) tb = test_run(m1, sc, SIM_SHARE_TIMESLICE);
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(ta);
        assert_non_null(tb);
        for (uint32_t j = 1; j < 6; j++) {
            int64_t ga = (int64_t)node_rec(a, 1, j)->start_ns -
                         (int64_t)node_rec(a, 1, j - 1)->end_ns;
            int64_t gb = (int64_t)node_rec(b, 1, j)->start_ns -
                         (int64_t)node_rec(b, 1, j - 1)->end_ns;
            assert_int_equal(gb - ga, F == 8 ? 700 : 0);
            assert_int_equal(node_rec(tb, 1, j)->start_ns,
                             node_rec(ta, 1, j)->start_ns);
        }
    }
}

/* Two MPS clients: a neighbour running one 1-block kernel of @busy_us (from
 * t = 0; @copy: a pinned copy of ~busy_us instead, GPU work issued but no
 * kernel), and a victim from 5 us on, 16 chained 1-block 2 us kernels on
 * functions f(j mod F), as graph nodes or stream launches. */
static SimScenario *busy_scenario(uint32_t F, bool stream, uint32_t busy_us,
                                  bool copy)
{
    SimScenario *sc = sim_scenario_new("busy", "hqsim");
    SimProcessSpec *n = test_process(sc, "n", 1);
    SimOp nk = copy ? test_copy(0, SIM_COPY_H2D, (uint64_t)busy_us << 14, true)
                    : test_kernel(0, "n", 1, 32, SIM_US(busy_us));
    nk.api_ns = 0;
    sim_process_add_op(n, &nk);
    add_free_sync(n);
    SimProcessSpec *v = test_process(sc, "v", 1);
    v->start_ns = SIM_US(5);
    SimGraph *g = stream ? NULL : sim_scenario_new_graph(sc);
    for (uint32_t j = 0; j < 16; j++) {
        SimOp k = test_kernel(0, fn_names[j % F], 1, 32, SIM_US(2));
        k.api_ns = 0;
        chain_add(v, g, &k, j);
    }
    chain_end(v, g);
    return sc;
}

/* The reload beside a busy client (FINDINGS §43, §52): while the
 * neighbour's kernel runs, each victim graph node pays mps_func_busy x
 * w(D), D among the server's (client, function) pairs: a new function
 * w = 1, f(j) again at F = 8 D = 7 (w = 1), at F = 4 D = 3 (w = 0);
 * 1-block nodes pay too.  A neighbour with no work issued, one with only a
 * copy on the GPU (no kernel running), stream launches and the victim's
 * own context (time-slicing) pay nothing. */
static void test_engine_mps_busy_reload(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m0 = fetch_model();
    g_autoptr(GpuModel) m1 = fetch_model();
    m1->mps_func_busy_ns = 500;
    struct {
        uint32_t F, busy_us;
        bool stream, copy;
        SimTime first, again; /* nodes 1..F-1, nodes F..15 */
    } cases[] = {
        {8, 1000, false, false, 500, 500},
        {4, 1000, false, false, 500, 0},
        /* the neighbour done before the victim starts */
        {8, 1, false, false, 0, 0},
        {8, 1000, true, false, 0, 0},
        {8, 1000, false, true, 0, 0}, /* a copy issued, no kernel */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(SimScenario) sc = busy_scenario(
            cases[i].F, cases[i].stream, cases[i].busy_us, cases[i].copy);
        for (int ts = 0; ts < 2; ts++) {
            SimShareMode mode = ts ? SIM_SHARE_TIMESLICE : SIM_SHARE_MPS;
            g_autoptr(SimResult) a = test_run(m0, sc, mode);
            g_autoptr(SimResult) b = test_run(m1, sc, mode);
            assert_non_null(a);
            assert_non_null(b);
            for (uint32_t j = 1; j < 16; j++) {
                const SimOpRecord *a0 = cases[i].stream ? test_op(a, 1, j - 1)
                                                        : node_rec(a, 1, j - 1);
                const SimOpRecord *a1 =
                    cases[i].stream ? test_op(a, 1, j) : node_rec(a, 1, j);
                const SimOpRecord *b0 = cases[i].stream ? test_op(b, 1, j - 1)
                                                        : node_rec(b, 1, j - 1);
                const SimOpRecord *b1 =
                    cases[i].stream ? test_op(b, 1, j) : node_rec(b, 1, j);
                int64_t extra = ((int64_t)b1->start_ns - (int64_t)b0->end_ns) -
                                ((int64_t)a1->start_ns - (int64_t)a0->end_ns);
                SimTime want = j < cases[i].F ? cases[i].first : cases[i].again;
                assert_int_equal(extra, ts ? 0 : want);
            }
        }
    }
}

/* Two MPS clients on a 4-SM GPU with DRAM shared: a neighbour running one
 * kernel of @nb_blocks blocks for 1 ms from t = 0 (@dram: reading 0.6 GB,
 * 600 GB/s, so its pressure is r = 0.6 / (1 - 0.36)^(1/2) = 0.75 with
 * the test models' curve; else compute-only), and a victim from 5 us on,
 * 8 chained 1-block kernels of @dur without DRAM demand, as graph nodes or
 * stream launches, @fixed: wall-clock ones (a timer spin), of measured
 * issue share @si (0: none). */
static SimScenario *memload_scenario(uint32_t nb_blocks, bool dram, bool stream,
                                     bool fixed, SimTime dur, double si)
{
    SimScenario *sc = sim_scenario_new("memload", "hqsim");
    SimProcessSpec *n = test_process(sc, "n", 1);
    SimOp nk = test_kernel(0, "n", nb_blocks, 32, SIM_US(1000));
    nk.api_ns = 0;
    nk.u.kernel.dram_bytes = dram ? 600000000ull : 0;
    sim_process_add_op(n, &nk);
    add_free_sync(n);
    SimProcessSpec *v = test_process(sc, "v", 1);
    v->start_ns = SIM_US(5);
    SimGraph *g = stream ? NULL : sim_scenario_new_graph(sc);
    for (uint32_t j = 0; j < 8; j++) {
        SimGraphNode nd = node_kernel(0, "v", dur);
        nd.op.api_ns = 0;
        nd.op.u.kernel.wall_clock = fixed;
        nd.op.u.kernel.sm_intensity = si;
        if (stream) {
            sim_process_add_op(v, &nd.op);
            continue;
        }
        uint32_t prev = j - 1;
        sim_graph_add_node(g, &nd, j ? &prev : NULL, j ? 1 : 0);
    }
    if (g) {
        SimOp op = graph_op(g);
        sim_process_add_op(v, &op);
    }
    add_free_sync(v);
    return sc;
}

static GpuModel *memload_model(SimTime fend, SimTime mem, double half)
{
    GpuModel *m = graph_model();
    m->dram_achievable_gbps = 1000;
    m->dram_curve_exponent = 2;
    m->mps_fend_hold_ns = fend;
    m->mps_mem_load_ns = mem;
    m->mps_mem_load_half = half;
    return m;
}

/* Victim kernel j's end after kernel j - 1's end, minus the same in @a:
 * the wait whether it delays the start (the launch part) or lengthens
 * the kernel (the memory part, paid by its resident blocks). */
static int64_t memload_extra(const SimResult *a, const SimResult *b, bool st,
                             uint32_t j)
{
    const SimOpRecord *a0 = st ? test_op(a, 1, j - 1) : node_rec(a, 1, j - 1);
    const SimOpRecord *a1 = st ? test_op(a, 1, j) : node_rec(a, 1, j);
    const SimOpRecord *b0 = st ? test_op(b, 1, j - 1) : node_rec(b, 1, j - 1);
    const SimOpRecord *b1 = st ? test_op(b, 1, j) : node_rec(b, 1, j);
    return ((int64_t)b1->end_ns - (int64_t)b0->end_ns) -
           ((int64_t)a1->end_ns - (int64_t)a0->end_ns);
}

/* The memory part of the other clients' load (FINDINGS §54, §60): each
 * victim kernel, graph node or stream launch, starts mps_mem_load x R /
 * (R + half) later, R = 0.75 the neighbour's DRAM pressure whatever its
 * width: 1 us at half 0, 0.5 us at half 0.75; a compute-only neighbour,
 * the victim's own context (time-slicing) and a wall-clock victim (no
 * memory accesses of its own, FINDINGS §62) pay nothing. */
static void test_engine_mps_mem_load(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m0 = memload_model(0, 0, 0);
    struct {
        uint32_t blocks;
        bool dram, stream, fixed;
        double half;
        int64_t want;
    } cases[] = {
        {2, true, false, false, 0, 1000},
        {4, true, false, false, 0, 1000},
        {2, true, true, false, 0, 1000},
        {4, true, false, false, 0.75, 500},
        {2, true, true, false, 0.75, 500},
        {4, false, false, false, 0, 0}, /* compute-only */
        {2, true, false, true, 0, 0},   /* a wall-clock victim */
        {2, true, true, true, 0, 0},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GpuModel) m1 = memload_model(0, 1000, cases[i].half);
        g_autoptr(SimScenario) sc =
            memload_scenario(cases[i].blocks, cases[i].dram, cases[i].stream,
                             cases[i].fixed, SIM_US(2), 0);
        for (int ts = 0; ts < 2; ts++) {
            SimShareMode mode = ts ? SIM_SHARE_TIMESLICE : SIM_SHARE_MPS;
            g_autoptr(SimResult) a = test_run(m0, sc, mode);
            g_autoptr(SimResult) b = test_run(m1, sc, mode);
            assert_non_null(a);
            assert_non_null(b);
            for (uint32_t j = 1; j < 8; j++)
                assert_int_equal(memload_extra(a, b, cases[i].stream, j),
                                 ts ? 0 : cases[i].want);
        }
    }
}

/* The same wait per dependent memory round trip (FINDINGS §65): a victim
 * kernel also waits mps_mem_trip_share x its block's time alone x R / (R
 * + half), so in proportion to its length: 0.25 of a 2 us kernel is 0.5
 * us, of a 4 us one 1 us, on top of mps_mem_load; halved at half = R =
 * 0.75, and for a kernel whose SM issues half the ceiling's slots alone
 * (only the rest of its block's time waits on memory); nothing beside a
 * compute-only neighbour, for a wall-clock victim or time-sliced.  The wait is inside the kernel, its blocks resident
 * (FINDINGS §65: as a start delay the kernel found the neighbours' blocks
 * drained and spread wider): it starts as without the term. */
static void test_engine_mps_mem_trip(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m0 = memload_model(0, 0, 0);
    m0->sm_issue_share_max = 0.8;
    struct {
        SimTime dur, mem;
        bool dram, stream, fixed;
        double half, si;
        int64_t want;
    } cases[] = {
        {SIM_US(2), 0, true, false, false, 0, 0, 500},
        {SIM_US(4), 0, true, false, false, 0, 0, 1000},
        {SIM_US(4), 0, true, true, false, 0, 0, 1000},
        {SIM_US(2), 1000, true, false, false, 0, 0, 1500},
        {SIM_US(4), 0, true, true, false, 0.75, 0, 500},
        {SIM_US(4), 0, true, false, false, 0, 0.4, 500}, /* half issuing */
        {SIM_US(4), 0, true, true, false, 0, 0.4, 500},
        {SIM_US(4), 0, false, false, false, 0, 0, 0}, /* compute-only */
        {SIM_US(4), 0, true, false, true, 0, 0, 0},   /* a wall-clock victim */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GpuModel) m1 = memload_model(0, cases[i].mem, cases[i].half);
        m1->sm_issue_share_max = 0.8;
        m1->mps_mem_trip_share = 0.25;
        g_autoptr(SimScenario) sc =
            memload_scenario(2, cases[i].dram, cases[i].stream, cases[i].fixed,
                             cases[i].dur, cases[i].si);
        for (int ts = 0; ts < 2; ts++) {
            SimShareMode mode = ts ? SIM_SHARE_TIMESLICE : SIM_SHARE_MPS;
            g_autoptr(SimResult) a = test_run(m0, sc, mode);
            g_autoptr(SimResult) b = test_run(m1, sc, mode);
            assert_non_null(a);
            assert_non_null(b);
            for (uint32_t j = 1; j < 8; j++) {
                assert_int_equal(memload_extra(a, b, cases[i].stream, j),
                                 ts ? 0 : cases[i].want);
                const SimOpRecord *ra =
                    cases[i].stream ? test_op(a, 1, j) : node_rec(a, 1, j);
                const SimOpRecord *rb =
                    cases[i].stream ? test_op(b, 1, j) : node_rec(b, 1, j);
                assert_int_equal((int64_t)(rb->end_ns - rb->start_ns) -
                                     (int64_t)(ra->end_ns - ra->start_ns),
                                 ts ? 0 : cases[i].want);
            }
        }
    }
}

/* The L2 form of the per-trip wait (FINDINGS §67, §69): only the victim's
 * L2 hits that the neighbour's stream evicts before their reuse wait
 * longer.  R = 0.75 of B = 1000 GB/s: 750 GB/s; a 4 us block reusing its
 * lines over l2_reuse_share 1/3 of it sees X = 1 MB brought in, and with
 * l2_evict_mb = 1 / ln 2 (shape 1) half its hits are lost; each costs
 * l2_miss_ratio 3 - 1 = 2 hit latencies.  All-L2 (h 1): 0.5 x 2 / 1 = 1
 * trip's worth, the wait of mps_mem_trip_share 0.25 x 4 us = 1 us; h 0.5:
 * 0.5 x 0.5 x 2 / (0.5 + 0.5 x 3) = 0.25, 250 ns; from DRAM (h 0), no miss
 * penalty (ratio 1) or a compute-only neighbour: nothing; twice the
 * interval, X = 2 MB: 0.75 lost, 1.5 us; no ncu share: l2_served_default. */
static void test_engine_mps_mem_l2(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m0 = memload_model(0, 0, 0);
    struct {
        double h;     /* < 0: none measured */
        double reuse; /* l2_reuse_share */
        double ratio; /* l2_miss_ratio */
        bool dram;    /* the neighbour reads DRAM */
        int64_t want;
    } cases[] = {
        {1.0, 1.0 / 3, 3, true, 1000}, {0.5, 1.0 / 3, 3, true, 250},
        {0.0, 1.0 / 3, 3, true, 0},    {1.0, 1.0 / 3, 1, true, 0},
        {1.0, 1.0 / 3, 3, false, 0},   {1.0, 2.0 / 3, 3, true, 1500},
        {-1.0, 1.0 / 3, 3, true, 250}, /* the default, 0.5 */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GpuModel) m1 = memload_model(0, 0, 0);
        m1->mps_mem_trip_share = 0.25;
        m1->l2_evict_mb = 1.0 / log(2.0);
        m1->l2_evict_shape = 1.0;
        m1->l2_miss_ratio = cases[i].ratio;
        m1->l2_reuse_share = cases[i].reuse;
        m1->l2_served_default = 0.5;
        g_autoptr(SimScenario) sc =
            memload_scenario(2, cases[i].dram, false, false, SIM_US(4), 0);
        SimProcessSpec *v = g_ptr_array_index(sc->processes, 1);
        SimGraph *g = (SimGraph *)v->ops[0].u.graph;
        for (uint32_t j = 0; j < g->n_nodes && cases[i].h >= 0; j++) {
            g->nodes[j].op.u.kernel.l2_served = cases[i].h;
            g->nodes[j].op.u.kernel.has_l2_served = true;
        }
        g_autoptr(SimResult) a = test_run(m0, sc, SIM_SHARE_MPS);
        g_autoptr(SimResult) b = test_run(m1, sc, SIM_SHARE_MPS);
        assert_non_null(a);
        assert_non_null(b);
        for (uint32_t j = 1; j < 8; j++)
            assert_int_equal(memload_extra(a, b, false, j), cases[i].want);
    }
}

/* The launch front end (FINDINGS §54, §60): the neighbour's kernel,
 * launched at t_n, holds it mps_fend_hold = 20 us; the victim's first
 * stream kernel, launched at t_v < t_n + 20 us, waits the rest,
 * 20 us - (t_v - t_n), and its later kernels nothing (its own launches
 * hold nobody); time-sliced, nothing. */
static void test_engine_mps_fend_hold(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m0 = memload_model(0, 0, 0);
    g_autoptr(GpuModel) m1 = memload_model(SIM_US(20), 0, 0);
    g_autoptr(SimScenario) sc =
        memload_scenario(1, false, true, false, SIM_US(2), 0);
    for (int ts = 0; ts < 2; ts++) {
        SimShareMode mode = ts ? SIM_SHARE_TIMESLICE : SIM_SHARE_MPS;
        g_autoptr(SimResult) a = test_run(m0, sc, mode);
        g_autoptr(SimResult) b = test_run(m1, sc, mode);
        assert_non_null(a);
        assert_non_null(b);
        /* both kernels are stream launches: the same latency after
         * their launches, so their starts are apart as their launches */
        int64_t apart = (int64_t)test_op(a, 1, 0)->start_ns -
                        (int64_t)test_op(a, 0, 0)->start_ns;
        /* time-sliced, the victim's context runs after the neighbour's */
        assert_true(apart > 0 && apart < (int64_t)SIM_US(ts ? 2000 : 20));
        assert_int_equal((int64_t)test_op(b, 1, 0)->start_ns -
                             (int64_t)test_op(a, 1, 0)->start_ns,
                         ts ? 0 : (int64_t)SIM_US(20) - apart);
        for (uint32_t j = 1; j < 8; j++)
            assert_int_equal(memload_extra(a, b, true, j), 0);
    }
}

/* A graph kernel node that faults kills its MPS peers, mid-graph, with no
 * leak (valgrind) and no stuck node. */
static void test_engine_fault_in_graph(void **state)
{
    (void)state;
    g_autoptr(GpuModel) m = graph_model();
    g_autoptr(SimScenario) sc = fork_join();
    SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    ((SimGraph *)p->ops[0].u.graph)->nodes[2].op.u.kernel.faults = true;
    sim_scenario_replicate_process(sc, 0, 2);
    SimProcessSpec *q = g_ptr_array_index(sc->processes, 1);
    q->start_ns = SIM_US(1); /* an MPS peer in the middle of its graph */
    g_autoptr(SimResult) r = test_run(m, sc, SIM_SHARE_MPS);
    assert_non_null(r);
    assert_int_equal(r->procs[0].status, SIM_PROC_KILLED);
    assert_int_equal(r->procs[1].status, SIM_PROC_KILLED);
    g_autoptr(SimResult) t = test_run(m, sc, SIM_SHARE_TIMESLICE);
    assert_non_null(t);
    assert_int_equal(t->procs[0].status, SIM_PROC_KILLED);
    assert_int_equal(t->procs[1].status, SIM_PROC_KILLED);
}

/* ------------------------------------------------------------------------
 * Importers
 * ------------------------------------------------------------------------ */

typedef struct {
    char *dir;
} Tmp;

static int tmp_setup(void **state)
{
    Tmp *t = g_new0(Tmp, 1);
    t->dir = g_dir_make_tmp("hqsim-graph-XXXXXX", NULL);
    *state = t;
    return t->dir ? 0 : -1;
}

static int tmp_teardown(void **state)
{
    Tmp *t = *state;
    g_autoptr(GDir) d = g_dir_open(t->dir, 0, NULL);
    const char *n;
    while (d && (n = g_dir_read_name(d))) {
        g_autofree char *p = g_build_filename(t->dir, n, NULL);
        g_remove(p);
    }
    g_rmdir(t->dir);
    g_free(t->dir);
    g_free(t);
    return 0;
}

/* The imported graph of @path: one graph op with @n nodes whose deps are
 * @deps (per node: a bit set of earlier nodes). */
static void check_imported(const char *path, uint32_t n, const uint32_t *deps)
{
    char *paths[] = {(char *)path};
    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.gpu_model = "h100-sxm";
    g_autoptr(GError) error = NULL;
    g_autoptr(SimScenario) sc = sim_workload_load(paths, 1, &opt, &error);
    if (!sc)
        fail_msg("%s", error->message);
    const SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    const SimOp *g = NULL;
    for (uint32_t i = 0; i < p->n_ops; i++)
        if (p->ops[i].kind == SIM_OP_GRAPH) {
            assert_null(g); /* one graph op */
            g = &p->ops[i];
        }
    assert_non_null(g);
    assert_int_equal(g->u.graph->n_nodes, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t set = 0;
        for (uint32_t d = 0; d < g->u.graph->nodes[i].n_deps; d++)
            set |= 1u << g->u.graph->nodes[i].deps[d];
        assert_int_equal(set, deps[i]);
    }
    /* `hqsim import` writes it; read back, it is the same */
    g_autofree char *text = sim_scenario_to_json(sc);
    assert_non_null(strstr(text, "\"op\": \"graph\""));
    SimScenario *back =
        sim_scenario_parse("i.json", text, strlen(text), &error);
    if (!back)
        fail_msg("%s\n%s", error->message, text);
    g_autofree char *text2 = sim_scenario_to_json(back);
    assert_string_equal(text, text2);
    sim_scenario_free(back);
    /* each node keeps its recorded times for replay and solo times */
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc2 =
        sim_workload_load_report(paths, 1, &opt, &rep, &error);
    assert_non_null(sc2);
    const SimImportProcess *ip = &rep->procs[0];
    uint32_t gi = (uint32_t)(g - p->ops);
    assert_non_null(ip->rec_node_start_ns);
    assert_non_null(ip->rec_node_start_ns[gi]);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(ip->rec_node_end_ns[gi][i] -
                             ip->rec_node_start_ns[gi][i],
                         g->u.graph->nodes[i].op.kind == SIM_OP_KERNEL
                             ? g->u.graph->nodes[i].op.u.kernel.duration_ns
                             : g->u.graph->nodes[i].op.u.copy.duration_ns);
    assert_int_equal(ip->rec_start_ns[gi], ip->rec_node_start_ns[gi][0]);
    /* replayed: the graph runs with the model's spacing (the fixture's
     * own gaps are round numbers, not measured ones): it ends within
     * the difference of the gaps */
    SimReplayStats st;
    assert_true(sim_identity_replay(paths, 1, &opt, true, &st, &error));
    assert_true(st.kernels >= n);
    sim_replay_stats_clear(&st);
}

/* Kineto: a cudaGraphLaunch and the kernels and memset that carry its
 * correlation: a(0-10) -> b(11-30) and c(11.6-15) in parallel -> memset
 * (16-17) after c -> d(31-40) after b and the memset.  The kernel after
 * the graph is launched on its own. */
static void test_kineto_graph(void **state)
{
    Tmp *t = *state;
    const char *json =
        "{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB "
        "HBM3\", \"computeMajor\": 9, \"computeMinor\": 0}],\n"
        "\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
        "\"cudaGraphLaunch\", \"pid\": 7, \"tid\": 7, \"ts\": 1000000, "
        "\"dur\": 8, \"args\": {\"correlation\": 40}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
        "\"cudaLaunchKernel\", \"pid\": 7, \"tid\": 7, \"ts\": 1000010, "
        "\"dur\": 5, \"args\": {\"correlation\": 41}},\n"
#define KE(name, ts, dur, corr)                                                \
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": "   \
    "0, \"tid\": 7, \"ts\": " ts ", \"dur\": " dur ", \"args\": "              \
    "{\"device\": 0, \"stream\": 7, \"correlation\": " corr ", "               \
    "\"registers per thread\": 32, \"shared memory\": 0, \"grid\": [1, 1, "    \
    "1], \"block\": [64, 1, 1]}}"
        KE("a", "1000010", "10", "40") ",\n" KE(
            "b", "1000021", "19",
            "40") ",\n" KE("c", "1000021.6", "3.4",
                           "40") ",\n"
                                 "{\"ph\": \"X\", \"cat\": \"gpu_memset\", "
                                 "\"name\": \"Memset "
                                 "(Device)\", \"pid\": 0, \"tid\": 7, \"ts\": "
                                 "1000026, \"dur\": 1, "
                                 "\"args\": {\"device\": 0, \"stream\": 7, "
                                 "\"correlation\": 40, "
                                 "\"bytes\": 512}},\n" KE(
                                     "d", "1000041", "9",
                                     "40") ",\n" KE("after", "1000053", "2",
                                                    "41") "]}";
    g_autofree char *path = g_build_filename(t->dir, "g.pt.trace.json", NULL);
    assert_true(g_file_set_contents(path, json, -1, NULL));
    /* a; b after a; c after a; memset after c; d after b and memset */
    const uint32_t deps[] = {0, 1, 1, 4, 2 | 8};
    check_imported(path, 5, deps);
}

/* nsys SQLite: kernel rows whose correlation id is a cudaGraphLaunch's
 * are one graph: x(10-20 us) -> y(21-30) and z(21.2-25) -> w(31-40). */
static void test_nsys_graph(void **state)
{
    Tmp *t = *state;
    g_autofree char *path = g_build_filename(t->dir, "g.sqlite", NULL);
    g_remove(path);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
#define GPID "704643072"
#define KROW(s, e, name)                                                       \
    "(" s ", " e ", 0, 1, 7, 5, " GPID ", " name ", " name                     \
    ", 32, 1, 1, 1, 64, 1, 1, 0, 0)"
    const char *sql =
        "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);"
        "INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.13.2');"
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO StringIds VALUES(1, 'x'), (2, 'y'), (3, 'z'), (4, 'w'),"
        " (5, 'cudaGraphLaunch_v10000');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER,"
        " deviceId INTEGER, contextId INTEGER, streamId INTEGER,"
        " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"
        " shortName INTEGER, registersPerThread INTEGER, gridX INTEGER,"
        " gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER,"
        " blockZ INTEGER, staticSharedMemory INTEGER,"
        " dynamicSharedMemory INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES " KROW(
            "10000", "20000",
            "1") ", " KROW("21000", "30000",
                           "2") ", " KROW("21200", "25000",
                                          "3") ", " KROW("31000", "40000",
                                                         "4") ";"
                                                              "CREATE TABLE "
                                                              "CUPTI_ACTIVITY_"
                                                              "KIND_RUNTIME("
                                                              "start INTEGER, "
                                                              "end INTEGER,"
                                                              " eventClass "
                                                              "INTEGER, "
                                                              "globalTid "
                                                              "INTEGER, "
                                                              "correlationId "
                                                              "INTEGER,"
                                                              " nameId "
                                                              "INTEGER, "
                                                              "returnValue "
                                                              "INTEGER, "
                                                              "callchainId "
                                                              "INTEGER);"
                                                              "INSERT INTO "
                                                              "CUPTI_ACTIVITY_"
                                                              "KIND_RUNTIME "
                                                              "VALUES"
                                                              " (2000, 6000, "
                                                              "0, " GPID
                                                              ", 5, 5, 0, "
                                                              "NULL);"
                                                              "CREATE TABLE "
                                                              "TARGET_INFO_GPU("
                                                              "vmId INTEGER, "
                                                              "id INTEGER, "
                                                              "name TEXT,"
                                                              " computeMajor "
                                                              "INTEGER, "
                                                              "computeMinor "
                                                              "INTEGER);"
                                                              "INSERT INTO "
                                                              "TARGET_INFO_GPU "
                                                              "VALUES(1, 0, "
                                                              "'NVIDIA H100 "
                                                              "80GB HBM3', 9, "
                                                              "0);";
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("sql: %s", msg);
    sqlite3_close(db);
    const uint32_t deps[] = {0, 1, 1, 2 | 4};
    check_imported(path, 4, deps);
}

/* ------------------------------------------------------------------------
 * Identity replay of the committed H100 traces (regression)
 * ------------------------------------------------------------------------ */

static void replay_measured(const char *rel, double max_makespan,
                            double max_median, double max_worst)
{
    g_autofree char *path =
        g_strdup_printf(SRC "traces/measured/h100/launch/%s", rel);
    char *paths[] = {path};
    SimImportOptions opt;
    sim_import_options_init(&opt);
    g_autoptr(GError) error = NULL;
    SimReplayStats st;
    if (!sim_identity_replay(paths, 1, &opt, true, &st, &error))
        fail_msg("%s: %s", rel, error->message);
    print_message("%-34s makespan %+.3f%%  median %.3f%%  worst %.3f%%\n", rel,
                  100 * st.makespan_err, 100 * st.median_end_err,
                  100 * st.worst_end_err);
    bool ok = fabs(st.makespan_err) <= max_makespan &&
              st.median_end_err <= max_median && st.worst_end_err <= max_worst;
    sim_replay_stats_clear(&st);
    if (!ok)
        fail_msg("%s misses its bound", rel);
}

/* Every graph and eager trace within 3% of the makespan and 2% of the
 * span for every op.  The micro graph (16 KiB memsets, spaced like its
 * kernels: graph_memset_slow_max_kib, FINDINGS.md §35) is a prediction;
 * it missed by 3.5% of the makespan with the memset spacings fitted on
 * encoder_b1_graph's 128-640 B memsets. */
static void test_replay_measured(void **state)
{
    (void)state;
    static const char *const ok[] = {"kineto/cnn_b1_graph.json.gz",
                                     "kineto/cnn_b8_graph.json.gz",
                                     "kineto/encoder_b1_graph.json.gz",
                                     "kineto/encoder_b8_graph.json.gz",
                                     "kineto/decoder_b1_graph.json.gz",
                                     "kineto/decoder_b16_graph.json.gz",
                                     "kineto_mps/decoder_b1_graph.json.gz",
                                     "kineto_mps/decoder_b16_graph.json.gz",
                                     "kineto/encoder_b1_eager.json.gz",
                                     "kineto/decoder_b1_eager.json.gz",
                                     "kineto/micro_b1_eager.json.gz",
                                     NULL};
    static const char *const big[] = {"kineto/cnn_b1_eager.json.gz",
                                      "kineto/cnn_b8_eager.json.gz",
                                      "kineto/encoder_b8_eager.json.gz",
                                      "kineto/decoder_b16_eager.json.gz", NULL};
    /* under valgrind: the two smallest graph traces and the miss */
    bool vg = g_getenv("HQSIM_VALGRIND") != NULL;
    for (const char *const *r = ok; *r; r++)
        if (!vg || strstr(*r, "kineto/encoder_b8_graph") ||
            strstr(*r, "kineto/encoder_b1_graph"))
            replay_measured(*r, 0.03, 0.02, 0.02);
    for (const char *const *r = big; *r && !vg; r++)
        replay_measured(*r, 0.03, 0.02, 0.02);
    replay_measured("kineto/micro_b1_graph.json.gz", 0.03, 0.02, 0.02);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_graph),
        cmocka_unit_test(test_engine_large_memset_spacing),
        cmocka_unit_test(test_load_graph_errors),
        cmocka_unit_test(test_write_roundtrip),
        cmocka_unit_test(test_engine_fork_join),
        cmocka_unit_test(test_engine_stream_order),
        cmocka_unit_test(test_engine_sliced_spacing),
        cmocka_unit_test(test_engine_unprofiled_memset_spacing),
        cmocka_unit_test(test_engine_grid_slots),
        cmocka_unit_test(test_engine_mps_costs),
        cmocka_unit_test(test_engine_mps_fetch),
        cmocka_unit_test(test_engine_mps_fetch_needs_narrow),
        cmocka_unit_test(test_engine_mps_fetch_dram),
        cmocka_unit_test(test_engine_mps_func_evict),
        cmocka_unit_test(test_engine_mps_xreload),
        cmocka_unit_test(test_engine_mps_busy_reload),
        cmocka_unit_test(test_engine_mps_mem_load),
        cmocka_unit_test(test_engine_mps_mem_trip),
        cmocka_unit_test(test_engine_mps_mem_l2),
        cmocka_unit_test(test_engine_mps_fend_hold),
        cmocka_unit_test(test_engine_fault_in_graph),
        cmocka_unit_test_setup_teardown(test_kineto_graph, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_nsys_graph, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test(test_replay_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
