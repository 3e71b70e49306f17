/* hqsim.c -- the public C API (include/hqsim.h): thin wrappers that drive
 * the same modules as `hqsim run`, `compare` and `sweep`.
 *
 * Options are kept as text and read, when a command runs, through the
 * command line's own table (plan/options.h): the same rows, parsers,
 * ranges and messages.  The workload is prepared, the engine run and the
 * output files written by the same plan_settings_* functions the command
 * line calls, and what the reports need (model, prepared scenario,
 * results) is kept so the JSON and text views are those of the command
 * line, byte for byte.  Nothing is printed.
 */
#include "hqsim.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "bounds.h"
#include "engine.h"
#include "error.h"
#include "options.h"
#include "pool.h"
#include "report.h"
#include "slo.h"
#include "sweep.h"
#include "sweep_report.h"
#include "validate.h"

/* The public codes are the internal ones, value for value. */
G_STATIC_ASSERT(HQSIM_ERROR_IO == (int)SIM_ERROR_IO);
G_STATIC_ASSERT(HQSIM_ERROR_PARSE == (int)SIM_ERROR_PARSE);
G_STATIC_ASSERT(HQSIM_ERROR_INVALID == (int)SIM_ERROR_INVALID);
G_STATIC_ASSERT(HQSIM_ERROR_UNSUPPORTED == (int)SIM_ERROR_UNSUPPORTED);
G_STATIC_ASSERT(HQSIM_ERROR_DEADLOCK == (int)SIM_ERROR_DEADLOCK);
G_STATIC_ASSERT(HQSIM_ERROR_NOFIT == (int)SIM_ERROR_NOFIT);
G_STATIC_ASSERT(HQSIM_ERROR_USAGE == (int)SIM_ERROR_USAGE);
G_STATIC_ASSERT(HQSIM_ERROR_LIMIT == (int)SIM_ERROR_LIMIT);
G_STATIC_ASSERT(HQSIM_ERROR_CANCELLED == (int)SIM_ERROR_CANCELLED);

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

/* The commands this API runs. */
#define API_COMMANDS                                                           \
    (PLAN_CMD_RUN | PLAN_CMD_COMPARE | PLAN_CMD_SWEEP | PLAN_CMD_IMPORT |      \
     PLAN_CMD_REPLAY | PLAN_CMD_VALIDATE)

struct HqsimOptions {
    GHashTable *values; /* option name -> its text (both owned) */
    /* At most one of the two is set. */
    HqsimProgressFn progress;
    HqsimProgressStopFn progress_stop;
    void *progress_data;
};

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

gboolean hqsim_options_set(HqsimOptions *o, const char *name, const char *value,
                           GError **error)
{
    g_return_val_if_fail(o && name, FALSE);
    const PlanOption *row = plan_opt_find(name, API_COMMANDS);
    if (!row || row->cli_only) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "unknown option '%s' (the long options of hqsim run, "
                    "compare, sweep, import, replay and validate, but "
                    "--quiet, --output and --markdown)",
                    name);
        return FALSE;
    }
    if (value)
        g_hash_table_insert(o->values, g_strdup(name), g_strdup(value));
    else
        g_hash_table_remove(o->values, name);
    return TRUE;
}

void hqsim_options_set_progress(HqsimOptions *o, HqsimProgressFn fn, void *data)
{
    g_return_if_fail(o);
    o->progress = fn;
    o->progress_stop = NULL;
    o->progress_data = data;
}

void hqsim_options_set_progress_stop(HqsimOptions *o, HqsimProgressStopFn fn,
                                     void *data)
{
    g_return_if_fail(o);
    o->progress = NULL;
    o->progress_stop = fn;
    o->progress_data = data;
}

static bool has_progress(const HqsimOptions *o)
{
    return o && (o->progress || o->progress_stop);
}

/* Tell the caller's callback; false: it asks to stop. */
static bool tell_progress(const HqsimOptions *o, uint64_t done, uint64_t total)
{
    if (o->progress_stop)
        return o->progress_stop(done, total, o->progress_data) != FALSE;
    o->progress(done, total, o->progress_data);
    return true;
}

/* Read @src for @command into @s (cleared first): refuse options the
 * command does not take, read every value through its row (a list of
 * files is one text, its names separated by ','), then the checks that
 * need no input (plan_settings_check). */
static bool opts_read(PlanSettings *s, const HqsimOptions *src,
                      PlanCommand command, GError **error)
{
    memset(s, 0, sizeof *s);
    GHashTableIter it;
    gpointer k, v;
    if (src)
        g_hash_table_iter_init(&it, src->values);
    while (src && g_hash_table_iter_next(&it, &k, &v)) {
        const PlanOption *row = plan_opt_find(k, command);
        if (!row) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                        "option '%s' is not one of this command's",
                        (const char *)k);
            return false;
        }
        g_auto(GStrv) items =
            row->type == PLAN_ARG_FILES || row->type == PLAN_ARG_TEXTS
                ? g_strsplit(v, ",", -1)
                : g_strdupv((char *[]){v, NULL});
        for (int i = 0; items[i]; i++)
            if (!plan_opt_set(s, row, items[i], error))
                return false;
    }
    return plan_settings_check(s, command, error);
}

/* Output files are written under one lock: outfile.h's group of outputs
 * and cairo's font setup are process-wide. */
static GMutex write_lock;

/* SimOptions.progress -> the caller's callback: GPU ops done of all. */
static bool run_progress(void *data, const SimProgress *p)
{
    return tell_progress(data, p->ops_done, p->ops_total);
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

/* Load and prepare the workload as the command line does, and find its
 * model.  A result with no runs yet, or NULL. */
static HqsimResult *result_load(const char *const *files, const PlanSettings *s,
                                GError **error)
{
    g_autofree char *note = NULL;
    g_autoptr(SimScenario) sc = plan_settings_load(
        (char *const *)files, count_files(files), s, &note, error);
    GpuModel *m = sc ? plan_settings_model(s, sc, error) : NULL;
    if (!m)
        return NULL;
    HqsimResult *r = g_new0(HqsimResult, 1);
    r->model = m;
    r->scenario = g_steal_pointer(&sc);
    return r;
}

/* Run the loaded workload once per mode in @modes, then write the output
 * files the settings name. */
static HqsimResult *result_run(const char *const *files, const PlanSettings *s,
                               const HqsimOptions *o, char **modes,
                               GError **error)
{
    uint32_t n = g_strv_length(modes);
    /* Modes are checked before the workload is loaded. */
    g_autofree SimShareMode *m = g_new0(SimShareMode, MAX(n, 1));
    for (uint32_t i = 0; i < n; i++)
        if (!sim_share_mode_parse(modes[i], &m[i], error))
            return NULL;
    HqsimResult *r = result_load(files, s, error);
    if (r)
        r->runs = g_new0(SimResult *, MAX(n, 1));
    for (uint32_t i = 0; r && i < n; i++) {
        SimOptions so;
        plan_settings_sim(s, &so);
        so.mode = m[i];
        if (has_progress(o)) {
            so.progress = run_progress;
            so.progress_data = (void *)o;
        }
        SimResult *run = plan_simulate(s, r->model, r->scenario, &so, error);
        if (run)
            r->runs[r->n_runs++] = run;
        else
            g_clear_pointer(&r, hqsim_result_free);
    }
    if (r) {
        g_mutex_lock(&write_lock);
        bool ok = plan_settings_write_runs(s, r->runs, r->n_runs, r->model,
                                           r->scenario, error);
        g_mutex_unlock(&write_lock);
        if (!ok)
            g_clear_pointer(&r, hqsim_result_free);
    }
    return r;
}

HqsimResult *hqsim_run(const char *const *files, const HqsimOptions *o,
                       GError **error)
{
    g_auto(PlanSettings) s = {0};
    if (!opts_read(&s, o, PLAN_CMD_RUN, error))
        return NULL;
    /* No "mode": as each process of the scenario says. */
    char *modes[] = {s.mode ? s.mode : "scenario", NULL};
    return result_run(files, &s, o, modes, error);
}

HqsimResult *hqsim_compare(const char *const *files, const HqsimOptions *o,
                           GError **error)
{
    g_auto(PlanSettings) s = {0};
    if (!opts_read(&s, o, PLAN_CMD_COMPARE, error))
        return NULL;
    /* Not empty (plan_settings_check). */
    g_auto(GStrv) modes =
        g_strsplit(s.modes ? s.modes : "timeslice,mps", ",", 0);
    HqsimResult *r = result_run(files, &s, o, modes, error);
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

double hqsim_result_latency_ms(const HqsimResult *r, uint32_t run, double pct)
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
    return r->n_runs == 1 ? sim_report_json(r->runs[0], r->model, r->scenario)
                          : sim_report_compare_json(r->runs, r->n_runs,
                                                    r->model, r->scenario);
}

char *hqsim_result_text(const HqsimResult *r)
{
    g_return_val_if_fail(r && r->n_runs > 0, NULL);
    GString *out = g_string_new(NULL);
    if (r->compare)
        sim_report_compare_text(r->runs, r->n_runs, r->model, r->scenario, out);
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

/* One sweep under way: its configurations and whether the caller's
 * progress callback stopped it (then no configuration starts). */
typedef struct {
    SimSweep *sw;
    const HqsimOptions *o;
    gint stopped; /* atomic: set on the calling thread, read on workers */
} SweepCall;

static void sweep_one(uint32_t item, gpointer data)
{
    SweepCall *c = data;
    if (!g_atomic_int_get(&c->stopped))
        sim_sweep_run_config(c->sw, item);
}

/* The sweep pool's progress: configurations done of all. */
static void sweep_progress(uint32_t done, uint32_t total, gpointer data)
{
    SweepCall *c = data;
    if (!g_atomic_int_get(&c->stopped) && !tell_progress(c->o, done, total))
        g_atomic_int_set(&c->stopped, 1);
}

/* Run every configuration of @sw as cli/cmd_sweep.c does on one rank:
 * fails if the progress callback stopped it, the sweep's events limit
 * stopped it or every configuration failed. */
static bool sweep_run(SimSweep *sw, const PlanSettings *s,
                      const HqsimOptions *o, GError **error)
{
    g_autofree uint32_t *order = sim_sweep_schedule(sw);
    uint32_t threads =
        s->threads > 0 ? (uint32_t)s->threads : sim_pool_default_threads(1);
    SweepCall call = {sw, o, 0};
    sim_pool_run(order, sw->n_configs, threads, sweep_one, &call,
                 has_progress(o) ? sweep_progress : NULL, &call);
    if (g_atomic_int_get(&call.stopped)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_CANCELLED,
                    "sweep stopped by the progress callback");
        return false;
    }
    if (sim_sweep_budget_hit(sw))
        return sim_sweep_budget_fail(sw, error);
    uint32_t failed = 0;
    for (uint32_t i = 0; i < sw->n_configs; i++)
        failed += sw->rows[i].error != NULL;
    if (failed == sw->n_configs) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "every configuration failed; the first: %s",
                    sw->rows[0].error);
        return false;
    }
    return true;
}

HqsimSweep *hqsim_sweep(const char *const *files, const HqsimOptions *o,
                        GError **error)
{
    g_auto(PlanSettings) s = {0};
    if (!opts_read(&s, o, PLAN_CMD_SWEEP, error))
        return NULL;
    SimSweepSpace sp;
    sim_sweep_space_init(&sp);
    g_autoptr(SimSweep) sw = NULL;
    if (plan_settings_sweep_space(&s, (char *const *)files, &sp, error))
        sw = sim_sweep_new(&sp, error);
    sim_sweep_space_clear(&sp);
    if (!sw || !sweep_run(sw, &s, o, error))
        return NULL;
    HqsimSweep *h = g_new0(HqsimSweep, 1);
    h->slo = (SimSlo){s.slo_p99_ms, s.slo_throughput};
    g_autoptr(GArray) answers =
        sim_slo_active(&h->slo) ? sim_slo_answer(sw, &h->slo) : NULL;
    g_mutex_lock(&write_lock);
    bool ok = plan_settings_write_sweep(&s, sw, &h->slo, answers, error);
    g_mutex_unlock(&write_lock);
    h->sweep = g_steal_pointer(&sw);
    if (!ok)
        g_clear_pointer(&h, hqsim_sweep_free);
    return h;
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

/* ------------------------------------------------------------------------
 * Work limits (sim/bounds.h)
 * ------------------------------------------------------------------------ */

gboolean hqsim_limit_set(const char *name, const char *value, GError **error)
{
    g_return_val_if_fail(name && value, FALSE);
    g_autofree char *arg = g_strdup_printf("%s=%s", name, value);
    return sim_limit_set_arg(arg, error);
}

void hqsim_limits_reset(void)
{
    sim_limits_reset();
}

/* ------------------------------------------------------------------------
 * Import and replay
 * ------------------------------------------------------------------------ */

char *hqsim_import(const char *const *files, const HqsimOptions *o,
                   GError **error)
{
    g_auto(PlanSettings) s = {0};
    if (!opts_read(&s, o, PLAN_CMD_IMPORT, error))
        return NULL;
    int n = count_files(files);
    if (n == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "give at least one trace file");
        return NULL;
    }
    SimImportOptions opt;
    plan_settings_import(&s, &opt);
    /* As cmd_import.c loads it (the report is its summary). */
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc =
        sim_workload_load_report((char *const *)files, n, &opt, &rep, error);
    return sc ? sim_scenario_to_json(sc) : NULL;
}

/* One replay's numbers as a JSON object, appended to the array @data. */
static void replay_row(const char *name, const SimReplayStats *st, void *data)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "trace", name);
    cJSON_AddStringToObject(o, "gpu", st->gpu);
    cJSON_AddNumberToObject(o, "ops", st->kernels);
    cJSON_AddNumberToObject(o, "recorded_ms", st->rec_span_ms);
    cJSON_AddNumberToObject(o, "simulated_ms", st->sim_span_ms);
    cJSON_AddNumberToObject(o, "makespan_error", st->makespan_err);
    cJSON_AddNumberToObject(o, "median_end_error", st->median_end_err);
    cJSON_AddNumberToObject(o, "worst_end_error", st->worst_end_err);
    cJSON_AddItemToArray(data, o);
}

char *hqsim_replay(const char *const *files, const HqsimOptions *o,
                   GError **error)
{
    g_auto(PlanSettings) s = {0};
    if (!opts_read(&s, o, PLAN_CMD_REPLAY, error))
        return NULL;
    cJSON *rows = cJSON_CreateArray();
    char *text = NULL;
    if (plan_settings_replay(&s, (char *const *)files, replay_row, rows,
                             error)) {
        /* The caller frees with hqsim_free (g_free): copy out of cJSON's
         * allocator. */
        char *printed = cJSON_Print(rows);
        text = g_strdup(printed);
        cJSON_free(printed);
    }
    cJSON_Delete(rows);
    return text;
}

/* ------------------------------------------------------------------------
 * Validate
 * ------------------------------------------------------------------------ */

/* The public struct first, so that its address is the whole's. */
typedef struct {
    HqsimValidation pub;
    GPtrArray *rows; /* SimValRow: the strings the public rows point to */
} Validation;

void hqsim_validation_free(HqsimValidation *v)
{
    if (!v)
        return;
    Validation *V = (Validation *)v;
    for (uint32_t i = 0; i < v->n_rows; i++)
        g_free(v->rows[i]);
    g_free(v->rows);
    g_free(v->dir);
    g_free(v->gpu);
    g_ptr_array_unref(V->rows);
    g_free(V);
}

static HqsimValidationSummary summary_of(const SimValSummary *s)
{
    return (HqsimValidationSummary){
        .n = s->n,
        .over5 = s->over5,
        .over15 = s->over15,
        .within10 = s->within10,
        .ends = s->ends,
        .ends_within10 = s->ends_within10,
        .median_abs_error = s->median_abs_err,
        .max_abs_error = s->max_abs_err,
        .median_end_error = s->median_end_err,
    };
}

HqsimValidation *hqsim_validate(const char *dir, const HqsimOptions *o,
                                GError **error)
{
    g_return_val_if_fail(dir, NULL);
    g_auto(PlanSettings) s = {0};
    if (!opts_read(&s, o, PLAN_CMD_VALIDATE, error))
        return NULL;
    g_autoptr(GpuModel) m = NULL;
    GPtrArray *rows = plan_settings_validate(&s, dir, &m, error);
    if (!rows)
        return NULL;
    Validation *V = g_new0(Validation, 1);
    HqsimValidation *v = &V->pub;
    V->rows = rows;
    v->dir = g_strdup(dir);
    v->gpu = g_strdup(m->name);
    v->n_rows = rows->len;
    v->rows = g_new0(HqsimValidationRow *, MAX(rows->len, 1));
    for (guint i = 0; i < rows->len; i++) {
        const SimValRow *r = g_ptr_array_index(rows, i);
        HqsimValidationRow *p = v->rows[i] = g_new0(HqsimValidationRow, 1);
        *p = (HqsimValidationRow){
            .id = r->id,
            .category = r->category,
            .measures = r->measures,
            .calibration = r->calibration,
            .skipped = r->skipped,
            .processes = r->processes,
            .ops = r->ops,
            .iterations = r->iterations,
            .measured_ms = r->meas_ms,
            .predicted_ms = r->pred_ms,
            .error = r->err,
            .end_error = r->end_err,
            .ends = r->ends,
            .ends_within10 = r->ends_within10,
        };
    }
    SimValSummary pred = sim_validate_summary(rows, false);
    SimValSummary cal = sim_validate_summary(rows, true);
    v->prediction = summary_of(&pred);
    v->calibration = summary_of(&cal);
    return v;
}

HqsimValidationSummary hqsim_validation_summary(const HqsimValidation *v,
                                                gboolean calibration,
                                                const char *category)
{
    g_return_val_if_fail(v, (HqsimValidationSummary){0});
    const Validation *V = (const Validation *)v;
    SimValSummary s =
        sim_validate_summary_of(V->rows, calibration != FALSE, category);
    return summary_of(&s);
}

static cJSON *summary_json(const HqsimValidationSummary *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", s->n);
    cJSON_AddNumberToObject(o, "over5", s->over5);
    cJSON_AddNumberToObject(o, "over15", s->over15);
    cJSON_AddNumberToObject(o, "within10", s->within10);
    cJSON_AddNumberToObject(o, "ends", s->ends);
    cJSON_AddNumberToObject(o, "ends_within10", s->ends_within10);
    cJSON_AddNumberToObject(o, "median_abs_error", s->median_abs_error);
    cJSON_AddNumberToObject(o, "max_abs_error", s->max_abs_error);
    cJSON_AddNumberToObject(o, "median_end_error", s->median_end_error);
    return o;
}

/* A text or null. */
static cJSON *text_or_null(const char *s)
{
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

char *hqsim_validation_json(const HqsimValidation *v)
{
    g_return_val_if_fail(v, NULL);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "dir", v->dir);
    cJSON_AddStringToObject(doc, "gpu", v->gpu);
    cJSON *rows = cJSON_AddArrayToObject(doc, "rows");
    for (uint32_t i = 0; i < v->n_rows; i++) {
        const HqsimValidationRow *r = v->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", r->id);
        cJSON_AddItemToObject(o, "category", text_or_null(r->category));
        cJSON_AddItemToObject(o, "measures", text_or_null(r->measures));
        cJSON_AddStringToObject(o, "role",
                                r->calibration ? "calibration" : "prediction");
        cJSON_AddItemToObject(o, "skipped", text_or_null(r->skipped));
        cJSON_AddNumberToObject(o, "processes", r->processes);
        cJSON_AddNumberToObject(o, "ops", r->ops);
        cJSON_AddNumberToObject(o, "iterations", r->iterations);
        cJSON_AddNumberToObject(o, "measured_ms", r->measured_ms);
        cJSON_AddNumberToObject(o, "predicted_ms", r->predicted_ms);
        cJSON_AddNumberToObject(o, "error", r->error);
        cJSON_AddNumberToObject(o, "end_error", r->end_error);
        cJSON_AddNumberToObject(o, "ends", r->ends);
        cJSON_AddNumberToObject(o, "ends_within10", r->ends_within10);
        cJSON_AddItemToArray(rows, o);
    }
    cJSON_AddItemToObject(doc, "prediction", summary_json(&v->prediction));
    cJSON_AddItemToObject(doc, "calibration", summary_json(&v->calibration));
    /* The caller frees with hqsim_free (g_free): copy out of cJSON's
     * allocator. */
    char *printed = cJSON_Print(doc);
    char *text = g_strdup(printed);
    cJSON_free(printed);
    cJSON_Delete(doc);
    return text;
}
