/* cli_common.c -- shared plumbing of the simulate commands.  See
 * cli_common.h. */
#include "cli_common.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

bool sim_cli_json_to_stdout(const PlanSettings *s)
{
    return s->json && !strcmp(s->json, "-");
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
        c->sc = plan_settings_load(c->files, n, &c->s, &note, &error);
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
}

/* ------------------------------------------------------------------------
 * Progress on stderr (SPEC "Outputs": long runs, only on a terminal)
 * ------------------------------------------------------------------------ */

/* State of the progress line.  The command line runs one simulation at a
 * time, so one static instance serves every run. */
typedef struct {
    bool always;     /* HQSIM_PROGRESS=always: no delay, no rate limit */
    gint64 start_us; /* wall clock when the run started (0: not yet) */
    gint64 last_us;  /* when the line was last drawn */
    bool shown;      /* a line is on the terminal: erase it at the end */
} CliProgress;

static CliProgress cli_progress;

#define PROGRESS_DELAY_US 500000  /* quiet for runs shorter than this */
#define PROGRESS_PERIOD_US 250000 /* at most 4 updates a second */

/* The SimOptions.progress hook: "hqsim: 42% of GPU ops (1234 of 5678), 12.3
 * ms simulated", redrawn in place, erased when the run ends. */
static void cli_progress_cb(void *data, const SimProgress *p)
{
    CliProgress *c = data;
    gint64 now = g_get_monotonic_time();
    if (c->start_us == 0)
        c->start_us = now;
    if (p->finished) {
        if (c->shown)
            fputs("\r\033[K", stderr);
        c->start_us = c->last_us = 0;
        c->shown = false;
        return;
    }
    if (!c->always && (now - c->start_us < PROGRESS_DELAY_US ||
                       now - c->last_us < PROGRESS_PERIOD_US))
        return;
    c->last_us = now;
    c->shown = true;
    double pct =
        p->ops_total ? 100.0 * (double)p->ops_done / (double)p->ops_total : 0;
    fprintf(stderr,
            "\r\033[Khqsim: %3.0f%% of GPU ops (%" G_GUINT64_FORMAT
            " of %" G_GUINT64_FORMAT "), %.1f ms simulated",
            MIN(pct, 100.0), p->ops_done, p->ops_total, sim_time_to_ms(p->now));
    fflush(stderr);
}

/* Progress is shown when stderr is a terminal; HQSIM_PROGRESS=0 hides it,
 * HQSIM_PROGRESS=1 shows it anyway, HQSIM_PROGRESS=always also drops the
 * half-second delay and the rate limit (tests). */
static bool cli_progress_wanted(void)
{
    const char *env = g_getenv("HQSIM_PROGRESS");
    cli_progress.always = env && !strcmp(env, "always");
    if (env && *env)
        return strcmp(env, "0") != 0;
    return isatty(STDERR_FILENO);
}

void sim_cli_sim_options(const PlanSettings *s, SimOptions *so)
{
    plan_settings_sim(s, so);
    if (cli_progress_wanted()) {
        so->progress = cli_progress_cb;
        so->progress_data = &cli_progress;
    }
}
