/* sweep_report.c -- table, CSV, JSON and HTML views of a sweep.  See
 * sweep_report.h. */
#include "sweep_report.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "error.h"
#include "outfile.h"
#include "report.h"
#include "sweep_plot.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cJSON, cJSON_Delete)

static double ms(SimTime t)
{
    return sim_time_to_ms(t);
}

static double mib(uint64_t b)
{
    return b / 1048576.0;
}

static const char *status_name(SimProcStatus s)
{
    switch (s) {
    case SIM_PROC_OK: return "ok";
    case SIM_PROC_NOT_STARTED: return "refused";
    default: return "killed";
    }
}

static const SimScenario *workload(const SimSweep *sw, uint32_t w)
{
    return g_ptr_array_index(sw->space.workloads, w);
}

static const GpuModel *gpu(const SimSweep *sw, uint32_t g)
{
    return g_ptr_array_index(sw->space.gpus, g);
}

/* The warnings of workload @w on GPU @g (sim_report_caveats), from
 * the scenario its first configuration ran.  Returns: (transfer full). */
static char **caveats(const SimSweep *sw, uint32_t w, uint32_t g)
{
    for (uint32_t i = 0; i < sw->n_configs; i++)
        if (sw->configs[i].workload == w && sw->configs[i].gpu == g)
            return sim_report_caveats(sim_sweep_scenario(sw, i), gpu(sw, g));
    return g_new0(char *, 1);
}

/* "equal 3.57", "25", "scenario", "-"; as the scenario says with several
 * values among the swept processes (a workload file's parts): "scen 30/70",
 * the distinct values in order of first appearance. */
static char *pct_cell(const SimSweepRow *r)
{
    if (sim_share_mode_takes_pct(r->cfg.mode) &&
        r->cfg.pct.kind == SIM_SWEEP_PCT_EQUAL)
        return g_strdup_printf("equal %.3g", r->thread_pct);
    if (!sim_share_mode_takes_pct(r->cfg.mode) ||
        r->cfg.pct.kind != SIM_SWEEP_PCT_SCENARIO)
        return sim_sweep_pct_label(&r->cfg.pct, r->cfg.mode);
    g_autoptr(GString) v = g_string_new(NULL);
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < r->n_procs; i++) {
        const SimSweepProc *p = &r->procs[i];
        bool seen = p->fixed || p->thread_pct <= 0;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen =
                !r->procs[j].fixed && r->procs[j].thread_pct == p->thread_pct;
        if (!seen) {
            g_string_append_printf(v, "%s%.3g", distinct ? "/" : "",
                                   p->thread_pct);
            distinct++;
        }
    }
    return distinct > 1 ? g_strdup_printf("scen %s", v->str)
                        : sim_sweep_pct_label(&r->cfg.pct, r->cfg.mode);
}

static char *conn_cell(const SimSweepRow *r)
{
    return r->cfg.connections ? g_strdup_printf("%u", r->cfg.connections)
                              : g_strdup("default");
}

/* "mps_client_limit,thread_pct_rounding" (joined by @sep) or "-". */
static char *limits_cell(const SimSweepRow *r, const char *sep)
{
    if (r->error)
        return g_strdup("run failed");
    GString *s = g_string_new(NULL);
    for (uint32_t b = 0; b < SIM_SWEEP_N_LIMITS; b++)
        if (r->limits & (1u << b))
            g_string_append_printf(s, "%s%s", s->len ? sep : "",
                                   sim_sweep_limit_name(1u << b));
    if (!s->len)
        g_string_append(s, "-");
    return g_string_free(s, FALSE);
}

/* "3, 7-9, 12" for an ascending list of indices. */
static void append_ranges(GString *o, const GArray *idx)
{
    for (guint i = 0; i < idx->len;) {
        uint32_t a = g_array_index(idx, uint32_t, i), b = a;
        guint j = i + 1;
        while (j < idx->len && g_array_index(idx, uint32_t, j) == b + 1)
            b = g_array_index(idx, uint32_t, j++);
        g_string_append_printf(o, "%s%u", i ? ", " : "", a);
        if (b > a)
            g_string_append_printf(o, "-%u", b);
        i = j;
    }
}

/* "thread% equal (3.57), connections 8" -- the knobs chosen within a
 * group (workload, GPU, mode), for the SLO answer. */
static char *knobs(const SimSweepRow *r)
{
    g_autofree char *conn = conn_cell(r);
    if (!sim_share_mode_takes_pct(r->cfg.mode))
        return g_strdup_printf("connections %s", conn);
    g_autofree char *pct = sim_sweep_pct_label(&r->cfg.pct, r->cfg.mode);
    if (r->cfg.pct.kind == SIM_SWEEP_PCT_EQUAL)
        return g_strdup_printf("thread%% equal (%.3g), connections %s",
                               r->thread_pct, conn);
    return g_strdup_printf("thread%% %s, connections %s", pct, conn);
}

/* ------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------ */

static void text_block(const SimSweep *sw, const SimSlo *slo, uint32_t w,
                       uint32_t g, GString *o)
{
    const SimScenario *sc = workload(sw, w);
    const GpuModel *m = gpu(sw, g);
    bool with_slo = sim_slo_active(slo);
    g_string_append_printf(o,
                           "%s (%s) on %s (%s): N copies of its %u "
                           "process%s\n",
                           sc->source, sc->format, m->name, m->display_name,
                           sc->processes->len,
                           sc->processes->len == 1 ? "" : "es");
    for (guint f = 0; f < sw->space.fixed->len; f++) {
        const SimScenario *fx = g_ptr_array_index(sw->space.fixed, f);
        g_string_append_printf(o, "  beside, not swept: %s (%u process%s)\n",
                               fx->source, fx->processes->len,
                               fx->processes->len == 1 ? "" : "es");
    }
    g_string_append_printf(o, "  GPU model %s: %s\n", m->name,
                           m->calibrated ? "calibrated on hardware"
                                         : "NOT calibrated");
    g_auto(GStrv) warn = caveats(sw, w, g);
    for (char **x = warn; *x; x++)
        g_string_append_printf(o, "  warning: %s\n", *x);
    g_string_append_printf(o,
                           "  %4s  %-9s  %-11s  %-7s  %4s  %5s  %11s  %9s  "
                           "%9s  %9s  %9s  %9s  %7s  %4s  %s%s\n",
                           "#", "mode", "thread%", "conn", "N", "procs",
                           "iters/s", "p50_ms", "p90_ms", "p99_ms", "mean_ms",
                           "worst_p99", "mem_GiB", "fits",
                           with_slo ? "SLO  " : "", "limits");
    g_autoptr(GArray) failed = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GArray *by_limit[SIM_SWEEP_N_LIMITS];
    for (uint32_t b = 0; b < SIM_SWEEP_N_LIMITS; b++)
        by_limit[b] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        const SimSweepRow *r = &sw->rows[i];
        if (r->cfg.workload != w || r->cfg.gpu != g)
            continue;
        g_autofree char *pct = pct_cell(r);
        g_autofree char *conn = conn_cell(r);
        g_autofree char *lim = limits_cell(r, ",");
        const char *slo_cell = "";
        if (with_slo)
            slo_cell = sim_slo_meets(slo, r, NULL) ? "yes  " : "no   ";
        if (r->error) {
            g_array_append_val(failed, i);
            g_string_append_printf(o,
                                   "  %4u  %-9s  %-11s  %-7s  %4u  %5u  %11s  "
                                   "%9s  %9s  %9s  %9s  %9s  %7s  %4s  %s%s\n",
                                   i, sim_share_mode_name(r->cfg.mode), pct,
                                   conn, r->cfg.n, r->n_procs, "-", "-", "-",
                                   "-", "-", "-", "-", "-", slo_cell, lim);
            continue;
        }
        for (uint32_t b = 0; b < SIM_SWEEP_N_LIMITS; b++)
            if (r->limits & (1u << b))
                g_array_append_val(by_limit[b], i);
        g_string_append_printf(
            o,
            "  %4u  %-9s  %-11s  %-7s  %4u  %5u  %11.2f  %9.3f  %9.3f  "
            "%9.3f  %9.3f  %9.3f  %7.2f  %4s  %s%s\n",
            i, sim_share_mode_name(r->cfg.mode), pct, conn, r->cfg.n,
            r->n_procs, r->throughput, ms(r->p50_ns), ms(r->p90_ns),
            ms(r->p99_ns), ms(r->mean_ns), ms(r->p99_worst_ns),
            r->mem_used_bytes / 1073741824.0,
            sim_sweep_row_fits_memory(r) ? "yes" : "no", slo_cell, lim);
    }
    bool header = false;
    for (uint32_t b = 0; b < SIM_SWEEP_N_LIMITS; b++) {
        GArray *idx = by_limit[b];
        if (idx->len) {
            if (!header)
                g_string_append(o, "  Limits hit (configurations: detail "
                                   "of the first)\n");
            header = true;
            const SimSweepRow *first =
                &sw->rows[g_array_index(idx, uint32_t, 0)];
            const char *detail = "";
            for (char **d = first->limit_details; d && *d; d++)
                if (g_str_has_prefix(*d, sim_sweep_limit_name(1u << b)))
                    detail = *d + strlen(sim_sweep_limit_name(1u << b)) + 2;
            g_string_append_printf(o, "    %s (",
                                   sim_sweep_limit_name(1u << b));
            append_ranges(o, idx);
            g_string_append_printf(o, "): %s\n", detail);
        }
        g_array_free(idx, TRUE);
    }
    if (failed->len)
        g_string_append(o, "  Runs that failed (configurations: error, "
                           "without copy numbers)\n");
    /* Group the failures by message: one line per distinct error. */
    g_autoptr(GPtrArray) msgs = g_ptr_array_new_with_free_func(g_free);
    for (guint k = 0; k < failed->len; k++)
        g_ptr_array_add(
            msgs, sim_sweep_elide_copies(
                      sw->rows[g_array_index(failed, uint32_t, k)].error));
    for (guint k = 0; k < failed->len; k++) {
        const char *msg = g_ptr_array_index(msgs, k);
        if (!msg)
            continue;
        g_autoptr(GArray) same = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        for (guint j = k; j < failed->len; j++) {
            const char *other = g_ptr_array_index(msgs, j);
            if (other && (j == k || !strcmp(other, msg))) {
                g_array_append_val(same, g_array_index(failed, uint32_t, j));
                if (j != k)
                    g_free(g_steal_pointer(&msgs->pdata[j]));
            }
        }
        g_string_append(o, "    ");
        append_ranges(o, same);
        g_string_append_printf(o, ": %s\n", msg);
    }
}

void sim_sweep_report_slo_text(const SimSweep *sw, const SimSlo *slo,
                               const GArray *answers, GString *o)
{
    if (!sim_slo_active(slo) || !answers)
        return;
    g_autofree char *d = sim_slo_describe(slo);
    g_string_append_printf(o, "Objectives: %s\n", d);
    for (guint k = 0; k < answers->len; k++) {
        const SimSloAnswer *a = &g_array_index(answers, SimSloAnswer, k);
        g_string_append_printf(
            o, "  %s on %s, %s:\n", workload(sw, a->workload)->source,
            gpu(sw, a->gpu)->name, sim_share_mode_name(a->mode));
        if (a->best != SIM_SLO_NONE) {
            const SimSweepRow *r = &sw->rows[a->best];
            g_autofree char *kn = knobs(r);
            g_string_append_printf(
                o,
                "    largest N = %u (%u processes) with %s: %.2f "
                "iterations/s, worst p99 %.3f ms [config %u]\n",
                r->cfg.n, r->n_procs, kn, r->throughput, ms(r->p99_worst_ns),
                r->cfg.index);
            if (a->runner_up != SIM_SLO_NONE) {
                const SimSweepRow *u = &sw->rows[a->runner_up];
                g_autofree char *ku = knobs(u);
                g_string_append_printf(
                    o,
                    "    runner-up at N = %u: %s: %.2f iterations/s, worst "
                    "p99 %.3f ms [config %u]\n",
                    u->cfg.n, ku, u->throughput, ms(u->p99_worst_ns),
                    u->cfg.index);
            }
        } else {
            g_string_append(o, "    no N swept meets the objectives\n");
        }
        if (a->next != SIM_SLO_NONE) {
            const SimSweepRow *r = &sw->rows[a->next];
            g_autoptr(GString) why = g_string_new(NULL);
            sim_slo_meets(slo, r, why);
            g_autofree char *kn = knobs(r);
            if (a->next_count == 1)
                g_string_append_printf(o,
                                       "    N = %u misses, with %s: %s "
                                       "[config %u]\n",
                                       a->next_n, kn, why->str, r->cfg.index);
            else
                g_string_append_printf(o,
                                       "    N = %u misses in all %u "
                                       "configurations; the closest, with "
                                       "%s: %s [config %u]\n",
                                       a->next_n, a->next_count, kn, why->str,
                                       r->cfg.index);
        } else if (a->best != SIM_SLO_NONE) {
            g_string_append(o, "    (the largest N swept: sweep further to "
                               "find where it stops)\n");
        }
    }
}

void sim_sweep_report_answer_text(const SimSweep *sw, const SimSlo *slo,
                                  const GArray *answers, GString *o)
{
    if (!sim_slo_active(slo) || !answers)
        return;
    g_string_append(o, "Answer\n");
    for (guint k = 0; k < answers->len; k++) {
        g_autofree char *a =
            sim_slo_sentence(sw, slo, &g_array_index(answers, SimSloAnswer, k));
        g_string_append_printf(o, "  %s\n", a);
    }
    g_string_append_c(o, '\n');
}

void sim_sweep_report_text(const SimSweep *sw, const SimSlo *slo,
                           const GArray *answers, GString *o)
{
    g_string_append_printf(o, "hqsim sweep: %u configuration%s; seed ",
                           sw->n_configs, sw->n_configs == 1 ? "" : "s");
    if (sw->space.seed)
        g_string_append_printf(o, "%llu\n", (unsigned long long)sw->space.seed);
    else
        g_string_append(o, "as each scenario says\n");
    /* every run's notes say it; the table has no notes column */
    if (sw->space.sm_sample > 1)
        g_string_append_printf(o,
                               "approximate (--sm-sample %u): every "
                               "configuration simulates 1 SM in %u "
                               "(README \"Sampled SMs\")\n",
                               sw->space.sm_sample, sw->space.sm_sample);
    if (sw->space.request_model)
        g_string_append_printf(o,
                               "approximate (--request-model %u): every "
                               "configuration simulates %u iterations per "
                               "process exactly and draws the rest "
                               "(README \"Whole requests\")\n",
                               sw->space.request_model,
                               sw->space.request_model);
    g_string_append_c(o, '\n');
    sim_sweep_report_answer_text(sw, slo, answers, o);
    for (uint32_t w = 0; w < sw->space.workloads->len; w++)
        for (uint32_t g = 0; g < sw->space.gpus->len; g++) {
            text_block(sw, slo, w, g, o);
            g_string_append_c(o, '\n');
        }
    sim_sweep_report_slo_text(sw, slo, answers, o);
}

/* ------------------------------------------------------------------------
 * JSON
 * ------------------------------------------------------------------------ */

static cJSON *json_strv(char **v)
{
    cJSON *a = cJSON_CreateArray();
    for (char **s = v; s && *s; s++)
        cJSON_AddItemToArray(a, cJSON_CreateString(*s));
    return a;
}

static cJSON *json_row(const SimSweep *sw, const SimSlo *slo,
                       const SimSweepRow *r)
{
    cJSON *o = cJSON_CreateObject();
    const SimSweepConfig *c = &r->cfg;
    cJSON_AddNumberToObject(o, "config", c->index);
    cJSON_AddStringToObject(o, "workload", workload(sw, c->workload)->source);
    cJSON_AddStringToObject(o, "gpu", gpu(sw, c->gpu)->name);
    cJSON_AddBoolToObject(o, "gpu_calibrated", gpu(sw, c->gpu)->calibrated);
    cJSON_AddStringToObject(o, "mode", sim_share_mode_name(c->mode));
    cJSON_AddNumberToObject(o, "n", c->n);
    cJSON_AddNumberToObject(o, "processes", r->n_procs);
    g_autofree char *pct = sim_sweep_pct_label(&c->pct, c->mode);
    cJSON_AddStringToObject(o, "thread_pct_setting", pct);
    if (r->thread_pct > 0)
        cJSON_AddNumberToObject(o, "thread_pct", r->thread_pct);
    else
        cJSON_AddNullToObject(o, "thread_pct");
    if (c->connections)
        cJSON_AddNumberToObject(o, "connections", c->connections);
    else
        cJSON_AddNullToObject(o, "connections");
    cJSON_AddStringToObject(o, "status", r->error ? "error" : "ok");
    if (r->error) {
        cJSON_AddStringToObject(o, "error", r->error);
        return o;
    }
    cJSON_AddNumberToObject(o, "throughput_per_s", r->throughput);
    cJSON_AddNumberToObject(o, "latency_p50_ms", ms(r->p50_ns));
    cJSON_AddNumberToObject(o, "latency_p90_ms", ms(r->p90_ns));
    cJSON_AddNumberToObject(o, "latency_p99_ms", ms(r->p99_ns));
    cJSON_AddNumberToObject(o, "latency_mean_ms", ms(r->mean_ns));
    cJSON_AddNumberToObject(o, "latency_p99_worst_ms", ms(r->p99_worst_ns));
    cJSON_AddNumberToObject(o, "makespan_ms", ms(r->makespan_ns));
    cJSON_AddNumberToObject(o, "mem_used_mib", mib(r->mem_used_bytes));
    cJSON_AddNumberToObject(o, "mem_device_mib", mib(r->mem_device_bytes));
    cJSON_AddBoolToObject(o, "fits_memory", sim_sweep_row_fits_memory(r));
    cJSON_AddNumberToObject(o, "started", r->started);
    cJSON_AddNumberToObject(o, "refused", r->refused);
    cJSON_AddNumberToObject(o, "killed", r->killed);
    cJSON *lim = cJSON_AddArrayToObject(o, "limits");
    for (uint32_t b = 0; b < SIM_SWEEP_N_LIMITS; b++)
        if (r->limits & (1u << b))
            cJSON_AddItemToArray(
                lim, cJSON_CreateString(sim_sweep_limit_name(1u << b)));
    cJSON_AddItemToObject(o, "limit_details", json_strv(r->limit_details));
    if (sim_slo_active(slo)) {
        g_autoptr(GString) why = g_string_new(NULL);
        bool ok = sim_slo_meets(slo, r, why);
        cJSON_AddBoolToObject(o, "meets_slo", ok);
        if (!ok)
            cJSON_AddStringToObject(o, "slo_misses", why->str);
    }
    cJSON *procs = cJSON_AddArrayToObject(o, "per_process");
    for (uint32_t i = 0; i < r->n_procs && r->procs; i++) {
        const SimSweepProc *p = &r->procs[i];
        cJSON *po = cJSON_CreateObject();
        cJSON_AddStringToObject(po, "name", p->name);
        cJSON_AddBoolToObject(po, "fixed", p->fixed);
        cJSON_AddStringToObject(po, "status", status_name(p->status));
        if (p->reason)
            cJSON_AddStringToObject(po, "reason", p->reason);
        cJSON_AddNumberToObject(po, "throughput_per_s", p->throughput);
        cJSON_AddNumberToObject(po, "latency_p50_ms", ms(p->p50_ns));
        cJSON_AddNumberToObject(po, "latency_p90_ms", ms(p->p90_ns));
        cJSON_AddNumberToObject(po, "latency_p99_ms", ms(p->p99_ns));
        cJSON_AddNumberToObject(po, "latency_mean_ms", ms(p->mean_ns));
        cJSON_AddNumberToObject(po, "mem_mib", mib(p->mem_bytes));
        cJSON_AddNumberToObject(po, "sm_limit", p->sm_limit);
        cJSON_AddNumberToObject(po, "thread_pct", p->thread_pct);
        cJSON_AddItemToArray(procs, po);
    }
    cJSON_AddItemToObject(o, "notes", json_strv(r->notes));
    return o;
}

static cJSON *json_axes(const SimSweep *sw)
{
    const SimSweepSpace *sp = &sw->space;
    cJSON *a = cJSON_CreateObject();
    cJSON *w = cJSON_AddArrayToObject(a, "workloads");
    for (guint i = 0; i < sp->workloads->len; i++)
        cJSON_AddItemToArray(w, cJSON_CreateString(workload(sw, i)->source));
    cJSON *g = cJSON_AddArrayToObject(a, "gpus");
    for (guint i = 0; i < sp->gpus->len; i++)
        cJSON_AddItemToArray(g, cJSON_CreateString(gpu(sw, i)->name));
    cJSON *c = cJSON_AddArrayToObject(a, "connections");
    for (guint i = 0; i < sp->connections->len; i++) {
        uint32_t v = g_array_index(sp->connections, uint32_t, i);
        cJSON_AddItemToArray(c, v ? cJSON_CreateNumber(v) : cJSON_CreateNull());
    }
    cJSON *m = cJSON_AddArrayToObject(a, "modes");
    for (guint i = 0; i < sp->modes->len; i++)
        cJSON_AddItemToArray(m,
                             cJSON_CreateString(sim_share_mode_name(
                                 g_array_index(sp->modes, SimShareMode, i))));
    cJSON *p = cJSON_AddArrayToObject(a, "thread_pct");
    for (guint i = 0; i < sp->pcts->len; i++) {
        g_autofree char *l = sim_sweep_pct_label(
            &g_array_index(sp->pcts, SimSweepPct, i), SIM_SHARE_MPS);
        cJSON_AddItemToArray(p, cJSON_CreateString(l));
    }
    cJSON *n = cJSON_AddArrayToObject(a, "processes");
    for (guint i = 0; i < sp->processes->len; i++)
        cJSON_AddItemToArray(
            n, cJSON_CreateNumber(g_array_index(sp->processes, uint32_t, i)));
    return a;
}

static cJSON *json_index(uint32_t i)
{
    return i == SIM_SLO_NONE ? cJSON_CreateNull() : cJSON_CreateNumber(i);
}

char *sim_sweep_report_json(const SimSweep *sw, const SimSlo *slo,
                            const GArray *answers)
{
    g_autoptr(cJSON) o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "hqsim_sweep", 1);
    if (sw->space.seed)
        cJSON_AddNumberToObject(o, "seed", (double)sw->space.seed);
    else
        cJSON_AddNullToObject(o, "seed");
    /* only when on: an exact sweep's JSON is as before */
    if (sw->space.request_model)
        cJSON_AddNumberToObject(o, "request_model", sw->space.request_model);
    cJSON_AddItemToObject(o, "axes", json_axes(sw));
    /* What the numbers rest on, per workload and GPU. */
    cJSON *cav = cJSON_AddArrayToObject(o, "gpus");
    for (uint32_t w = 0; w < sw->space.workloads->len; w++)
        for (uint32_t g = 0; g < sw->space.gpus->len; g++) {
            const SimScenario *sc = workload(sw, w);
            cJSON *co = cJSON_CreateObject();
            cJSON_AddStringToObject(co, "workload", sc->source);
            cJSON_AddStringToObject(co, "gpu", gpu(sw, g)->name);
            cJSON_AddBoolToObject(co, "gpu_calibrated", gpu(sw, g)->calibrated);
            if (sc->gpu_recorded)
                cJSON_AddStringToObject(co, "gpu_recorded", sc->gpu_recorded);
            else
                cJSON_AddNullToObject(co, "gpu_recorded");
            g_auto(GStrv) warn = caveats(sw, w, g);
            cJSON *wa = cJSON_AddArrayToObject(co, "warnings");
            for (char **x = warn; *x; x++)
                cJSON_AddItemToArray(wa, cJSON_CreateString(*x));
            cJSON_AddItemToArray(cav, co);
        }
    if (sim_slo_active(slo) && answers) {
        cJSON *s = cJSON_AddObjectToObject(o, "slo");
        if (slo->p99_ms > 0)
            cJSON_AddNumberToObject(s, "p99_worst_ms_max", slo->p99_ms);
        if (slo->throughput > 0)
            cJSON_AddNumberToObject(s, "throughput_per_s_min", slo->throughput);
        cJSON *arr = cJSON_AddArrayToObject(s, "answers");
        for (guint k = 0; k < answers->len; k++) {
            const SimSloAnswer *a = &g_array_index(answers, SimSloAnswer, k);
            cJSON *ao = cJSON_CreateObject();
            cJSON_AddStringToObject(ao, "workload",
                                    workload(sw, a->workload)->source);
            cJSON_AddStringToObject(ao, "gpu", gpu(sw, a->gpu)->name);
            cJSON_AddStringToObject(ao, "mode", sim_share_mode_name(a->mode));
            g_autofree char *sentence = sim_slo_sentence(sw, slo, a);
            cJSON_AddStringToObject(ao, "answer", sentence);
            const char *lim = a->next != SIM_SLO_NONE
                                  ? sim_slo_limit_name(sim_slo_limited_by(
                                        slo, &sw->rows[a->next]))
                                  : NULL;
            if (lim)
                cJSON_AddStringToObject(ao, "limited_by", lim);
            else
                cJSON_AddNullToObject(ao, "limited_by");
            if (a->best != SIM_SLO_NONE)
                cJSON_AddNumberToObject(ao, "largest_n",
                                        sw->rows[a->best].cfg.n);
            else
                cJSON_AddNullToObject(ao, "largest_n");
            cJSON_AddItemToObject(ao, "best_config", json_index(a->best));
            cJSON_AddItemToObject(ao, "runner_up_config",
                                  json_index(a->runner_up));
            if (a->next_n)
                cJSON_AddNumberToObject(ao, "next_n", a->next_n);
            else
                cJSON_AddNullToObject(ao, "next_n");
            cJSON_AddItemToObject(ao, "next_closest_config",
                                  json_index(a->next));
            if (a->next != SIM_SLO_NONE) {
                g_autoptr(GString) why = g_string_new(NULL);
                sim_slo_meets(slo, &sw->rows[a->next], why);
                cJSON_AddStringToObject(ao, "next_misses", why->str);
            }
            cJSON_AddItemToArray(arr, ao);
        }
    }
    cJSON *rows = cJSON_AddArrayToObject(o, "configurations");
    for (uint32_t i = 0; i < sw->n_configs; i++)
        cJSON_AddItemToArray(rows, json_row(sw, slo, &sw->rows[i]));
    char *s = cJSON_Print(o);
    char *out = g_strconcat(s, "\n", NULL);
    cJSON_free(s);
    return out;
}

/* ------------------------------------------------------------------------
 * CSV
 * ------------------------------------------------------------------------ */

static void csv_field(GString *o, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        g_string_append(o, s);
        return;
    }
    g_string_append_c(o, '"');
    for (; *s; s++) {
        if (*s == '"')
            g_string_append_c(o, '"');
        g_string_append_c(o, *s);
    }
    g_string_append_c(o, '"');
}

/* Columns.  A configuration's row has process "all"; its process rows
 * repeat the configuration's columns and give the process's own status,
 * throughput, latency, memory and thread percentage (worst p99 and
 * makespan are left empty). */
static const char csv_header[] =
    "config,workload,gpu,mode,n,processes,thread_pct_setting,thread_pct,"
    "connections,process,status,throughput_per_s,latency_p50_ms,"
    "latency_p90_ms,latency_p99_ms,latency_mean_ms,latency_p99_worst_ms,"
    "makespan_ms,mem_mib,mem_device_mib,"
    "fits_memory,started,refused,killed,limits,meets_slo,message,"
    "gpu_calibrated\n";

static void csv_config_cols(GString *o, const SimSweep *sw,
                            const SimSweepRow *r, double pct)
{
    const SimSweepConfig *c = &r->cfg;
    g_autofree char *setting = sim_sweep_pct_label(&c->pct, c->mode);
    g_autofree char *conn = conn_cell(r);
    g_string_append_printf(o, "%u,", c->index);
    csv_field(o, workload(sw, c->workload)->source);
    g_string_append_c(o, ',');
    csv_field(o, gpu(sw, c->gpu)->name);
    g_string_append_printf(o, ",%s,%u,%u,%s,", sim_share_mode_name(c->mode),
                           c->n, r->n_procs, setting);
    if (pct > 0)
        g_string_append_printf(o, "%.6g", pct);
    g_string_append_printf(o, ",%s,", conn);
}

bool sim_sweep_report_csv(const SimSweep *sw, const SimSlo *slo,
                          const char *path, GError **error)
{
    g_autoptr(GString) o = g_string_new(csv_header);
    bool with_slo = sim_slo_active(slo);
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        const SimSweepRow *r = &sw->rows[i];
        g_autofree char *lim = limits_cell(r, ";");
        const char *meets =
            with_slo ? (sim_slo_meets(slo, r, NULL) ? "yes" : "no") : "";
        const char *fits = sim_sweep_row_fits_memory(r) ? "yes" : "no";
        csv_config_cols(o, sw, r, r->thread_pct);
        const char *cal = gpu(sw, r->cfg.gpu)->calibrated ? "yes" : "no";
        if (r->error) {
            g_string_append_printf(o, "all,error,,,,,,,,,,,,,,%s,%s,", lim,
                                   meets);
            csv_field(o, r->error);
            g_string_append_printf(o, ",%s\n", cal);
            continue;
        }
        g_string_append_printf(
            o,
            "all,ok,%.3f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.1f,%.1f,%s,%u,%u,"
            "%u,%s,%s,,%s\n",
            r->throughput, ms(r->p50_ns), ms(r->p90_ns), ms(r->p99_ns),
            ms(r->mean_ns), ms(r->p99_worst_ns), ms(r->makespan_ns),
            mib(r->mem_used_bytes), mib(r->mem_device_bytes), fits, r->started,
            r->refused, r->killed, lim, meets, cal);
        for (uint32_t k = 0; k < r->n_procs && r->procs; k++) {
            const SimSweepProc *p = &r->procs[k];
            csv_config_cols(o, sw, r, p->thread_pct);
            csv_field(o, p->name);
            g_string_append_printf(
                o,
                ",%s,%.3f,%.6f,%.6f,%.6f,%.6f,,,%.1f,%.1f,%s,%u,%u,%u,%s,%s,",
                status_name(p->status), p->throughput, ms(p->p50_ns),
                ms(p->p90_ns), ms(p->p99_ns), ms(p->mean_ns), mib(p->mem_bytes),
                mib(r->mem_device_bytes), fits, r->started, r->refused,
                r->killed, lim, meets);
            csv_field(o, p->reason);
            g_string_append_printf(o, ",%s\n", cal);
        }
    }
    return sim_write_file_atomic(path, o->str, o->len, error);
}

/* ------------------------------------------------------------------------
 * HTML
 * ------------------------------------------------------------------------ */

static void html_text(GString *o, const char *s)
{
    g_autofree char *e = g_markup_escape_text(s, -1);
    g_string_append(o, e);
}

static const char html_style[] =
    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;"
    "color:#222}\n"
    "table{border-collapse:collapse;font-size:13px}\n"
    "th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right}\n"
    "th{background:#f3f3f3;position:sticky;top:0}\n"
    "td.l,th.l{text-align:left}\n"
    "tr.miss td{color:#888}\n"
    "tr.meets td{background:#eef7ee}\n"
    "pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:13px}\n"
    "svg{max-width:100%;height:auto}\n";

bool sim_sweep_report_html(const SimSweep *sw, const SimSlo *slo,
                           const GArray *answers, const char *path,
                           GError **error)
{
    g_autoptr(GString) o = g_string_new(NULL);
    bool with_slo = sim_slo_active(slo);
    g_string_append(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                       "<meta charset=\"utf-8\">\n<title>hqsim sweep"
                       "</title>\n<style>\n");
    g_string_append(o, html_style);
    g_string_append(o, "</style>\n</head>\n<body>\n<h1>hqsim sweep</h1>\n");
    if (with_slo && answers) {
        g_string_append(o, "<h2>Answer</h2>\n<ul>\n");
        for (guint k = 0; k < answers->len; k++) {
            g_autofree char *a = sim_slo_sentence(
                sw, slo, &g_array_index(answers, SimSloAnswer, k));
            g_string_append(o, "<li>");
            html_text(o, a);
            g_string_append(o, "</li>\n");
        }
        g_string_append(o, "</ul>\n");
    }

    g_string_append(o, "<p>");
    for (guint w = 0; w < sw->space.workloads->len; w++) {
        const SimScenario *sc = workload(sw, w);
        g_string_append(o, "<b>");
        html_text(o, sc->source);
        g_string_append(o, "</b>");
        if (sc->description) {
            g_string_append(o, ": ");
            html_text(o, sc->description);
        }
        g_string_append(o, "<br>\n");
    }
    g_string_append_printf(o, "%u configurations on ", sw->n_configs);
    for (guint g = 0; g < sw->space.gpus->len; g++) {
        if (g)
            g_string_append(o, ", ");
        html_text(o, gpu(sw, g)->display_name);
    }
    g_string_append(o, ".</p>\n");
    for (guint w = 0; w < sw->space.workloads->len; w++)
        for (guint g = 0; g < sw->space.gpus->len; g++) {
            g_auto(GStrv) warn = caveats(sw, w, g);
            for (char **x = warn; *x; x++) {
                g_string_append(o, "<p><b>Warning:</b> ");
                html_text(o, *x);
                g_string_append(o, "</p>\n");
            }
        }

    if (with_slo && answers) {
        g_autoptr(GString) t = g_string_new(NULL);
        sim_sweep_report_slo_text(sw, slo, answers, t);
        g_string_append(o, "<h2>Service-level objectives</h2>\n<pre>");
        html_text(o, t->str);
        g_string_append(o, "</pre>\n");
    }

    g_string_append(o, "<h2>Throughput and p99 latency</h2>\n<figure>\n");
    g_autofree char *svg = sim_sweep_plot_svg(sw, slo);
    const char *body = svg;
    /* An XML declaration has no place inside an HTML document. */
    if (g_str_has_prefix(body, "<?xml")) {
        const char *nl = strchr(body, '\n');
        body = nl ? nl + 1 : body;
    }
    g_string_append(o, body);
    g_string_append(o, "</figure>\n");

    g_string_append(o, "<h2>Configurations</h2>\n<table>\n<tr>");
    static const char *const cols[] = {
        "#",       "workload",     "GPU",     "mode",   "thread%", "conn",
        "N",       "procs",        "iters/s", "p50 ms", "p90 ms",  "p99 ms",
        "mean ms", "worst p99 ms", "mem GiB", "fits",   "SLO",     "limits"};
    for (size_t c = 0; c < G_N_ELEMENTS(cols); c++) {
        if (!with_slo && !strcmp(cols[c], "SLO"))
            continue;
        bool left = c >= 1 && c <= 5;
        g_string_append_printf(o, "<th%s>%s</th>", left ? " class=\"l\"" : "",
                               cols[c]);
    }
    g_string_append(o, "</tr>\n");
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        const SimSweepRow *r = &sw->rows[i];
        bool meets = with_slo && sim_slo_meets(slo, r, NULL);
        g_autofree char *pct = pct_cell(r);
        g_autofree char *conn = conn_cell(r);
        g_autofree char *lim = limits_cell(r, ", ");
        g_autofree char *base =
            g_path_get_basename(workload(sw, r->cfg.workload)->source);
        g_string_append_printf(o, "<tr%s><td>%u</td><td class=\"l\">",
                               !with_slo ? ""
                               : meets   ? " class=\"meets\""
                                         : " class=\"miss\"",
                               i);
        html_text(o, base);
        g_string_append(o, "</td><td class=\"l\">");
        html_text(o, gpu(sw, r->cfg.gpu)->name);
        g_string_append_printf(o,
                               "</td><td class=\"l\">%s</td><td "
                               "class=\"l\">%s</td><td class=\"l\">%s</td>"
                               "<td>%u</td><td>%u</td>",
                               sim_share_mode_name(r->cfg.mode), pct, conn,
                               r->cfg.n, r->n_procs);
        if (r->error)
            g_string_append(o, "<td>-</td><td>-</td><td>-</td><td>-</td>"
                               "<td>-</td><td>-</td><td>-</td><td>-</td>");
        else
            g_string_append_printf(
                o,
                "<td>%.2f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td>"
                "<td>%.3f</td><td>%.3f</td><td>%.2f</td><td>%s</td>",
                r->throughput, ms(r->p50_ns), ms(r->p90_ns), ms(r->p99_ns),
                ms(r->mean_ns), ms(r->p99_worst_ns),
                r->mem_used_bytes / 1073741824.0,
                sim_sweep_row_fits_memory(r) ? "yes" : "no");
        if (with_slo)
            g_string_append_printf(o, "<td>%s</td>", meets ? "yes" : "no");
        g_string_append(o, "<td class=\"l\" title=\"");
        for (char **d = r->limit_details; d && *d; d++) {
            html_text(o, *d);
            g_string_append(o, "&#10;");
        }
        if (r->error)
            html_text(o, r->error);
        g_string_append(o, "\">");
        html_text(o, lim);
        g_string_append(o, "</td></tr>\n");
    }
    g_string_append(o, "</table>\n<p>Hover over a row's limits for the "
                       "details. Generated by hqsim sweep.</p>\n"
                       "</body>\n</html>\n");
    return sim_write_file_atomic(path, o->str, o->len, error);
}

/* ------------------------------------------------------------------------
 * The output table
 * ------------------------------------------------------------------------ */

static bool write_csv(const void *what, const char *path, GError **error)
{
    const SimSweepOutputs *o = what;
    return sim_sweep_report_csv(o->sw, o->slo, path, error);
}

static bool write_json(const void *what, const char *path, GError **error)
{
    const SimSweepOutputs *o = what;
    g_autofree char *j = sim_sweep_report_json(o->sw, o->slo, o->answers);
    return sim_write_file_atomic(path, j, strlen(j), error);
}

static bool write_plot(const void *what, const char *path, GError **error)
{
    const SimSweepOutputs *o = what;
    return sim_sweep_plot_write(o->sw, o->slo, path, error);
}

static bool write_html(const void *what, const char *path, GError **error)
{
    const SimSweepOutputs *o = what;
    return sim_sweep_report_html(o->sw, o->slo, o->answers, path, error);
}

static const SimOutputFormat formats[] = {
    {"csv", ".csv", write_csv},
    {"json", ".json", write_json},
    {"plot", ".png or .svg", write_plot},
    {"report", ".html", write_html},
};

const SimOutputFormat *sim_sweep_outputs(size_t *n)
{
    *n = G_N_ELEMENTS(formats);
    return formats;
}
