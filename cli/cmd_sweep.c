/* cmd_sweep.c -- `hqsim sweep`: capacity planning over processes x mode x
 * thread percentage x connections x GPU x workload, on a thread pool and,
 * under mpirun, across MPI ranks; the table, CSV, JSON, plot and HTML
 * report, and the answer to service-level objectives.
 *
 * Under MPI every rank parses the same command line, loads the same inputs
 * and expands the same configurations; rank r runs every size-th
 * configuration of the schedule (largest first), and rank 0 gathers the
 * rows and writes every output.  Rows are placed by configuration index,
 * so the outputs are those of a local run, byte for byte.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "commands.h"
#include "error.h"
#include "outfile.h"
#include "mpi_world.h"
#include "pool.h"
#include "prepare.h"
#include "slo.h"
#include "sweep.h"
#include "sweep_plot.h"
#include "sweep_report.h"

typedef struct {
    char *processes, *modes, *pcts, *connections, *gpus, *models_dir;
    gint64 seed;
    int host_cores;
    gboolean no_jitter;
    double time_limit_ms;
    int threads;
    char *csv, *json, *plot, *report;
    double slo_p99_ms, slo_throughput;
    gboolean quiet;
    /* how each workload is prepared, as in `hqsim run` (prepare.h) */
    gboolean as_recorded, loop_request;
    int iterations;
    double host_scale;
    char *mem_mib;
    char **fixed;   /* --fixed FILE: beside every configuration, not swept */
    char **files;
} SweepOpts;

static void opts_clear(SweepOpts *o)
{
    g_free(o->processes);
    g_free(o->modes);
    g_free(o->pcts);
    g_free(o->connections);
    g_free(o->gpus);
    g_free(o->models_dir);
    g_free(o->csv);
    g_free(o->json);
    g_free(o->plot);
    g_free(o->report);
    g_free(o->mem_mib);
    g_strfreev(o->fixed);
    g_strfreev(o->files);
}

/* ------------------------------------------------------------------------
 * Progress (stderr, only on a terminal)
 * ------------------------------------------------------------------------ */

typedef struct {
    gint64 start_us, last_us; /* monotonic clock */
    int size;                 /* MPI ranks */
    bool shown;               /* a line is on the terminal: clear it */
    double *cum_cost;         /* [k]: cost of this rank's first k
                                 configurations in hand-out order */
} Progress;

/* The cost of running configuration @i: the ops it simulates (every
 * process's ops times its iterations or requests).  Configurations differ
 * in cost by orders of magnitude, so the time left is estimated from cost
 * done, not from the count. */
static double config_cost(const SimSweep *sw, uint32_t i)
{
    const SimScenario *sc = sim_sweep_scenario(sw, i);
    double c = 1;
    for (guint p = 0; p < sc->processes->len; p++) {
        const SimProcessSpec *ps = g_ptr_array_index(sc->processes, p);
        uint32_t reps = ps->arrivals.kind == SIM_ARRIVALS_NONE
                            ? ps->iterations
                        : ps->arrivals.kind == SIM_ARRIVALS_LIST
                            ? ps->arrivals.n_times
                            : ps->arrivals.count;
        c += (double)ps->n_ops * MAX(reps, 1u);
    }
    return c;
}

static void progress_cb(uint32_t done, uint32_t total, gpointer data)
{
    Progress *p = data;
    gint64 now = g_get_monotonic_time();
    if (done == total) {
        if (p->shown)
            fputs("\r\033[K", stderr);
        return;
    }
    /* At most ten updates a second, and none for sweeps under a second. */
    if (now - p->last_us < 100000 || now - p->start_us < 1000000)
        return;
    p->last_us = now;
    p->shown = true;
    double elapsed = (now - p->start_us) / 1e6;
    fprintf(stderr, "\r\033[Khqsim sweep: %u/%u configurations done",
            done, total);
    if (p->size > 1)
        fprintf(stderr, " on rank 0 (of %d ranks)", p->size);
    fprintf(stderr, ", %.0f s", elapsed);
    /* Handed out largest first: the finished ones are about the first
     * `done` (the ones running count as half done). */
    double all = p->cum_cost[total];
    double got = p->cum_cost[done];
    if (done > 0 && got > 0 && all > got)
        fprintf(stderr, ", about %.0f s left", elapsed * (all - got) / got);
    fflush(stderr);
}

/* ------------------------------------------------------------------------
 * Setting up
 * ------------------------------------------------------------------------ */

/* Fill @sp from the options: workloads, models and axes. */
static bool build_space(const SweepOpts *o, SimSweepSpace *sp, GError **error)
{
    int n_files = o->files ? (int)g_strv_length(o->files) : 0;
    if (n_files < 1) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "give one or more scenario files or profiler traces");
        return false;
    }
    /* Numeric options were range-checked when parsed (sim/optrange.h). */
    if (!sim_sweep_parse_processes(o->processes ? o->processes : "1,2,4,8",
                                   sp->processes, error) ||
        !sim_sweep_parse_modes(o->modes ? o->modes : "timeslice,mps",
                               sp->modes, error) ||
        (o->pcts && !sim_sweep_parse_pcts(o->pcts, sp->pcts, error)) ||
        (o->connections &&
         !sim_sweep_parse_connections(o->connections, sp->connections,
                                      error)))
        return false;
    sp->seed = (uint64_t)o->seed;
    sp->host_cores = (uint32_t)o->host_cores;
    sp->no_jitter = o->no_jitter;
    sp->time_limit_ns =
        o->time_limit_ms > 0 ? (SimTime)(o->time_limit_ms * 1e6) : 0;

    /* Each file is one workload of the sweep, prepared as `hqsim run`
     * prepares it (plan/prepare.h); sim_sweep_new moves it to each GPU
     * and replicates it. */
    PrepOptions po;
    memset(&po, 0, sizeof po);
    po.models_dir = o->models_dir;
    po.as_recorded = o->as_recorded;
    po.loop_request = o->loop_request;
    po.iterations = o->iterations > 0 ? (uint32_t)o->iterations : 0;
    po.host_scale = o->host_scale;
    po.mem_mib = o->mem_mib;
    sp->models_dir = g_strdup(o->models_dir);
    for (int i = 0; i < n_files; i++) {
        SimScenario *sc = prep_load(&o->files[i], 1, &po, error);
        if (!sc)
            return false;
        g_ptr_array_add(sp->workloads, sc);
    }
    for (int i = 0; o->fixed && o->fixed[i]; i++) {
        SimScenario *sc = prep_load(&o->fixed[i], 1, &po, error);
        if (!sc)
            return false;
        g_ptr_array_add(sp->fixed, sc);
    }
    const SimScenario *first = g_ptr_array_index(sp->workloads, 0);
    const char *dflt = first->gpu ? first->gpu : "h100-sxm";
    g_auto(GStrv) names = g_strsplit(o->gpus ? o->gpus : dflt, ",", -1);
    for (int i = 0; names[i]; i++) {
        g_strstrip(names[i]);
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= !strcmp(names[i], names[j]);
        if (seen)
            continue;
        if (!*names[i]) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                        "--gpu: '%s': empty item in the list", o->gpus);
            return false;
        }
        GpuModel *m = sim_gpu_model_find(names[i], o->models_dir, error);
        if (!m)
            return false;
        g_ptr_array_add(sp->gpus, m);
    }
    return true;
}

/* ------------------------------------------------------------------------
 * Running
 * ------------------------------------------------------------------------ */

static void run_one(uint32_t item, gpointer data)
{
    sim_sweep_run_config(data, item);
}

/* Run this rank's share of @sw, then gather every row on rank 0. */
static bool run_sweep(SimSweep *sw, const SimMpiWorld *world,
                      uint32_t threads, GError **error)
{
    g_autofree uint32_t *order = sim_sweep_schedule(sw);
    g_autofree uint32_t *mine = g_new(uint32_t, MAX(sw->n_configs, 1));
    uint32_t n_mine = 0;
    for (uint32_t k = (uint32_t)world->rank; k < sw->n_configs;
         k += (uint32_t)world->size)
        mine[n_mine++] = order[k];
    g_autofree double *cum = g_new0(double, n_mine + 1);
    for (uint32_t k = 0; k < n_mine; k++)
        cum[k + 1] = cum[k] + config_cost(sw, mine[k]);
    Progress pr = {g_get_monotonic_time(), 0, world->size, false, cum};
    bool tty = world->rank == 0 && isatty(STDERR_FILENO);
    sim_pool_run(mine, n_mine, threads, run_one, sw, tty ? progress_cb : NULL,
                 &pr);
    /* The sweep's events limit (shared by its configurations) stops the
     * whole sweep, on every rank: the configurations it cut short would
     * answer another question.  (Under MPI each rank has the limit for its
     * own share.) */
    if (!sim_mpi_all(world, !sim_sweep_budget_hit(sw)))
        return sim_sweep_budget_fail(sw, error);
    if (world->size == 1)
        return true;

    g_autoptr(GByteArray) packed = g_byte_array_new();
    for (uint32_t k = 0; k < n_mine; k++)
        sim_sweep_row_pack(&sw->rows[mine[k]], packed);
    g_autoptr(GByteArray) all =
        sim_mpi_gather(world, packed->data, packed->len, error);
    if (!all)
        return false;
    if (world->rank != 0)
        return true;
    /* Rank r's bytes, in rank order, each after its length; rank 0's rows
     * are already in place. */
    const guint8 *p = all->data, *end = all->data + all->len;
    for (int r = 0; r < world->size; r++) {
        uint64_t n = 0;
        if ((size_t)(end - p) < sizeof n)
            break;
        memcpy(&n, p, sizeof n);
        p += sizeof n;
        const guint8 *stop = p + n;
        if (n > (uint64_t)(end - p))
            break;
        if (r == 0) {
            p = stop;
            continue;
        }
        while (p < stop)
            if (!sim_sweep_row_unpack(sw, &p, stop, error))
                return false;
    }
    for (uint32_t i = 0; i < sw->n_configs; i++)
        if (!sw->rows[i].done) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_IO,
                        "MPI: configuration %u came back from no rank", i);
            return false;
        }
    return true;
}

/* The files the options ask for; the first failure stops. */
static bool write_files(const SweepOpts *o, const SimSweep *sw,
                        const SimSlo *slo, GArray *answers, GError **error)
{
    size_t nf = 0;
    const SimOutputFormat *formats = sim_sweep_outputs(&nf);
    const char *paths[] = {o->csv, o->json, o->plot, o->report};
    const char *const names[] = {"csv", "json", "plot", "report"};
    g_autofree const char **by_format = g_new0(const char *, nf);
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        int k = sim_output_find(formats, nf, names[i]);
        g_assert(k >= 0);
        by_format[k] = paths[i];
    }
    SimSweepOutputs what = {sw, slo, answers};
    return sim_outputs_write(formats, nf, by_format, &what, error);
}

/* Rank 0: every output the options ask for, then the table. */
static bool write_outputs(const SweepOpts *o, const SimSweep *sw,
                          const SimSlo *slo, GError **error)
{
    g_autoptr(GArray) answers =
        sim_slo_active(slo) ? sim_slo_answer(sw, slo) : NULL;
    uint32_t failed = 0;
    for (uint32_t i = 0; i < sw->n_configs; i++)
        failed += sw->rows[i].error != NULL;
    /* A failed command writes no file; the files appear together or not
     * at all (outfile.h). */
    bool ok = failed < sw->n_configs;
    if (ok) {
        sim_out_group_begin();
        ok = write_files(o, sw, slo, answers, error);
        if (!sim_out_group_end(ok, error))
            return false;
    }
    /* With --json -, stdout holds the JSON alone. */
    bool json_out = o->json && !strcmp(o->json, "-");
    if (!o->quiet && !json_out) {
        g_autoptr(GString) out = g_string_new(NULL);
        sim_sweep_report_text(sw, slo, answers, out);
        fputs(out->str, stdout);
        fflush(stdout);
    }
    if (!ok) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "every configuration failed; the first: %s",
                    sw->rows[0].error);
        return false;
    }
    if (failed)
        fprintf(stderr,
                "hqsim sweep: %u of %u configurations failed (see "
                "\"Runs that failed\")\n",
                failed, sw->n_configs);
    return true;
}

static int sweep_main(const SimMpiWorld *world, int argc, char **argv)
{
    SweepOpts o;
    memset(&o, 0, sizeof o);
    g_autofree char *names_help = sim_share_mode_help();
    g_autofree char *modes_help = g_strdup_printf(
        "Sharing modes: %s (default timeslice,mps)", names_help);
    GOptionEntry entries[] = {
        {"processes", 'n', 0, G_OPTION_ARG_STRING, &o.processes,
         "Copies of each process of the workload to sweep: a list of N and "
         "FIRST-LAST ranges (default 1,2,4,8)",
         "LIST"},
        {"modes", 'm', 0, G_OPTION_ARG_STRING, &o.modes, modes_help, "LIST"},
        {"thread-pct", 't', 0, G_OPTION_ARG_STRING, &o.pcts,
         "MPS active thread percentages: 'equal' (100/processes), values, "
         "'scenario' (default: as the scenario)",
         "LIST"},
        {"connections", 'c', 0, G_OPTION_ARG_STRING, &o.connections,
         "CUDA_DEVICE_MAX_CONNECTIONS values or 'default' (default: as the "
         "scenario, else the model's)",
         "LIST"},
        {"gpu", 'g', 0, G_OPTION_ARG_STRING, &o.gpus,
         "GPU models (default: the first workload's, else h100-sxm)",
         "LIST"},
        {"models-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.models_dir,
         "Folder of GPU model files (default: the bundled models/)", "DIR"},
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed,
         "Seed for random arrivals and jitter (default: each scenario's)",
         "S"},
        {"host-cores", 0, 0, G_OPTION_ARG_INT, &o.host_cores,
         "CPU cores the processes' host threads share (default: the "
         "scenario's, else the GPU model's, else unlimited)",
         "N"},
        {"no-jitter", 0, 0, G_OPTION_ARG_NONE, &o.no_jitter,
         "Ignore the workloads' jitter: every request as specified", NULL},
        {"time-limit-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o.time_limit_ms,
         "Give up on a configuration after this much simulated time", "MS"},
        {"threads", 'j', 0, G_OPTION_ARG_INT, &o.threads,
         "Configurations run at once (default: the cores, shared among "
         "the MPI ranks on this host)",
         "N"},
        {"slo-p99-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o.slo_p99_ms,
         "Objective: every process's p99 latency at most MS", "MS"},
        {"slo-throughput", 0, 0, G_OPTION_ARG_DOUBLE, &o.slo_throughput,
         "Objective: iterations per second of all processes together at "
         "least R",
         "R"},
        {"csv", 0, 0, G_OPTION_ARG_FILENAME, &o.csv,
         "Write a CSV row per configuration and per process to FILE",
         "FILE"},
        {"json", 0, 0, G_OPTION_ARG_FILENAME, &o.json,
         "Write the sweep as JSON to FILE ('-' for stdout)", "FILE"},
        {"plot", 0, 0, G_OPTION_ARG_FILENAME, &o.plot,
         "Draw throughput and p99 latency against processes to FILE.png or "
         "FILE.svg",
         "FILE"},
        {"report", 0, 0, G_OPTION_ARG_FILENAME, &o.report,
         "Write a self-contained HTML page (table and plot) to FILE",
         "FILE"},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
         "No table on stdout", NULL},
        {"loop-request", 0, 0, G_OPTION_ARG_NONE, &o.loop_request,
         "Traces: loop one representative request of each process (as "
         "'hqsim run --loop-request')",
         NULL},
        {"iterations", 'i', 0, G_OPTION_ARG_INT, &o.iterations,
         "Closed-loop iterations of every process (default: as the "
         "workload says; 100 with --loop-request)",
         "N"},
        {"host-scale", 0, 0, G_OPTION_ARG_DOUBLE, &o.host_scale,
         "Multiply all host time (gaps, API calls) by F", "F"},
        {"as-recorded", 0, 0, G_OPTION_ARG_NONE, &o.as_recorded,
         "Traces: take recorded durations as times alone", NULL},
        {"fixed", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.fixed,
         "A workload run once beside every configuration and not swept "
         "(N inference servers beside one trainer); objectives, throughput "
         "and latency count the swept processes only (repeatable)",
         "FILE"},
        {"mem-mib", 0, 0, G_OPTION_ARG_STRING, &o.mem_mib,
         "Device memory each process allocates, in MiB: MIB or "
         "NAME=MIB,...",
         "SPEC"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.files,
         NULL, NULL},
        G_OPTION_ENTRY_NULL};
    int status = 0;
    if (!sim_cli_parse(
            "sweep", "SCENARIO|TRACE...",
            "Runs every configuration of processes x mode x thread "
            "percentage x connections x GPU x workload and prints a table "
            "of throughput, p50/p99 latency, memory and the limits hit.\n"
            "With --slo-p99-ms and/or --slo-throughput it answers: the "
            "largest N, and its best thread percentage, that meets them.\n"
            "Under 'mpirun -np K hqsim sweep ...' the configurations are "
            "split across the ranks and rank 0 writes the same outputs as a "
            "local run.",
            entries, &argc, &argv, &status)) {
        opts_clear(&o);
        /* Every rank saw the same command line; each exits the same. */
        return status;
    }
    g_autoptr(GError) error = NULL;
    SimSweepSpace sp;
    sim_sweep_space_init(&sp);
    g_autoptr(SimSweep) sw = NULL;
    if (build_space(&o, &sp, &error))
        sw = sim_sweep_new(&sp, &error);
    sim_sweep_space_clear(&sp);

    /* A rank that failed to set up (an input missing on its host) must
     * not leave the others waiting in the gather. */
    bool ok = error == NULL;
    if (!sim_mpi_all(world, ok)) {
        bool root_ok = sim_mpi_root_bool(world, ok);
        opts_clear(&o);
        if (!ok && (world->rank == 0 || root_ok)) {
            if (world->rank > 0)
                g_prefix_error(&error, "rank %d: ", world->rank);
            return sim_cli_report_error(error);
        }
        if (world->rank == 0)
            fprintf(stderr, "hqsim: the sweep failed on another rank\n");
        return 1;
    }
    uint32_t threads = o.threads > 0
                           ? (uint32_t)o.threads
                           : sim_pool_default_threads(world->local_size);
    SimSlo slo = {o.slo_p99_ms, o.slo_throughput};
    if (run_sweep(sw, world, threads, &error) && world->rank == 0) {
        write_outputs(&o, sw, &slo, &error);
        if (o.plot || o.report)
            sim_sweep_plot_cleanup();
    }
    opts_clear(&o);
    return error ? sim_cli_report_error(error) : 0;
}

int sim_cmd_sweep(int argc, char **argv)
{
    SimMpiWorld world;
    g_autoptr(GError) error = NULL;
    if (!sim_mpi_init(&world, &error))
        return sim_cli_report_error(error);
    int status = sweep_main(&world, argc, argv);
    sim_mpi_finalize(&world);
    return status;
}
