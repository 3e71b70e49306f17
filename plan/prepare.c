/* prepare.c -- load, infer, rewrite, retarget and replicate a workload.
 * See prepare.h. */
#include "prepare.h"

#include <math.h>
#include <string.h>

#include "../import/import.h"
#include "../import/replay.h"
#include "error.h"
#include "json.h"
#include "optrange.h"
#include "retarget.h"
#include "transform.h"
#include "workload_file.h"

/* Rounds of the time-alone inference (import/replay.h): enough for every
 * bundled trace to converge. */
#define PREP_INFER_ROUNDS 40
/* The model assumed for a trace that names no GPU (and the default of
 * every command). */
#define PREP_DEFAULT_GPU "h100-sxm"

/* @want names process @proc: its whole name, or the name before a
 * trace's "[pid]" or a copy's "#k" ("python3" names "python3[1924]#2"). */
static bool name_matches(const char *proc, const char *want)
{
    size_t n = strlen(want);
    return !strncmp(proc, want, n) &&
           (proc[n] == 0 || proc[n] == '#' || proc[n] == '[');
}

bool prep_set_memory(SimScenario *sc, const char *spec, GError **error)
{
    g_auto(GStrv) items = g_strsplit(spec, ",", -1);
    if (!items[0]) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--mem-mib: give MIB or NAME=MIB,...");
        return false;
    }
    for (int i = 0; items[i]; i++) {
        char *eq = strchr(items[i], '=');
        const char *num = eq ? eq + 1 : items[i];
        if (eq)
            *eq = 0;
        const char *who = eq ? g_strstrip(items[i]) : NULL;
        double mib = 0;
        if (!sim_opt_parse_double("mem-mib", num, &mib, error))
            return false;
        uint32_t hit = 0;
        for (guint p = 0; p < sc->processes->len; p++) {
            SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
            if (who && !name_matches(ps->name, who))
                continue;
            ps->device_mem_bytes = (uint64_t)llround(mib * 1048576.0);
            hit++;
        }
        if (!hit) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                        "--mem-mib: %s: no process named '%s' in %s", num, who,
                        sc->source);
            return false;
        }
    }
    return true;
}

/* Step 7: the latencies of @path ({"latencies_us": [numbers > 0]}) as
 * every process's per-request rows. */
static bool load_spread(SimScenario *sc, const char *path, GError **error)
{
    g_autoptr(SimJsonDoc) doc = sim_json_doc_load(path, error);
    if (!doc)
        return false;
    const cJSON *a =
        cJSON_IsObject(doc->root)
            ? cJSON_GetObjectItemCaseSensitive(doc->root, "latencies_us")
            : NULL;
    int n = cJSON_GetArraySize(a);
    if (!cJSON_IsArray(a) || n < 1)
        return sim_json_fail(doc, a ? a : doc->root, error,
                             "field 'latencies_us': give a non-empty array "
                             "of request latencies in us");
    g_autofree double *lat = g_new(double, n);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) ||
            !(v->valuedouble < 1e12))
            return sim_json_fail(doc, v, error,
                                 "field 'latencies_us': entry %d must be a "
                                 "number in (0, 1e12)",
                                 i + 1);
        lat[i++] = v->valuedouble;
    }
    return sim_scenario_set_spread(sc, lat, (uint32_t)n, error);
}

/* One process's recorded arrival times: @a, an array of us from the run's
 * start, non-decreasing. */
static bool arrival_list(const SimJsonDoc *doc, const cJSON *a,
                         SimProcessSpec *p, GError **error)
{
    int n = cJSON_GetArraySize(a);
    if (!cJSON_IsArray(a) || n < 1)
        return sim_json_fail(doc, a, error,
                             "field 'processes': each entry must be a "
                             "non-empty array of arrival times in us");
    SimTime *t = g_new(SimTime, n);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        double us = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (!(us >= 0 && us < 1e12) ||
            (i > 0 && (SimTime)llround(us * 1e3) < t[i - 1])) {
            g_free(t);
            return sim_json_fail(doc, v, error,
                                 "field 'processes': arrival %d must be a "
                                 "number of us in [0, 1e12), not before "
                                 "the one before it",
                                 i + 1);
        }
        t[i++] = (SimTime)llround(us * 1e3);
    }
    g_free(p->arrivals.times_ns);
    p->arrivals = (SimArrivals){
        .kind = SIM_ARRIVALS_LIST, .times_ns = t, .n_times = (uint32_t)n};
    return true;
}

/* Step 11: @path's lists ({"processes": [[us, ...], ...]}), one per
 * process in order; the counts must match. */
static bool load_arrival_times(SimScenario *sc, const char *path,
                               GError **error)
{
    g_autoptr(SimJsonDoc) doc = sim_json_doc_load(path, error);
    if (!doc)
        return false;
    const cJSON *ps =
        cJSON_IsObject(doc->root)
            ? cJSON_GetObjectItemCaseSensitive(doc->root, "processes")
            : NULL;
    if (!cJSON_IsArray(ps) ||
        (guint)cJSON_GetArraySize(ps) != sc->processes->len)
        return sim_json_fail(doc, ps ? ps : doc->root, error,
                             "field 'processes': give one array of arrival "
                             "times per process (%u)",
                             sc->processes->len);
    guint i = 0;
    const cJSON *a;
    cJSON_ArrayForEach(a, ps)
    {
        if (!arrival_list(doc, a, g_ptr_array_index(sc->processes, i++), error))
            return false;
    }
    return true;
}

/* Step 4's cut then step 2 on what it kept (--loop-request on a timed
 * trace of one process): the times alone of its looped request, inferred from
 * one run of that request alone -- one iteration, no jitter, as the loop
 * issues it (no recorded call times) -- against the same request's
 * recorded times.  @first[p]: the index its first op had in process p's
 * recording (sim_scenario_loop_request). */
static bool infer_looped(SimScenario *sc, const SimImportReport *rep,
                         const uint32_t *first, const GpuModel *src,
                         const PrepOptions *o, GError **error)
{
    guint np = sc->processes->len;
    /* A view of the recording from each kept request's first op on: the
     * inference indexes recorded times by the op's index in the list. */
    SimImportReport view = *rep;
    view.procs = g_new(SimImportProcess, MAX(rep->n_procs, 1));
    for (uint32_t i = 0; i < rep->n_procs; i++) {
        SimImportProcess *v = &view.procs[i];
        *v = rep->procs[i];
        uint32_t k = i < np ? first[i] : 0;
        v->rec_start_ns = v->rec_start_ns ? v->rec_start_ns + k : NULL;
        v->rec_end_ns = v->rec_end_ns ? v->rec_end_ns + k : NULL;
        v->rec_node_start_ns =
            v->rec_node_start_ns ? v->rec_node_start_ns + k : NULL;
        v->rec_node_end_ns = v->rec_node_end_ns ? v->rec_node_end_ns + k : NULL;
    }
    /* One iteration without the spread step 4 made: set aside, then put
     * back. */
    struct SimJitter **jit = g_new(struct SimJitter *, MAX(np, 1));
    uint32_t *iters = g_new(uint32_t, MAX(np, 1));
    for (guint p = 0; p < np; p++) {
        SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        jit[p] = ps->jitter;
        iters[p] = ps->iterations;
        ps->jitter = NULL;
        ps->iterations = 1;
    }
    int rounds = sim_workload_infer_solo_run(sc, &view, src, PREP_INFER_ROUNDS,
                                             o->sm_sample, NULL, error);
    for (guint p = 0; p < np; p++) {
        SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        ps->jitter = jit[p];
        ps->iterations = iters[p];
    }
    g_free(jit);
    g_free(iters);
    g_free(view.procs);
    return rounds >= 0;
}

/* Steps 1-2: the workload as recorded, with times alone inferred; into
 * @solo_run (nullable) the inference's final round, if it ran.  With
 * --loop-request on a timed trace of one process, step 4 comes first
 * (*@looped set) and only the looped request is inferred: the other
 * requests' times alone are never used. */
static SimScenario *load_inferred(char *const *files, int n,
                                  const PrepOptions *o, SimResult **solo_run,
                                  bool *looped, SimTime *profiler_ns,
                                  GError **error)
{
    *looped = false;
    *profiler_ns = SIM_TIME_NEVER;
    SimImportOptions io;
    sim_import_options_init(&io);
    io.models_dir = o->models_dir;
    io.recorded_clocks = o->recorded_clocks;
    io.bare_classes = o->bare_classes;
    g_autoptr(SimImportReport) rep = NULL;
    SimScenario *sc = sim_workload_load_report(files, n, &io, &rep, error);
    if (!sc || !rep || !rep->timed)
        return sc;
    /* A trace that names no GPU was recorded on one we must assume: say
     * so, and rescale from it when another GPU is asked for. */
    if (!sc->gpu) {
        sc->gpu = g_strdup(PREP_DEFAULT_GPU);
        sc->gpu_mapping = g_strdup(
            "the trace names no GPU: recorded on " PREP_DEFAULT_GPU " assumed");
    }
    if (o->as_recorded)
        return sc;
    /* Issue times are inferred with the latencies of the model closest to
     * the GPU the trace was recorded on: the run being replayed. */
    g_autoptr(GpuModel) src = sim_gpu_model_find(sc->gpu, o->models_dir, error);
    bool ok = src != NULL;
    if (ok)
        *profiler_ns = src->profiler_kernel_ns;
    /* One process: its looped request alone.  Several (traces given
     * together, a multi-process trace): the whole recording, as before,
     * since their kept requests started together would contend as no
     * recorded request did (tests/test_e2e_workload.c: two traces recorded
     * days apart, inferred side by side, moved the encoder's p50 by 7%
     * against its workload part inferred alone). */
    if (ok && o->loop_request && sc->processes->len == 1) {
        g_autofree uint32_t *first =
            g_new(uint32_t, MAX(sc->processes->len, 1));
        ok = sim_scenario_loop_request(sc, o->iterations ? o->iterations : 100,
                                       first, error) &&
             infer_looped(sc, rep, first, src, o, error);
        *looped = true;
    } else if (ok) {
        ok = sim_workload_infer_solo_run(sc, rep, src, PREP_INFER_ROUNDS,
                                         o->sm_sample, solo_run, error) >= 0;
    }
    if (!ok) {
        sim_scenario_free(sc);
        return NULL;
    }
    return sc;
}

/* Whether steps 3-8 leave the workload as loaded and inferred. */
static bool prep_rewrites(const PrepOptions *o)
{
    return o->mem_mib || o->loop_request || o->iterations ||
           (o->host_scale > 0 && o->host_scale != 1) || o->spread ||
           o->arrival_rate > 0;
}

SimScenario *prep_load(char *const *files, int n, const PrepOptions *o,
                       GError **error)
{
    return prep_load_run(files, n, o, NULL, error);
}

SimScenario *prep_load_run(char *const *files, int n, const PrepOptions *o,
                           SimResult **solo_run, GError **error)
{
    if (solo_run)
        *solo_run = NULL;
    if (n < 1) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "give a scenario file or a profiler trace");
        return NULL;
    }
    /* A workload file lists parts that each take steps 1-6 here. */
    for (int i = 0; i < n; i++)
        if (prep_is_workload(files[i])) {
            if (n == 1)
                return prep_workload_load(files[0], o, error);
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                        "%s is a workload file: give it alone (list the "
                        "other files among its parts)",
                        files[i]);
            return NULL;
        }
    /* The inference's last round is a run of the scenario as returned only
     * if no later step rewrites it. */
    bool looped;
    SimTime profiler_ns; /* a timed trace's: its recorded GPU's */
    SimScenario *sc = load_inferred(
        files, n, o, solo_run && !prep_rewrites(o) ? solo_run : NULL, &looped,
        &profiler_ns, error);
    if (!sc)
        return NULL;
    bool ok = !o->mem_mib || prep_set_memory(sc, o->mem_mib, error);
    if (ok && o->loop_request && !looped)
        ok = sim_scenario_loop_request(sc, o->iterations ? o->iterations : 100,
                                       NULL, error);
    if (ok && o->iterations && !o->loop_request)
        for (guint i = 0; i < sc->processes->len; i++)
            ((SimProcessSpec *)g_ptr_array_index(sc->processes, i))
                ->iterations = o->iterations;
    if (ok && o->host_scale > 0 && o->host_scale != 1) {
        sim_scenario_scale_host(sc, o->host_scale);
        /* the unprofiled process: its graphs without the profiler too */
        if (profiler_ns != SIM_TIME_NEVER)
            sim_scenario_unprofile_graphs(sc, profiler_ns);
    }
    if (ok && o->spread)
        ok = load_spread(sc, o->spread, error);
    if (ok && o->arrival_rate > 0)
        sim_scenario_set_poisson(sc, o->arrival_rate,
                                 o->iterations     ? o->iterations
                                 : o->loop_request ? 100
                                                   : 1);
    if (!ok) {
        if (solo_run)
            g_clear_pointer(solo_run, sim_result_free);
        sim_scenario_free(sc);
        return NULL;
    }
    return sc;
}

SimScenario *prep_target(const SimScenario *base, const GpuModel *to,
                         uint32_t n_copies, const PrepOptions *o, char **note,
                         GError **error)
{
    if (note)
        *note = NULL;
    SimScenario *sc = sim_scenario_copy(base);
    if (base->gpu) {
        g_autoptr(GpuModel) from =
            sim_gpu_model_find(base->gpu, o->models_dir, error);
        if (!from) {
            sim_scenario_free(sc);
            return NULL;
        }
        if (strcmp(from->name, to->name) != 0) {
            uint32_t clamped = 0;
            /* Imported kernels are a library's choice for the recorded
             * GPU: give them the variant that fits the target. */
            bool fit = !base->format || strcmp(base->format, "hqsim") != 0;
            if (!sim_scenario_retarget(sc, from, to, fit, &clamped, error)) {
                sim_scenario_free(sc);
                return NULL;
            }
            g_autofree char *cut =
                clamped ? g_strdup_printf(
                              "; %u kernel launch%s asked for more shared "
                              "memory per block than %s allows and got its "
                              "maximum, %u bytes",
                              clamped, clamped == 1 ? "" : "es", to->name,
                              to->max_smem_per_block_bytes)
                        : g_strdup("");
            g_autofree char *old = sc->gpu_mapping;
            sc->gpu_mapping = g_strdup_printf(
                "%s%swork recorded on %s rescaled to %s by clock and "
                "bandwidth ratios (instructions per clock not modelled)%s",
                old ? old : "", old ? "; " : "", from->name, to->name, cut);
            if (note)
                *note = g_strdup_printf(
                    "%s was given for %s: its work is rescaled to %s "
                    "(README, \"What-if from a trace\")%s",
                    base->source, from->name, to->name, cut);
        }
    }
    if (n_copies > 1 && !sim_scenario_check_copies(sc, n_copies, error)) {
        sim_scenario_free(sc);
        return NULL;
    }
    if (n_copies > 1) {
        /* Replicate from the last so indices of earlier ones hold. */
        for (uint32_t i = sc->processes->len; i-- > 0;)
            sim_scenario_replicate_process(sc, i, n_copies);
    }
    if (o->arrival_times && !load_arrival_times(sc, o->arrival_times, error)) {
        sim_scenario_free(sc);
        return NULL;
    }
    return sc;
}
