/* scenario.c -- building, copying and validating scenarios.  See
 * scenario.h; the JSON reader and writer are scenario_load.c and
 * scenario_write.c. */
#include "scenario.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "bounds.h"
#include "error.h"
#include "jitter.h"

static const char *const op_kind_names[SIM_OP_N_KINDS] = {
    "kernel",       "copy",       "host_gap",   "stream_sync", "device_sync",
    "event_record", "event_wait", "event_sync", "graph",
};

const char *sim_op_kind_name(SimOpKind k)
{
    return k < SIM_OP_N_KINDS ? op_kind_names[k] : "?";
}

const char *sim_copy_dir_name(SimCopyDir d)
{
    static const char *const names[] = {"h2d", "d2h", "d2d"};
    return d < SIM_COPY_N_DIRS ? names[d] : "?";
}

SimScenario *sim_scenario_new(const char *source, const char *format)
{
    SimScenario *sc = g_new0(SimScenario, 1);
    sc->source = g_strdup(source);
    sc->format = g_strdup(format);
    sc->seed = 1;
    sc->strings = g_string_chunk_new(4096);
    sc->processes = g_ptr_array_new();
    sc->graphs = g_ptr_array_new();
    return sc;
}

/* ------------------------------------------------------------------------
 * Graphs
 * ------------------------------------------------------------------------ */

static void graph_free(gpointer p)
{
    SimGraph *g = p;
    g_free(g->nodes);
    g_free(g->dep_store);
    g_free(g->succ_off);
    g_free(g->succ);
    g_free(g);
}

SimGraph *sim_scenario_new_graph(SimScenario *sc)
{
    SimGraph *g = g_new0(SimGraph, 1);
    g_ptr_array_add(sc->graphs, g);
    return g;
}

/* Arrays grow by doubling (see grow() below for the rule). */
static void *grow(void *arr, uint32_t n, size_t elem);

uint32_t sim_graph_add_node(SimGraph *g, const SimGraphNode *node,
                            const uint32_t *deps, uint32_t n_deps)
{
    /* deps pointers are rebuilt by sim_graph_finish (dep_store moves as it
     * grows): until then n_deps and the offset in dep_store are kept. */
    g->nodes = grow(g->nodes, g->n_nodes, sizeof *g->nodes);
    SimGraphNode *n = &g->nodes[g->n_nodes];
    *n = *node;
    n->n_deps = n_deps;
    n->deps = NULL;
    for (uint32_t i = 0; i < n_deps; i++) {
        g->dep_store = grow(g->dep_store, g->n_edges, sizeof *g->dep_store);
        g->dep_store[g->n_edges++] = deps[i];
    }
    return g->n_nodes++;
}

bool sim_graph_finish(SimGraph *g, uint32_t *bad)
{
    uint32_t n = g->n_nodes, off = 0;
    g_free(g->succ_off);
    g_free(g->succ);
    g->succ_off = g_new0(uint32_t, n + 1);
    g->succ = g_new(uint32_t, MAX(g->n_edges, 1));
    g->n_kernels = 0;
    for (uint32_t i = 0; i < n; i++) {
        SimGraphNode *nd = &g->nodes[i];
        /* dep_store is NULL while no node has a dependency: offsetting
         * a null pointer, even by 0, is undefined (fuzz_kineto found it) */
        nd->deps = g->dep_store ? g->dep_store + off : NULL;
        off += nd->n_deps;
        g->n_kernels += nd->op.kind == SIM_OP_KERNEL;
        for (uint32_t d = 0; d < nd->n_deps; d++) {
            if (nd->deps[d] >= n || nd->deps[d] == i) {
                *bad = i;
                return false;
            }
            g->succ_off[nd->deps[d] + 1]++;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        g->succ_off[i + 1] += g->succ_off[i];
    g_autofree uint32_t *fill = g_memdup2(g->succ_off, sizeof(uint32_t) * n);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t d = 0; d < g->nodes[i].n_deps; d++)
            g->succ[fill[g->nodes[i].deps[d]]++] = i;
    /* Kahn's algorithm: a node never reached lies on (or after) a cycle. */
    g_autofree uint32_t *left = g_new(uint32_t, MAX(n, 1));
    g_autofree uint32_t *ready = g_new(uint32_t, MAX(n, 1));
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!(left[i] = g->nodes[i].n_deps))
            ready[tail++] = i;
    while (head < tail) {
        uint32_t i = ready[head++];
        for (uint32_t s = g->succ_off[i]; s < g->succ_off[i + 1]; s++)
            if (--left[g->succ[s]] == 0)
                ready[tail++] = g->succ[s];
    }
    if (tail < n) {
        for (uint32_t i = 0; i < n; i++)
            if (left[i]) {
                *bad = i;
                break;
            }
        return false;
    }
    return true;
}

SimGraph *sim_graph_copy(SimScenario *dst, const SimGraph *g)
{
    SimGraph *c = sim_scenario_new_graph(dst);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        SimGraphNode nd = g->nodes[i];
        nd.id = sim_scenario_intern(dst, nd.id);
        if (nd.op.kind == SIM_OP_KERNEL)
            nd.op.u.kernel.name = sim_scenario_intern(dst, nd.op.u.kernel.name);
        sim_graph_add_node(c, &nd, g->nodes[i].deps, g->nodes[i].n_deps);
    }
    uint32_t bad;
    bool ok = sim_graph_finish(c, &bad);
    g_assert(ok); /* the original was finished */
    c->unprofiled = g->unprofiled;
    return c;
}

static void process_free(SimProcessSpec *p)
{
    g_free(p->arrivals.times_ns);
    g_free(p->streams);
    g_free(p->ops);
    g_free(p->event_names);
    g_free(p->wheres);
    sim_jitter_free(p->jitter);
    g_free(p);
}

void sim_scenario_free(SimScenario *sc)
{
    if (!sc)
        return;
    for (guint i = 0; i < sc->processes->len; i++)
        process_free(g_ptr_array_index(sc->processes, i));
    g_ptr_array_free(sc->processes, TRUE);
    for (guint i = 0; i < sc->graphs->len; i++)
        graph_free(g_ptr_array_index(sc->graphs, i));
    g_ptr_array_free(sc->graphs, TRUE);
    g_string_chunk_free(sc->strings);
    g_free(sc->source);
    g_free(sc->format);
    g_free(sc->description);
    g_free(sc->gpu);
    g_free(sc->gpu_recorded);
    g_free(sc->gpu_mapping);
    g_free(sc->clock_note);
    g_free(sc);
}

const char *sim_scenario_intern(SimScenario *sc, const char *s)
{
    return s ? g_string_chunk_insert_const(sc->strings, s) : NULL;
}

SimProcessSpec *sim_scenario_add_process(SimScenario *sc, const char *name)
{
    SimProcessSpec *p = g_new0(SimProcessSpec, 1);
    p->name = sim_scenario_intern(sc, name);
    p->active_thread_pct = 100.0;
    p->iterations = 1;
    g_ptr_array_add(sc->processes, p);
    return p;
}

/* Arrays grow by doubling; capacity is the next power of two >= n, so it is
 * derived from the count and needs no field of its own. */
static void *grow(void *arr, uint32_t n, size_t elem)
{
    if (n == 0 || (n & (n - 1)) == 0)
        return g_realloc_n(arr, n ? 2 * (size_t)n : 1, elem);
    return arr;
}

uint32_t sim_process_add_stream(SimScenario *sc, SimProcessSpec *p,
                                const char *name, int priority)
{
    p->streams = grow(p->streams, p->n_streams, sizeof *p->streams);
    p->streams[p->n_streams].name = sim_scenario_intern(sc, name);
    p->streams[p->n_streams].priority = priority;
    return p->n_streams++;
}

uint32_t sim_process_add_event(SimScenario *sc, SimProcessSpec *p,
                               const char *name)
{
    p->event_names = grow(p->event_names, p->n_events, sizeof *p->event_names);
    p->event_names[p->n_events] = sim_scenario_intern(sc, name);
    return p->n_events++;
}

SimOp *sim_process_add_op(SimProcessSpec *p, const SimOp *op)
{
    p->ops = grow(p->ops, p->n_ops, sizeof *p->ops);
    p->ops[p->n_ops] = *op;
    return &p->ops[p->n_ops++];
}

/* Capacity that grow() assumes for an array holding @n elements. */
static size_t cap_for(uint32_t n)
{
    return (size_t)1 << g_bit_storage(n);
}

static SimProcessSpec *process_copy(SimScenario *dst, const SimProcessSpec *p,
                                    const char *name)
{
    SimProcessSpec *c = sim_scenario_add_process(dst, name ? name : p->name);
    const char *cname = c->name;
    *c = *p;
    c->name = cname;
    c->arrivals.times_ns =
        g_memdup2(p->arrivals.times_ns, sizeof(SimTime) * p->arrivals.n_times);
    c->jitter = sim_jitter_copy(p->jitter);
    c->streams = g_new(SimStreamSpec, cap_for(p->n_streams));
    for (uint32_t i = 0; i < p->n_streams; i++) {
        c->streams[i] = p->streams[i];
        c->streams[i].name = sim_scenario_intern(dst, p->streams[i].name);
    }
    for (int i = 0; i < SIM_COL_N; i++)
        c->columns[i] =
            p->columns[i] ? sim_scenario_intern(dst, p->columns[i]) : NULL;
    c->wheres = g_new(const char *, MAX(p->n_wheres, 1));
    for (uint32_t i = 0; i < p->n_wheres; i++)
        c->wheres[i] = sim_scenario_intern(dst, p->wheres[i]);
    c->event_names = g_new(const char *, cap_for(p->n_events));
    for (uint32_t i = 0; i < p->n_events; i++)
        c->event_names[i] = sim_scenario_intern(dst, p->event_names[i]);
    c->ops = g_new(SimOp, cap_for(p->n_ops));
    if (p->n_ops)
        memcpy(c->ops, p->ops, sizeof(SimOp) * p->n_ops);
    for (uint32_t i = 0; i < p->n_ops; i++)
        if (c->ops[i].kind == SIM_OP_KERNEL)
            c->ops[i].u.kernel.name =
                sim_scenario_intern(dst, p->ops[i].u.kernel.name);
    /* Graphs: one copy per distinct graph of the process (ops launching
     * the same graph keep sharing it). */
    g_autoptr(GHashTable) copies = g_hash_table_new(NULL, NULL);
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (c->ops[i].kind != SIM_OP_GRAPH)
            continue;
        SimGraph *g = g_hash_table_lookup(copies, p->ops[i].u.graph);
        if (!g) {
            g = sim_graph_copy(dst, p->ops[i].u.graph);
            g_hash_table_insert(copies, p->ops[i].u.graph, g);
        }
        c->ops[i].u.graph = g;
    }
    return c;
}

char *sim_op_location(const SimScenario *sc, const SimProcessSpec *p,
                      const SimOp *op)
{
    if (!op->line)
        return g_strdup(sc->source);
    if (op->where && op->where <= p->n_wheres)
        return g_strdup_printf("%s%u", p->wheres[op->where - 1], op->line);
    return g_strdup_printf("%s:%u", sc->source, op->line);
}

uint16_t sim_process_where(SimScenario *sc, SimProcessSpec *p,
                           const char *prefix)
{
    for (uint32_t i = 0; i < p->n_wheres; i++)
        if (!strcmp(p->wheres[i], prefix))
            return (uint16_t)(i + 1);
    if (p->n_wheres >= G_MAXUINT16)
        return 0;
    p->wheres = g_renew(const char *, p->wheres, p->n_wheres + 1);
    p->wheres[p->n_wheres++] = sim_scenario_intern(sc, prefix);
    return (uint16_t)p->n_wheres;
}

SimScenario *sim_scenario_copy(const SimScenario *sc)
{
    SimScenario *c = sim_scenario_new(sc->source, sc->format);
    c->description = g_strdup(sc->description);
    c->gpu = g_strdup(sc->gpu);
    c->gpu_recorded = g_strdup(sc->gpu_recorded);
    c->gpu_mapping = g_strdup(sc->gpu_mapping);
    c->clock_note = g_strdup(sc->clock_note);
    c->seed = sc->seed;
    c->host_cores = sc->host_cores;
    for (guint i = 0; i < sc->processes->len; i++)
        process_copy(c, g_ptr_array_index(sc->processes, i), NULL);
    return c;
}

void sim_scenario_append(SimScenario *dst, const SimScenario *src)
{
    for (guint i = 0; i < src->processes->len; i++) {
        const SimProcessSpec *p = g_ptr_array_index(src->processes, i);
        bool taken = false;
        for (guint j = 0; j < dst->processes->len && !taken; j++)
            taken = !strcmp(
                ((SimProcessSpec *)g_ptr_array_index(dst->processes, j))->name,
                p->name);
        g_autofree char *name =
            taken ? g_strdup_printf("%s (fixed)", p->name) : NULL;
        process_copy(dst, p, name);
    }
}

void sim_scenario_replicate_process(SimScenario *sc, uint32_t index,
                                    uint32_t n_total)
{
    g_return_if_fail(index < sc->processes->len);
    if (n_total <= 1)
        return;
    SimProcessSpec *orig = g_ptr_array_index(sc->processes, index);
    g_autofree char *base = g_strdup(orig->name);
    g_autofree char *n0 = g_strdup_printf("%s#0", base);
    orig->name = sim_scenario_intern(sc, n0);
    for (uint32_t i = 1; i < n_total; i++) {
        g_autofree char *ni = g_strdup_printf("%s#%u", base, i);
        /* process_copy appends at the end; move it right after the last
         * copy so the replicas stay together and in order. */
        SimProcessSpec *c = process_copy(sc, orig, ni);
        g_ptr_array_remove_index(sc->processes, sc->processes->len - 1);
        g_ptr_array_insert(sc->processes, (gint)(index + i), c);
    }
}

/* ------------------------------------------------------------------------
 * Validation
 * ------------------------------------------------------------------------ */

/* Set @code's error "LOCATION: process 'a' op 3 (kernel): MSG". */
static bool op_fail_msg(const SimScenario *sc, const SimProcessSpec *p,
                        uint32_t i, const SimOp *op, SimErrorCode code,
                        GError **error, const char *msg)
{
    g_autofree char *loc = sim_op_location(sc, p, op);
    g_set_error(error, SIM_ERROR, code, "%s: process '%s' op %u (%s): %s", loc,
                p->name, i, sim_op_kind_name(op->kind), msg);
    return false;
}

/* A bad field (SIM_ERROR_INVALID). */
static bool op_fail(const SimScenario *sc, const SimProcessSpec *p, uint32_t i,
                    const SimOp *op, GError **error, const char *fmt, ...)
    G_GNUC_PRINTF(6, 7);
static bool op_fail(const SimScenario *sc, const SimProcessSpec *p, uint32_t i,
                    const SimOp *op, GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return op_fail_msg(sc, p, i, op, SIM_ERROR_INVALID, error, msg);
}

/* @t beyond @max_us microseconds (SIM_TIME_NEVER is no time: fine). */
static bool time_over(SimTime t, double max_us)
{
    return t != SIM_TIME_NEVER && (double)t > max_us * 1e3;
}

/* The native format's range of each numeric op field, as a table: the
 * field the message names, the op kind it belongs to (SIM_OP_N_KINDS:
 * every kind), its value in the field's unit (NAN: not given) and the
 * largest value allowed. */
typedef struct {
    const char *field;
    SimOpKind kind;
    double (*get)(const SimOp *op);
    double max;
    const char *unit;
    SimColumn column; /* how an importer may name it; SIM_COL_N: never */
} OpRange;

static double time_us(SimTime t)
{
    return t == SIM_TIME_NEVER ? NAN : (double)t / 1e3;
}
static double get_api(const SimOp *o)
{
    return time_us(o->api_ns);
}
static double get_at(const SimOp *o)
{
    return time_us(o->at_ns);
}
static double get_copy_bytes(const SimOp *o)
{
    return (double)o->u.copy.bytes;
}
static double get_copy_dur(const SimOp *o)
{
    return time_us(o->u.copy.duration_ns);
}
static double get_gap(const SimOp *o)
{
    return time_us(o->u.gap_ns);
}
static double get_regs(const SimOp *o)
{
    return o->u.kernel.regs_per_thread;
}
static double get_smem_s(const SimOp *o)
{
    return o->u.kernel.static_smem_bytes;
}
static double get_smem_d(const SimOp *o)
{
    return o->u.kernel.dynamic_smem_bytes;
}
static double get_kdur(const SimOp *o)
{
    return time_us(o->u.kernel.duration_ns);
}
static double get_kblock(const SimOp *o)
{
    return time_us(o->u.kernel.block_time_ns);
}

static const OpRange op_ranges[] = {
    {"api_us", SIM_OP_N_KINDS, get_api, SIM_MAX_API_US, " us", SIM_COL_N},
    {"at_us", SIM_OP_N_KINDS, get_at, SIM_MAX_TIME_US, " us", SIM_COL_N},
    {"bytes", SIM_OP_COPY, get_copy_bytes, (double)SIM_MAX_COPY_BYTES, "",
     SIM_COL_COPY_BYTES},
    {"duration_us", SIM_OP_COPY, get_copy_dur, SIM_MAX_TIME_US, " us",
     SIM_COL_COPY_DURATION},
    {"duration_us", SIM_OP_HOST_GAP, get_gap, SIM_MAX_TIME_US, " us",
     SIM_COL_N},
    {"regs_per_thread", SIM_OP_KERNEL, get_regs, SIM_MAX_REGS_PER_THREAD, "",
     SIM_COL_REGS},
    {"static_smem_bytes", SIM_OP_KERNEL, get_smem_s, SIM_MAX_SMEM_BYTES,
     " bytes", SIM_COL_SMEM_STATIC},
    {"dynamic_smem_bytes", SIM_OP_KERNEL, get_smem_d, SIM_MAX_SMEM_BYTES,
     " bytes", SIM_COL_SMEM_DYNAMIC},
    {"duration_us", SIM_OP_KERNEL, get_kdur, SIM_MAX_TIME_US, " us",
     SIM_COL_KERNEL_DURATION},
    {"block_time_us", SIM_OP_KERNEL, get_kblock, SIM_MAX_TIME_US, " us",
     SIM_COL_N},
};

/* What a message calls field @native (dimension @dim of a grid or block,
 * or -1) of @p's ops: the trace's column for an imported process
 * ("column 'Grid Y'", "column 'Grid Size': dimension y"), else the native
 * field ("field 'grid': dimension y"). */
static char *field_label(const SimProcessSpec *p, const char *native,
                         SimColumn col, int dim)
{
    const char *name = col < SIM_COL_N ? p->columns[col] : NULL;
    if (!name)
        return dim < 0 ? g_strdup_printf("field '%s'", native)
                       : g_strdup_printf("field '%s': dimension %c", native,
                                         "xyz"[dim]);
    /* A tuple column holds all three dimensions (ncu's "Grid Size"). */
    SimColumn x = (SimColumn)(col - dim);
    bool tuple = dim >= 0 && p->columns[x] && p->columns[x + 1] &&
                 !strcmp(p->columns[x], p->columns[x + 1]);
    return tuple
               ? g_strdup_printf("column '%s': dimension %c", name, "xyz"[dim])
               : g_strdup_printf("column '%s'", name);
}

/* Every field of @op within the native format's range (op_ranges).  A
 * host gap an importer made from a trace's times is said to be one. */
static bool validate_op_ranges(const SimScenario *sc, const SimProcessSpec *p,
                               uint32_t i, const SimOp *op, GError **error)
{
    for (size_t r = 0; r < G_N_ELEMENTS(op_ranges); r++) {
        const OpRange *x = &op_ranges[r];
        if (x->kind != SIM_OP_N_KINDS && x->kind != op->kind)
            continue;
        double v = x->get(op);
        if (isnan(v) || v <= x->max)
            continue;
        if (op->kind == SIM_OP_HOST_GAP && op->where)
            return op_fail(sc, p, i, op, error,
                           "the host is idle %.15g us before this row's op "
                           "(from the trace's times), beyond the format's "
                           "%g us",
                           v, x->max);
        g_autofree char *label = field_label(p, x->field, x->column, -1);
        return op_fail(sc, p, i, op, error,
                       "%s: %.15g%s is beyond the format's %.15g%s", label, v,
                       x->unit, x->max, x->unit);
    }
    return true;
}

static bool validate_kernel(const SimScenario *sc, const SimProcessSpec *p,
                            uint32_t i, const SimOp *op, GError **error)
{
    const SimKernelSpec *k = &op->u.kernel;
    for (int d = 0; d < 3; d++) {
        bool grid_bad = k->grid[d] == 0 || k->grid[d] > sim_cuda_grid_max[d];
        if (grid_bad || k->block[d] == 0 ||
            k->block[d] > sim_cuda_block_max[d]) {
            g_autofree char *label =
                grid_bad ? field_label(p, "grid", SIM_COL_GRID_X + d, d)
                         : field_label(p, "block", SIM_COL_BLOCK_X + d, d);
            return op_fail(sc, p, i, op, error, "%s is %u; CUDA allows 1 to %u",
                           label, grid_bad ? k->grid[d] : k->block[d],
                           grid_bad ? sim_cuda_grid_max[d]
                                    : sim_cuda_block_max[d]);
        }
    }
    /* Within CUDA's dimensions the product stays below 2^63: no wrap. */
    if (sim_kernel_blocks(k) > sim_limit(SIM_BOUND_BLOCKS)) {
        g_autofree char *hint = sim_limit_hint(SIM_BOUND_BLOCKS);
        const char *const *c = &p->columns[SIM_COL_GRID_X];
        g_autofree char *label =
            !c[0] || !c[1] || !c[2] ? g_strdup("field 'grid'")
            : !strcmp(c[0], c[1])
                ? g_strdup_printf("column '%s'", c[0])
                : g_strdup_printf("columns '%s' x '%s' x '%s'", c[0], c[1],
                                  c[2]);
        g_autofree char *msg =
            g_strdup_printf("%s: %llu blocks %s", label,
                            (unsigned long long)sim_kernel_blocks(k), hint);
        return op_fail_msg(sc, p, i, op, SIM_ERROR_LIMIT, error, msg);
    }
    if ((k->duration_ns == 0) == (k->block_time_ns == 0))
        return op_fail(sc, p, i, op, error,
                       "give exactly one of 'duration_us' and "
                       "'block_time_us', greater than 0");
    if (k->sm_intensity < 0 || k->sm_intensity > 1)
        return op_fail(sc, p, i, op, error,
                       "field 'sm_intensity': must be in [0, 1]");
    if (k->sm_pipe_share < 0 || k->sm_pipe_share > 1)
        return op_fail(sc, p, i, op, error,
                       "field 'sm_pipe_share': must be in [0, 1]");
    if (k->mem_intensity < 0 || k->mem_intensity > 1)
        return op_fail(sc, p, i, op, error,
                       "field 'mem_intensity': must be in [0, 1]");
    if (k->has_l2_served && !(k->l2_served >= 0 && k->l2_served <= 1))
        return op_fail(sc, p, i, op, error,
                       "field 'l2_served': must be in [0, 1]");
    if (!k->name || !*k->name)
        return op_fail(sc, p, i, op, error, "kernel without a name");
    return true;
}

/* A graph's nodes: kernels valid as kernel ops, copies with a direction,
 * at least one node, and (checked by sim_graph_finish) no cycle. */
static bool validate_graph(const SimScenario *sc, const SimProcessSpec *p,
                           uint32_t i, const SimOp *op, GError **error)
{
    const SimGraph *g = op->u.graph;
    if (!g || g->n_nodes == 0)
        return op_fail(sc, p, i, op, error,
                       "field 'nodes': a graph needs "
                       "at least one node");
    if (!g->succ_off)
        return op_fail(sc, p, i, op, error, "graph not finished");
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        const SimOp *no = &g->nodes[n].op;
        if (no->stream != op->stream)
            return op_fail(sc, p, i, op, error,
                           "graph nodes must be on the graph's stream");
        if (no->kind == SIM_OP_KERNEL) {
            if (!validate_kernel(sc, p, i, no, error)) {
                g_prefix_error(error, "graph node %u: ", n);
                return false;
            }
        } else if (no->kind != SIM_OP_COPY ||
                   no->u.copy.dir >= SIM_COPY_N_DIRS) {
            return op_fail(sc, p, i, op, error,
                           "graph node %u: only kernels, copies and memsets",
                           n);
        }
    }
    return true;
}

const uint32_t sim_cuda_grid_max[3] = {2147483647u, 65535u, 65535u};
const uint32_t sim_cuda_block_max[3] = {1024u, 1024u, 64u};

uint64_t sim_scenario_work(const SimScenario *sc)
{
    uint64_t work = 0;
    for (guint pi = 0; pi < sc->processes->len; pi++) {
        const SimProcessSpec *p = g_ptr_array_index(sc->processes, pi);
        const SimArrivals *a = &p->arrivals;
        uint64_t times = a->kind == SIM_ARRIVALS_NONE   ? p->iterations
                         : a->kind == SIM_ARRIVALS_LIST ? a->n_times
                                                        : a->count;
        /* a graph op is its nodes' work: one request of a resnet50 graph
         * is ~300 kernels launched by one op, and the events limit
         * (sim_limit_events_for) must grow with them */
        uint64_t once = 0;
        for (uint32_t i = 0; i < p->n_ops; i++)
            once = sim_add_sat(once, MAX(sim_op_gpu_count(&p->ops[i]), 1));
        work = sim_add_sat(work, sim_mul_sat(once, MAX(times, 1)));
    }
    return work;
}

/* Placements of one launch of @op on @sms SMs (sim_scenario_placements). */
static uint64_t op_placements(const SimOp *op, uint32_t sms)
{
    if (op->kind == SIM_OP_KERNEL)
        return MIN(sim_kernel_blocks(&op->u.kernel), (uint64_t)sms);
    if (op->kind != SIM_OP_GRAPH)
        return 0;
    uint64_t n = 0;
    const SimGraph *g = op->u.graph;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op.kind == SIM_OP_KERNEL)
            n +=
                MIN(sim_kernel_blocks(&g->nodes[i].op.u.kernel), (uint64_t)sms);
    return n;
}

uint64_t sim_scenario_placements(const SimScenario *sc, uint32_t sms)
{
    uint64_t total = 0;
    for (guint pi = 0; pi < sc->processes->len; pi++) {
        const SimProcessSpec *p = g_ptr_array_index(sc->processes, pi);
        const SimArrivals *a = &p->arrivals;
        uint64_t times = a->kind == SIM_ARRIVALS_NONE   ? p->iterations
                         : a->kind == SIM_ARRIVALS_LIST ? a->n_times
                                                        : a->count;
        uint64_t once = 0;
        for (uint32_t i = 0; i < p->n_ops; i++)
            once = sim_add_sat(once, op_placements(&p->ops[i], sms));
        total = sim_add_sat(total, sim_mul_sat(once, MAX(times, 1)));
    }
    return total;
}

/* The work a run asks for, against the ops, processes and work limits
 * (bounds.h): ops after repeats and replicas, and ops x iterations (or
 * arrivals).  Saturating products: counts never wrap. */
static bool check_work(const SimScenario *sc, GError **error)
{
    uint64_t ops = 0, work = sim_scenario_work(sc);
    if (sc->processes->len > sim_limit(SIM_BOUND_PROCESSES))
        return sim_limit_fail(error, SIM_BOUND_PROCESSES, "%s: %u processes",
                              sc->source, sc->processes->len);
    for (guint pi = 0; pi < sc->processes->len; pi++) {
        const SimProcessSpec *p = g_ptr_array_index(sc->processes, pi);
        ops += p->n_ops;
    }
    if (ops > sim_limit(SIM_BOUND_OPS))
        return sim_limit_fail(error, SIM_BOUND_OPS,
                              "%s: %llu ops after expanding repeats and "
                              "replicas",
                              sc->source, (unsigned long long)ops);
    if (work > sim_limit(SIM_BOUND_WORK))
        return sim_limit_fail(error, SIM_BOUND_WORK,
                              "%s: the run would simulate %s%llu ops (ops x "
                              "iterations or arrivals, all processes)",
                              sc->source, work == UINT64_MAX ? "over " : "",
                              (unsigned long long)work);
    return true;
}

bool sim_scenario_check_copies(const SimScenario *sc, uint32_t n,
                               GError **error)
{
    uint64_t ops = 0;
    for (guint pi = 0; pi < sc->processes->len; pi++)
        ops += ((const SimProcessSpec *)g_ptr_array_index(sc->processes, pi))
                   ->n_ops;
    uint64_t procs = sim_mul_sat(sc->processes->len, n);
    if (procs > sim_limit(SIM_BOUND_PROCESSES))
        return sim_limit_fail(error, SIM_BOUND_PROCESSES,
                              "%s: %u copies of %u processes", sc->source, n,
                              sc->processes->len);
    if (sim_mul_sat(ops, n) > sim_limit(SIM_BOUND_OPS))
        return sim_limit_fail(error, SIM_BOUND_OPS, "%s: %u copies of %llu ops",
                              sc->source, n, (unsigned long long)ops);
    return true;
}

bool sim_scenario_validate(const SimScenario *sc, GError **error)
{
    if (sc->processes->len && !check_work(sc, error))
        return false;
    if (sc->processes->len == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: the scenario has no processes", sc->source);
        return false;
    }
    GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
    bool ok = true;
    for (guint pi = 0; ok && pi < sc->processes->len; pi++) {
        const SimProcessSpec *p = g_ptr_array_index(sc->processes, pi);
        if (!g_hash_table_add(names, (gpointer)p->name)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s: two processes are named '%s'", sc->source,
                        p->name);
            ok = false;
            break;
        }
        if (p->active_thread_pct <= 0 || p->active_thread_pct > 100) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s: process '%s': active_thread_pct must be in "
                        "(0, 100]",
                        sc->source, p->name);
            ok = false;
            break;
        }
        if (p->iterations < 1) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s: process '%s': iterations must be >= 1", sc->source,
                        p->name);
            ok = false;
            break;
        }
        if (time_over(p->start_ns, SIM_MAX_TIME_US) || p->connections > 128 ||
            p->iterations > 1000000000u) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s: process '%s': start, connections or iterations "
                        "beyond the format's range",
                        sc->source, p->name);
            ok = false;
            break;
        }
        for (uint32_t i = 0; ok && i < p->n_ops; i++) {
            const SimOp *op = &p->ops[i];
            if (!validate_op_ranges(sc, p, i, op, error)) {
                ok = false;
                break;
            }
            switch (op->kind) {
            case SIM_OP_KERNEL:
            case SIM_OP_COPY:
            case SIM_OP_STREAM_SYNC:
                if (op->stream >= p->n_streams)
                    ok = op_fail(sc, p, i, op, error,
                                 "field 'stream': no such stream");
                if (ok && op->kind == SIM_OP_KERNEL)
                    ok = validate_kernel(sc, p, i, op, error);
                if (ok && op->kind == SIM_OP_COPY &&
                    op->u.copy.dir >= SIM_COPY_N_DIRS)
                    ok = op_fail(sc, p, i, op, error,
                                 "field 'dir': unknown direction");
                break;
            case SIM_OP_EVENT_RECORD:
            case SIM_OP_EVENT_WAIT:
                if (op->stream >= p->n_streams)
                    ok = op_fail(sc, p, i, op, error,
                                 "field 'stream': no such stream");
                /* fall through */
            case SIM_OP_EVENT_SYNC:
                if (ok && op->event >= p->n_events)
                    ok = op_fail(sc, p, i, op, error,
                                 "field 'event': no such event");
                break;
            case SIM_OP_GRAPH:
                if (op->stream >= p->n_streams)
                    ok = op_fail(sc, p, i, op, error,
                                 "field 'stream': no such stream");
                if (ok)
                    ok = validate_graph(sc, p, i, op, error);
                break;
            case SIM_OP_HOST_GAP:
            case SIM_OP_DEVICE_SYNC: break;
            default: ok = op_fail(sc, p, i, op, error, "unknown op kind");
            }
        }
    }
    g_hash_table_destroy(names);
    return ok;
}
