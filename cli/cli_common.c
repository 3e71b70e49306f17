/* cli_common.c -- shared plumbing of the simulate commands.  See
 * cli_common.h. */
#include "cli_common.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "commands.h"

bool sim_cli_output_to_stdout(const PlanSettings *s)
{
    const char *const outputs[] = {s->json,    s->csv,    s->perfetto,
                                   s->picture, s->report, s->plot};
    for (size_t i = 0; i < G_N_ELEMENTS(outputs); i++)
        if (outputs[i] && !strcmp(outputs[i], "-"))
            return true;
    return false;
}

int sim_cli_prepare_command(SimCliCommand *c, PlanCommand which,
                            const char *name, const char *description, int argc,
                            char **argv)
{
    memset(c, 0, sizeof *c);
    int status = 0;
    if (!sim_cli_parse_settings(name, "SCENARIO|TRACE...", description, &c->s,
                                which, &c->files, &argc, &argv, &status))
        return status;
    /* Option values were range-checked when parsed (sim/optrange.h). */
    g_autoptr(GError) error = NULL;
    g_autofree char *note = NULL;
    int n = c->files ? (int)g_strv_length(c->files) : 0;
    if (plan_settings_check(&c->s, which, &error))
        c->sc = plan_settings_load_run(
            c->files, n, &c->s, &note,
            which == PLAN_CMD_RUN ? &c->solo_run : NULL, &error);
    if (note && c->sc && !c->s.quiet)
        fprintf(stderr, "hqsim: %s\n", note);
    if (c->sc)
        c->m = plan_settings_model(&c->s, c->sc, &error);
    return c->m ? -1 : sim_cli_report_error(error);
}

void sim_cli_command_clear(SimCliCommand *c)
{
    plan_settings_clear(&c->s);
    g_strfreev(c->files);
    g_clear_pointer(&c->sc, sim_scenario_free);
    g_clear_pointer(&c->m, sim_gpu_model_free);
    g_clear_pointer(&c->solo_run, sim_result_free);
}

/* ------------------------------------------------------------------------
 * Progress on stderr (SPEC "Outputs": long runs)
 *
 * On a terminal, a line redrawn in place.  Elsewhere (a log, a pipe), a
 * run that takes more than STATUS_AFTER_US of wall time says so in whole
 * lines, once then every STATUS_PERIOD_US: where it stands and why it is
 * long, so no run is silent for long (issue 14: nothing runs more than
 * 10 s without saying why); -q hides those lines.
 * ------------------------------------------------------------------------ */

/* How progress is shown (cli_progress_style). */
typedef enum {
    CLI_PROGRESS_NONE,
    CLI_PROGRESS_REDRAWN, /* a terminal: one line redrawn in place */
    CLI_PROGRESS_LINES,   /* not a terminal: a status line now and then */
} CliProgressStyle;

/* State of the progress line.  The command line runs one simulation at a
 * time, so one static instance serves every run. */
typedef struct {
    CliProgressStyle style;
    bool always;         /* HQSIM_PROGRESS=always or lines: no delay, no rate
                        limit (tests) */
    gint64 start_us;     /* wall clock when the run (status lines: the
                        command) started; 0: not yet */
    gint64 last_us;      /* when the line was last drawn */
    bool shown;          /* a line is on the terminal: erase it at the end */
    const char *what;    /* "" or " (mps)": the run of a comparison */
    uint64_t placements; /* kernel-to-SM placements the run makes at least */
    uint64_t max_events; /* its events limit (bounds.h) */
    double end_s;        /* simulated seconds the run stops at, at most */
    const char *end_why; /* what sets end_s */
} CliProgress;

static CliProgress cli_progress;

#define PROGRESS_DELAY_US 500000  /* quiet for runs shorter than this */
#define PROGRESS_PERIOD_US 250000 /* at most 4 updates a second */
#define STATUS_AFTER_US 10000000  /* the first status line, after 10 s */
#define STATUS_PERIOD_US 30000000 /* then one every 30 s */

/* Whether a status line is due at @now (a run started at @start_us, its
 * last line at @last_us, 0 if none) in CLI_PROGRESS_LINES style. */
bool sim_cli_status_due(gint64 start_us, gint64 last_us, gint64 now,
                        bool always)
{
    if (always)
        return true;
    return last_us ? now - last_us >= STATUS_PERIOD_US
                   : now - start_us >= STATUS_AFTER_US;
}

static double pct_of(uint64_t done, uint64_t total)
{
    return total ? MIN(100.0 * (double)done / (double)total, 100.0) : 0;
}

/* "hqsim: 42% of GPU ops (1234 of 5678), 12.3 ms simulated", redrawn. */
static void progress_redraw(CliProgress *c, const SimProgress *p)
{
    fprintf(stderr,
            "\r\033[Khqsim: %3.0f%% of GPU ops (%" G_GUINT64_FORMAT
            " of %" G_GUINT64_FORMAT "), %.1f ms simulated",
            pct_of(p->ops_done, p->ops_total), p->ops_done, p->ops_total,
            sim_time_to_ms(p->now));
    c->shown = true;
}

/* One whole line: where the run stands and why it takes long. */
static void progress_status(const CliProgress *c, const SimProgress *p,
                            gint64 now)
{
    fprintf(stderr,
            "hqsim: still running after %.0f s%s: %.0f%% of GPU ops "
            "(%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT "), %.6g of at "
            "most %.6g s simulated (%s), %" G_GUINT64_FORMAT " of at most "
            "%" G_GUINT64_FORMAT " engine events (limit events), at least "
            "%" G_GUINT64_FORMAT " kernel-to-SM placements (-q hides this)\n",
            (double)(now - c->start_us) / 1e6, c->what,
            pct_of(p->ops_done, p->ops_total), p->ops_done, p->ops_total,
            sim_time_to_ms(p->now) / 1e3, c->end_s, c->end_why, p->events,
            c->max_events, c->placements);
}

/* The SimOptions.progress hook.  It never stops the run (SIGINT does). */
static bool cli_progress_cb(void *data, const SimProgress *p)
{
    CliProgress *c = data;
    gint64 now = g_get_monotonic_time();
    if (c->start_us == 0)
        c->start_us = now;
    if (p->finished) {
        if (c->shown)
            fputs("\r\033[K", stderr);
        c->shown = false;
        /* Status lines count from the command's start (a comparison's
         * runs together), the redrawn line from each run's. */
        if (c->style == CLI_PROGRESS_REDRAWN)
            c->start_us = c->last_us = 0;
        return true;
    }
    if (c->style == CLI_PROGRESS_LINES) {
        if (!sim_cli_status_due(c->start_us, c->last_us, now, c->always))
            return true;
        progress_status(c, p, now);
    } else {
        if (!c->always && (now - c->start_us < PROGRESS_DELAY_US ||
                           now - c->last_us < PROGRESS_PERIOD_US))
            return true;
        progress_redraw(c, p);
    }
    c->last_us = now;
    fflush(stderr);
    return true;
}

/* A terminal gets the redrawn line, anything else the status lines unless
 * --quiet.  HQSIM_PROGRESS=0 hides both, 1 forces the redrawn line,
 * "always" also drops its half-second delay and rate limit, "lines" gives
 * the status lines at every report (tests). */
static CliProgressStyle cli_progress_style(bool quiet, bool *always)
{
    const char *env = g_getenv("HQSIM_PROGRESS");
    *always = env && (!strcmp(env, "always") || !strcmp(env, "lines"));
    if (env && !strcmp(env, "lines"))
        return CLI_PROGRESS_LINES;
    if (env && *env)
        return strcmp(env, "0") ? CLI_PROGRESS_REDRAWN : CLI_PROGRESS_NONE;
    if (isatty(STDERR_FILENO))
        return CLI_PROGRESS_REDRAWN;
    return quiet ? CLI_PROGRESS_NONE : CLI_PROGRESS_LINES;
}

bool sim_cli_status_lines(bool quiet, bool *always)
{
    return cli_progress_style(quiet, always) == CLI_PROGRESS_LINES;
}

bool sim_cli_redrawn_progress(void)
{
    bool always;
    return cli_progress_style(false, &always) == CLI_PROGRESS_REDRAWN;
}

void sim_cli_sim_options(const SimCliCommand *c, const char *what,
                         SimOptions *so)
{
    plan_settings_sim(&c->s, so);
    CliProgress *p = &cli_progress;
    p->style = cli_progress_style(c->s.quiet, &p->always);
    if (p->style == CLI_PROGRESS_NONE)
        return;
    p->what = what;
    p->placements = sim_scenario_placements(c->sc, c->m->sm_count);
    p->max_events = sim_limit_events_for(sim_scenario_work(c->sc));
    p->end_s = so->time_limit_ns ? sim_time_to_ms(so->time_limit_ns) / 1e3
                                 : (double)sim_limit(SIM_BOUND_SIM_TIME_S);
    p->end_why = so->time_limit_ns ? "--time-limit-ms" : "limit sim_time_s";
    so->progress = cli_progress_cb;
    so->progress_data = p;
}
