/* hqsim.c -- the public C API (include/hqsim.h): thin wrappers that drive
 * the same modules as `hqsim run`, `compare` and `sweep`.
 *
 * Each entry point reads its options from one table (which commands take
 * an option, and how its text is read), prepares the workload through
 * plan/prepare.h exactly as cli/cli_common.c does, runs the engine with the
 * options the command line would give it, and keeps what the reports need
 * (model, prepared scenario, results) so the JSON and text views are those
 * of the command line, byte for byte.  No output is written and nothing is
 * printed: the caller asks for what it wants.
 */
#include "hqsim.h"

#include <string.h>

#include "engine.h"
#include "error.h"
#include "optrange.h"
#include "pool.h"
#include "prepare.h"
#include "report.h"
#include "slo.h"
#include "sweep.h"
#include "sweep_report.h"

/* The public codes are the internal ones, value for value. */
G_STATIC_ASSERT(HQSIM_ERROR_IO == (int)SIM_ERROR_IO);
G_STATIC_ASSERT(HQSIM_ERROR_PARSE == (int)SIM_ERROR_PARSE);
G_STATIC_ASSERT(HQSIM_ERROR_INVALID == (int)SIM_ERROR_INVALID);
G_STATIC_ASSERT(HQSIM_ERROR_UNSUPPORTED == (int)SIM_ERROR_UNSUPPORTED);
G_STATIC_ASSERT(HQSIM_ERROR_DEADLOCK == (int)SIM_ERROR_DEADLOCK);
G_STATIC_ASSERT(HQSIM_ERROR_NOFIT == (int)SIM_ERROR_NOFIT);
G_STATIC_ASSERT(HQSIM_ERROR_USAGE == (int)SIM_ERROR_USAGE);
G_STATIC_ASSERT(HQSIM_ERROR_LIMIT == (int)SIM_ERROR_LIMIT);

const char *hqsim_version(void)
{
    return G_STRINGIFY(HQSIM_API_MAJOR) "." G_STRINGIFY(HQSIM_API_MINOR);
}

GQuark hqsim_error_quark(void)
{
    return sim_error_quark();
}

void hqsim_free(void *p)
{
    g_free(p);
}

/* ------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------ */

struct HqsimOptions {
    GHashTable *values; /* option name -> its text (both owned) */
};

/* Which commands take an option. */
enum { CMD_RUN = 1, CMD_COMPARE = 2, CMD_SWEEP = 4, CMD_ALL = 7 };

/* How a command reads an option's text: numbers through sim/optrange.h
 * (the command line's ranges), lists by the sweep's parsers. */
typedef enum { ARG_TEXT, ARG_FLAG, ARG_INT, ARG_DOUBLE } ApiArg;

typedef struct {
    const char *name;
    unsigned commands;
    ApiArg run_arg; /* as `run` and `compare` read it */
} ApiOption;

/* The long options of `hqsim run|compare|sweep` that the API takes (the
 * outputs and --quiet are the result functions).  Sweep reads the list
 * options (processes, connections, thread-pct, gpu, modes) as lists. */
static const ApiOption api_options[] = {
    {"gpu", CMD_ALL, ARG_TEXT},
    {"models-dir", CMD_ALL, ARG_TEXT},
    {"connections", CMD_ALL, ARG_INT},
    {"thread-pct", CMD_ALL, ARG_DOUBLE},
    {"processes", CMD_ALL, ARG_INT},
    {"seed", CMD_ALL, ARG_INT},
    {"host-cores", CMD_ALL, ARG_INT},
    {"no-jitter", CMD_ALL, ARG_FLAG},
    {"time-limit-ms", CMD_ALL, ARG_DOUBLE},
    {"host-scale", CMD_ALL, ARG_DOUBLE},
    {"loop-request", CMD_ALL, ARG_FLAG},
    {"iterations", CMD_ALL, ARG_INT},
    {"mem-mib", CMD_ALL, ARG_TEXT},
    {"as-recorded", CMD_ALL, ARG_FLAG},
    {"request-spread", CMD_RUN | CMD_COMPARE, ARG_TEXT},
    {"arrival-rate", CMD_RUN | CMD_COMPARE, ARG_DOUBLE},
    {"arrival-times", CMD_RUN | CMD_COMPARE, ARG_TEXT},
    {"mode", CMD_RUN, ARG_TEXT},
    {"modes", CMD_COMPARE | CMD_SWEEP, ARG_TEXT},
    {"threads", CMD_SWEEP, ARG_INT},
    {"slo-p99-ms", CMD_SWEEP, ARG_DOUBLE},
    {"slo-throughput", CMD_SWEEP, ARG_DOUBLE},
    {"fixed", CMD_SWEEP, ARG_TEXT},
};

static const ApiOption *api_option(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(api_options); i++)
        if (!strcmp(api_options[i].name, name))
            return &api_options[i];
    return NULL;
}

HqsimOptions *hqsim_options_new(void)
{
    HqsimOptions *o = g_new0(HqsimOptions, 1);
    o->values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    return o;
}

void hqsim_options_free(HqsimOptions *o)
{
    if (!o)
        return;
    g_hash_table_destroy(o->values);
    g_free(o);
}

gboolean hqsim_options_set(HqsimOptions *o, const char *name,
                           const char *value, GError **error)
{
    g_return_val_if_fail(o && name, FALSE);
    if (!api_option(name)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "unknown option '%s' (the long options of hqsim run, "
                    "compare and sweep, without outputs)",
                    name);
        return FALSE;
    }
    if (value)
        g_hash_table_insert(o->values, g_strdup(name), g_strdup(value));
    else
        g_hash_table_remove(o->values, name);
    return TRUE;
}

/* The options of one command, read and checked once: the fields of the
 * command line's SimCliOpts and SweepOpts that the API takes. */
typedef struct {
    const HqsimOptions *src; /* nullable */
    unsigned command;        /* CMD_RUN, CMD_COMPARE or CMD_SWEEP */
    bool no_jitter, loop_request, as_recorded;
    int64_t connections, processes, seed, host_cores, iterations, threads;
    double thread_pct, time_limit_ms, host_scale, slo_p99_ms, slo_throughput;
    double arrival_rate;
} ApiOpts;

/* The text of option @name (NULL: not set). */
static const char *opt_text(const ApiOpts *a, const char *name)
{
    return a->src ? g_hash_table_lookup(a->src->values, name) : NULL;
}

static bool parse_flag(const char *name, const char *s, bool *out,
                       GError **error)
{
    static const char *const yes[] = {"1", "true", "yes"};
    static const char *const no[] = {"0", "false", "no"};
    for (size_t i = 0; i < G_N_ELEMENTS(yes); i++)
        if (!g_ascii_strcasecmp(s, yes[i]) || !g_ascii_strcasecmp(s, no[i])) {
            *out = !g_ascii_strcasecmp(s, yes[i]);
            return true;
        }
    g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                "option '%s': '%s' is not 1/true/yes or 0/false/no", name,
                s);
    return false;
}

/* Where a numeric or flag option lands in ApiOpts (NULL: read elsewhere,
 * as text). */
static void *opt_field(ApiOpts *a, const char *name)
{
    static const struct {
        const char *name;
        size_t offset;
    } fields[] = {
        {"no-jitter", G_STRUCT_OFFSET(ApiOpts, no_jitter)},
        {"loop-request", G_STRUCT_OFFSET(ApiOpts, loop_request)},
        {"as-recorded", G_STRUCT_OFFSET(ApiOpts, as_recorded)},
        {"connections", G_STRUCT_OFFSET(ApiOpts, connections)},
        {"processes", G_STRUCT_OFFSET(ApiOpts, processes)},
        {"seed", G_STRUCT_OFFSET(ApiOpts, seed)},
        {"host-cores", G_STRUCT_OFFSET(ApiOpts, host_cores)},
        {"iterations", G_STRUCT_OFFSET(ApiOpts, iterations)},
        {"threads", G_STRUCT_OFFSET(ApiOpts, threads)},
        {"thread-pct", G_STRUCT_OFFSET(ApiOpts, thread_pct)},
        {"time-limit-ms", G_STRUCT_OFFSET(ApiOpts, time_limit_ms)},
        {"host-scale", G_STRUCT_OFFSET(ApiOpts, host_scale)},
        {"arrival-rate", G_STRUCT_OFFSET(ApiOpts, arrival_rate)},
        {"slo-p99-ms", G_STRUCT_OFFSET(ApiOpts, slo_p99_ms)},
        {"slo-throughput", G_STRUCT_OFFSET(ApiOpts, slo_throughput)},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
        if (!strcmp(fields[i].name, name))
            return (char *)a + fields[i].offset;
    return NULL;
}

/* The sweep reads these as lists (sim_sweep_parse_*), not as numbers. */
static bool sweep_list(const char *name)
{
    return !strcmp(name, "processes") || !strcmp(name, "connections") ||
           !strcmp(name, "thread-pct");
}

/* Read @src for @command: refuse options the command does not take, parse
 * and range-check numbers and flags into @a. */
static bool opts_read(ApiOpts *a, const HqsimOptions *src, unsigned command,
                      GError **error)
{
    memset(a, 0, sizeof *a);
    a->src = src;
    a->command = command;
    if (!src)
        return true;
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, src->values);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        const ApiOption *op = api_option(k);
        if (!(op->commands & command)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                        "option '%s' is not one of this command's", op->name);
            return false;
        }
        void *field = opt_field(a, op->name);
        if (!field || (command == CMD_SWEEP && sweep_list(op->name)))
            continue;
        int64_t n = 0;
        bool ok = op->run_arg == ARG_FLAG
                      ? parse_flag(op->name, v, field, error)
                  : op->run_arg == ARG_DOUBLE
                      ? sim_opt_parse_double(op->name, v, field, error)
                      : sim_opt_parse_int64(op->name, v, &n, error);
        if (!ok)
            return false;
        if (op->run_arg == ARG_INT)
            *(int64_t *)field = n;
    }
    return true;
}

/* What the command line's sim_cli_prep_options and cmd_sweep.c give
 * plan/prepare.h. */
static void opts_prep(const ApiOpts *a, PrepOptions *po)
{
    memset(po, 0, sizeof *po);
    po->models_dir = opt_text(a, "models-dir");
    po->as_recorded = a->as_recorded;
    po->loop_request = a->loop_request;
    po->iterations = a->iterations > 0 ? (uint32_t)a->iterations : 0;
    po->host_scale = a->host_scale;
    po->mem_mib = opt_text(a, "mem-mib");
    po->spread = opt_text(a, "request-spread");
    po->arrival_rate = a->arrival_rate;
    po->arrival_times = opt_text(a, "arrival-times");
}

/* What sim_cli_sim_options gives the engine, without the progress line
 * and the timeline (only pictures and Perfetto need it). */
static void opts_sim(const ApiOpts *a, SimOptions *so)
{
    sim_options_init(so);
    so->connections = a->connections > 0 ? (uint32_t)a->connections : 0;
    so->active_thread_pct = a->thread_pct;
    so->seed = (uint64_t)a->seed;
    so->host_cores = (uint32_t)a->host_cores;
    so->no_jitter = a->no_jitter;
    so->time_limit_ns =
        a->time_limit_ms > 0 ? (SimTime)(a->time_limit_ms * 1e6) : 0;
    so->record_ops = true;
}

/* --gpu, else the scenario's GPU, else h100-sxm (sim_cli_model). */
static GpuModel *opts_model(const ApiOpts *a, const SimScenario *sc,
                            GError **error)
{
    const char *name = opt_text(a, "gpu");
    if (!name)
        name = sc && sc->gpu ? sc->gpu : "h100-sxm";
    return sim_gpu_model_find(name, opt_text(a, "models-dir"), error);
}

static int count_files(const char *const *files)
{
    int n = 0;
    while (files && files[n])
        n++;
    return n;
}

/* ------------------------------------------------------------------------
 * Run and compare
 * ------------------------------------------------------------------------ */

struct HqsimResult {
    GpuModel *model;
    SimScenario *scenario; /* as prepared for the model */
    SimResult **runs;
    uint32_t n_runs;
    bool compare; /* from hqsim_compare (its text view) */
};

void hqsim_result_free(HqsimResult *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n_runs; i++)
        sim_result_free(r->runs[i]);
    g_free(r->runs);
    if (r->scenario)
        sim_scenario_free(r->scenario);
    if (r->model)
        sim_gpu_model_free(r->model);
    g_free(r);
}

/* Load and prepare the workload as sim_cli_load does, and find its model.
 * A result with no runs yet, or NULL. */
static HqsimResult *result_load(const char *const *files, const ApiOpts *a,
                                GError **error)
{
    PrepOptions po;
    opts_prep(a, &po);
    g_autoptr(SimScenario) base =
        prep_load((char *const *)files, count_files(files), &po, error);
    if (!base)
        return NULL;
    g_autoptr(GpuModel) to = opts_model(a, base, error);
    if (!to)
        return NULL;
    g_autofree char *note = NULL;
    g_autoptr(SimScenario) sc = prep_target(
        base, to, a->processes > 0 ? (uint32_t)a->processes : 1, &po, &note,
        error);
    if (!sc)
        return NULL;
    GpuModel *m = opts_model(a, sc, error);
    if (!m)
        return NULL;
    HqsimResult *r = g_new0(HqsimResult, 1);
    r->model = m;
    r->scenario = g_steal_pointer(&sc);
    return r;
}

/* Run the loaded workload once per mode in @modes. */
static HqsimResult *result_run(const char *const *files, const ApiOpts *a,
                               char **modes, GError **error)
{
    uint32_t n = g_strv_length(modes);
    /* Modes are checked before the workload is loaded, as `run` does. */
    SimShareMode *m = g_new0(SimShareMode, MAX(n, 1));
    for (uint32_t i = 0; i < n; i++)
        if (!sim_share_mode_parse(modes[i], &m[i], error)) {
            g_free(m);
            return NULL;
        }
    HqsimResult *r = result_load(files, a, error);
    if (r)
        r->runs = g_new0(SimResult *, MAX(n, 1));
    for (uint32_t i = 0; r && i < n; i++) {
        SimOptions so;
        opts_sim(a, &so);
        so.mode = m[i];
        SimResult *run = sim_engine_run(r->model, r->scenario, &so, error);
        if (run)
            r->runs[r->n_runs++] = run;
        else
            g_clear_pointer(&r, hqsim_result_free);
    }
    g_free(m);
    return r;
}

HqsimResult *hqsim_run(const char *const *files, const HqsimOptions *o,
                       GError **error)
{
    ApiOpts a;
    if (!opts_read(&a, o, CMD_RUN, error))
        return NULL;
    /* No "mode": as each process of the scenario says. */
    const char *mode = opt_text(&a, "mode");
    char *modes[] = {(char *)(mode ? mode : "scenario"), NULL};
    return result_run(files, &a, modes, error);
}

HqsimResult *hqsim_compare(const char *const *files, const HqsimOptions *o,
                           GError **error)
{
    ApiOpts a;
    if (!opts_read(&a, o, CMD_COMPARE, error))
        return NULL;
    const char *list = opt_text(&a, "modes");
    g_auto(GStrv) modes = g_strsplit(list ? list : "timeslice,mps", ",", 0);
    if (!modes[0]) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--modes is empty");
        return NULL;
    }
    HqsimResult *r = result_run(files, &a, modes, error);
    if (r)
        r->compare = true;
    return r;
}

uint32_t hqsim_result_n_runs(const HqsimResult *r)
{
    g_return_val_if_fail(r, 0);
    return r->n_runs;
}

const char *hqsim_result_gpu(const HqsimResult *r)
{
    g_return_val_if_fail(r, NULL);
    return r->model->name;
}

/* Run @run of @r, or NULL (with a warning) when out of range. */
static const SimResult *run_of(const HqsimResult *r, uint32_t run)
{
    g_return_val_if_fail(r && run < r->n_runs, NULL);
    return r->runs[run];
}

static const SimProcResult *proc_of(const HqsimResult *r, uint32_t run,
                                    uint32_t proc)
{
    const SimResult *s = run_of(r, run);
    g_return_val_if_fail(s && proc < s->n_procs, NULL);
    return &s->procs[proc];
}

const char *hqsim_result_mode(const HqsimResult *r, uint32_t run)
{
    const SimResult *s = run_of(r, run);
    return s ? s->mode : NULL;
}

double hqsim_result_makespan_ms(const HqsimResult *r, uint32_t run)
{
    const SimResult *s = run_of(r, run);
    return s ? sim_time_to_ms(s->makespan_ns) : 0;
}

double hqsim_result_throughput(const HqsimResult *r, uint32_t run)
{
    const SimResult *s = run_of(r, run);
    return s ? sim_result_total_throughput(s) : 0;
}

double hqsim_result_latency_ms(const HqsimResult *r, uint32_t run,
                               double pct)
{
    const SimResult *s = run_of(r, run);
    return s ? sim_time_to_ms(sim_result_latency_pct(s, pct)) : 0;
}

double hqsim_result_util(const HqsimResult *r, uint32_t run, HqsimUtil u)
{
    const SimResult *s = run_of(r, run);
    if (!s)
        return 0;
    const double v[] = {
        [HQSIM_UTIL_GPU] = s->gpu_util,
        [HQSIM_UTIL_GPU_MAX] = s->gpu_util_max_sample,
        [HQSIM_UTIL_SM_ACTIVE] = s->sm_active,
        [HQSIM_UTIL_OCCUPANCY] = s->achieved_occupancy,
    };
    g_return_val_if_fail((unsigned)u < G_N_ELEMENTS(v), 0);
    return v[u];
}

uint32_t hqsim_result_n_procs(const HqsimResult *r, uint32_t run)
{
    const SimResult *s = run_of(r, run);
    return s ? s->n_procs : 0;
}

const char *hqsim_result_proc_name(const HqsimResult *r, uint32_t run,
                                   uint32_t proc)
{
    const SimProcResult *p = proc_of(r, run, proc);
    return p ? p->name : NULL;
}

const char *hqsim_result_proc_status(const HqsimResult *r, uint32_t run,
                                     uint32_t proc)
{
    static const char *const names[] = {
        [SIM_PROC_OK] = "ok",
        [SIM_PROC_NOT_STARTED] = "not_started",
        [SIM_PROC_KILLED] = "killed",
    };
    const SimProcResult *p = proc_of(r, run, proc);
    return p ? names[p->status] : NULL;
}

double hqsim_result_proc_throughput(const HqsimResult *r, uint32_t run,
                                    uint32_t proc)
{
    const SimProcResult *p = proc_of(r, run, proc);
    return p ? sim_proc_throughput(p) : 0;
}

double hqsim_result_proc_latency_ms(const HqsimResult *r, uint32_t run,
                                    uint32_t proc, double pct)
{
    const SimProcResult *p = proc_of(r, run, proc);
    return p ? sim_time_to_ms(sim_percentile(p->latency_ns, pct)) : 0;
}

/* As sim_cli_write_outputs picks: one run's summary, or the comparison. */
char *hqsim_result_json(const HqsimResult *r)
{
    g_return_val_if_fail(r && r->n_runs > 0, NULL);
    return r->n_runs == 1
               ? sim_report_json(r->runs[0], r->model, r->scenario)
               : sim_report_compare_json(r->runs, r->n_runs, r->model,
                                         r->scenario);
}

char *hqsim_result_text(const HqsimResult *r)
{
    g_return_val_if_fail(r && r->n_runs > 0, NULL);
    GString *out = g_string_new(NULL);
    if (r->compare)
        sim_report_compare_text(r->runs, r->n_runs, r->model, r->scenario,
                                out);
    else
        sim_report_text(r->runs[0], r->model, r->scenario, out);
    return g_string_free(out, FALSE);
}

/* ------------------------------------------------------------------------
 * Sweep
 * ------------------------------------------------------------------------ */

struct HqsimSweep {
    SimSweep *sweep;
    SimSlo slo;
};

void hqsim_sweep_free(HqsimSweep *s)
{
    if (!s)
        return;
    sim_sweep_free(s->sweep);
    g_free(s);
}

/* Load every file of @list (NULL-terminated) as one workload each into
 * @out, prepared as `hqsim run` prepares it. */
static bool load_each(char *const *list, const PrepOptions *po,
                      GPtrArray *out, GError **error)
{
    for (int i = 0; list && list[i]; i++) {
        SimScenario *sc = prep_load(&list[i], 1, po, error);
        if (!sc)
            return false;
        g_ptr_array_add(out, sc);
    }
    return true;
}

/* The "gpu" list (default: the first workload's, else h100-sxm), each
 * model once, in order (cmd_sweep.c's build_space). */
static bool load_gpus(const ApiOpts *a, SimSweepSpace *sp, GError **error)
{
    const char *list = opt_text(a, "gpu");
    const SimScenario *first = g_ptr_array_index(sp->workloads, 0);
    const char *dflt = first->gpu ? first->gpu : "h100-sxm";
    g_auto(GStrv) names = g_strsplit(list ? list : dflt, ",", -1);
    for (int i = 0; names[i]; i++) {
        g_strstrip(names[i]);
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= !strcmp(names[i], names[j]);
        if (seen)
            continue;
        if (!*names[i]) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                        "--gpu: '%s': empty item in the list", list);
            return false;
        }
        GpuModel *m =
            sim_gpu_model_find(names[i], opt_text(a, "models-dir"), error);
        if (!m)
            return false;
        g_ptr_array_add(sp->gpus, m);
    }
    return true;
}

/* Fill @sp from the options, as cmd_sweep.c's build_space does. */
static bool sweep_space(const char *const *files, const ApiOpts *a,
                        SimSweepSpace *sp, GError **error)
{
    if (count_files(files) < 1) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "give one or more scenario files or profiler traces");
        return false;
    }
    const char *pn = opt_text(a, "processes"), *pm = opt_text(a, "modes"),
               *pp = opt_text(a, "thread-pct"),
               *pc = opt_text(a, "connections");
    if (!sim_sweep_parse_processes(pn ? pn : "1,2,4,8", sp->processes,
                                   error) ||
        !sim_sweep_parse_modes(pm ? pm : "timeslice,mps", sp->modes, error) ||
        (pp && !sim_sweep_parse_pcts(pp, sp->pcts, error)) ||
        (pc && !sim_sweep_parse_connections(pc, sp->connections, error)))
        return false;
    sp->seed = (uint64_t)a->seed;
    sp->host_cores = (uint32_t)a->host_cores;
    sp->no_jitter = a->no_jitter;
    sp->time_limit_ns =
        a->time_limit_ms > 0 ? (SimTime)(a->time_limit_ms * 1e6) : 0;
    PrepOptions po;
    opts_prep(a, &po);
    sp->models_dir = g_strdup(po.models_dir);
    const char *fixed = opt_text(a, "fixed");
    g_auto(GStrv) fixed_files = fixed ? g_strsplit(fixed, ",", -1) : NULL;
    return load_each((char *const *)files, &po, sp->workloads, error) &&
           load_each(fixed_files, &po, sp->fixed, error) &&
           load_gpus(a, sp, error);
}

static void sweep_one(uint32_t item, gpointer data)
{
    sim_sweep_run_config(data, item);
}

HqsimSweep *hqsim_sweep(const char *const *files, const HqsimOptions *o,
                        GError **error)
{
    ApiOpts a;
    if (!opts_read(&a, o, CMD_SWEEP, error))
        return NULL;
    SimSweepSpace sp;
    sim_sweep_space_init(&sp);
    SimSweep *sw = NULL;
    if (sweep_space(files, &a, &sp, error))
        sw = sim_sweep_new(&sp, error);
    sim_sweep_space_clear(&sp);
    if (!sw)
        return NULL;
    g_autofree uint32_t *order = sim_sweep_schedule(sw);
    uint32_t threads = a.threads > 0 ? (uint32_t)a.threads
                                     : sim_pool_default_threads(1);
    sim_pool_run(order, sw->n_configs, threads, sweep_one, sw, NULL, NULL);
    /* The sweep's events limit stops it as a whole (cli/cmd_sweep.c). */
    if (sim_sweep_budget_hit(sw)) {
        sim_sweep_budget_fail(sw, error);
        sim_sweep_free(sw);
        return NULL;
    }
    uint32_t failed = 0;
    for (uint32_t i = 0; i < sw->n_configs; i++)
        failed += sw->rows[i].error != NULL;
    if (failed == sw->n_configs) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "every configuration failed; the first: %s",
                    sw->rows[0].error);
        sim_sweep_free(sw);
        return NULL;
    }
    HqsimSweep *s = g_new0(HqsimSweep, 1);
    s->sweep = sw;
    s->slo = (SimSlo){a.slo_p99_ms, a.slo_throughput};
    return s;
}

uint32_t hqsim_sweep_n_configs(const HqsimSweep *s)
{
    g_return_val_if_fail(s, 0);
    return s->sweep->n_configs;
}

char *hqsim_sweep_json(const HqsimSweep *s)
{
    g_return_val_if_fail(s, NULL);
    g_autoptr(GArray) answers =
        sim_slo_active(&s->slo) ? sim_slo_answer(s->sweep, &s->slo) : NULL;
    return sim_sweep_report_json(s->sweep, &s->slo, answers);
}

char *hqsim_sweep_text(const HqsimSweep *s)
{
    g_return_val_if_fail(s, NULL);
    g_autoptr(GArray) answers =
        sim_slo_active(&s->slo) ? sim_slo_answer(s->sweep, &s->slo) : NULL;
    GString *out = g_string_new(NULL);
    sim_sweep_report_text(s->sweep, &s->slo, answers, out);
    return g_string_free(out, FALSE);
}
