/* scenario_load.c -- the native scenario format (JSON) -> SimScenario.
 *
 * The format is documented in README.md ("Scenario format").  In short:
 *
 *   { "hqsim_scenario": 1, "description": "...", "gpu": "h100-sxm",
 *     "seed": 1,
 *     "processes": [ { "name": "a", "start_us": 0, "mps": false,
 *         "active_thread_pct": 100, "device_mem_mib": 0,
 *         "mps_mem_limit_mib": 0, "connections": 8, "replicas": 1,
 *         "iterations": 1, "arrivals": {...},
 *         "streams": [ {"name": "s{i}", "count": 32, "priority": 0} ],
 *         "ops": [ {"op": "kernel", ...}, {"op": "repeat", "count": 4,
 *                   "ops": [...]} ] } ] }
 *
 * "repeat" blocks are expanded here (with "{i}" in stream, event and kernel
 * names replaced by the repetition index), and "replicas" become separate
 * processes, so the engine sees only flat op lists.  Every op keeps the line
 * of the JSON object it came from for later messages.
 */
#include <math.h>
#include <string.h>

#include "bounds.h"
#include "error.h"
#include "jitter.h"
#include "json.h"
#include "scenario.h"

#define SCENARIO_VERSION 1

typedef struct {
    const SimJsonDoc *doc;
    GHashTable *lines; /* cJSON* -> line */
    SimScenario *sc;
    SimProcessSpec *p;
    GHashTable *stream_ids;  /* name -> index+1 */
    GHashTable *event_ids;   /* name -> index+1 */
    GHashTable *recorded;    /* event index+1 set: has a record op */
    const char *what;        /* "process 'a'" */
    uint64_t expanded;       /* ops and repeat rounds expanded so far: the
                                ops limit bounds it, so empty or nested
                                repeats cannot spin either */
    const SimJitter *jitter; /* the scenario's "jitter", for processes
                                without their own (nullable) */
} Loader;

static uint32_t line_of(const Loader *L, const cJSON *node)
{
    return (uint32_t)GPOINTER_TO_INT(g_hash_table_lookup(L->lines, node));
}

/* Set @code's error at @node's line: "FILE:LINE: process 'a': MSG". */
static bool fail_msg(const Loader *L, const cJSON *node, SimErrorCode code,
                     GError **error, const char *msg)
{
    uint32_t line = node ? line_of(L, node) : 0;
    if (line)
        g_set_error(error, SIM_ERROR, code, "%s:%u: %s%s%s", L->doc->file, line,
                    L->what ? L->what : "", L->what ? ": " : "", msg);
    else
        g_set_error(error, SIM_ERROR, code, "%s: %s%s%s", L->doc->file,
                    L->what ? L->what : "", L->what ? ": " : "", msg);
    return false;
}

/* A bad field (SIM_ERROR_INVALID). */
static bool fail(const Loader *L, const cJSON *node, GError **error,
                 const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static bool fail(const Loader *L, const cJSON *node, GError **error,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return fail_msg(L, node, SIM_ERROR_INVALID, error, msg);
}

/* A count over limit @which of bounds.h (SIM_ERROR_LIMIT): the message,
 * then the limit's hint ("(limit 'ops' = N; raise it with ...)"). */
static bool fail_limit(const Loader *L, const cJSON *node, SimBound which,
                       GError **error, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);
static bool fail_limit(const Loader *L, const cJSON *node, SimBound which,
                       GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_autofree char *hint = sim_limit_hint(which);
    g_autofree char *full = g_strdup_printf("%s %s", msg, hint);
    return fail_msg(L, node, SIM_ERROR_LIMIT, error, full);
}

/* Replace every "{i}" in @s by @index (no repeat in scope: index < 0). */
static char *subst(const char *s, long index)
{
    if (index < 0 || !strstr(s, "{i}"))
        return g_strdup(s);
    g_autofree char *num = g_strdup_printf("%ld", index);
    g_auto(GStrv) parts = g_strsplit(s, "{i}", -1);
    return g_strjoinv(num, parts);
}

/* A time in microseconds (fractions allowed) as SimTime. */
static bool get_time_us(const Loader *L, const cJSON *obj, const char *key,
                        bool required, double max_us, SimTime *out,
                        GError **error)
{
    double v = -1;
    if (!sim_json_get_double(L->doc, obj, key, L->what, required, 0, max_us, &v,
                             error))
        return false;
    if (v >= 0)
        *out = sim_time_from_us(v);
    return true;
}

/* @max: CUDA's largest x, y, z (sim_cuda_grid_max, sim_cuda_block_max). */
static bool get_dim3(const Loader *L, const cJSON *obj, const char *key,
                     const uint32_t max[3], uint32_t out[3], GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    out[0] = out[1] = out[2] = 1;
    if (!v)
        return fail(L, obj, error, "missing field '%s'", key);
    if (cJSON_IsNumber(v)) {
        uint64_t x;
        if (!sim_json_number_u64(L->doc, v, key, L->what, 1, max[0], &x, error))
            return false;
        out[0] = (uint32_t)x;
        return true;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 ||
        cJSON_GetArraySize(v) > 3)
        return fail(L, v, error,
                    "field '%s': expected a number or an array [x, y, z]", key);
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        uint64_t x;
        if (!sim_json_number_u64(L->doc, it, key, L->what, 1, max[i], &x,
                                 error))
            return false;
        out[i++] = (uint32_t)x;
    }
    return true;
}

static bool lookup_stream(Loader *L, const cJSON *op, long rep, uint32_t *out,
                          GError **error)
{
    const char *name = NULL;
    if (!sim_json_get_string(L->doc, op, "stream", L->what, true, &name, error))
        return false;
    g_autofree char *n = subst(name, rep);
    gpointer id = g_hash_table_lookup(L->stream_ids, n);
    if (!id)
        return fail(L, cJSON_GetObjectItemCaseSensitive(op, "stream"), error,
                    "field 'stream': no stream named '%s' (declare it in "
                    "\"streams\")",
                    n);
    *out = (uint32_t)GPOINTER_TO_UINT(id) - 1;
    return true;
}

static bool lookup_event(Loader *L, const cJSON *op, long rep, uint32_t *out,
                         GError **error)
{
    const char *name = NULL;
    if (!sim_json_get_string(L->doc, op, "event", L->what, true, &name, error))
        return false;
    g_autofree char *n = subst(name, rep);
    gpointer id = g_hash_table_lookup(L->event_ids, n);
    if (!id) {
        uint32_t idx = sim_process_add_event(L->sc, L->p, n);
        id = GUINT_TO_POINTER(idx + 1);
        g_hash_table_insert(L->event_ids, (gpointer)L->p->event_names[idx], id);
    }
    *out = (uint32_t)GPOINTER_TO_UINT(id) - 1;
    return true;
}

static const char *const op_names[] = {
    "kernel",      "copy",         "host_gap",   "stream_sync",
    "device_sync", "event_record", "event_wait", "event_sync",
    "graph",       "repeat",       NULL};
#define OP_REPEAT SIM_OP_N_KINDS /* "repeat" follows the op kinds */

static bool load_ops(Loader *L, const cJSON *ops, long rep, GError **error);

/* The fields of a kernel op, and of a kernel node of a graph (no stream,
 * no host times; an id and dependencies instead). */
static const char *const kernel_keys[] = {"op",
                                          "name",
                                          "stream",
                                          "grid",
                                          "block",
                                          "regs_per_thread",
                                          "static_smem_bytes",
                                          "dynamic_smem_bytes",
                                          "smem_config_bytes",
                                          "carveout_pct",
                                          "duration_us",
                                          "block_time_us",
                                          "sm_intensity",
                                          "sm_pipe_share",
                                          "ilp",
                                          "mem_intensity",
                                          "dram_bytes",
                                          "l2_served",
                                          "faults",
                                          "wall_clock",
                                          "self_timed",
                                          "bare_class",
                                          "api_us",
                                          "at_us",
                                          NULL};
static const char *const kernel_node_keys[] = {"op",
                                               "name",
                                               "id",
                                               "after",
                                               "grid",
                                               "block",
                                               "regs_per_thread",
                                               "static_smem_bytes",
                                               "dynamic_smem_bytes",
                                               "smem_config_bytes",
                                               "carveout_pct",
                                               "duration_us",
                                               "block_time_us",
                                               "sm_intensity",
                                               "sm_pipe_share",
                                               "ilp",
                                               "mem_intensity",
                                               "dram_bytes",
                                               "l2_served",
                                               "faults",
                                               "wall_clock",
                                               "self_timed",
                                               "bare_class",
                                               NULL};

/* One more op or repeat round; fails past the ops limit, before the op's
 * memory is spent. */
static bool count_expanded(Loader *L, const cJSON *o, GError **error)
{
    if (++L->expanded <= sim_limit(SIM_BOUND_OPS))
        return true;
    return fail_limit(L, o, SIM_BOUND_OPS, error,
                      "more than %llu ops after expanding repeats (use "
                      "\"iterations\" for long loops)",
                      (unsigned long long)sim_limit(SIM_BOUND_OPS));
}

/* What load_op will count_expanded() for one op @o: 1, a graph 1 + its
 * nodes, a repeat count x (1 + its body), nested repeats multiplied out,
 * saturating.  Read before expanding; what is malformed counts 1 (or a
 * bad count 0) and is reported when it is loaded. */
static uint64_t op_expansion(const cJSON *o)
{
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "op");
    if (!cJSON_IsString(kind))
        return 1;
    if (!strcmp(kind->valuestring, "graph")) {
        const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(o, "nodes");
        return 1 + (uint64_t)MAX(cJSON_GetArraySize(nodes), 0);
    }
    if (strcmp(kind->valuestring, "repeat"))
        return 1;
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(o, "count");
    const cJSON *inner = cJSON_GetObjectItemCaseSensitive(o, "ops");
    if (!cJSON_IsNumber(count) || !(count->valuedouble >= 1) ||
        !(count->valuedouble <= 1e8) || !cJSON_IsArray(inner))
        return 0;
    uint64_t body = 1; /* the round itself */
    const cJSON *i;
    cJSON_ArrayForEach(i, inner) body = sim_add_sat(body, op_expansion(i));
    return sim_mul_sat((uint64_t)count->valuedouble, body);
}

/* Before expanding repeat @o: the ops limit against everything it will
 * expand to, nested repeats multiplied out, so that a few bytes of nested
 * repeats are refused at once, naming the count, not after the limit's
 * worth of ops is built. */
static bool check_repeat(Loader *L, const cJSON *o, uint32_t count,
                         GError **error)
{
    uint64_t total = op_expansion(o);
    if (sim_add_sat(L->expanded, total) <= sim_limit(SIM_BOUND_OPS))
        return true;
    g_autofree char *before =
        L->expanded ? g_strdup_printf(", with the %llu before it",
                                      (unsigned long long)L->expanded)
                    : g_strdup("");
    return fail_limit(
        L, cJSON_GetObjectItemCaseSensitive(o, "count"), SIM_BOUND_OPS, error,
        "field 'count': %u rounds of this repeat expand to "
        "%s%llu ops and rounds (nested repeats multiplied "
        "out)%s more than %llu ops after expanding repeats "
        "(use \"iterations\" for long loops)",
        count, total == UINT64_MAX ? "over " : "", (unsigned long long)total,
        before, (unsigned long long)sim_limit(SIM_BOUND_OPS));
}

/* "carveout_pct": the kernel's preferred carveout, 0 to 100 (%). */
static bool get_carveout_pct(Loader *L, const cJSON *o, SimKernelSpec *k,
                             GError **error)
{
    uint32_t pct = 0;
    k->has_carveout_pct = cJSON_HasObjectItem(o, "carveout_pct");
    if (!sim_json_get_u32(L->doc, o, "carveout_pct", L->what, false, 0, 100,
                          &pct, error))
        return false;
    k->carveout_pct = (uint8_t)pct;
    return true;
}

/* Its L2-served share of loads, in [0, 1], when given (FINDINGS §69;
 * absent: the model's l2_served_default). */
static bool get_l2_served(Loader *L, const cJSON *o, SimKernelSpec *k,
                          GError **error)
{
    double v = -1;
    if (!sim_json_get_double(L->doc, o, "l2_served", L->what, false, 0, 1, &v,
                             error))
        return false;
    k->has_l2_served = v >= 0;
    k->l2_served = k->has_l2_served ? v : 0;
    return true;
}

/* "bare_class": the class of a kernel imported from a trace without
 * Nsight Compute data for it (kernel_class.h), so that a converted trace
 * replays as the trace does. */
static bool get_bare_class(Loader *L, const cJSON *o, SimKernelSpec *k,
                           GError **error)
{
    const char *s = NULL;
    if (!sim_json_get_string(L->doc, o, "bare_class", L->what, false, &s,
                             error))
        return false;
    SimKernelClass c = SIM_KCLASS_NONE;
    if (s && !sim_kernel_class_parse(s, &c))
        return fail(L, cJSON_GetObjectItemCaseSensitive(o, "bare_class"), error,
                    "kernel '%s': field 'bare_class': '%s' is not gemv, "
                    "sgemm, gemm, norm, elementwise or other",
                    k->name, s);
    k->bare_class = (uint8_t)c;
    return true;
}

static bool load_kernel(Loader *L, const cJSON *o, long rep, SimOp *op,
                        bool node, GError **error)
{
    if (!sim_json_check_keys(L->doc, o, node ? kernel_node_keys : kernel_keys,
                             L->what, error))
        return false;
    SimKernelSpec *k = &op->u.kernel;
    const char *name = NULL;
    if (!sim_json_get_string(L->doc, o, "name", L->what, true, &name, error))
        return false;
    g_autofree char *n = subst(name, rep);
    k->name = sim_scenario_intern(L->sc, n);
    k->regs_per_thread = 32;
    if ((!node && !lookup_stream(L, o, rep, &op->stream, error)) ||
        !get_dim3(L, o, "grid", sim_cuda_grid_max, k->grid, error) ||
        !get_dim3(L, o, "block", sim_cuda_block_max, k->block, error) ||
        !sim_json_get_u32(L->doc, o, "regs_per_thread", L->what, false, 0,
                          SIM_MAX_REGS_PER_THREAD, &k->regs_per_thread,
                          error) ||
        !sim_json_get_u32(L->doc, o, "static_smem_bytes", L->what, false, 0,
                          SIM_MAX_SMEM_BYTES, &k->static_smem_bytes, error) ||
        !sim_json_get_u32(L->doc, o, "dynamic_smem_bytes", L->what, false, 0,
                          SIM_MAX_SMEM_BYTES, &k->dynamic_smem_bytes, error) ||
        !sim_json_get_u32(L->doc, o, "smem_config_bytes", L->what, false, 1,
                          SIM_MAX_SMEM_BYTES, &k->smem_config_bytes, error) ||
        !get_carveout_pct(L, o, k, error) ||
        !get_time_us(L, o, "duration_us", false, 1e12, &k->duration_ns,
                     error) ||
        !get_time_us(L, o, "block_time_us", false, 1e12, &k->block_time_ns,
                     error) ||
        !sim_json_get_double(L->doc, o, "sm_intensity", L->what, false, 1e-6, 1,
                             &k->sm_intensity, error) ||
        !sim_json_get_double(L->doc, o, "sm_pipe_share", L->what, false, 0, 1,
                             &k->sm_pipe_share, error) ||
        !sim_json_get_u32(L->doc, o, "ilp", L->what, false, 1, 64, &k->ilp,
                          error) ||
        !sim_json_get_double(L->doc, o, "mem_intensity", L->what, false, 0, 1,
                             &k->mem_intensity, error) ||
        !sim_json_get_u64(L->doc, o, "dram_bytes", L->what, false, 0,
                          UINT64_C(1) << 50, &k->dram_bytes, error) ||
        !get_l2_served(L, o, k, error) ||
        !sim_json_get_bool(L->doc, o, "faults", L->what, false, &k->faults,
                           error) ||
        !sim_json_get_bool(L->doc, o, "wall_clock", L->what, false,
                           &k->wall_clock, error) ||
        !sim_json_get_bool(L->doc, o, "self_timed", L->what, false,
                           &k->self_timed, error) ||
        !get_bare_class(L, o, k, error))
        return false;
    if (k->wall_clock && k->self_timed)
        return fail(L, o, error,
                    "kernel '%s': 'wall_clock' and 'self_timed' exclude each "
                    "other",
                    k->name);
    bool has_d = cJSON_HasObjectItem(o, "duration_us");
    bool has_b = cJSON_HasObjectItem(o, "block_time_us");
    if (has_d == has_b)
        return fail(L, o, error,
                    "kernel '%s': give exactly one of 'duration_us' (time "
                    "alone on the GPU) and 'block_time_us'",
                    k->name);
    if (k->duration_ns == 0 && k->block_time_ns == 0)
        return fail(L, o, error, "kernel '%s': its time must be > 0", k->name);
    return true;
}

/* A graph node's "after": the ids it runs after (default: the node before
 * it, so a graph without "after" is a chain). */
static bool node_deps(Loader *L, const cJSON *n, uint32_t index,
                      GHashTable *ids, GArray *deps, GError **error)
{
    g_array_set_size(deps, 0);
    const cJSON *after = cJSON_GetObjectItemCaseSensitive(n, "after");
    if (!after) {
        if (index > 0) {
            uint32_t prev = index - 1;
            g_array_append_val(deps, prev);
        }
        return true;
    }
    if (!cJSON_IsArray(after))
        return fail(L, after, error,
                    "field 'after': expected an array of node ids");
    const cJSON *a;
    cJSON_ArrayForEach(a, after)
    {
        if (!cJSON_IsString(a))
            return fail(L, a, error, "field 'after': node ids are strings");
        gpointer id = g_hash_table_lookup(ids, a->valuestring);
        if (!id)
            return fail(L, a, error, "field 'after': no node with id '%s'",
                        a->valuestring);
        uint32_t d = GPOINTER_TO_UINT(id) - 1;
        for (guint k = 0; k < deps->len; k++)
            if (g_array_index(deps, uint32_t, k) == d)
                return fail(L, a, error, "field 'after': '%s' given twice",
                            a->valuestring);
        g_array_append_val(deps, d);
    }
    return true;
}

/* One node: a kernel (the kernel op's fields, no stream), a memset
 * ("bytes", "duration_us") or a copy (the copy op's fields, no stream). */
static bool load_node(Loader *L, const cJSON *n, long rep, SimGraphNode *nd,
                      GError **error)
{
    static const char *const kinds[] = {"kernel", "memset", "copy", NULL};
    static const char *const memset_keys[] = {"op",    "id",          "after",
                                              "bytes", "duration_us", NULL};
    static const char *const copy_keys[] = {
        "op", "id", "after", "dir", "bytes", "pinned", "duration_us", NULL};
    static const char *const dirs[] = {"h2d", "d2h", "d2d", NULL};
    int kind = 0, dir = SIM_COPY_D2D;
    if (!cJSON_IsObject(n))
        return fail(L, n, error, "field 'nodes': a node must be an object");
    if (!sim_json_get_enum(L->doc, n, "op", L->what, true, kinds, &kind, error))
        return false;
    nd->kind = (SimNodeKind)kind;
    nd->op.line = line_of(L, n);
    nd->op.api_ns = SIM_TIME_NEVER;
    if (kind == SIM_NODE_KERNEL) {
        nd->op.kind = SIM_OP_KERNEL;
        return load_kernel(L, n, rep, &nd->op, true, error);
    }
    nd->op.kind = SIM_OP_COPY;
    SimCopySpec *c = &nd->op.u.copy;
    c->pinned = true;
    if (!sim_json_check_keys(L->doc, n,
                             kind == SIM_NODE_MEMSET ? memset_keys : copy_keys,
                             L->what, error) ||
        (kind == SIM_NODE_COPY &&
         !sim_json_get_enum(L->doc, n, "dir", L->what, true, dirs, &dir,
                            error)) ||
        !sim_json_get_u64(L->doc, n, "bytes", L->what, true, 0,
                          (uint64_t)1 << 50, &c->bytes, error) ||
        !sim_json_get_bool(L->doc, n, "pinned", L->what, false, &c->pinned,
                           error) ||
        !get_time_us(L, n, "duration_us", false, 1e12, &c->duration_ns, error))
        return false;
    c->dir = (SimCopyDir)dir;
    return true;
}

/* {"op": "graph", "stream": S, "nodes": [...]}: ids first (so "after" may
 * name any node), then the nodes, then the DAG check. */
static bool load_graph(Loader *L, const cJSON *o, long rep, SimOp *op,
                       GError **error)
{
    static const char *const keys[] = {"op",     "stream", "nodes",
                                       "api_us", "at_us",  NULL};
    if (!sim_json_check_keys(L->doc, o, keys, L->what, error) ||
        !lookup_stream(L, o, rep, &op->stream, error))
        return false;
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(o, "nodes");
    if (!cJSON_IsArray(nodes) || cJSON_GetArraySize(nodes) == 0)
        return fail(L, nodes ? nodes : o, error,
                    "field 'nodes': expected a non-empty array of nodes");
    g_autoptr(GHashTable) ids =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    const cJSON *n;
    uint32_t count = 0;
    cJSON_ArrayForEach(n, nodes)
    {
        const char *id = NULL;
        if (cJSON_IsObject(n) &&
            !sim_json_get_string(L->doc, n, "id", L->what, false, &id, error))
            return false;
        if (id) {
            char *key = subst(id, rep);
            if (g_hash_table_contains(ids, key)) {
                g_free(key);
                return fail(L, cJSON_GetObjectItemCaseSensitive(n, "id"), error,
                            "field 'id': two nodes have the id '%s'", id);
            }
            g_hash_table_insert(ids, key, GUINT_TO_POINTER(count + 1));
        }
        count++;
    }
    SimGraph *g = sim_scenario_new_graph(L->sc);
    g_autoptr(GArray) deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autofree const cJSON **at = g_new(const cJSON *, count);
    uint32_t i = 0;
    cJSON_ArrayForEach(n, nodes)
    {
        SimGraphNode nd;
        memset(&nd, 0, sizeof nd);
        if (!count_expanded(L, n, error) || /* nodes count as ops */
            !load_node(L, n, rep, &nd, error) ||
            !node_deps(L, n, i, ids, deps, error))
            return false;
        const char *id = NULL;
        sim_json_get_string(L->doc, n, "id", L->what, false, &id, NULL);
        if (id) {
            g_autofree char *sid = subst(id, rep);
            nd.id = sim_scenario_intern(L->sc, sid);
        }
        nd.op.stream = op->stream;
        at[i] = n;
        sim_graph_add_node(g, &nd, (const uint32_t *)deps->data, deps->len);
        i++;
    }
    uint32_t bad = 0;
    if (!sim_graph_finish(g, &bad)) {
        const cJSON *b = at[bad];
        const cJSON *after = cJSON_GetObjectItemCaseSensitive(b, "after");
        return fail(L, after ? after : b, error,
                    "field 'after': graph node %u%s%s%s is on a dependency "
                    "cycle",
                    bad, g->nodes[bad].id ? " ('" : "",
                    g->nodes[bad].id ? g->nodes[bad].id : "",
                    g->nodes[bad].id ? "')" : "");
    }
    op->u.graph = g;
    return true;
}

static bool load_op(Loader *L, const cJSON *o, long rep, GError **error)
{
    if (!cJSON_IsObject(o))
        return fail(L, o, error, "an op must be an object");
    int kind = -1;
    if (!sim_json_get_enum(L->doc, o, "op", L->what, true, op_names, &kind,
                           error))
        return false;
    if (kind == OP_REPEAT) {
        static const char *const keys[] = {"op", "count", "ops", NULL};
        uint32_t count = 0;
        if (!sim_json_check_keys(L->doc, o, keys, L->what, error) ||
            !sim_json_get_u32(L->doc, o, "count", L->what, true, 0, 100000000,
                              &count, error))
            return false;
        const cJSON *inner = cJSON_GetObjectItemCaseSensitive(o, "ops");
        if (!cJSON_IsArray(inner))
            return fail(L, o, error, "repeat: field 'ops' must be an array");
        if (!check_repeat(L, o, count, error))
            return false;
        for (uint32_t i = 0; i < count; i++)
            if (!count_expanded(L, o, error) || !load_ops(L, inner, i, error))
                return false;
        return true;
    }
    SimOp op;
    memset(&op, 0, sizeof op);
    op.kind = (SimOpKind)kind;
    op.api_ns = SIM_TIME_NEVER;
    op.line = line_of(L, o);
    if (!get_time_us(L, o, "api_us", false, 1e9, &op.api_ns, error) ||
        !get_time_us(L, o, "at_us", false, 1e12, &op.at_ns, error))
        return false;
    switch (op.kind) {
    case SIM_OP_KERNEL:
        if (!load_kernel(L, o, rep, &op, false, error))
            return false;
        break;
    case SIM_OP_GRAPH:
        if (!load_graph(L, o, rep, &op, error))
            return false;
        break;
    case SIM_OP_COPY: {
        static const char *const keys[] = {"op",     "stream", "dir",
                                           "bytes",  "pinned", "duration_us",
                                           "api_us", "at_us",  NULL};
        static const char *const dirs[] = {"h2d", "d2h", "d2d", NULL};
        int dir = 0;
        op.u.copy.pinned = true;
        if (!sim_json_check_keys(L->doc, o, keys, L->what, error) ||
            !lookup_stream(L, o, rep, &op.stream, error) ||
            !sim_json_get_enum(L->doc, o, "dir", L->what, true, dirs, &dir,
                               error) ||
            !sim_json_get_u64(L->doc, o, "bytes", L->what, true, 0,
                              (uint64_t)1 << 50, &op.u.copy.bytes, error) ||
            !sim_json_get_bool(L->doc, o, "pinned", L->what, false,
                               &op.u.copy.pinned, error) ||
            !get_time_us(L, o, "duration_us", false, 1e12,
                         &op.u.copy.duration_ns, error))
            return false;
        op.u.copy.dir = (SimCopyDir)dir;
        break;
    }
    case SIM_OP_HOST_GAP: {
        static const char *const keys[] = {"op", "duration_us", "at_us", NULL};
        if (!sim_json_check_keys(L->doc, o, keys, L->what, error) ||
            !get_time_us(L, o, "duration_us", true, 1e12, &op.u.gap_ns, error))
            return false;
        break;
    }
    case SIM_OP_STREAM_SYNC: {
        static const char *const keys[] = {"op", "stream", "api_us", "at_us",
                                           NULL};
        if (!sim_json_check_keys(L->doc, o, keys, L->what, error) ||
            !lookup_stream(L, o, rep, &op.stream, error))
            return false;
        break;
    }
    case SIM_OP_DEVICE_SYNC: {
        static const char *const keys[] = {"op", "api_us", "at_us", NULL};
        if (!sim_json_check_keys(L->doc, o, keys, L->what, error))
            return false;
        break;
    }
    case SIM_OP_EVENT_RECORD:
    case SIM_OP_EVENT_WAIT: {
        static const char *const keys[] = {"op",     "event", "stream",
                                           "api_us", "at_us", NULL};
        if (!sim_json_check_keys(L->doc, o, keys, L->what, error) ||
            !lookup_stream(L, o, rep, &op.stream, error) ||
            !lookup_event(L, o, rep, &op.event, error))
            return false;
        if (op.kind == SIM_OP_EVENT_RECORD)
            g_hash_table_add(L->recorded, GUINT_TO_POINTER(op.event + 1));
        break;
    }
    case SIM_OP_EVENT_SYNC: {
        static const char *const keys[] = {"op", "event", "api_us", "at_us",
                                           NULL};
        if (!sim_json_check_keys(L->doc, o, keys, L->what, error) ||
            !lookup_event(L, o, rep, &op.event, error))
            return false;
        break;
    }
    default: g_assert_not_reached();
    }
    if (!count_expanded(L, o, error))
        return false;
    sim_process_add_op(L->p, &op);
    return true;
}

static bool load_ops(Loader *L, const cJSON *ops, long rep, GError **error)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, ops)
    {
        if (!load_op(L, o, rep, error))
            return false;
    }
    return true;
}

static bool load_streams(Loader *L, const cJSON *proc, GError **error)
{
    const cJSON *streams = cJSON_GetObjectItemCaseSensitive(proc, "streams");
    /* May be empty: a process of host work only (imported traces have
     * them); an op naming a stream then fails as "no stream named". */
    if (!cJSON_IsArray(streams))
        return fail(L, streams ? streams : proc, error,
                    "field 'streams': expected an array");
    const cJSON *s;
    cJSON_ArrayForEach(s, streams)
    {
        static const char *const keys[] = {"name", "priority", "count", NULL};
        const char *name = NULL;
        int prio = 0;
        uint32_t count = 0;
        if (!sim_json_check_keys(L->doc, s, keys, L->what, error) ||
            !sim_json_get_string(L->doc, s, "name", L->what, true, &name,
                                 error) ||
            !sim_json_get_int(L->doc, s, "priority", L->what, false, -64, 64,
                              &prio, error) ||
            !sim_json_get_u32(L->doc, s, "count", L->what, false, 1, 100000,
                              &count, error))
            return false;
        bool many = cJSON_HasObjectItem(s, "count");
        if ((uint64_t)L->p->n_streams + (many ? count : 1) >
            sim_limit(SIM_BOUND_STREAMS))
            return fail_limit(L, s, SIM_BOUND_STREAMS, error,
                              "more than %llu streams",
                              (unsigned long long)sim_limit(SIM_BOUND_STREAMS));
        for (uint32_t i = 0; i < (many ? count : 1); i++) {
            g_autofree char *n = NULL;
            if (!many)
                n = g_strdup(name);
            else if (strstr(name, "{i}"))
                n = subst(name, i);
            else
                n = g_strdup_printf("%s%u", name, i);
            if (g_hash_table_contains(L->stream_ids, n))
                return fail(L, s, error, "two streams are named '%s'", n);
            uint32_t idx = sim_process_add_stream(L->sc, L->p, n, prio);
            g_hash_table_insert(L->stream_ids,
                                (gpointer)L->p->streams[idx].name,
                                GUINT_TO_POINTER(idx + 1));
        }
    }
    return true;
}

static int cmp_time(const void *a, const void *b)
{
    SimTime x = *(const SimTime *)a, y = *(const SimTime *)b;
    return x < y ? -1 : x > y;
}

static bool load_arrivals(Loader *L, const cJSON *proc, GError **error)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(proc, "arrivals");
    if (!a)
        return true;
    static const char *const keys[] = {"times_us", "rate_per_s", "count",
                                       "distribution", NULL};
    if (!sim_json_check_keys(L->doc, a, keys, L->what, error))
        return false;
    SimArrivals *ar = &L->p->arrivals;
    const cJSON *times = cJSON_GetObjectItemCaseSensitive(a, "times_us");
    if (times) {
        if (!cJSON_IsArray(times) || cJSON_GetArraySize(times) == 0)
            return fail(L, times, error,
                        "arrivals: 'times_us' must be a non-empty array");
        ar->kind = SIM_ARRIVALS_LIST;
        ar->n_times = (uint32_t)cJSON_GetArraySize(times);
        ar->times_ns = g_new(SimTime, ar->n_times);
        uint32_t i = 0;
        const cJSON *t;
        cJSON_ArrayForEach(t, times)
        {
            if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) ||
                t->valuedouble < 0 || t->valuedouble > 1e12)
                return fail(L, t, error,
                            "arrivals: 'times_us' entries must be numbers in "
                            "[0, 1e12]");
            ar->times_ns[i++] = sim_time_from_us(t->valuedouble);
        }
        qsort(ar->times_ns, ar->n_times, sizeof(SimTime), cmp_time);
        if (cJSON_HasObjectItem(a, "rate_per_s"))
            return fail(L, a, error,
                        "arrivals: give 'times_us' or 'rate_per_s', not both");
        return true;
    }
    static const char *const dists[] = {"uniform", "poisson", NULL};
    int dist = 1;
    if (!sim_json_get_double(L->doc, a, "rate_per_s", L->what, true, 1e-6, 1e9,
                             &ar->rate_per_s, error) ||
        !sim_json_get_u32(L->doc, a, "count", L->what, true, 1, 100000000,
                          &ar->count, error) ||
        !sim_json_get_enum(L->doc, a, "distribution", L->what, false, dists,
                           &dist, error))
        return false;
    ar->kind = dist == 0 ? SIM_ARRIVALS_UNIFORM : SIM_ARRIVALS_POISSON;
    return true;
}

/* A wait or sync on an event that no op ever records can never finish;
 * reject it here, at its line, rather than as a deadlock later. */
static bool check_events(Loader *L, GError **error)
{
    for (uint32_t i = 0; i < L->p->n_ops; i++) {
        const SimOp *op = &L->p->ops[i];
        if ((op->kind == SIM_OP_EVENT_WAIT || op->kind == SIM_OP_EVENT_SYNC) &&
            !g_hash_table_contains(L->recorded,
                                   GUINT_TO_POINTER(op->event + 1))) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_DEADLOCK,
                        "%s:%u: %s: op %u (%s) waits on event '%s', which is "
                        "never recorded: the scenario would deadlock",
                        L->doc->file, op->line, L->what, i,
                        sim_op_kind_name(op->kind),
                        L->p->event_names[op->event]);
            return false;
        }
    }
    return true;
}

static bool load_process(Loader *L, const cJSON *proc, GError **error)
{
    static const char *const keys[] = {"name",
                                       "start_us",
                                       "mps",
                                       "active_thread_pct",
                                       "device_mem_mib",
                                       "mps_mem_limit_mib",
                                       "connections",
                                       "replicas",
                                       "iterations",
                                       "arrivals",
                                       "streams",
                                       "events",
                                       "ops",
                                       "jitter",
                                       NULL};
    const char *name = NULL;
    if (!cJSON_IsObject(proc))
        return fail(L, proc, error, "a process must be an object");
    if (!sim_json_get_string(L->doc, proc, "name", "process", true, &name,
                             error))
        return false;
    g_autofree char *what = g_strdup_printf("process '%s'", name);
    L->what = what;
    if (!sim_json_check_keys(L->doc, proc, keys, L->what, error))
        return false;
    SimProcessSpec *p = sim_scenario_add_process(L->sc, name);
    L->p = p;
    double mem_mib = 0, limit_mib = 0;
    uint32_t replicas = 1;
    if (!get_time_us(L, proc, "start_us", false, 1e12, &p->start_ns, error) ||
        !sim_json_get_bool(L->doc, proc, "mps", L->what, false, &p->mps,
                           error) ||
        !sim_json_get_double(L->doc, proc, "active_thread_pct", L->what, false,
                             0.01, 100, &p->active_thread_pct, error) ||
        !sim_json_get_double(L->doc, proc, "device_mem_mib", L->what, false, 0,
                             1e9, &mem_mib, error) ||
        !sim_json_get_double(L->doc, proc, "mps_mem_limit_mib", L->what, false,
                             0, 1e9, &limit_mib, error) ||
        !sim_json_get_u32(L->doc, proc, "connections", L->what, false, 1, 128,
                          &p->connections, error) ||
        !sim_json_get_u32(L->doc, proc, "replicas", L->what, false, 1, 4096,
                          &replicas, error) ||
        !sim_json_get_u32(L->doc, proc, "iterations", L->what, false, 1,
                          1000000000, &p->iterations, error))
        return false;
    p->device_mem_bytes = (uint64_t)llround(mem_mib * 1048576.0);
    p->mps_mem_limit_bytes = (uint64_t)llround(limit_mib * 1048576.0);
    if (!load_streams(L, proc, error) || !load_arrivals(L, proc, error))
        return false;
    const cJSON *jit = cJSON_GetObjectItemCaseSensitive(proc, "jitter");
    p->jitter = jit ? sim_jitter_parse(L->doc, jit, L->what, error)
                    : sim_jitter_copy(L->jitter);
    if (jit && !p->jitter)
        return false;
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(proc, "events");
    if (events) {
        const cJSON *e;
        if (!cJSON_IsArray(events))
            return fail(L, events, error,
                        "field 'events': expected an array of names");
        cJSON_ArrayForEach(e, events)
        {
            if (!cJSON_IsString(e))
                return fail(L, e, error, "field 'events': names are strings");
            if (g_hash_table_contains(L->event_ids, e->valuestring))
                return fail(L, e, error, "two events are named '%s'",
                            e->valuestring);
            uint32_t idx = sim_process_add_event(L->sc, p, e->valuestring);
            g_hash_table_insert(L->event_ids, (gpointer)p->event_names[idx],
                                GUINT_TO_POINTER(idx + 1));
        }
    }
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(proc, "ops");
    if (!cJSON_IsArray(ops))
        return fail(L, ops ? ops : proc, error,
                    "field 'ops': expected an array");
    if (!load_ops(L, ops, -1, error) || !check_events(L, error))
        return false;
    if (replicas > 1 &&
        (sim_mul_sat(p->n_ops, replicas) > sim_limit(SIM_BOUND_OPS) ||
         L->sc->processes->len - 1 + replicas >
             sim_limit(SIM_BOUND_PROCESSES))) {
        SimBound l = L->sc->processes->len - 1 + replicas >
                             sim_limit(SIM_BOUND_PROCESSES)
                         ? SIM_BOUND_PROCESSES
                         : SIM_BOUND_OPS;
        return fail_limit(L, cJSON_GetObjectItemCaseSensitive(proc, "replicas"),
                          l, error, "%u replicas of %u ops", replicas,
                          p->n_ops);
    }
    if (replicas > 1)
        sim_scenario_replicate_process(L->sc, L->sc->processes->len - 1,
                                       replicas);
    return true;
}

static SimScenario *load_doc(const SimJsonDoc *doc, GError **error)
{
    const cJSON *root = doc->root;
    if (!cJSON_IsObject(root)) {
        sim_json_fail(doc, root, error, "expected a JSON object");
        return NULL;
    }
    static const char *const keys[] = {
        "hqsim_scenario", "description", "gpu",       "seed",
        "host_cores",     "jitter",      "processes", NULL};
    int version = 0;
    if (!sim_json_check_keys(doc, root, keys, NULL, error) ||
        !sim_json_get_int(doc, root, "hqsim_scenario", NULL, true, 1,
                          SCENARIO_VERSION, &version, error))
        return NULL;
    g_autoptr(SimScenario) sc = sim_scenario_new(doc->file, "hqsim");
    const char *desc = NULL, *gpu = NULL;
    uint64_t seed = 1;
    if (!sim_json_get_string(doc, root, "description", NULL, false, &desc,
                             error) ||
        !sim_json_get_string(doc, root, "gpu", NULL, false, &gpu, error) ||
        !sim_json_get_u64(doc, root, "seed", NULL, false, 0, (uint64_t)1 << 53,
                          &seed, error) ||
        !sim_json_get_u32(doc, root, "host_cores", NULL, false, 1, 1u << 20,
                          &sc->host_cores, error))
        return NULL;
    const cJSON *jit = cJSON_GetObjectItemCaseSensitive(root, "jitter");
    g_autoptr(SimJitter) jitter =
        jit ? sim_jitter_parse(doc, jit, NULL, error) : NULL;
    if (jit && !jitter)
        return NULL;
    sc->description = g_strdup(desc);
    sc->gpu = g_strdup(gpu);
    sc->seed = seed;
    const cJSON *procs = cJSON_GetObjectItemCaseSensitive(root, "processes");
    if (!cJSON_IsArray(procs) || cJSON_GetArraySize(procs) == 0) {
        sim_json_fail(doc, procs ? procs : root, error,
                      "field 'processes': expected a non-empty array");
        return NULL;
    }
    g_autoptr(GHashTable) lines = sim_json_line_table(doc);
    const cJSON *proc;
    cJSON_ArrayForEach(proc, procs)
    {
        g_autoptr(GHashTable) streams =
            g_hash_table_new(g_str_hash, g_str_equal);
        g_autoptr(GHashTable) events =
            g_hash_table_new(g_str_hash, g_str_equal);
        g_autoptr(GHashTable) recorded =
            g_hash_table_new(g_direct_hash, g_direct_equal);
        Loader L = {doc,    lines,    sc,   NULL, streams,
                    events, recorded, NULL, 0,    jitter};
        if (!load_process(&L, proc, error))
            return NULL;
    }
    if (!sim_scenario_validate(sc, error))
        return NULL;
    return g_steal_pointer(&sc);
}

SimScenario *sim_scenario_parse(const char *name, const char *text, size_t len,
                                GError **error)
{
    g_autoptr(SimJsonDoc) doc = sim_json_doc_parse(name, text, len, error);
    return doc ? load_doc(doc, error) : NULL;
}

SimScenario *sim_scenario_load(const char *path, GError **error)
{
    g_autoptr(SimJsonDoc) doc = sim_json_doc_load(path, error);
    return doc ? load_doc(doc, error) : NULL;
}
