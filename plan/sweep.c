/* sweep.c -- the configuration space of a sweep, running one configuration,
 * and the summary row it leaves.  See sweep.h. */
#include "sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "optrange.h"
#include "prepare.h"
#include "reqmodel.h"
#include "report.h"

#define MAX_AXIS_VALUES 4096 /* values of one axis */

/* ------------------------------------------------------------------------
 * The space and its parsers
 * ------------------------------------------------------------------------ */

void sim_sweep_space_init(SimSweepSpace *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->workloads =
        g_ptr_array_new_with_free_func((GDestroyNotify)sim_scenario_free);
    sp->gpus =
        g_ptr_array_new_with_free_func((GDestroyNotify)sim_gpu_model_free);
    sp->connections = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    sp->modes = g_array_new(FALSE, FALSE, sizeof(SimShareMode));
    sp->pcts = g_array_new(FALSE, FALSE, sizeof(SimSweepPct));
    sp->processes = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    sp->fixed =
        g_ptr_array_new_with_free_func((GDestroyNotify)sim_scenario_free);
}

void sim_sweep_space_clear(SimSweepSpace *sp)
{
    if (sp->workloads)
        g_ptr_array_free(sp->workloads, TRUE);
    if (sp->gpus)
        g_ptr_array_free(sp->gpus, TRUE);
    if (sp->connections)
        g_array_free(sp->connections, TRUE);
    if (sp->modes)
        g_array_free(sp->modes, TRUE);
    if (sp->pcts)
        g_array_free(sp->pcts, TRUE);
    if (sp->processes)
        g_array_free(sp->processes, TRUE);
    g_free(sp->models_dir);
    if (sp->fixed)
        g_ptr_array_free(sp->fixed, TRUE);
    memset(sp, 0, sizeof *sp);
}

static bool usage_error(GError **error, const char *option, const char *s,
                        const char *what)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--%s: '%s': %s", option, s,
                what);
    return false;
}

/* Split a comma-separated list into trimmed, non-empty items. */
static char **split_list(const char *s, const char *option, GError **error)
{
    char **items = g_strsplit(s, ",", -1);
    guint n = g_strv_length(items);
    for (guint i = 0; i < n; i++) {
        g_strstrip(items[i]);
        if (!*items[i]) {
            g_strfreev(items);
            usage_error(error, option, s, "empty item in the list");
            return NULL;
        }
    }
    if (n == 0 || n > MAX_AXIS_VALUES) {
        g_strfreev(items);
        usage_error(error, option, s,
                    n ? "too many values" : "give at least one value");
        return NULL;
    }
    return items;
}

/* One item of a list option, checked against the option's row of the
 * range table (sim/optrange.h). */
static bool parse_item(const char *option, const char *s, uint32_t *out,
                       GError **error)
{
    int64_t v = 0;
    if (!sim_opt_parse_int64(option, s, &v, error))
        return false;
    *out = (uint32_t)v;
    return true;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

bool sim_sweep_parse_processes(const char *s, GArray *out, GError **error)
{
    g_auto(GStrv) items = split_list(s, "processes", error);
    if (!items)
        return false;
    for (guint i = 0; items[i]; i++) {
        uint32_t lo = 0, hi = 0;
        char *dash = strchr(items[i], '-');
        if (dash == items[i])
            dash = NULL; /* "-3": a negative number, rejected below */
        if (dash)
            *dash = 0;
        if (!parse_item("processes", items[i], &lo, error) ||
            !parse_item("processes", dash ? dash + 1 : items[i], &hi, error))
            return false;
        if (lo > hi)
            return usage_error(error, "processes", s,
                               "a range FIRST-LAST needs FIRST <= LAST");
        for (uint32_t n = lo; n <= hi; n++)
            g_array_append_val(out, n);
    }
    g_array_sort(out, cmp_u32);
    guint w = 0;
    for (guint r = 0; r < out->len; r++)
        if (w == 0 || g_array_index(out, uint32_t, r) !=
                          g_array_index(out, uint32_t, w - 1))
            g_array_index(out, uint32_t, w++) = g_array_index(out, uint32_t, r);
    g_array_set_size(out, w);
    return true;
}

bool sim_sweep_parse_connections(const char *s, GArray *out, GError **error)
{
    g_auto(GStrv) items = split_list(s, "connections", error);
    if (!items)
        return false;
    for (guint i = 0; items[i]; i++) {
        uint32_t c = 0;
        if (strcmp(items[i], "default") != 0 &&
            !parse_item("connections", items[i], &c, error))
            return false;
        bool seen = false;
        for (guint j = 0; j < out->len; j++)
            seen |= g_array_index(out, uint32_t, j) == c;
        if (!seen)
            g_array_append_val(out, c);
    }
    return true;
}

bool sim_sweep_parse_modes(const char *s, GArray *out, GError **error)
{
    g_auto(GStrv) items = split_list(s, "modes", error);
    if (!items)
        return false;
    for (guint i = 0; items[i]; i++) {
        SimShareMode m;
        g_autoptr(GError) e = NULL;
        if (!sim_share_mode_parse(items[i], &m, &e))
            return usage_error(error, "modes", s, e->message);
        bool seen = false;
        for (guint j = 0; j < out->len; j++)
            seen |= g_array_index(out, SimShareMode, j) == m;
        if (!seen)
            g_array_append_val(out, m);
    }
    return true;
}

bool sim_sweep_parse_pcts(const char *s, GArray *out, GError **error)
{
    g_auto(GStrv) items = split_list(s, "thread-pct", error);
    if (!items)
        return false;
    for (guint i = 0; items[i]; i++) {
        SimSweepPct p = {SIM_SWEEP_PCT_VALUE, 0};
        if (!strcmp(items[i], "equal"))
            p.kind = SIM_SWEEP_PCT_EQUAL;
        else if (!strcmp(items[i], "scenario"))
            p.kind = SIM_SWEEP_PCT_SCENARIO;
        else if (!sim_opt_parse_double("thread-pct", items[i], &p.value, error))
            return false;
        bool seen = false;
        for (guint j = 0; j < out->len; j++) {
            const SimSweepPct *q = &g_array_index(out, SimSweepPct, j);
            seen |= q->kind == p.kind && q->value == p.value;
        }
        if (!seen)
            g_array_append_val(out, p);
    }
    return true;
}

bool sim_sweep_parse_gpus(const char *s, const char *dflt,
                          const char *models_dir, GPtrArray *out,
                          GError **error)
{
    g_auto(GStrv) names = g_strsplit(s ? s : dflt, ",", -1);
    for (int i = 0; names[i]; i++) {
        g_strstrip(names[i]);
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= !strcmp(names[i], names[j]);
        if (seen)
            continue;
        if (!*names[i]) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                        "--gpu: '%s': empty item in the list", s);
            return false;
        }
        GpuModel *m = sim_gpu_model_find(names[i], models_dir, error);
        if (!m)
            return false;
        g_ptr_array_add(out, m);
    }
    return true;
}

char *sim_sweep_pct_label(const SimSweepPct *p, SimShareMode mode)
{
    if (!sim_share_mode_takes_pct(mode))
        return g_strdup("-");
    switch (p->kind) {
    case SIM_SWEEP_PCT_EQUAL: return g_strdup("equal");
    case SIM_SWEEP_PCT_VALUE: return g_strdup_printf("%g", p->value);
    default: return g_strdup("scenario");
    }
}

/* ------------------------------------------------------------------------
 * Rows
 * ------------------------------------------------------------------------ */

static const char *const limit_names[SIM_SWEEP_N_LIMITS] = {
    "mps_client_limit",    "device_memory",      "mps_memory_limit", "refused",
    "thread_pct_rounding", "thread_pct_ignored", "no_mps",           "fault",
};

const char *sim_sweep_limit_name(uint32_t bit)
{
    for (uint32_t i = 0; i < SIM_SWEEP_N_LIMITS; i++)
        if (bit == 1u << i)
            return limit_names[i];
    return "?";
}

bool sim_sweep_row_fits_memory(const SimSweepRow *row)
{
    return !(row->limits &
             (SIM_SWEEP_LIMIT_DEVICE_MEM | SIM_SWEEP_LIMIT_MPS_MEM));
}

void sim_sweep_row_clear(SimSweepRow *row)
{
    SimSweepConfig cfg = row->cfg;
    for (uint32_t i = 0; i < row->n_procs && row->procs; i++) {
        g_free(row->procs[i].name);
        g_free(row->procs[i].reason);
    }
    g_free(row->procs);
    g_free(row->error);
    g_strfreev(row->limit_details);
    g_strfreev(row->notes);
    memset(row, 0, sizeof *row);
    row->cfg = cfg;
}

/* The engine's reasons for refusing a process (engine.c, proc_start), by a
 * phrase each contains.  test_sweep.c runs a configuration that triggers
 * each one, so a reworded reason fails a test instead of turning into
 * "refused". */
static const struct {
    const char *phrase;
    uint32_t bit;
} refusals[] = {
    {"MPS server already has", SIM_SWEEP_LIMIT_MPS_CLIENTS},
    {"over its MPS memory limit", SIM_SWEEP_LIMIT_MPS_MEM},
    {"out of device memory", SIM_SWEEP_LIMIT_DEVICE_MEM},
};

static uint32_t refusal_bit(const char *reason)
{
    for (size_t i = 0; i < G_N_ELEMENTS(refusals); i++)
        if (reason && strstr(reason, refusals[i].phrase))
            return refusals[i].bit;
    return SIM_SWEEP_LIMIT_REFUSED;
}

char *sim_sweep_elide_copies(const char *s)
{
    GString *t = g_string_new(NULL);
    bool quoted = false;
    for (const char *c = s; *c; c++) {
        if (*c == '\'')
            quoted = !quoted;
        if (quoted && c[0] == '#' && g_ascii_isdigit(c[1])) {
            while (g_ascii_isdigit(c[1]))
                c++;
            continue;
        }
        g_string_append_c(t, *c);
    }
    return g_string_free(t, FALSE);
}

/* Notes name processes ('infer#3'); with N copies the same note comes once
 * per copy.  Drop the copy numbers and count repeats, first occurrence
 * first.
 * O(notes x distinct notes) string compares: distinct notes are few. */
static char **condense_notes(const GPtrArray *notes)
{
    g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) counts = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    for (guint i = 0; i < notes->len; i++) {
        char *t = sim_sweep_elide_copies(g_ptr_array_index(notes, i));
        guint j = 0;
        while (j < texts->len && strcmp(g_ptr_array_index(texts, j), t))
            j++;
        if (j == texts->len) {
            g_ptr_array_add(texts, t);
            uint32_t one = 1;
            g_array_append_val(counts, one);
        } else {
            g_free(t);
            g_array_index(counts, uint32_t, j)++;
        }
    }
    char **out = g_new0(char *, texts->len + 1);
    for (guint j = 0; j < texts->len; j++) {
        uint32_t n = g_array_index(counts, uint32_t, j);
        out[j] = n > 1 ? g_strdup_printf("%s (x%u)",
                                         (char *)g_ptr_array_index(texts, j), n)
                       : g_strdup(g_ptr_array_index(texts, j));
    }
    return out;
}

static bool config_wants_mps(const SimSweepConfig *c, const SimScenario *sc)
{
    for (guint i = 0; i < sc->processes->len; i++) {
        const SimProcessSpec *p = g_ptr_array_index(sc->processes, i);
        if (sim_share_mode_mps(c->mode, p->mps))
            return true;
    }
    return false;
}

void sim_sweep_summarize(const SimSweep *sw, const SimResult *r,
                         SimSweepRow *row)
{
    const SimSweepConfig *c = &row->cfg;
    const GpuModel *m = g_ptr_array_index(sw->space.gpus, c->gpu);
    const SimScenario *sc = sim_sweep_scenario(sw, c->index);
    SimOptions opt;
    sim_sweep_options(sw, c->index, &opt);

    row->n_procs = r->n_procs;
    row->thread_pct = opt.active_thread_pct;
    /* The swept processes come first; --fixed ones are the background. */
    uint32_t n_swept = r->n_procs - MIN(sw->n_fixed_procs, r->n_procs);
    g_autoptr(GArray) lat = g_array_new(FALSE, FALSE, sizeof(SimTime));
    for (uint32_t i = 0; i < n_swept; i++) {
        row->throughput += sim_proc_throughput(&r->procs[i]);
        g_array_append_vals(lat, r->procs[i].latency_ns->data,
                            r->procs[i].latency_ns->len);
    }
    row->p50_ns = sim_percentile(lat, 50);
    row->p90_ns = sim_percentile(lat, 90);
    row->p99_ns = sim_percentile(lat, 99);
    row->mean_ns = sim_time_mean(lat);
    row->makespan_ns = r->makespan_ns;
    row->mem_used_bytes = r->device_mem_used_bytes;
    row->mem_device_bytes = r->device_mem_bytes;
    row->procs = g_new0(SimSweepProc, r->n_procs);

    /* First process hitting each limit, and how many did. */
    const SimProcResult *first[SIM_SWEEP_N_LIMITS] = {NULL};
    uint32_t count[SIM_SWEEP_N_LIMITS] = {0};
    for (uint32_t i = 0; i < r->n_procs; i++) {
        const SimProcResult *p = &r->procs[i];
        SimSweepProc *q = &row->procs[i];
        q->name = g_strdup(p->name);
        q->status = p->status;
        q->reason = g_strdup(p->status_reason);
        q->throughput = sim_proc_throughput(p);
        q->p50_ns = sim_percentile(p->latency_ns, 50);
        q->p90_ns = sim_percentile(p->latency_ns, 90);
        q->p99_ns = sim_percentile(p->latency_ns, 99);
        q->mean_ns = sim_time_mean(p->latency_ns);
        q->mem_bytes = p->mem_bytes;
        q->sm_limit = p->sm_limit;
        q->thread_pct = p->active_thread_pct;
        q->fixed = i >= n_swept;
        uint32_t bit = 0;
        if (p->status == SIM_PROC_NOT_STARTED) {
            row->refused++;
            bit = refusal_bit(p->status_reason);
        } else {
            row->started++;
            if (p->latency_ns->len && !q->fixed)
                row->p99_worst_ns = MAX(row->p99_worst_ns, q->p99_ns);
            if (p->status == SIM_PROC_KILLED) {
                row->killed++;
                bit = SIM_SWEEP_LIMIT_KILLED;
            } else if (p->mps && p->active_thread_pct < 100 && !m->mps_volta) {
                bit = SIM_SWEEP_LIMIT_PCT_IGNORED;
            } else if (p->mps && p->active_thread_pct < 100 &&
                       fabs(p->active_thread_pct * r->sm_count / 100.0 -
                            p->sm_limit) > 1e-9) {
                bit = SIM_SWEEP_LIMIT_PCT_ROUNDING;
            }
        }
        if (bit) {
            uint32_t b = (uint32_t)g_bit_nth_lsf(bit, -1);
            if (!count[b]++)
                first[b] = p;
            row->limits |= bit;
        }
    }
    if (!m->mps_supported && config_wants_mps(c, sc)) {
        row->limits |= SIM_SWEEP_LIMIT_NO_MPS;
        count[g_bit_nth_lsf(SIM_SWEEP_LIMIT_NO_MPS, -1)] = 1;
    }

    GPtrArray *details = g_ptr_array_new();
    for (uint32_t b = 0; b < SIM_SWEEP_N_LIMITS; b++) {
        if (!(row->limits & (1u << b)))
            continue;
        const SimProcResult *p = first[b];
        const char *name = limit_names[b];
        char *d;
        switch (1u << b) {
        case SIM_SWEEP_LIMIT_PCT_ROUNDING:
            d = g_strdup_printf(
                "%s: %g%% of %u SMs is %.2f SMs; the client may use %u "
                "(whole TPCs of %u, rounded %s)",
                name, p->active_thread_pct, r->sm_count,
                p->active_thread_pct * r->sm_count / 100.0, p->sm_limit,
                m->sms_per_tpc, sim_gpu_model_rounding_phrase(m));
            break;
        case SIM_SWEEP_LIMIT_PCT_IGNORED:
            d = g_strdup_printf("%s: %s has pre-Volta MPS, without active "
                                "thread percentages: clients may use every "
                                "SM",
                                name, m->name);
            break;
        case SIM_SWEEP_LIMIT_NO_MPS:
            d = g_strdup_printf("%s: %s does not support MPS: processes ran "
                                "in their own contexts",
                                name, m->name);
            break;
        default:
            d = g_strdup_printf(
                "%s: %u of %u processes %s: %s", name, count[b], r->n_procs,
                p->status == SIM_PROC_KILLED ? "killed" : "refused",
                p->status_reason ? p->status_reason : "?");
        }
        g_ptr_array_add(details, d);
    }
    g_ptr_array_add(details, NULL);
    row->limit_details = (char **)g_ptr_array_free(details, FALSE);
    row->notes = condense_notes(r->notes);
}

/* ------------------------------------------------------------------------
 * A sweep
 * ------------------------------------------------------------------------ */

static uint32_t n_prepared(const SimSweep *sw)
{
    return sw->space.workloads->len * sw->space.gpus->len *
           sw->space.processes->len;
}

/* One scenario per workload, GPU and N, through the pipeline `hqsim run`
 * uses (prep_target), so a configuration runs exactly what `run` runs. */
static bool prepare_all(SimSweep *sw, GError **error)
{
    const SimSweepSpace *sp = &sw->space;
    for (guint f = 0; f < sp->fixed->len; f++)
        sw->n_fixed_procs +=
            ((SimScenario *)g_ptr_array_index(sp->fixed, f))->processes->len;
    PrepOptions po;
    memset(&po, 0, sizeof po);
    po.models_dir = sp->models_dir;
    uint32_t n_n = sp->processes->len;
    sw->prepared = g_new0(SimScenario *, n_prepared(sw));
    for (uint32_t w = 0; w < sp->workloads->len; w++)
        for (uint32_t g = 0; g < sp->gpus->len; g++)
            for (uint32_t k = 0; k < n_n; k++) {
                /* What rescaling did is in each scenario's gpu_mapping,
                 * which every output reports (sim_report_caveats). */
                SimScenario *sc =
                    prep_target(g_ptr_array_index(sp->workloads, w),
                                g_ptr_array_index(sp->gpus, g),
                                g_array_index(sp->processes, uint32_t, k), &po,
                                NULL, error);
                if (!sc)
                    return false;
                sw->prepared[(w * sp->gpus->len + g) * n_n + k] = sc;
                for (guint f = 0; f < sp->fixed->len; f++) {
                    g_autoptr(SimScenario) fx = prep_target(
                        g_ptr_array_index(sp->fixed, f),
                        g_ptr_array_index(sp->gpus, g), 1, &po, NULL, error);
                    if (!fx)
                        return false;
                    sim_scenario_append(sc, fx);
                    if (fx->gpu_mapping) {
                        g_autofree char *old = sc->gpu_mapping;
                        sc->gpu_mapping = g_strdup_printf(
                            "%s%s%s: %s", old ? old : "", old ? "; " : "",
                            fx->source, fx->gpu_mapping);
                    }
                }
            }
    return true;
}

/* The sweep is one command: the ops all its configurations simulate
 * together are bounded (sweep_work), and its events limit, that of one run
 * of as many ops, is shared by the configurations, so that --limit
 * events=N bounds the whole sweep as it bounds one run. */
static bool check_work(SimSweep *sw, GError **error)
{
    sw->work = 0;
    for (uint32_t i = 0; i < sw->n_configs; i++)
        sw->work =
            sim_add_sat(sw->work, sim_scenario_work(sim_sweep_scenario(sw, i)));
    if (sw->work > sim_limit(SIM_BOUND_SWEEP_WORK))
        return sim_limit_fail(error, SIM_BOUND_SWEEP_WORK,
                              "the sweep's %u configurations would simulate "
                              "%s%llu ops in all",
                              sw->n_configs,
                              sw->work == UINT64_MAX ? "over " : "",
                              (unsigned long long)sw->work);
    sw->budget = g_new(SimEventBudget, 1);
    sim_event_budget_init(sw->budget, sim_limit_events_for(sw->work));
    return true;
}

bool sim_sweep_budget_hit(const SimSweep *sw)
{
    return sw->budget && atomic_load(&sw->budget->hit);
}

bool sim_sweep_budget_fail(const SimSweep *sw, GError **error)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_LIMIT,
                "the sweep stopped at its events limit: its %u "
                "configurations (%llu ops) share %llu events (limit "
                "'events' = %llu for this sweep; raise it with --limit "
                "events=N)",
                sw->n_configs, (unsigned long long)sw->work,
                (unsigned long long)sw->budget->limit,
                (unsigned long long)sw->budget->limit);
    return false;
}

SimSweep *sim_sweep_new(SimSweepSpace *space, GError **error)
{
    g_return_val_if_fail(space && space->workloads, NULL);
    if (!space->workloads->len || !space->gpus->len || !space->modes->len ||
        !space->processes->len) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "a sweep needs at least one workload, GPU, mode and "
                    "process count");
        return NULL;
    }
    if (!space->pcts->len) {
        SimSweepPct p = {SIM_SWEEP_PCT_SCENARIO, 0};
        g_array_append_val(space->pcts, p);
    }
    if (!space->connections->len) {
        uint32_t c = 0;
        g_array_append_val(space->connections, c);
    }
    SimSweep *sw = g_new0(SimSweep, 1);
    sw->space = *space;
    memset(space, 0, sizeof *space);
    const SimSweepSpace *sp = &sw->space;

    uint32_t n_modes_pct = 0;
    for (guint k = 0; k < sp->modes->len; k++)
        n_modes_pct +=
            sim_share_mode_takes_pct(g_array_index(sp->modes, SimShareMode, k))
                ? sp->pcts->len
                : 1;
    uint64_t total = (uint64_t)sp->workloads->len * sp->gpus->len *
                     sp->connections->len * n_modes_pct * sp->processes->len;
    if (total > 10000000) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "the sweep has %llu configurations; at most 10 million",
                    (unsigned long long)total);
        sim_sweep_free(sw);
        return NULL;
    }
    sw->n_configs = (uint32_t)total;
    sw->configs = g_new0(SimSweepConfig, sw->n_configs);
    sw->rows = g_new0(SimSweepRow, sw->n_configs);
    uint32_t i = 0;
    for (uint32_t w = 0; w < sp->workloads->len; w++)
        for (uint32_t g = 0; g < sp->gpus->len; g++)
            for (guint c = 0; c < sp->connections->len; c++)
                for (guint k = 0; k < sp->modes->len; k++) {
                    SimShareMode mode =
                        g_array_index(sp->modes, SimShareMode, k);
                    guint n_pct =
                        sim_share_mode_takes_pct(mode) ? sp->pcts->len : 1;
                    for (guint q = 0; q < n_pct; q++)
                        for (guint n = 0; n < sp->processes->len; n++) {
                            SimSweepConfig *cf = &sw->configs[i];
                            cf->index = i;
                            cf->workload = w;
                            cf->gpu = g;
                            cf->connections =
                                g_array_index(sp->connections, uint32_t, c);
                            cf->mode = mode;
                            if (sim_share_mode_takes_pct(mode))
                                cf->pct =
                                    g_array_index(sp->pcts, SimSweepPct, q);
                            cf->n = g_array_index(sp->processes, uint32_t, n);
                            sw->rows[i].cfg = *cf;
                            i++;
                        }
                }
    g_assert(i == sw->n_configs);

    if (!prepare_all(sw, error) || !check_work(sw, error)) {
        sim_sweep_free(sw);
        return NULL;
    }
    return sw;
}

void sim_sweep_free(SimSweep *sw)
{
    if (!sw)
        return;
    if (sw->prepared)
        for (uint32_t i = 0; i < n_prepared(sw); i++)
            sim_scenario_free(sw->prepared[i]);
    g_free(sw->prepared);
    for (uint32_t i = 0; i < sw->n_configs && sw->rows; i++)
        sim_sweep_row_clear(&sw->rows[i]);
    g_free(sw->rows);
    g_free(sw->configs);
    g_free(sw->budget);
    sim_sweep_space_clear(&sw->space);
    g_free(sw);
}

const SimScenario *sim_sweep_scenario(const SimSweep *sw, uint32_t i)
{
    g_return_val_if_fail(i < sw->n_configs, NULL);
    const SimSweepConfig *c = &sw->configs[i];
    uint32_t k = 0;
    while (g_array_index(sw->space.processes, uint32_t, k) != c->n)
        k++;
    return sw->prepared[(c->workload * sw->space.gpus->len + c->gpu) *
                            sw->space.processes->len +
                        k];
}

void sim_sweep_options(const SimSweep *sw, uint32_t i, SimOptions *opt)
{
    const SimSweepConfig *c = &sw->configs[i];
    sim_options_init(opt);
    opt->mode = c->mode;
    opt->connections = c->connections;
    opt->record_ops = false;
    opt->record_timeline = false;
    opt->seed = sw->space.seed;
    opt->time_limit_ns = sw->space.time_limit_ns;
    opt->host_cores = sw->space.host_cores;
    opt->no_jitter = sw->space.no_jitter;
    opt->sm_sample = sw->space.sm_sample;
    opt->event_budget = sw->budget;
    if (!sim_share_mode_takes_pct(c->mode))
        return;
    if (c->pct.kind == SIM_SWEEP_PCT_VALUE)
        opt->active_thread_pct = c->pct.value;
    else if (c->pct.kind == SIM_SWEEP_PCT_EQUAL)
        opt->active_thread_pct =
            100.0 / sim_sweep_scenario(sw, i)->processes->len;
}

void sim_sweep_run_config(SimSweep *sw, uint32_t i)
{
    g_return_if_fail(i < sw->n_configs);
    SimSweepRow *row = &sw->rows[i];
    g_return_if_fail(!row->done);
    const GpuModel *m = g_ptr_array_index(sw->space.gpus, row->cfg.gpu);
    const SimScenario *sc = sim_sweep_scenario(sw, i);
    SimOptions opt;
    sim_sweep_options(sw, i, &opt);
    g_autoptr(GError) error = NULL;
    g_autoptr(SimResult) r =
        sw->space.request_model
            ? sim_reqmodel_run(m, sc, &opt, sw->space.request_model, &error)
            : sim_engine_run(m, sc, &opt, &error);
    if (r) {
        sim_sweep_summarize(sw, r, row);
    } else {
        row->error = g_strdup(error->message);
        row->n_procs = sc->processes->len;
        row->thread_pct = opt.active_thread_pct;
    }
    row->done = true;
}

typedef struct {
    guint procs; /* processes in the configuration: its cost */
    uint32_t index;
} Job;

static int cmp_job(const void *a, const void *b)
{
    const Job *x = a, *y = b;
    if (x->procs != y->procs)
        return x->procs > y->procs ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

uint32_t *sim_sweep_schedule(const SimSweep *sw)
{
    g_autofree Job *jobs = g_new(Job, MAX(sw->n_configs, 1));
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        jobs[i].procs = sim_sweep_scenario(sw, i)->processes->len;
        jobs[i].index = i;
    }
    qsort(jobs, sw->n_configs, sizeof *jobs, cmp_job);
    uint32_t *order = g_new(uint32_t, MAX(sw->n_configs, 1));
    for (uint32_t i = 0; i < sw->n_configs; i++)
        order[i] = jobs[i].index;
    return order;
}

/* ------------------------------------------------------------------------
 * Packing
 * ------------------------------------------------------------------------ */

#define NULL_STR UINT32_MAX

static void put(GByteArray *o, const void *p, size_t n)
{
    g_byte_array_append(o, p, (guint)n);
}

static void put_u32(GByteArray *o, uint32_t v)
{
    put(o, &v, sizeof v);
}

static void put_u64(GByteArray *o, uint64_t v)
{
    put(o, &v, sizeof v);
}

static void put_f64(GByteArray *o, double v)
{
    put(o, &v, sizeof v);
}

static void put_str(GByteArray *o, const char *s)
{
    if (!s) {
        put_u32(o, NULL_STR);
        return;
    }
    size_t n = strlen(s);
    put_u32(o, (uint32_t)n);
    put(o, s, n);
}

static void put_strv(GByteArray *o, char **v)
{
    uint32_t n = v ? g_strv_length(v) : 0;
    put_u32(o, n);
    for (uint32_t i = 0; i < n; i++)
        put_str(o, v[i]);
}

void sim_sweep_row_pack(const SimSweepRow *row, GByteArray *o)
{
    g_return_if_fail(row->done);
    put_u32(o, row->cfg.index);
    put_str(o, row->error);
    put_u32(o, row->n_procs);
    put_f64(o, row->thread_pct);
    put_f64(o, row->throughput);
    put_u64(o, row->p50_ns);
    put_u64(o, row->p90_ns);
    put_u64(o, row->p99_ns);
    put_u64(o, row->mean_ns);
    put_u64(o, row->p99_worst_ns);
    put_u64(o, row->makespan_ns);
    put_u64(o, row->mem_used_bytes);
    put_u64(o, row->mem_device_bytes);
    put_u32(o, row->started);
    put_u32(o, row->refused);
    put_u32(o, row->killed);
    put_u32(o, row->limits);
    put_strv(o, row->limit_details);
    put_strv(o, row->notes);
    put_u32(o, row->procs ? row->n_procs : 0);
    for (uint32_t i = 0; row->procs && i < row->n_procs; i++) {
        const SimSweepProc *p = &row->procs[i];
        put_str(o, p->name);
        put_u32(o, (uint32_t)p->status);
        put_str(o, p->reason);
        put_f64(o, p->throughput);
        put_u64(o, p->p50_ns);
        put_u64(o, p->p90_ns);
        put_u64(o, p->p99_ns);
        put_u64(o, p->mean_ns);
        put_u64(o, p->mem_bytes);
        put_u32(o, p->sm_limit);
        put_f64(o, p->thread_pct);
        put_u32(o, p->fixed);
    }
}

typedef struct {
    const guint8 *p, *end;
    bool ok;
} Reader;

static void get(Reader *rd, void *out, size_t n)
{
    if (!rd->ok || (size_t)(rd->end - rd->p) < n) {
        rd->ok = false;
        memset(out, 0, n);
        return;
    }
    memcpy(out, rd->p, n);
    rd->p += n;
}

static uint32_t get_u32(Reader *rd)
{
    uint32_t v;
    get(rd, &v, sizeof v);
    return v;
}

static uint64_t get_u64(Reader *rd)
{
    uint64_t v;
    get(rd, &v, sizeof v);
    return v;
}

static double get_f64(Reader *rd)
{
    double v;
    get(rd, &v, sizeof v);
    return v;
}

static char *get_str(Reader *rd)
{
    uint32_t n = get_u32(rd);
    if (n == NULL_STR || !rd->ok)
        return NULL;
    if ((size_t)(rd->end - rd->p) < n) {
        rd->ok = false;
        return NULL;
    }
    char *s = g_strndup((const char *)rd->p, n);
    rd->p += n;
    return s;
}

static char **get_strv(Reader *rd)
{
    uint32_t n = get_u32(rd);
    /* Each string takes at least its 4-byte length. */
    if (!rd->ok || n > (size_t)(rd->end - rd->p) / 4) {
        rd->ok = false;
        return g_new0(char *, 1);
    }
    char **v = g_new0(char *, n + 1);
    for (uint32_t i = 0; i < n && rd->ok; i++)
        v[i] = get_str(rd);
    return v;
}

bool sim_sweep_row_unpack(SimSweep *sw, const guint8 **p, const guint8 *end,
                          GError **error)
{
    Reader rd = {*p, end, true};
    uint32_t index = get_u32(&rd);
    if (!rd.ok || index >= sw->n_configs || sw->rows[index].done) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "sweep results: bad or repeated configuration index %u",
                    index);
        return false;
    }
    SimSweepRow *row = &sw->rows[index];
    row->error = get_str(&rd);
    row->n_procs = get_u32(&rd);
    row->thread_pct = get_f64(&rd);
    row->throughput = get_f64(&rd);
    row->p50_ns = get_u64(&rd);
    row->p90_ns = get_u64(&rd);
    row->p99_ns = get_u64(&rd);
    row->mean_ns = get_u64(&rd);
    row->p99_worst_ns = get_u64(&rd);
    row->makespan_ns = get_u64(&rd);
    row->mem_used_bytes = get_u64(&rd);
    row->mem_device_bytes = get_u64(&rd);
    row->started = get_u32(&rd);
    row->refused = get_u32(&rd);
    row->killed = get_u32(&rd);
    row->limits = get_u32(&rd);
    row->limit_details = get_strv(&rd);
    row->notes = get_strv(&rd);
    uint32_t n = get_u32(&rd);
    if (rd.ok && n && n != row->n_procs)
        rd.ok = false;
    /* A process takes at least 48 bytes: guard the allocation. */
    if (rd.ok && n && n <= (size_t)(end - rd.p) / 48) {
        row->procs = g_new0(SimSweepProc, n);
        for (uint32_t i = 0; i < n && rd.ok; i++) {
            SimSweepProc *q = &row->procs[i];
            q->name = get_str(&rd);
            q->status = (SimProcStatus)get_u32(&rd);
            q->reason = get_str(&rd);
            q->throughput = get_f64(&rd);
            q->p50_ns = get_u64(&rd);
            q->p90_ns = get_u64(&rd);
            q->p99_ns = get_u64(&rd);
            q->mean_ns = get_u64(&rd);
            q->mem_bytes = get_u64(&rd);
            q->sm_limit = get_u32(&rd);
            q->thread_pct = get_f64(&rd);
            q->fixed = get_u32(&rd) != 0;
            if (q->status > SIM_PROC_KILLED)
                rd.ok = false;
        }
    } else if (n) {
        rd.ok = false;
    }
    if (!rd.ok) {
        if (!row->procs)
            row->n_procs = 0;
        sim_sweep_row_clear(row);
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "sweep results: configuration %u is truncated or "
                    "malformed",
                    index);
        return false;
    }
    row->done = true;
    *p = rd.p;
    return true;
}
