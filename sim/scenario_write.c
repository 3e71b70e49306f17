/* scenario_write.c -- SimScenario -> native scenario JSON.
 *
 * The output is what scenario_load.c reads back to an identical scenario
 * (apart from source lines).  Ops are written one per line so that imported
 * traces stay readable and diffable; a run of identical consecutive ops is
 * folded into one {"op": "repeat"} block.  Times are written in microseconds
 * with nanosecond precision.
 */
#include <math.h>
#include <string.h>

#include "jitter.h"
#include "outfile.h"
#include "scenario.h"

/* Append @n bytes of @s: a copy into the room GString already has, or
 * g_string_append_len when there is none (the writer appends tens of
 * short pieces per op; g_string_append of a literal measures it and goes
 * through g_string_insert_len every time). */
static inline void put_len(GString *o, const char *s, size_t n)
{
    if (o->len + n < o->allocated_len) {
        memcpy(o->str + o->len, s, n);
        o->len += n;
        o->str[o->len] = '\0';
    } else {
        g_string_append_len(o, s, (gssize)n);
    }
}

/* A string literal (its length known at compile time). */
#define put_lit(o, lit) put_len((o), "" lit, sizeof(lit) - 1)

/* @v in decimal, as "%llu" prints it (without printf's parsing of the
 * format: imports write millions of these). */
static void put_u64(GString *o, uint64_t v)
{
    char buf[20];
    size_t i = sizeof buf;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put_len(o, buf + i, sizeof buf - i);
}

static void put_str(GString *o, const char *s)
{
    g_string_append_c(o, '"');
    const unsigned char *p = (const unsigned char *)s;
    for (;;) {
        /* The run of bytes that need no escape, appended at once. */
        const unsigned char *q = p;
        while (*q >= 0x20 && *q != '"' && *q != '\\')
            q++;
        put_len(o, (const char *)p, (size_t)(q - p));
        p = q;
        if (!*p)
            break;
        switch (*p) {
        case '"': put_lit(o, "\\\""); break;
        case '\\': put_lit(o, "\\\\"); break;
        case '\n': put_lit(o, "\\n"); break;
        case '\r': put_lit(o, "\\r"); break;
        case '\t': put_lit(o, "\\t"); break;
        default: g_string_append_printf(o, "\\u%04x", *p);
        }
        p++;
    }
    g_string_append_c(o, '"');
}

/* Microseconds, exact to the nanosecond, without trailing zeros. */
static void put_us(GString *o, SimTime ns)
{
    put_u64(o, (uint64_t)(ns / 1000));
    unsigned frac = (unsigned)(ns % 1000);
    if (frac) {
        char buf[4] = {'.', (char)('0' + frac / 100),
                       (char)('0' + frac / 10 % 10), (char)('0' + frac % 10)};
        size_t n = 4;
        while (buf[n - 1] == '0')
            n--;
        put_len(o, buf, n);
    }
}

static void put_mib(GString *o, uint64_t bytes)
{
    if (bytes % 1048576 == 0)
        g_string_append_printf(o, "%llu", (unsigned long long)(bytes >> 20));
    else
        g_string_append_printf(o, "%.6f", bytes / 1048576.0);
}

static void put_dim3(GString *o, const uint32_t d[3])
{
    if (d[1] == 1 && d[2] == 1)
        put_u64(o, d[0]);
    else
        g_string_append_printf(o, "[%u, %u, %u]", d[0], d[1], d[2]);
}

/* A kernel's fields after its name and stream. */
static void put_kernel(GString *o, const SimKernelSpec *k)
{
    put_lit(o, ", \"grid\": ");
    put_dim3(o, k->grid);
    put_lit(o, ", \"block\": ");
    put_dim3(o, k->block);
    put_lit(o, ", \"regs_per_thread\": ");
    put_u64(o, k->regs_per_thread);
    if (k->static_smem_bytes)
        g_string_append_printf(o, ", \"static_smem_bytes\": %u",
                               k->static_smem_bytes);
    if (k->dynamic_smem_bytes)
        g_string_append_printf(o, ", \"dynamic_smem_bytes\": %u",
                               k->dynamic_smem_bytes);
    if (k->smem_config_bytes)
        g_string_append_printf(o, ", \"smem_config_bytes\": %u",
                               k->smem_config_bytes);
    if (k->has_carveout_pct)
        g_string_append_printf(o, ", \"carveout_pct\": %u", k->carveout_pct);
    if (k->duration_ns) {
        put_lit(o, ", \"duration_us\": ");
        put_us(o, k->duration_ns);
    } else {
        put_lit(o, ", \"block_time_us\": ");
        put_us(o, k->block_time_ns);
    }
    if (k->sm_intensity > 0)
        g_string_append_printf(o, ", \"sm_intensity\": %.6g", k->sm_intensity);
    if (k->sm_pipe_share > 0)
        g_string_append_printf(o, ", \"sm_pipe_share\": %.6g",
                               k->sm_pipe_share);
    if (k->ilp > 0)
        g_string_append_printf(o, ", \"ilp\": %u", k->ilp);
    if (k->mem_intensity > 0)
        g_string_append_printf(o, ", \"mem_intensity\": %.6g",
                               k->mem_intensity);
    if (k->dram_bytes > 0)
        g_string_append_printf(o, ", \"dram_bytes\": %llu",
                               (unsigned long long)k->dram_bytes);
    if (k->has_l2_served)
        g_string_append_printf(o, ", \"l2_served\": %.6g", k->l2_served);
    if (k->faults)
        put_lit(o, ", \"faults\": true");
    if (k->wall_clock)
        put_lit(o, ", \"wall_clock\": true");
    if (k->self_timed)
        put_lit(o, ", \"self_timed\": true");
    if (k->bare_class)
        g_string_append_printf(
            o, ", \"bare_class\": \"%s\"",
            sim_kernel_class_name((SimKernelClass)k->bare_class));
}

/* A copy's fields after its stream; a memset node has no direction. */
static void put_copy(GString *o, const SimCopySpec *c, bool memset)
{
    if (!memset)
        g_string_append_printf(o, ", \"dir\": \"%s\"",
                               sim_copy_dir_name(c->dir));
    g_string_append_printf(o, ", \"bytes\": %llu",
                           (unsigned long long)c->bytes);
    if (!c->pinned && !memset)
        put_lit(o, ", \"pinned\": false");
    if (c->duration_ns) {
        put_lit(o, ", \"duration_us\": ");
        put_us(o, c->duration_ns);
    }
}

/* Whether node i's dependencies are the default: the node before it. */
static bool default_deps(const SimGraph *g, uint32_t i)
{
    const SimGraphNode *n = &g->nodes[i];
    return i == 0 ? n->n_deps == 0 : n->n_deps == 1 && n->deps[0] == i - 1;
}

static void put_node_id(GString *o, const SimGraph *g, uint32_t i)
{
    if (g->nodes[i].id)
        put_str(o, g->nodes[i].id);
    else
        g_string_append_printf(o, "\"n%u\"", i);
}

/* A graph's nodes, one per line; ids and "after" only where the graph is
 * not a plain chain (or the file gave ids). */
static void put_graph(GString *o, const SimGraph *g)
{
    static const char *const kinds[] = {"kernel", "memset", "copy"};
    bool chain = true;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        chain &= default_deps(g, i);
    put_lit(o, ", \"nodes\": [");
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const SimGraphNode *n = &g->nodes[i];
        g_string_append(o, i ? ",\n          " : "\n          ");
        g_string_append_printf(o, "{\"op\": \"%s\"", kinds[n->kind]);
        if (n->id || !chain) {
            put_lit(o, ", \"id\": ");
            put_node_id(o, g, i);
        }
        if (!default_deps(g, i)) {
            put_lit(o, ", \"after\": [");
            for (uint32_t d = 0; d < n->n_deps; d++) {
                if (d)
                    put_lit(o, ", ");
                put_node_id(o, g, n->deps[d]);
            }
            g_string_append_c(o, ']');
        }
        if (n->op.kind == SIM_OP_KERNEL) {
            put_lit(o, ", \"name\": ");
            put_str(o, n->op.u.kernel.name);
            put_kernel(o, &n->op.u.kernel);
        } else {
            put_copy(o, &n->op.u.copy, n->kind == SIM_NODE_MEMSET);
        }
        g_string_append_c(o, '}');
    }
    put_lit(o, "]");
}

static void put_op(GString *o, const SimProcessSpec *p, const SimOp *op)
{
    put_lit(o, "{\"op\": \"");
    const char *kind = sim_op_kind_name(op->kind);
    put_len(o, kind, strlen(kind));
    g_string_append_c(o, '"');
    switch (op->kind) {
    case SIM_OP_KERNEL:
        put_lit(o, ", \"name\": ");
        put_str(o, op->u.kernel.name);
        put_lit(o, ", \"stream\": ");
        put_str(o, p->streams[op->stream].name);
        put_kernel(o, &op->u.kernel);
        break;
    case SIM_OP_COPY:
        put_lit(o, ", \"stream\": ");
        put_str(o, p->streams[op->stream].name);
        put_copy(o, &op->u.copy, false);
        break;
    case SIM_OP_GRAPH:
        put_lit(o, ", \"stream\": ");
        put_str(o, p->streams[op->stream].name);
        put_graph(o, op->u.graph);
        break;
    case SIM_OP_HOST_GAP:
        put_lit(o, ", \"duration_us\": ");
        put_us(o, op->u.gap_ns);
        break;
    case SIM_OP_STREAM_SYNC:
        put_lit(o, ", \"stream\": ");
        put_str(o, p->streams[op->stream].name);
        break;
    case SIM_OP_DEVICE_SYNC: break;
    case SIM_OP_EVENT_RECORD:
    case SIM_OP_EVENT_WAIT:
        put_lit(o, ", \"event\": ");
        put_str(o, p->event_names[op->event]);
        put_lit(o, ", \"stream\": ");
        put_str(o, p->streams[op->stream].name);
        break;
    case SIM_OP_EVENT_SYNC:
        put_lit(o, ", \"event\": ");
        put_str(o, p->event_names[op->event]);
        break;
    default: break;
    }
    if (op->api_ns != SIM_TIME_NEVER) {
        put_lit(o, ", \"api_us\": ");
        put_us(o, op->api_ns);
    }
    if (op->at_ns) {
        put_lit(o, ", \"at_us\": ");
        put_us(o, op->at_ns);
    }
    g_string_append_c(o, '}');
}

/* Ops equal in everything that is written (not the source line). */
static bool same_op(const SimOp *a, const SimOp *b)
{
    if (a->kind != b->kind || a->stream != b->stream || a->event != b->event ||
        a->api_ns != b->api_ns || a->at_ns || b->at_ns)
        return false; /* ops with a call time are never the same */
    switch (a->kind) {
    case SIM_OP_KERNEL: {
        const SimKernelSpec *x = &a->u.kernel, *y = &b->u.kernel;
        return x->name == y->name && /* interned: pointer equality */
               !memcmp(x->grid, y->grid, sizeof x->grid) &&
               !memcmp(x->block, y->block, sizeof x->block) &&
               x->regs_per_thread == y->regs_per_thread &&
               x->static_smem_bytes == y->static_smem_bytes &&
               x->dynamic_smem_bytes == y->dynamic_smem_bytes &&
               x->smem_config_bytes == y->smem_config_bytes &&
               x->has_carveout_pct == y->has_carveout_pct &&
               x->carveout_pct == y->carveout_pct &&
               x->duration_ns == y->duration_ns &&
               x->block_time_ns == y->block_time_ns &&
               x->sm_intensity == y->sm_intensity &&
               x->sm_pipe_share == y->sm_pipe_share && x->ilp == y->ilp &&
               x->mem_intensity == y->mem_intensity &&
               x->dram_bytes == y->dram_bytes && x->faults == y->faults &&
               x->wall_clock == y->wall_clock &&
               x->self_timed == y->self_timed && x->bare_class == y->bare_class;
    }
    case SIM_OP_COPY:
        return a->u.copy.bytes == b->u.copy.bytes &&
               a->u.copy.dir == b->u.copy.dir &&
               a->u.copy.pinned == b->u.copy.pinned &&
               a->u.copy.duration_ns == b->u.copy.duration_ns;
    case SIM_OP_HOST_GAP: return a->u.gap_ns == b->u.gap_ns;
    case SIM_OP_GRAPH: return a->u.graph == b->u.graph;
    default: return true;
    }
}

/* A file being written gets the text so far whenever it passes this
 * many bytes (@sink of put_process), so that the document of a 10^6-op
 * scenario is never held whole: it was 270 MB beside the scenario. */
#define FLUSH_BYTES (1u << 20)

static void put_process(GString *o, const SimProcessSpec *p, SimOutFile *sink)
{
    put_lit(o, "    {\n      \"name\": ");
    put_str(o, p->name);
    put_lit(o, ",\n");
    if (p->start_ns) {
        put_lit(o, "      \"start_us\": ");
        put_us(o, p->start_ns);
        put_lit(o, ",\n");
    }
    if (p->mps)
        put_lit(o, "      \"mps\": true,\n");
    if (p->active_thread_pct != 100)
        g_string_append_printf(o, "      \"active_thread_pct\": %.6g,\n",
                               p->active_thread_pct);
    if (p->device_mem_bytes) {
        put_lit(o, "      \"device_mem_mib\": ");
        put_mib(o, p->device_mem_bytes);
        put_lit(o, ",\n");
    }
    if (p->mps_mem_limit_bytes) {
        put_lit(o, "      \"mps_mem_limit_mib\": ");
        put_mib(o, p->mps_mem_limit_bytes);
        put_lit(o, ",\n");
    }
    if (p->connections)
        g_string_append_printf(o, "      \"connections\": %u,\n",
                               p->connections);
    if (p->iterations != 1)
        g_string_append_printf(o, "      \"iterations\": %u,\n", p->iterations);
    const SimArrivals *a = &p->arrivals;
    if (a->kind == SIM_ARRIVALS_LIST) {
        put_lit(o, "      \"arrivals\": {\"times_us\": [");
        for (uint32_t i = 0; i < a->n_times; i++) {
            if (i)
                put_lit(o, ", ");
            put_us(o, a->times_ns[i]);
        }
        put_lit(o, "]},\n");
    } else if (a->kind != SIM_ARRIVALS_NONE) {
        g_string_append_printf(
            o,
            "      \"arrivals\": {\"rate_per_s\": %.17g, \"count\": %u, "
            "\"distribution\": \"%s\"},\n",
            a->rate_per_s, a->count,
            a->kind == SIM_ARRIVALS_UNIFORM ? "uniform" : "poisson");
    }
    if (p->jitter) {
        put_lit(o, "      \"jitter\": ");
        sim_jitter_to_json(p->jitter, o);
        put_lit(o, ",\n");
    }
    put_lit(o, "      \"streams\": [");
    for (uint32_t i = 0; i < p->n_streams; i++) {
        g_string_append(o, i ? ",\n        " : "\n        ");
        put_lit(o, "{\"name\": ");
        put_str(o, p->streams[i].name);
        if (p->streams[i].priority)
            g_string_append_printf(o, ", \"priority\": %d",
                                   p->streams[i].priority);
        g_string_append_c(o, '}');
    }
    put_lit(o, "\n      ],\n");
    if (p->n_events) {
        put_lit(o, "      \"events\": [");
        for (uint32_t i = 0; i < p->n_events; i++) {
            if (i)
                put_lit(o, ", ");
            put_str(o, p->event_names[i]);
        }
        put_lit(o, "],\n");
    }
    put_lit(o, "      \"ops\": [");
    uint32_t i = 0;
    bool first = true;
    while (i < p->n_ops) {
        uint32_t j = i + 1;
        while (j < p->n_ops && same_op(&p->ops[i], &p->ops[j]))
            j++;
        g_string_append(o, first ? "\n        " : ",\n        ");
        first = false;
        if (j - i > 1) {
            g_string_append_printf(o,
                                   "{\"op\": \"repeat\", \"count\": %u, "
                                   "\"ops\": [",
                                   j - i);
            put_op(o, p, &p->ops[i]);
            put_lit(o, "]}");
        } else {
            put_op(o, p, &p->ops[i]);
        }
        i = j;
        if (sink && o->len >= FLUSH_BYTES) {
            sim_out_write(sink, o->str, o->len); /* errors: at the commit */
            g_string_truncate(o, 0);
        }
    }
    put_lit(o, "\n      ]\n    }");
}

/* The document of @sc, or with @sink its part not yet written there. */
static GString *scenario_json(const SimScenario *sc, SimOutFile *sink)
{
    GString *o = g_string_new("{\n  \"hqsim_scenario\": 1,\n");
    if (sc->description) {
        put_lit(o, "  \"description\": ");
        put_str(o, sc->description);
        put_lit(o, ",\n");
    }
    if (sc->gpu) {
        put_lit(o, "  \"gpu\": ");
        put_str(o, sc->gpu);
        put_lit(o, ",\n");
    }
    g_string_append_printf(o, "  \"seed\": %llu,\n",
                           (unsigned long long)sc->seed);
    if (sc->host_cores)
        g_string_append_printf(o, "  \"host_cores\": %u,\n", sc->host_cores);
    put_lit(o, "  \"processes\": [\n");
    for (guint i = 0; i < sc->processes->len; i++) {
        if (i)
            put_lit(o, ",\n");
        put_process(o, g_ptr_array_index(sc->processes, i), sink);
    }
    put_lit(o, "\n  ]\n}\n");
    return o;
}

char *sim_scenario_to_json(const SimScenario *sc)
{
    return g_string_free(scenario_json(sc, NULL), FALSE);
}

bool sim_scenario_write(const SimScenario *sc, const char *path, GError **error)
{
    SimOutFile *f = sim_out_open(path, error);
    if (!f)
        return false;
    g_autoptr(GString) rest = scenario_json(sc, f);
    sim_out_write(f, rest->str, rest->len);
    return sim_out_commit(f, error);
}
