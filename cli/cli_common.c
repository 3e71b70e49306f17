/* cli_common.c -- shared plumbing of the simulate commands.  See
 * cli_common.h. */
#include "cli_common.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "outfile.h"
#include "report.h"
#include "viz.h"


GArray *sim_cli_entries(SimCliOpts *o, const GOptionEntry *own)
{
    const GOptionEntry rows[] = {
        {"gpu", 'g', 0, G_OPTION_ARG_STRING, &o->gpu,
         "GPU model name or model file (default: the scenario's, else "
         "h100-sxm; 'hqsim models' lists them)",
         "MODEL"},
        {"models-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->models_dir,
         "Folder of GPU model files (default: the bundled models/)", "DIR"},
        {"connections", 'c', 0, G_OPTION_ARG_INT, &o->connections,
         "CUDA_DEVICE_MAX_CONNECTIONS for every process (default: as the "
         "scenario, else 8, or 2 per MPS client)",
         "N"},
        {"thread-pct", 't', 0, G_OPTION_ARG_DOUBLE, &o->thread_pct,
         "MPS active thread percentage for every client", "PCT"},
        {"processes", 'n', 0, G_OPTION_ARG_INT, &o->processes,
         "Run N copies of each process (what-if: N of this process share "
         "the GPU)",
         "N"},
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o->seed,
         "Seed for random arrivals and jitter (default: the scenario's)",
         "S"},
        {"host-cores", 0, 0, G_OPTION_ARG_INT, &o->host_cores,
         "CPU cores the processes' host threads share (default: the "
         "scenario's, else the GPU model's, else unlimited)",
         "N"},
        {"no-jitter", 0, 0, G_OPTION_ARG_NONE, &o->no_jitter,
         "Ignore the workload's jitter (and --loop-request's per-request "
         "spread): every request as specified",
         NULL},
        {"time-limit-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o->time_limit_ms,
         "Stop with an error after this much simulated time", "MS"},
        {"json", 0, 0, G_OPTION_ARG_FILENAME, &o->json,
         "Write the JSON summary to FILE ('-' for stdout)", "FILE"},
        {"csv", 0, 0, G_OPTION_ARG_FILENAME, &o->csv,
         "Write one CSV row per op (start, end, queue, SMs) to FILE", "FILE"},
        {"perfetto", 0, 0, G_OPTION_ARG_FILENAME, &o->perfetto,
         "Write a Chrome/Perfetto trace of the timeline to FILE", "FILE"},
        {"perfetto-detail", 0, 0, G_OPTION_ARG_STRING, &o->perfetto_detail,
         "What --perfetto writes besides every op: ops (GPU-wide counters), "
         "sampled (default: and per-SM counters; long runs as means over "
         "2000 windows) or full (every counter change)",
         "LEVEL"},
        {"report", 0, 0, G_OPTION_ARG_FILENAME, &o->report,
         "Write a self-contained HTML report with pictures to FILE", "FILE"},
        {"picture", 0, 0, G_OPTION_ARG_FILENAME, &o->picture,
         "Draw the timeline, SM occupancy and utilization to FILE (.png or "
         ".svg); a comparison stacks the modes on one time axis",
         "FILE"},
        {"picture-kind", 0, 0, G_OPTION_ARG_STRING, &o->picture_kind,
         "What --picture draws: timeline, sm, util or all (default), or a "
         "comma-separated list",
         "KIND"},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet,
         "No text summary on stdout", NULL},
        {"host-scale", 0, 0, G_OPTION_ARG_DOUBLE, &o->host_scale,
         "Multiply all host time (gaps, API calls) by F: a faster or "
         "slower CPU, or a profiler's overhead taken out",
         "F"},
        {"loop-request", 0, 0, G_OPTION_ARG_NONE, &o->loop_request,
         "Traces: cut each process's run at its device synchronizes and "
         "loop one representative request (see --iterations)",
         NULL},
        {"iterations", 'i', 0, G_OPTION_ARG_INT, &o->iterations,
         "Closed-loop iterations of every process (default: as the "
         "workload says; 100 with --loop-request)",
         "N"},
        {"mem-mib", 0, 0, G_OPTION_ARG_STRING, &o->mem_mib,
         "Device memory each process allocates, in MiB, beside its "
         "context: MIB for every process or NAME=MIB,... (default: what "
         "the scenario or trace says)",
         "SPEC"},
        {"request-spread", 0, 0, G_OPTION_ARG_FILENAME, &o->spread,
         "Per-request spread from measured latencies of one process "
         "alone: FILE holds {\"latencies_us\": [...]}; each request draws "
         "one, over their median, on all its times",
         "FILE"},
        {"arrival-rate", 0, 0, G_OPTION_ARG_DOUBLE, &o->arrival_rate,
         "Open loop: requests arrive at R per second per process (Poisson, "
         "seeded), --iterations of them; latency counts from arrival",
         "R"},
        {"arrival-times", 0, 0, G_OPTION_ARG_FILENAME, &o->arrival_times,
         "Open loop at recorded times: FILE holds {\"processes\": [[us, "
         "...], ...]}, one list per process (after --processes)",
         "FILE"},
        {"as-recorded", 0, 0, G_OPTION_ARG_NONE, &o->as_recorded,
         "Traces: take recorded durations as times alone (default: infer "
         "the times alone that reproduce the recording)",
         NULL},
        {"recorded-clocks", 0, 0, G_OPTION_ARG_NONE, &o->recorded_clocks,
         "Several traces: keep their recorded clocks even when they were "
         "recorded apart (default: traces whose recorded spans do not "
         "overlap each start at their first op)",
         NULL},
    };
    /* Zero-terminated, so ->data is a GOptionEntry table. */
    GArray *all = g_array_new(TRUE, TRUE, sizeof(GOptionEntry));
    g_array_append_vals(all, rows, G_N_ELEMENTS(rows));
    for (const GOptionEntry *e = own; e->long_name; e++)
        g_array_append_val(all, *e);
    return all;
}

bool sim_cli_json_to_stdout(const SimCliOpts *o)
{
    return o->json && !strcmp(o->json, "-");
}

void sim_cli_opts_clear(SimCliOpts *o)
{
    g_free(o->gpu);
    g_free(o->models_dir);
    g_free(o->json);
    g_free(o->csv);
    g_free(o->perfetto);
    g_free(o->perfetto_detail);
    g_free(o->report);
    g_free(o->picture);
    g_free(o->picture_kind);
    g_free(o->mem_mib);
    g_free(o->spread);
    g_free(o->arrival_times);
    memset(o, 0, sizeof *o);
}

/* Reject bad output options before simulating anything. */
static gboolean sim_cli_check_outputs(const SimCliOpts *o, GError **error)
{
    SimVizPictureKind kind;
    if (o->picture_kind &&
        !sim_viz_picture_kind_parse(o->picture_kind, &kind, error))
        return FALSE;
    SimPerfettoDetail detail;
    if (o->perfetto_detail &&
        !sim_viz_perfetto_detail_parse(o->perfetto_detail, &detail, error))
        return FALSE;
    if (o->perfetto_detail && !o->perfetto) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--perfetto-detail needs --perfetto FILE");
        return FALSE;
    }
    if (o->picture_kind && !o->picture) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--picture-kind needs --picture FILE");
        return FALSE;
    }
    const char *dot = o->picture ? strrchr(o->picture, '.') : NULL;
    if (o->picture && (!dot || (g_ascii_strcasecmp(dot, ".png") &&
                                g_ascii_strcasecmp(dot, ".svg")))) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--picture %s: the name must end in .png or .svg",
                    o->picture);
        return FALSE;
    }
    return TRUE;
}

void sim_cli_prep_options(const SimCliOpts *o, PrepOptions *po)
{
    memset(po, 0, sizeof *po);
    po->models_dir = o->models_dir;
    po->as_recorded = o->as_recorded;
    po->recorded_clocks = o->recorded_clocks;
    po->loop_request = o->loop_request;
    po->iterations = o->iterations > 0 ? (uint32_t)o->iterations : 0;
    po->host_scale = o->host_scale;
    po->mem_mib = o->mem_mib;
    po->spread = o->spread;
    po->arrival_rate = o->arrival_rate;
    po->arrival_times = o->arrival_times;
}

SimScenario *sim_cli_load(char **files, int n, const SimCliOpts *o,
                          GError **error)
{
    /* Option values were range-checked when parsed (sim/optrange.h). */
    if (!sim_cli_check_outputs(o, error))
        return NULL;
    PrepOptions po;
    sim_cli_prep_options(o, &po);
    g_autoptr(SimScenario) base = prep_load(files, n, &po, error);
    if (!base)
        return NULL;
    g_autoptr(GpuModel) to = sim_cli_model(o, base, error);
    if (!to)
        return NULL;
    g_autofree char *note = NULL;
    SimScenario *sc = prep_target(
        base, to, o->processes > 0 ? (uint32_t)o->processes : 1, &po, &note,
        error);
    if (sc && note && !o->quiet)
        fprintf(stderr, "hqsim: %s\n", note);
    return sc;
}

GpuModel *sim_cli_model(const SimCliOpts *o, const SimScenario *sc,
                        GError **error)
{
    const char *name = o->gpu ? o->gpu : sc && sc->gpu ? sc->gpu : "h100-sxm";
    return sim_gpu_model_find(name, o->models_dir, error);
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

#define PROGRESS_DELAY_US 500000   /* quiet for runs shorter than this */
#define PROGRESS_PERIOD_US 250000  /* at most 4 updates a second */

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
            MIN(pct, 100.0), p->ops_done, p->ops_total,
            sim_time_to_ms(p->now));
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

void sim_cli_sim_options(const SimCliOpts *o, SimOptions *so)
{
    sim_options_init(so);
    so->connections = o->connections > 0 ? (uint32_t)o->connections : 0;
    so->active_thread_pct = o->thread_pct;
    so->seed = (uint64_t)o->seed;
    so->host_cores = (uint32_t)o->host_cores;
    so->no_jitter = o->no_jitter;
    so->time_limit_ns = o->time_limit_ms > 0
                            ? (SimTime)(o->time_limit_ms * 1e6)
                            : 0;
    so->record_ops = TRUE;
    so->record_timeline =
        o->perfetto || o->report || o->picture || o->timeline;
    if (cli_progress_wanted()) {
        so->progress = cli_progress_cb;
        so->progress_data = &cli_progress;
    }
}

/* Write the outputs a run asked for; the first failure stops and is
 * returned (earlier outputs stay, complete). */
static gboolean write_outputs(const SimCliOpts *o, SimResult *const *runs,
                              uint32_t n, const GpuModel *m,
                              const SimScenario *sc, GError **error);

/* All the outputs appear, or none of them (sim_out_group_begin). */
gboolean sim_cli_write_outputs(const SimCliOpts *o, SimResult *const *runs,
                               uint32_t n, const GpuModel *m,
                               const SimScenario *sc, GError **error)
{
    sim_out_group_begin();
    gboolean ok = write_outputs(o, runs, n, m, sc, error);
    return sim_out_group_end(ok, error);
}

/* Which option names each output format's file (viz.h, sim_viz_outputs). */
static const struct {
    const char *format;
    size_t path; /* offset of its char * in SimCliOpts */
} cli_outputs[] = {
    {"json", offsetof(SimCliOpts, json)},
    {"csv", offsetof(SimCliOpts, csv)},
    {"perfetto", offsetof(SimCliOpts, perfetto)},
    {"picture", offsetof(SimCliOpts, picture)},
    {"report", offsetof(SimCliOpts, report)},
};

static gboolean write_outputs(const SimCliOpts *o, SimResult *const *runs,
                              uint32_t n, const GpuModel *m,
                              const SimScenario *sc, GError **error)
{
    size_t nf = 0;
    const SimOutputFormat *formats = sim_viz_outputs(&nf);
    g_autofree const char **paths = g_new0(const char *, nf);
    for (size_t i = 0; i < G_N_ELEMENTS(cli_outputs); i++) {
        int k = sim_output_find(formats, nf, cli_outputs[i].format);
        g_assert(k >= 0);
        paths[k] = *(char *const *)((const char *)o + cli_outputs[i].path);
    }
    SimVizRuns what = {runs, n, m, sc, o->picture_kind, o->perfetto_detail};
    return sim_outputs_write(formats, nf, paths, &what, error);
}

