/* workload_file.c -- several traces as one workload.  See
 * workload_file.h. */
#include "workload_file.h"

#include <math.h>
#include <string.h>
#include <zlib.h>

#include "error.h"
#include "json.h"

bool prep_is_workload(const char *path)
{
    /* Only regular files are read: a FIFO or device would block here, and
     * the loader reports those (sim_read_file). */
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
        return false;
    /* gzread reads plain files as they are. */
    gzFile z = gzopen(path, "rb");
    if (!z)
        return false;
    char head[4097];
    int n = gzread(z, head, sizeof head - 1);
    gzclose(z);
    if (n <= 0)
        return false;
    head[n] = 0;
    if (memchr(head, 0, (size_t)n))
        return false;
    /* The key, not the words in a description: "hqsim_workload" then ':'. */
    for (const char *k = strstr(head, "\"hqsim_workload\""); k;
         k = strstr(k + 1, "\"hqsim_workload\"")) {
        const char *c = k + strlen("\"hqsim_workload\"");
        while (g_ascii_isspace(*c))
            c++;
        if (*c == ':')
            return true;
    }
    return false;
}

/* One part as the file says it. */
typedef struct {
    const char *file, *name; /* (transfer none): in the document */
    uint32_t count;
    double thread_pct; /* < 0: as the part's file says */
    int mps;           /* -1: as the part's file says */
    double mem_mib;    /* < 0: as the part's file says */
} Part;

static bool read_part(const SimJsonDoc *doc, const cJSON *obj, uint32_t i,
                      Part *p, GError **error)
{
    static const char *const keys[] = {"file", "count",   "name", "thread_pct",
                                       "mps",  "mem_mib", NULL};
    g_autofree char *what = g_strdup_printf("part %u", i);
    *p = (Part){NULL, NULL, 1, -1, -1, -1};
    bool mps = false;
    if (!cJSON_IsObject(obj))
        return sim_json_fail(doc, obj, error, "%s: not an object", what);
    if (!sim_json_check_keys(doc, obj, keys, what, error) ||
        !sim_json_get_string(doc, obj, "file", what, true, &p->file, error) ||
        !sim_json_get_u32(doc, obj, "count", what, false, 1, 100000, &p->count,
                          error) ||
        !sim_json_get_string(doc, obj, "name", what, false, &p->name, error) ||
        !sim_json_get_double(doc, obj, "thread_pct", what, false, 0, 100,
                             &p->thread_pct, error) ||
        !sim_json_get_double(doc, obj, "mem_mib", what, false, 0, 1e9,
                             &p->mem_mib, error))
        return false;
    if (cJSON_GetObjectItemCaseSensitive(obj, "mps")) {
        if (!sim_json_get_bool(doc, obj, "mps", what, true, &mps, error))
            return false;
        p->mps = mps;
    }
    if (p->thread_pct == 0)
        return sim_json_fail(
            doc, cJSON_GetObjectItemCaseSensitive(obj, "thread_pct"), error,
            "%s: field 'thread_pct': 0 is out of range (0, 100]", what);
    if (p->name && !*p->name)
        return sim_json_fail(doc, cJSON_GetObjectItemCaseSensitive(obj, "name"),
                             error, "%s: field 'name' is empty", what);
    return true;
}

/* A process name no process of @all has: @name, else "@name (part K)". */
static char *unique_name(const SimScenario *all, const char *name, uint32_t k)
{
    for (guint j = 0; j < all->processes->len; j++)
        if (!strcmp(
                ((SimProcessSpec *)g_ptr_array_index(all->processes, j))->name,
                name))
            return g_strdup_printf("%s (part %u)", name, k);
    return g_strdup(name);
}

/* Steps 1-6 on one part, then its own fields: name, thread percentage,
 * MPS, memory, copies.  Returns: (transfer full) (nullable). */
static SimScenario *load_part(const SimJsonDoc *doc, const cJSON *node,
                              const char *dir, const Part *p,
                              const PrepOptions *o, GError **error)
{
    g_autofree char *file = g_path_is_absolute(p->file)
                                ? g_strdup(p->file)
                                : g_build_filename(dir, p->file, NULL);
    if (prep_is_workload(file)) {
        sim_json_fail(doc, node, error,
                      "%s is itself a workload file: list its parts here",
                      p->file);
        return NULL;
    }
    PrepOptions po = *o;
    po.mem_mib = NULL; /* applies to the whole workload (workload_file.h) */
    char *files[] = {file};
    SimScenario *sc = prep_load(files, 1, &po, error);
    if (!sc)
        return NULL;
    uint32_t n = sc->processes->len;
    for (uint32_t i = 0; i < n; i++) {
        SimProcessSpec *ps = g_ptr_array_index(sc->processes, i);
        if (p->name) {
            g_autofree char *nm =
                n == 1 ? g_strdup(p->name)
                       : g_strdup_printf("%s:%s", p->name, ps->name);
            ps->name = sim_scenario_intern(sc, nm);
        }
        if (p->thread_pct > 0)
            ps->active_thread_pct = p->thread_pct;
        if (p->mps >= 0)
            ps->mps = p->mps;
        if (p->mem_mib >= 0)
            ps->device_mem_bytes = (uint64_t)llround(p->mem_mib * 1048576.0);
    }
    if (p->count > 1 && !sim_scenario_check_copies(sc, p->count, error)) {
        sim_scenario_free(sc);
        return NULL;
    }
    for (uint32_t i = n; p->count > 1 && i-- > 0;)
        sim_scenario_replicate_process(sc, i, p->count);
    return sc;
}

/* Retargeting (step 7) rescales the whole workload from one GPU, and
 * imported kernels get the variant that fits it: parts must agree on both. */
static bool same_origin(const SimJsonDoc *doc, const cJSON *node,
                        const SimScenario *first, const SimScenario *sc,
                        GError **error)
{
    bool native0 = first->format && !strcmp(first->format, "hqsim");
    bool native = sc->format && !strcmp(sc->format, "hqsim");
    if (g_strcmp0(first->gpu, sc->gpu) != 0 || native0 != native)
        return sim_json_fail(
            doc, node, error,
            "%s (%s, %s) and %s (%s, %s) differ in GPU or kind: the parts of "
            "one workload must be recorded on (or name) the same GPU, and be "
            "all traces or all scenarios",
            first->source, first->format, first->gpu ? first->gpu : "no GPU",
            sc->source, sc->format, sc->gpu ? sc->gpu : "no GPU");
    return true;
}

static SimScenario *join(const SimJsonDoc *doc, const cJSON *parts,
                         const char *path, const PrepOptions *o, GError **error)
{
    g_autofree char *dir = g_path_get_dirname(path);
    g_autoptr(SimScenario) all = NULL;
    g_autoptr(SimScenario) first = NULL; /* the first part, as prepared */
    uint32_t k = 0;
    const cJSON *node;
    cJSON_ArrayForEach(node, parts)
    {
        Part p;
        if (!read_part(doc, node, k, &p, error))
            return NULL;
        g_autoptr(SimScenario) sc = load_part(doc, node, dir, &p, o, error);
        if (!sc)
            return NULL;
        if (!all) {
            all = sim_scenario_new(path, sc->format);
            all->gpu = g_strdup(sc->gpu);
            all->gpu_recorded = g_strdup(sc->gpu_recorded);
            all->gpu_mapping = g_strdup(sc->gpu_mapping);
            all->seed = sc->seed;
            all->host_cores = sc->host_cores;
        } else if (!same_origin(doc, node, first, sc, error)) {
            return NULL;
        }
        for (guint i = 0; i < sc->processes->len; i++) {
            SimProcessSpec *ps = g_ptr_array_index(sc->processes, i);
            g_autofree char *nm = unique_name(all, ps->name, k + 1);
            ps->name = sim_scenario_intern(sc, nm);
        }
        sim_scenario_append(all, sc);
        if (!first)
            first = g_steal_pointer(&sc);
        k++;
    }
    return g_steal_pointer(&all);
}

SimScenario *prep_workload_load(const char *path, const PrepOptions *o,
                                GError **error)
{
    g_autoptr(SimJsonDoc) doc = sim_json_doc_load(path, error);
    if (!doc)
        return NULL;
    static const char *const keys[] = {"hqsim_workload", "description", "parts",
                                       NULL};
    uint32_t version = 0;
    const char *description = NULL;
    if (!cJSON_IsObject(doc->root)) {
        sim_json_fail(doc, doc->root, error, "not a JSON object");
        return NULL;
    }
    if (!sim_json_check_keys(doc, doc->root, keys, NULL, error) ||
        !sim_json_get_u32(doc, doc->root, "hqsim_workload", NULL, true, 1, 1,
                          &version, error) ||
        !sim_json_get_string(doc, doc->root, "description", NULL, false,
                             &description, error))
        return NULL;
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(doc->root, "parts");
    if (!cJSON_IsArray(parts) || !parts->child) {
        sim_json_fail(doc, parts ? parts : doc->root, error,
                      "field 'parts': give a non-empty list of parts");
        return NULL;
    }
    SimScenario *all = join(doc, parts, path, o, error);
    if (!all)
        return NULL;
    all->description = g_strdup(description);
    if (!sim_scenario_check_copies(all, 1, error) ||
        (o->mem_mib && !prep_set_memory(all, o->mem_mib, error))) {
        sim_scenario_free(all);
        return NULL;
    }
    return all;
}
