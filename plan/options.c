/* options.c -- the simulate commands' options.  See options.h. */
#include "options.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "error.h"
#include "optrange.h"
#include "outfile.h"
#include "reqmodel.h"
#include "sweep_report.h"
#include "viz.h"

#define RUN (PLAN_CMD_RUN | PLAN_CMD_COMPARE)
#define IMPORT PLAN_CMD_IMPORT
#define REPLAY PLAN_CMD_REPLAY
#define SWEEP PLAN_CMD_SWEEP
#define VALIDATE PLAN_CMD_VALIDATE
#define ALL (RUN | SWEEP)
#define AT(field) offsetof(PlanSettings, field)

/* The rows, in the order --help lists them. */
static const PlanOption rows[] = {
    {"gpu", 'g', RUN, PLAN_ARG_TEXT, AT(gpu), "MODEL",
     "GPU model name or model file (default: the scenario's, else "
     "h100-sxm; 'hqsim models' lists them)",
     false},
    {"gpu", 'g', SWEEP, PLAN_ARG_TEXT, AT(gpu), "LIST",
     "GPU models (default: the first workload's, else h100-sxm)", false},
    {"gpu", 'g', IMPORT, PLAN_ARG_TEXT, AT(gpu), "MODEL",
     "GPU model the scenario is for (default: the closest to the GPU "
     "the trace names); its kernel launch latency is used to infer "
     "issue times",
     false},
    {"gpu", 'g', REPLAY, PLAN_ARG_TEXT, AT(gpu), "MODEL",
     "GPU model (default: the one closest to the traced GPU)", false},
    {"gpu", 'g', VALIDATE, PLAN_ARG_TEXT, AT(gpu), "MODEL",
     "GPU model to predict with (default h100-sxm)", false},
    {"output", 'o', IMPORT, PLAN_ARG_FILE, AT(output), "FILE",
     "Write the native scenario to FILE ('-' for stdout); written to a "
     "temporary name and renamed",
     true},
    {"format", 'f', IMPORT, PLAN_ARG_TEXT, AT(format), "F",
     "Read every file as F (hqsim, nvprof, nsys-csv, nsys-sqlite, ncu, "
     "kineto) instead of detecting it from its content",
     false},
    {"models-dir", 0, ALL | IMPORT | REPLAY | VALIDATE, PLAN_ARG_FILE,
     AT(models_dir), "DIR",
     "Folder of GPU model files (default: the bundled models/)", false},
    {"mode", 'm', PLAN_CMD_RUN, PLAN_ARG_TEXT, AT(mode), "MODE",
     "How processes share the GPU: %s", false},
    {"modes", 'm', PLAN_CMD_COMPARE | SWEEP, PLAN_ARG_TEXT, AT(modes), "M1,M2",
     "Comma-separated sharing modes: %s (default timeslice,mps)", false},
    {"processes", 'n', RUN, PLAN_ARG_INT, AT(processes), "N",
     "Run N copies of each process (what-if: N of this process share "
     "the GPU)",
     false},
    {"processes", 'n', SWEEP, PLAN_ARG_TEXT, AT(processes_list), "LIST",
     "Copies of each process of the workload to sweep: a list of N and "
     "FIRST-LAST ranges (default 1,2,4,8)",
     false},
    {"connections", 'c', RUN, PLAN_ARG_INT, AT(connections), "N",
     "CUDA_DEVICE_MAX_CONNECTIONS for every process (default: as the "
     "scenario, else 8, or 2 per MPS client)",
     false},
    {"connections", 'c', SWEEP, PLAN_ARG_TEXT, AT(connections_list), "LIST",
     "CUDA_DEVICE_MAX_CONNECTIONS values or 'default' (default: as the "
     "scenario, else the model's)",
     false},
    {"thread-pct", 't', RUN, PLAN_ARG_DOUBLE, AT(thread_pct), "PCT",
     "MPS active thread percentage for every client", false},
    {"thread-pct", 't', SWEEP, PLAN_ARG_TEXT, AT(thread_pct_list), "LIST",
     "MPS active thread percentages: 'equal' (100/processes), values, "
     "'scenario' (default: as the scenario)",
     false},
    {"seed", 0, ALL, PLAN_ARG_INT64, AT(seed), "S",
     "Seed for random arrivals and jitter (default: the scenario's)", false},
    {"host-cores", 0, ALL, PLAN_ARG_INT, AT(host_cores), "N",
     "CPU cores the processes' host threads share (default: the "
     "scenario's, else the GPU model's, else unlimited)",
     false},
    {"no-jitter", 0, ALL, PLAN_ARG_FLAG, AT(no_jitter), NULL,
     "Ignore the workload's jitter (and --loop-request's per-request "
     "spread): every request as specified",
     false},
    {"sm-sample", 0, ALL | VALIDATE, PLAN_ARG_INT, AT(sm_sample), "M",
     "Approximate model of a busy GPU, for speed: simulate 1 SM in M, each "
     "kernel with 1/M of its blocks (README \"Sampled SMs\"), in the runs "
     "and in a trace's solo-time inference; 1: every SM (default)",
     false},
    {"request-model", 0, ALL, PLAN_ARG_INT, AT(request_model), "W",
     "Approximate model of a closed loop's whole requests, for speed: "
     "simulate W iterations per process exactly, then draw each further "
     "request's time from those of the same process and requests in "
     "flight (README \"Whole requests\"); no per-op outputs (in a sweep: "
     "every configuration)",
     false},
    {"time-limit-ms", 0, ALL, PLAN_ARG_DOUBLE, AT(time_limit_ms), "MS",
     "Give up on a run (in a sweep: on that configuration) with an error "
     "after this much simulated time",
     false},
    {"threads", 'j', SWEEP, PLAN_ARG_INT, AT(threads), "N",
     "Configurations run at once (default: the cores, shared among "
     "the MPI ranks on this host)",
     false},
    {"slo-p99-ms", 0, SWEEP, PLAN_ARG_DOUBLE, AT(slo_p99_ms), "MS",
     "Objective: every process's p99 latency at most MS", false},
    {"slo-throughput", 0, SWEEP, PLAN_ARG_DOUBLE, AT(slo_throughput), "R",
     "Objective: iterations per second of all processes together at "
     "least R",
     false},
    {"json", 0, RUN, PLAN_ARG_FILE, AT(json), "FILE",
     "Write the JSON summary to FILE ('-' for stdout)", false},
    {"json", 0, SWEEP, PLAN_ARG_FILE, AT(json), "FILE",
     "Write the sweep as JSON to FILE ('-' for stdout)", false},
    {"csv", 0, RUN, PLAN_ARG_FILE, AT(csv), "FILE",
     "Write one CSV row per op (start, end, queue, SMs) to FILE ('-' for "
     "stdout); compare writes one per mode (out.csv: out.timeslice.csv, "
     "out.mps.csv), so it needs a file name",
     false},
    {"csv", 0, SWEEP, PLAN_ARG_FILE, AT(csv), "FILE",
     "Write a CSV row per configuration and per process to FILE ('-' for "
     "stdout)",
     false},
    {"perfetto", 0, RUN, PLAN_ARG_FILE, AT(perfetto), "FILE",
     "Write a Chrome/Perfetto trace of the timeline to FILE", false},
    {"perfetto-detail", 0, RUN, PLAN_ARG_TEXT, AT(perfetto_detail), "LEVEL",
     "What --perfetto writes besides every op: ops (GPU-wide counters), "
     "sampled (default: and per-SM counters; long runs as means over "
     "2000 windows) or full (every counter change)",
     false},
    {"report", 0, RUN, PLAN_ARG_FILE, AT(report), "FILE",
     "Write a self-contained HTML report with pictures to FILE", false},
    {"report", 0, SWEEP, PLAN_ARG_FILE, AT(report), "FILE",
     "Write a self-contained HTML page (table and plot) to FILE", false},
    {"picture", 0, RUN, PLAN_ARG_FILE, AT(picture), "FILE",
     "Draw the timeline, SM occupancy and utilization to FILE (.png or "
     ".svg; SVG to '-', a FIFO or a device); a comparison stacks the modes "
     "on one time axis",
     false},
    {"picture-kind", 0, RUN, PLAN_ARG_TEXT, AT(picture_kind), "KIND",
     "What --picture draws: timeline, sm, util or all (default), or a "
     "comma-separated list",
     false},
    {"plot", 0, SWEEP, PLAN_ARG_FILE, AT(plot), "FILE",
     "Draw throughput and p99 latency against processes to FILE.png or "
     "FILE.svg (SVG to '-', a FIFO or a device)",
     false},
    {"launch-latency-us", 0, IMPORT, PLAN_ARG_DOUBLE, AT(launch_latency_us),
     "US",
     "Kernel launch latency for inferring issue times (default: the GPU "
     "model's)",
     false},
    {"from-ms", 0, IMPORT, PLAN_ARG_DOUBLE, AT(from_ms), "MS",
     "Keep ops that start at least MS after each file's first GPU op", false},
    {"to-ms", 0, IMPORT, PLAN_ARG_DOUBLE, AT(to_ms), "MS",
     "Keep ops that start less than MS after each file's first GPU op", false},
    {"process", 'p', IMPORT, PLAN_ARG_TEXTS, AT(process), "P",
     "Keep only this process (pid or name; repeatable)", false},
    {"pin-held", 0, IMPORT | REPLAY, PLAN_ARG_FLAG, AT(pin_held), NULL,
     "Issue ops that waited for something the trace does not show "
     "(sampled traces) just in time, so replay keeps them waiting "
     "(import/README.md)",
     false},
    {"each", 0, REPLAY, PLAN_ARG_FLAG, AT(each), NULL,
     "Replay each file on its own (default: all files as one workload)", false},
    {"filter", 'f', VALIDATE, PLAN_ARG_TEXT, AT(filter), "RE",
     "Only experiments whose id matches this regular expression", false},
    {"measured-block-times", 0, VALIDATE, PLAN_ARG_FLAG, AT(measured_blocks),
     NULL,
     "Give timer kernels their measured median block time instead of "
     "the nominal one (separates input errors from scheduling errors)",
     false},
    {"markdown", 0, VALIDATE, PLAN_ARG_FILE, AT(markdown), "FILE",
     "Also write the table as Markdown to FILE", true},
    {"quiet", 'q', ALL | IMPORT, PLAN_ARG_FLAG, AT(quiet), NULL,
     "No text summary, table or import summary on stdout, and no status "
     "lines of a long run on stderr",
     true},
    {"host-scale", 0, ALL, PLAN_ARG_DOUBLE, AT(host_scale), "F",
     "Multiply all host time (gaps, API calls) by F: a faster or "
     "slower CPU, or a profiler's overhead taken out; a CUDA graph "
     "launch's host time becomes the model's (F = 1: all as recorded)",
     false},
    {"loop-request", 0, ALL, PLAN_ARG_FLAG, AT(loop_request), NULL,
     "Traces: cut each process's run at its device synchronizes and "
     "loop one representative request (see --iterations)",
     false},
    {"iterations", 'i', ALL, PLAN_ARG_INT, AT(iterations), "N",
     "Closed-loop iterations of every process (default: as the "
     "workload says; 100 with --loop-request)",
     false},
    {"mem-mib", 0, ALL, PLAN_ARG_TEXT, AT(mem_mib), "SPEC",
     "Device memory each process allocates, in MiB, beside its "
     "context: MIB for every process or NAME=MIB,... (default: what "
     "the scenario or trace says)",
     false},
    {"request-spread", 0, RUN, PLAN_ARG_FILE, AT(spread), "FILE",
     "Per-request spread from measured latencies of one process "
     "alone: FILE holds {\"latencies_us\": [...]}; each request draws "
     "one, over their median, on all its times",
     false},
    {"arrival-rate", 0, RUN, PLAN_ARG_DOUBLE, AT(arrival_rate), "R",
     "Open loop: requests arrive at R per second per process (Poisson, "
     "seeded), --iterations of them; latency counts from arrival",
     false},
    {"arrival-times", 0, RUN, PLAN_ARG_FILE, AT(arrival_times), "FILE",
     "Open loop at recorded times: FILE holds {\"processes\": [[us, "
     "...], ...]}, one list per process (after --processes)",
     false},
    {"as-recorded", 0, ALL | REPLAY, PLAN_ARG_FLAG, AT(as_recorded), NULL,
     "Traces: take recorded durations as times alone (default: infer "
     "the times alone that reproduce the recording)",
     false},
    {"recorded-clocks", 0, RUN | IMPORT | REPLAY, PLAN_ARG_FLAG,
     AT(recorded_clocks), NULL,
     "Several traces: keep their recorded clocks even when they were "
     "recorded apart (default: traces whose recorded spans do not "
     "overlap each start at their first op)",
     false},
    {"bare-classes", 0, ALL | IMPORT | REPLAY, PLAN_ARG_FLAG, AT(bare_classes),
     NULL,
     "Traces: kernels without Nsight Compute data take their class's "
     "issue share (by name: gemv, gemm, norm, ...; the GPU model's "
     "bare_kernel_classes) instead of every warp a dependent FMA chain",
     false},
    {"fixed", 0, SWEEP, PLAN_ARG_FILES, AT(fixed), "FILE",
     "A workload run once beside every configuration and not swept "
     "(N inference servers beside one trainer); objectives, throughput "
     "and latency count the swept processes only (repeatable)",
     false},
};

G_STATIC_ASSERT(G_N_ELEMENTS(rows) <= PLAN_MAX_OPTIONS);

const PlanOption *plan_opt_table(size_t *n)
{
    *n = G_N_ELEMENTS(rows);
    return rows;
}

const PlanOption *plan_opt_find(const char *name, PlanCommand command)
{
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++)
        if ((rows[i].commands & command) && !strcmp(rows[i].name, name))
            return &rows[i];
    return NULL;
}

bool plan_opt_known(const char *name)
{
    return plan_opt_find(name, RUN | SWEEP | IMPORT | REPLAY | VALIDATE) !=
           NULL;
}

static bool numeric(PlanArgType t)
{
    return t == PLAN_ARG_INT || t == PLAN_ARG_INT64 || t == PLAN_ARG_DOUBLE;
}

char *plan_opt_help(const PlanOption *row)
{
    g_autofree char *modes = NULL;
    const char *help = row->help;
    if (strstr(help, "%s")) {
        modes = sim_share_mode_help();
        help = NULL;
    }
    g_autofree char *text =
        help ? g_strdup(help) : g_strdup_printf(row->help, modes);
    const SimOptRange *r = sim_opt_range(row->name);
    if (!r || !(numeric(row->type) || row->type == PLAN_ARG_TEXT))
        return g_steal_pointer(&text);
    /* A list (sweep -n 1-8, --mem-mib NAME=MIB) checks each item against
     * the row. */
    g_autofree char *range = sim_opt_range_text(r);
    return g_strdup_printf("%s [%s%s]", text, numeric(row->type) ? "" : "each ",
                           range);
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
                "option '%s': '%s' is not 1/true/yes or 0/false/no", name, s);
    return false;
}

bool plan_opt_set(PlanSettings *s, const PlanOption *row, const char *value,
                  GError **error)
{
    void *field = (char *)s + row->offset;
    int64_t n = 0;
    s->given[row - rows] = true;
    switch (row->type) {
    case PLAN_ARG_TEXT:
    case PLAN_ARG_FILE:
        g_free(*(char **)field);
        *(char **)field = g_strdup(value);
        return true;
    case PLAN_ARG_FILES:
    case PLAN_ARG_TEXTS: {
        char ***list = field;
        guint len = *list ? g_strv_length(*list) : 0;
        *list = g_renew(char *, *list, len + 2);
        (*list)[len] = g_strdup(value);
        (*list)[len + 1] = NULL;
        return true;
    }
    case PLAN_ARG_FLAG:
        if (!value) {
            *(bool *)field = true;
            return true;
        }
        return parse_flag(row->name, value, field, error);
    case PLAN_ARG_DOUBLE:
        return sim_opt_parse_double(row->name, value, field, error);
    case PLAN_ARG_INT:
    case PLAN_ARG_INT64:
        if (!sim_opt_parse_int64(row->name, value, &n, error))
            return false;
        if (row->type == PLAN_ARG_INT)
            *(int *)field = (int)n; /* int rows' ranges fit an int */
        else
            *(int64_t *)field = n;
        return true;
    }
    g_return_val_if_reached(false);
}

void plan_settings_clear(PlanSettings *s)
{
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        void *field = (char *)s + rows[i].offset;
        if (rows[i].type == PLAN_ARG_FILES || rows[i].type == PLAN_ARG_TEXTS)
            g_clear_pointer((char ***)field, g_strfreev);
        else if (rows[i].type == PLAN_ARG_TEXT || rows[i].type == PLAN_ARG_FILE)
            g_clear_pointer((char **)field, g_free);
    }
    memset(s, 0, sizeof *s);
}

bool plan_settings_check(const PlanSettings *s, PlanCommand command,
                         GError **error)
{
    /* `run` reads its mode first, `compare` its list of modes (then the
     * outputs, then the inputs). */
    SimShareMode mode;
    if (command == PLAN_CMD_RUN && s->mode &&
        !sim_share_mode_parse(s->mode, &mode, error))
        return false;
    if (command == PLAN_CMD_COMPARE && s->modes && !*s->modes) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--modes is empty");
        return false;
    }
    /* Before any run: where a comparison's CSVs go (one per mode). */
    g_auto(GStrv) modes =
        g_strsplit(s->modes ? s->modes : "timeslice,mps", ",", 0);
    if (command == PLAN_CMD_COMPARE && s->csv &&
        !sim_viz_csv_check(s->csv, g_strv_length(modes), error))
        return false;
    SimVizPictureKind kind;
    if (s->picture_kind &&
        !sim_viz_picture_kind_parse(s->picture_kind, &kind, error))
        return false;
    SimPerfettoDetail detail;
    if (s->perfetto_detail &&
        !sim_viz_perfetto_detail_parse(s->perfetto_detail, &detail, error))
        return false;
    if (s->perfetto_detail && !s->perfetto) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--perfetto-detail needs --perfetto FILE");
        return false;
    }
    if (s->picture_kind && !s->picture) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--picture-kind needs --picture FILE");
        return false;
    }
    /* The request model keeps no op after its exact part (a sweep's
     * outputs are its rows). */
    const char *per_op = s->csv        ? "--csv"
                         : s->perfetto ? "--perfetto"
                         : s->report   ? "--report"
                         : s->picture  ? "--picture"
                                       : NULL;
    if (s->request_model && per_op && command != PLAN_CMD_SWEEP) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "%s needs every op, which --request-model does not "
                    "simulate",
                    per_op);
        return false;
    }
    const char *dot = s->picture ? strrchr(s->picture, '.') : NULL;
    if (s->picture && !sim_out_in_place(s->picture) &&
        (!dot || (g_ascii_strcasecmp(dot, ".png") &&
                  g_ascii_strcasecmp(dot, ".svg")))) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--picture %s: the name must end in .png or .svg",
                    s->picture);
        return false;
    }
    return true;
}

void plan_settings_prep(const PlanSettings *s, PrepOptions *po)
{
    memset(po, 0, sizeof *po);
    po->models_dir = s->models_dir;
    po->as_recorded = s->as_recorded;
    po->recorded_clocks = s->recorded_clocks;
    po->bare_classes = s->bare_classes;
    po->loop_request = s->loop_request;
    po->iterations = s->iterations > 0 ? (uint32_t)s->iterations : 0;
    po->host_scale = s->host_scale;
    po->mem_mib = s->mem_mib;
    po->spread = s->spread;
    po->arrival_rate = s->arrival_rate;
    po->arrival_times = s->arrival_times;
    po->sm_sample = (uint32_t)s->sm_sample;
}

static SimTime time_limit_ns(const PlanSettings *s)
{
    return s->time_limit_ms > 0 ? (SimTime)(s->time_limit_ms * 1e6) : 0;
}

SimResult *plan_simulate(const PlanSettings *s, const GpuModel *m,
                         const SimScenario *sc, const SimOptions *so,
                         GError **error)
{
    return s->request_model
               ? sim_reqmodel_run(m, sc, so, (uint32_t)s->request_model, error)
               : sim_engine_run(m, sc, so, error);
}

void plan_settings_sim(const PlanSettings *s, SimOptions *so)
{
    sim_options_init(so);
    so->connections = s->connections > 0 ? (uint32_t)s->connections : 0;
    so->active_thread_pct = s->thread_pct;
    so->seed = (uint64_t)s->seed;
    so->host_cores = (uint32_t)s->host_cores;
    so->no_jitter = s->no_jitter;
    so->time_limit_ns = time_limit_ns(s);
    so->sm_sample = (uint32_t)s->sm_sample;
    so->record_ops = true;
    /* Only the Perfetto trace and the pictures draw the per-SM timeline
     * (it changes no number). */
    so->record_timeline = s->perfetto || s->report || s->picture;
}

GpuModel *plan_settings_model(const PlanSettings *s, const SimScenario *sc,
                              GError **error)
{
    const char *name = s->gpu ? s->gpu : sc && sc->gpu ? sc->gpu : "h100-sxm";
    return sim_gpu_model_find(name, s->models_dir, error);
}

SimScenario *plan_settings_load(char *const *files, int n,
                                const PlanSettings *s, char **note,
                                GError **error)
{
    return plan_settings_load_run(files, n, s, note, NULL, error);
}

SimScenario *plan_settings_load_run(char *const *files, int n,
                                    const PlanSettings *s, char **note,
                                    SimResult **solo_run, GError **error)
{
    PrepOptions po;
    plan_settings_prep(s, &po);
    g_autoptr(SimResult) solo = NULL;
    if (solo_run)
        *solo_run = NULL;
    g_autoptr(SimScenario) base =
        prep_load_run(files, n, &po, solo_run ? &solo : NULL, error);
    if (!base)
        return NULL;
    /* Steps 9-11 change nothing when the GPU is the recorded one (the same
     * name looked up in the same models folder), there is one copy and no
     * arrival list: the loaded (and inferred) workload is the one to run,
     * as it is, with no copy of it (at 10^6 kernels, 160 bytes an op). */
    if (s->processes <= 1 && !s->arrival_times &&
        (!s->gpu || (base->gpu && !strcmp(s->gpu, base->gpu)))) {
        if (note)
            *note = NULL;
        if (solo_run)
            *solo_run = g_steal_pointer(&solo);
        return g_steal_pointer(&base);
    }
    g_autoptr(GpuModel) to = plan_settings_model(s, base, error);
    if (!to)
        return NULL;
    return prep_target(base, to, s->processes > 0 ? (uint32_t)s->processes : 1,
                       &po, note, error);
}

bool plan_run_is_solo_run(const SimOptions *so, const SimScenario *sc,
                          uint32_t infer_sm_sample)
{
    SimOptions d;
    sim_options_init(&d);
    return so->mode == d.mode && so->connections == d.connections &&
           so->active_thread_pct == d.active_thread_pct &&
           (so->seed == d.seed || so->seed == sc->seed) &&
           so->host_cores == d.host_cores && so->no_jitter == d.no_jitter &&
           so->record_ops == d.record_ops &&
           so->record_timeline == d.record_timeline &&
           so->time_limit_ns == d.time_limit_ns &&
           so->check_invariants == d.check_invariants &&
           so->sm_sample == infer_sm_sample &&
           so->event_budget == d.event_budget;
}

/* Load every file of @list (NULL-terminated) as one workload each. */
static bool load_each(char *const *list, const PrepOptions *po, GPtrArray *out,
                      GError **error)
{
    for (int i = 0; list && list[i]; i++) {
        SimScenario *sc = prep_load(&list[i], 1, po, error);
        if (!sc)
            return false;
        g_ptr_array_add(out, sc);
    }
    return true;
}

bool plan_settings_sweep_space(const PlanSettings *s, char *const *files,
                               SimSweepSpace *sp, GError **error)
{
    if (!files || !files[0]) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "give one or more scenario files or profiler traces");
        return false;
    }
    /* Each item was range-checked by the list's parser (optrange.h). */
    if (!sim_sweep_parse_processes(s->processes_list ? s->processes_list
                                                     : "1,2,4,8",
                                   sp->processes, error) ||
        !sim_sweep_parse_modes(s->modes ? s->modes : "timeslice,mps", sp->modes,
                               error) ||
        (s->thread_pct_list &&
         !sim_sweep_parse_pcts(s->thread_pct_list, sp->pcts, error)) ||
        (s->connections_list &&
         !sim_sweep_parse_connections(s->connections_list, sp->connections,
                                      error)))
        return false;
    sp->seed = (uint64_t)s->seed;
    sp->host_cores = (uint32_t)s->host_cores;
    sp->no_jitter = s->no_jitter;
    sp->time_limit_ns = time_limit_ns(s);
    sp->sm_sample = (uint32_t)s->sm_sample;
    sp->request_model = (uint32_t)s->request_model;
    /* Each file is one workload of the sweep, prepared as `hqsim run`
     * prepares it (plan/prepare.h); sim_sweep_new moves it to each GPU
     * and replicates it. */
    PrepOptions po;
    plan_settings_prep(s, &po);
    sp->models_dir = g_strdup(s->models_dir);
    if (!load_each(files, &po, sp->workloads, error) ||
        !load_each(s->fixed, &po, sp->fixed, error))
        return false;
    const SimScenario *first = g_ptr_array_index(sp->workloads, 0);
    return sim_sweep_parse_gpus(s->gpu, first->gpu ? first->gpu : "h100-sxm",
                                s->models_dir, sp->gpus, error);
}

/* Write each format of @formats whose option (the format's name) names a
 * file in @s, as one group. */
static bool write_group(const PlanSettings *s, PlanCommand command,
                        const SimOutputFormat *formats, size_t n,
                        const void *what, GError **error)
{
    g_autofree const char **paths = g_new0(const char *, MAX(n, 1));
    for (size_t k = 0; k < n; k++) {
        const PlanOption *row = plan_opt_find(formats[k].name, command);
        g_assert(row && row->type == PLAN_ARG_FILE);
        paths[k] = *(char *const *)((const char *)s + row->offset);
    }
    sim_out_group_begin();
    bool ok = sim_outputs_write(formats, n, paths, what, error);
    return sim_out_group_end(ok, error);
}

bool plan_settings_write_runs(const PlanSettings *s, SimResult *const *runs,
                              uint32_t n, const GpuModel *m,
                              const SimScenario *sc, GError **error)
{
    size_t nf = 0;
    const SimOutputFormat *formats = sim_viz_outputs(&nf);
    SimVizRuns what = {runs, n, m, sc, s->picture_kind, s->perfetto_detail};
    return write_group(s, PLAN_CMD_RUN, formats, nf, &what, error);
}

bool plan_settings_write_sweep(const PlanSettings *s, const SimSweep *sw,
                               const SimSlo *slo, const GArray *answers,
                               GError **error)
{
    size_t nf = 0;
    const SimOutputFormat *formats = sim_sweep_outputs(&nf);
    SimSweepOutputs what = {sw, slo, answers};
    return write_group(s, PLAN_CMD_SWEEP, formats, nf, &what, error);
}

bool plan_settings_given(const PlanSettings *s, const char *name,
                         PlanCommand command)
{
    const PlanOption *row = plan_opt_find(name, command);
    return row && s->given[row - rows];
}

/* What `import` did since its first version: times in ms to ns, rounded
 * to nearest (values were range-checked when set). */
static SimTime ms_to_ns(double ms)
{
    return (SimTime)llround(ms * 1e6);
}

void plan_settings_import(const PlanSettings *s, SimImportOptions *opt)
{
    sim_import_options_init(opt);
    opt->format = s->format;
    opt->gpu_model = s->gpu;
    opt->models_dir = s->models_dir;
    opt->processes = s->process;
    opt->pin_held = s->pin_held;
    opt->recorded_clocks = s->recorded_clocks;
    opt->bare_classes = s->bare_classes;
    if (plan_settings_given(s, "launch-latency-us", IMPORT))
        opt->launch_latency_ns = ms_to_ns(s->launch_latency_us / 1000.0);
    if (plan_settings_given(s, "from-ms", IMPORT))
        opt->window_start_ns = ms_to_ns(s->from_ms);
    if (plan_settings_given(s, "to-ms", IMPORT))
        opt->window_end_ns = ms_to_ns(s->to_ms);
}

bool plan_settings_replay(const PlanSettings *s, char *const *files,
                          void (*row)(const char *name,
                                      const SimReplayStats *st, void *data),
                          void *data, GError **error)
{
    int n = files ? (int)g_strv_length((char **)files) : 0;
    if (n == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "give a trace");
        return false;
    }
    SimImportOptions opt;
    plan_settings_import(s, &opt);
    for (int i = 0; i < (s->each ? n : 1); i++) {
        SimReplayStats st;
        if (!sim_identity_replay(s->each ? files + i : files, s->each ? 1 : n,
                                 &opt, !s->as_recorded, &st, error))
            return false;
        const char *name = strrchr(files[i], '/');
        row(name ? name + 1 : files[i], &st, data);
        sim_replay_stats_clear(&st);
    }
    return true;
}

GPtrArray *plan_settings_validate(const PlanSettings *s, const char *dir,
                                  GpuModel **model, GError **error)
{
    *model =
        sim_gpu_model_find(s->gpu ? s->gpu : "h100-sxm", s->models_dir, error);
    GPtrArray *exps =
        *model
            ? sim_validate_sampled(dir, *model, s->filter, s->measured_blocks,
                                   (uint32_t)s->sm_sample, error)
            : NULL;
    if (!exps)
        g_clear_pointer(model, sim_gpu_model_free);
    return exps;
}
