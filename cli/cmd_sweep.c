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
#include "mpi_world.h"
#include "pool.h"
#include "slo.h"
#include "sweep.h"
#include "sweep_plot.h"
#include "sweep_report.h"

/* ------------------------------------------------------------------------
 * Progress (stderr, only on a terminal)
 * ------------------------------------------------------------------------ */

typedef struct {
    gint64 start_us, last_us; /* monotonic clock */
    int size;                 /* MPI ranks */
    bool shown;               /* a line is on the terminal: clear it */
    bool lines, always; /* status lines, not a redrawn line (cli_common.h) */
    double *cum_cost;   /* [k]: cost of this rank's first k
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
        uint32_t reps = ps->arrivals.kind == SIM_ARRIVALS_NONE ? ps->iterations
                        : ps->arrivals.kind == SIM_ARRIVALS_LIST
                            ? ps->arrivals.n_times
                            : ps->arrivals.count;
        c += (double)ps->n_ops * MAX(reps, 1u);
    }
    return c;
}

/* Whether a line is due at @now: a redrawn one at most ten times a second
 * and none for sweeps under a second; status lines as cli_common.h says. */
static bool progress_due(const Progress *p, gint64 now)
{
    if (p->lines)
        return sim_cli_status_due(p->start_us, p->last_us, now, p->always);
    return now - p->last_us >= 100000 && now - p->start_us >= 1000000;
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
    if (!progress_due(p, now))
        return;
    p->last_us = now;
    p->shown = !p->lines;
    double elapsed = (now - p->start_us) / 1e6;
    fprintf(stderr, "%shqsim sweep: %s%u/%u configurations done",
            p->lines ? "" : "\r\033[K", p->lines ? "still running: " : "", done,
            total);
    if (p->size > 1)
        fprintf(stderr, " on rank 0 (of %d ranks)", p->size);
    fprintf(stderr, ", %.0f s", elapsed);
    /* Handed out largest first: the finished ones are about the first
     * `done` (the ones running count as half done). */
    double all = p->cum_cost[total];
    double got = p->cum_cost[done];
    if (done > 0 && got > 0 && all > got)
        fprintf(stderr, ", about %.0f s left", elapsed * (all - got) / got);
    if (p->lines)
        fprintf(stderr, " (%.0f ops in all; -q hides this)\n", all);
    fflush(stderr);
}

/* ------------------------------------------------------------------------
 * Running
 * ------------------------------------------------------------------------ */

static void run_one(uint32_t item, gpointer data)
{
    sim_sweep_run_config(data, item);
}

/* Run this rank's share of @sw, then gather every row on rank 0. */
static bool run_sweep(SimSweep *sw, const SimMpiWorld *world, uint32_t threads,
                      bool quiet, GError **error)
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
    Progress pr = {
        g_get_monotonic_time(), 0, world->size, false, false, false, cum};
    pr.lines = sim_cli_status_lines(quiet, &pr.always);
    bool shown = world->rank == 0 && (pr.lines || sim_cli_redrawn_progress());
    sim_pool_run(mine, n_mine, threads, run_one, sw, shown ? progress_cb : NULL,
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

/* Rank 0: every output the options ask for, then the table. */
static bool write_outputs(const PlanSettings *o, const SimSweep *sw,
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
    if (ok && !plan_settings_write_sweep(o, sw, slo, answers, error))
        return false;
    /* With --json -, stdout holds the JSON alone. */
    if (!o->quiet && !sim_cli_output_to_stdout(o)) {
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
    PlanSettings o;
    memset(&o, 0, sizeof o);
    g_auto(GStrv) files = NULL;
    int status = 0;
    if (!sim_cli_parse_settings(
            "sweep", "SCENARIO|TRACE...",
            "Runs every configuration of processes x mode x thread "
            "percentage x connections x GPU x workload and prints a table "
            "of throughput, p50/p99 latency, memory and the limits hit.\n"
            "With --slo-p99-ms and/or --slo-throughput it answers: the "
            "largest N, and its best thread percentage, that meets them.\n"
            "Under 'mpirun -np K hqsim sweep ...' the configurations are "
            "split across the ranks and rank 0 writes the same outputs as a "
            "local run.",
            &o, PLAN_CMD_SWEEP, &files, &argc, &argv, &status)) {
        plan_settings_clear(&o);
        /* Every rank saw the same command line; each exits the same. */
        return status;
    }
    g_autoptr(GError) error = NULL;
    SimSweepSpace sp;
    sim_sweep_space_init(&sp);
    g_autoptr(SimSweep) sw = NULL;
    if (plan_settings_sweep_space(&o, files, &sp, &error))
        sw = sim_sweep_new(&sp, &error);
    sim_sweep_space_clear(&sp);

    /* A rank that failed to set up (an input missing on its host) must
     * not leave the others waiting in the gather. */
    bool ok = error == NULL;
    if (!sim_mpi_all(world, ok)) {
        bool root_ok = sim_mpi_root_bool(world, ok);
        plan_settings_clear(&o);
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
    if (run_sweep(sw, world, threads, o.quiet, &error) && world->rank == 0) {
        write_outputs(&o, sw, &slo, &error);
        if (o.plot || o.report)
            sim_sweep_plot_cleanup();
    }
    plan_settings_clear(&o);
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
