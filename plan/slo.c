/* slo.c -- which configurations meet the objectives, and the largest N
 * that does.  See slo.h. */
#include "slo.h"

#include <stdarg.h>
#include <string.h>

bool sim_slo_active(const SimSlo *slo)
{
    return slo && (slo->p99_ms > 0 || slo->throughput > 0);
}

static void why_add(GString *why, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void why_add(GString *why, const char *fmt, ...)
{
    if (!why)
        return;
    if (why->len)
        g_string_append(why, "; ");
    va_list ap;
    va_start(ap, fmt);
    g_string_append_vprintf(why, fmt, ap);
    va_end(ap);
}

bool sim_slo_meets(const SimSlo *slo, const SimSweepRow *row, GString *why)
{
    g_return_val_if_fail(row->done, false);
    if (row->error) {
        why_add(why, "the run failed: %s", row->error);
        return false;
    }
    bool ok = true;
    if (row->refused) {
        g_autoptr(GString) kinds = g_string_new(NULL);
        for (uint32_t b = 0; b < SIM_SWEEP_N_LIMITS; b++) {
            uint32_t bit = 1u << b;
            if ((row->limits & bit) &&
                (bit &
                 (SIM_SWEEP_LIMIT_MPS_CLIENTS | SIM_SWEEP_LIMIT_DEVICE_MEM |
                  SIM_SWEEP_LIMIT_MPS_MEM | SIM_SWEEP_LIMIT_REFUSED)))
                g_string_append_printf(kinds, "%s%s", kinds->len ? ", " : "",
                                       sim_sweep_limit_name(bit));
        }
        why_add(why, "%u of %u processes refused (%s)", row->refused,
                row->n_procs, kinds->str);
        ok = false;
    }
    if (row->killed) {
        why_add(why, "%u of %u processes killed by a fault", row->killed,
                row->n_procs);
        ok = false;
    }
    if (slo->p99_ms > 0 && sim_time_to_ms(row->p99_worst_ns) > slo->p99_ms) {
        why_add(why, "worst p99 %.3f ms > %g ms",
                sim_time_to_ms(row->p99_worst_ns), slo->p99_ms);
        ok = false;
    }
    if (slo->throughput > 0 && row->throughput < slo->throughput) {
        why_add(why, "throughput %.1f/s < %g/s", row->throughput,
                slo->throughput);
        ok = false;
    }
    return ok;
}

char *sim_slo_describe(const SimSlo *slo)
{
    GString *s = g_string_new(NULL);
    if (slo->p99_ms > 0)
        g_string_append_printf(s, "worst process p99 <= %g ms", slo->p99_ms);
    if (slo->throughput > 0)
        g_string_append_printf(s, "%sthroughput >= %g iterations/s",
                               s->len ? ", " : "", slo->throughput);
    g_string_append_printf(s, "%severy process started", s->len ? ", " : "");
    return g_string_free(s, FALSE);
}

/* Better configuration that meets the objectives: more throughput, then a
 * lower worst p99, then earlier in the sweep. */
static bool better_pass(const SimSweepRow *a, const SimSweepRow *b)
{
    if (a->throughput != b->throughput)
        return a->throughput > b->throughput;
    if (a->p99_worst_ns != b->p99_worst_ns)
        return a->p99_worst_ns < b->p99_worst_ns;
    return a->cfg.index < b->cfg.index;
}

/* Closer miss: it ran, fewer processes refused or killed, then as
 * better_pass. */
static bool better_miss(const SimSweepRow *a, const SimSweepRow *b)
{
    if (!a->error != !b->error)
        return !a->error;
    if (a->refused + a->killed != b->refused + b->killed)
        return a->refused + a->killed < b->refused + b->killed;
    return better_pass(a, b);
}

static bool same_group(const SimSweepConfig *a, const SimSloAnswer *g)
{
    return a->workload == g->workload && a->gpu == g->gpu && a->mode == g->mode;
}

static void answer_group(const SimSweep *sw, const SimSlo *slo, SimSloAnswer *g)
{
    uint32_t best_n = 0;
    g->best = g->runner_up = g->next = SIM_SLO_NONE;
    g->next_n = g->next_count = 0;
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        const SimSweepRow *r = &sw->rows[i];
        if (!same_group(&r->cfg, g) || !sim_slo_meets(slo, r, NULL))
            continue;
        if (r->cfg.n > best_n) {
            best_n = r->cfg.n;
            g->best = i;
            g->runner_up = SIM_SLO_NONE;
        } else if (r->cfg.n == best_n) {
            if (better_pass(r, &sw->rows[g->best])) {
                g->runner_up = g->best;
                g->best = i;
            } else if (g->runner_up == SIM_SLO_NONE ||
                       better_pass(r, &sw->rows[g->runner_up])) {
                g->runner_up = i;
            }
        }
    }
    /* The smallest N above best_n: every configuration there misses. */
    for (guint k = 0; k < sw->space.processes->len; k++) {
        uint32_t n = g_array_index(sw->space.processes, uint32_t, k);
        if (n > best_n) {
            g->next_n = n;
            break;
        }
    }
    if (!g->next_n)
        return;
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        const SimSweepRow *r = &sw->rows[i];
        if (!same_group(&r->cfg, g) || r->cfg.n != g->next_n)
            continue;
        g->next_count++;
        if (g->next == SIM_SLO_NONE || better_miss(r, &sw->rows[g->next]))
            g->next = i;
    }
}

GArray *sim_slo_answer(const SimSweep *sw, const SimSlo *slo)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(SimSloAnswer));
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        const SimSweepConfig *c = &sw->configs[i];
        bool seen = false;
        for (guint j = 0; j < out->len && !seen; j++)
            seen = same_group(c, &g_array_index(out, SimSloAnswer, j));
        if (seen)
            continue;
        SimSloAnswer g;
        memset(&g, 0, sizeof g);
        g.workload = c->workload;
        g.gpu = c->gpu;
        g.mode = c->mode;
        answer_group(sw, slo, &g);
        g_array_append_val(out, g);
    }
    return out;
}

SimSloLimit sim_slo_limited_by(const SimSlo *slo, const SimSweepRow *row)
{
    if (row->error)
        return SIM_SLO_LIMIT_ERROR;
    if (row->limits & (SIM_SWEEP_LIMIT_DEVICE_MEM | SIM_SWEEP_LIMIT_MPS_MEM))
        return SIM_SLO_LIMIT_MEMORY;
    if (row->limits & SIM_SWEEP_LIMIT_MPS_CLIENTS)
        return SIM_SLO_LIMIT_CLIENTS;
    if (row->killed)
        return SIM_SLO_LIMIT_FAULT;
    if (row->refused)
        return SIM_SLO_LIMIT_ERROR;
    if (slo->p99_ms > 0 && sim_time_to_ms(row->p99_worst_ns) > slo->p99_ms)
        return SIM_SLO_LIMIT_LATENCY;
    if (slo->throughput > 0 && row->throughput < slo->throughput)
        return SIM_SLO_LIMIT_THROUGHPUT;
    return SIM_SLO_LIMIT_NONE;
}

const char *sim_slo_limit_name(SimSloLimit l)
{
    static const char *const names[] = {
        NULL,    "memory",  "client_limit", "fault",
        "error", "latency", "throughput",
    };
    return (size_t)l < G_N_ELEMENTS(names) ? names[l] : NULL;
}

/* "at 100% threads", "at equal threads (12.5%)", "" (time-slicing). */
static char *pct_phrase(const SimSweepRow *r)
{
    if (!sim_share_mode_takes_pct(r->cfg.mode))
        return g_strdup("");
    if (r->cfg.pct.kind == SIM_SWEEP_PCT_EQUAL)
        return g_strdup_printf(" at equal thread shares (%.3g%%)",
                               r->thread_pct);
    if (r->cfg.pct.kind == SIM_SWEEP_PCT_VALUE)
        return g_strdup_printf(" at %g%% active threads", r->cfg.pct.value);
    return g_strdup(" at the scenario's thread percentages");
}

char *sim_slo_sentence(const SimSweep *sw, const SimSlo *slo,
                       const SimSloAnswer *a)
{
    const GpuModel *m = g_ptr_array_index(sw->space.gpus, a->gpu);
    g_autofree char *goal = sim_slo_describe(slo);
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "%s on %s%s", sim_share_mode_phrase(a->mode),
                           m->name,
                           m->calibrated ? "" : " (uncalibrated model)");
    if (sw->space.workloads->len > 1) {
        const SimScenario *w =
            g_ptr_array_index(sw->space.workloads, a->workload);
        g_string_append_printf(s, ", %s", w->source);
    }
    if (a->best != SIM_SLO_NONE) {
        const SimSweepRow *r = &sw->rows[a->best];
        g_autofree char *pct = pct_phrase(r);
        uint32_t swept = r->n_procs - MIN(sw->n_fixed_procs, r->n_procs);
        g_autofree char *beside =
            sw->n_fixed_procs
                ? g_strdup_printf(" beside %u fixed process%s",
                                  sw->n_fixed_procs,
                                  sw->n_fixed_procs == 1 ? "" : "es")
                : g_strdup("");
        g_string_append_printf(s,
                               ", %u process%s fit (N = %u)%s%s within %s: "
                               "%.1f iterations/s, worst p99 %.3f ms",
                               swept, swept == 1 ? "" : "es", r->cfg.n, beside,
                               pct, goal, r->throughput,
                               sim_time_to_ms(r->p99_worst_ns));
    } else {
        g_string_append_printf(s, ", no N swept meets %s", goal);
    }
    if (a->next != SIM_SLO_NONE) {
        const SimSweepRow *r = &sw->rows[a->next];
        g_autoptr(GString) why = g_string_new(NULL);
        sim_slo_meets(slo, r, why);
        g_string_append_printf(s, "; N = %u is limited by %s (%s)", a->next_n,
                               sim_slo_limit_name(sim_slo_limited_by(slo, r)),
                               why->str);
    } else if (a->best != SIM_SLO_NONE) {
        g_string_append(s, "; that is the largest N swept: sweep further "
                           "to find where it stops");
    }
    g_string_append_c(s, '.');
    return g_string_free(s, FALSE);
}
