/* bench.c -- `make bench`: how fast the engine runs, on synthetic
 * workloads (sim/gen.c).  Prints, per workload: ops, events, the CPU time
 * and wall time of the simulation alone (the workload is built in memory
 * first), events per CPU second (the engine is single-threaded, so this is
 * per core, and unlike wall time it holds on a loaded machine), simulated
 * time per CPU second, the process's peak resident memory, and the issue's
 * target beside it.  A benchmark, not a test: nothing here passes or
 * fails.
 *
 *   bench [MODEL [CASES]]   CASES: the letters of the workloads to run
 *                           (e.g. fg: the two steady-state cases); all by
 *                           default */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bounds.h"
#include "engine.h"
#include "gen.h"
#include "gpu_model.h"

static long peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024; /* KiB on Linux */
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The workloads asked for (NULL: all). */
static const char *only;

static bool want(char c)
{
    return !only || strchr(only, c);
}

/* Simulate @sc once; returns CPU ns per event. */
static double run(const char *label, const GpuModel *m, SimScenario *sc,
                  SimShareMode mode, bool record, const char *target)
{
    uint64_t ops = 0;
    for (guint i = 0; i < sc->processes->len; i++)
        ops += ((SimProcessSpec *)g_ptr_array_index(sc->processes, i))->n_ops;
    SimOptions o;
    sim_options_init(&o);
    o.mode = mode;
    o.record_ops = record;
    GError *err = NULL;
    double c0 = cpu_seconds();
    gint64 t0 = g_get_monotonic_time();
    SimResult *r = sim_engine_run(m, sc, &o, &err);
    gint64 t1 = g_get_monotonic_time();
    double cpu = MAX(cpu_seconds() - c0, 1e-6);
    if (!r) {
        fprintf(stderr, "bench: %s: %s\n", label, err->message);
        exit(1);
    }
    double wall = MAX((t1 - t0) / 1e6, 1e-6);
    printf("%-36s %-9s %8llu %10llu %7.3f %7.3f %8.2f %9.1f %6ld  %s\n", label,
           sim_share_mode_name(mode), (unsigned long long)ops,
           (unsigned long long)r->events, cpu, wall, r->events / cpu / 1e6,
           (r->makespan_ns / 1e9) / cpu, peak_rss_mib(), target);
    double per = r->events ? cpu * 1e9 / (double)r->events : 0;
    sim_result_free(r);
    return per;
}

int main(int argc, char **argv)
{
    const char *model = argc > 1 ? argv[1] : "h100-sxm";
    only = argc > 2 ? argv[2] : NULL;
    /* Benchmarks are meant to be big: above the default limits. */
    static const char *const big[] = {"ops=100M", "work=100M", "events=10G",
                                      "sim_time_s=1G", "placements=100G"};
    for (size_t i = 0; i < G_N_ELEMENTS(big); i++)
        if (!sim_limit_set_arg(big[i], NULL))
            return 1;
    GError *err = NULL;
    GpuModel *m = sim_gpu_model_find(model, NULL, &err);
    if (!m) {
        fprintf(stderr, "bench: %s\n", err->message);
        return 1;
    }
    printf("GPU model %s; sim_engine_run only; cpu_s: process CPU time "
           "(one core), wall_s: elapsed\n\n",
           m->name);
    printf("%-36s %-9s %8s %10s %7s %7s %8s %9s %6s  %s\n", "workload", "mode",
           "ops", "events", "cpu_s", "wall_s", "Mev/cpu_s", "sim_s/cpu_s",
           "rssMiB", "target (issue 12)");
    const char *ev_target = ">= 10 Mev/cpu_s";
    if (want('a')) {
        SimScenario *a = sim_gen_many_small(100000, 8, 1);
        run("(a) 100k small kernels, 8 processes", m, a, SIM_SHARE_TIMESLICE,
            true, ev_target);
        run("(a) 100k small kernels, 8 processes", m, a, SIM_SHARE_MPS, true,
            ev_target);
        run("(a) same, without per-op records", m, a, SIM_SHARE_MPS, false,
            ev_target);
        sim_scenario_free(a);
    }
    if (want('b')) {
        SimScenario *b = sim_gen_big_grid(10000000);
        run("(b) one kernel of 10M blocks", m, b, SIM_SHARE_TIMESLICE, true,
            "< 1 s");
        sim_scenario_free(b);
    }
    if (want('c')) {
        SimScenario *c = sim_gen_many_small(1000000, 8, 2);
        run("(c) 1M small kernels, 8 processes", m, c, SIM_SHARE_MPS, false,
            ev_target);
        sim_scenario_free(c);
    }
    if (want('d')) {
        SimScenario *d = sim_gen_big_grid(1000000000);
        run("(d) one kernel of 1G blocks", m, d, SIM_SHARE_TIMESLICE, true,
            "< 1 s");
        sim_scenario_free(d);
    }
    /* (f), (g): the same beside long co-runners under MPS (steady state
     * beside co-runners, engine_steady.c): a co-runner block on every SM,
     * then on half of them (the others hold whole waves of it alone). */
    if (want('f')) {
        SimScenario *f2 = sim_gen_big_beside(1000000000, 2, m->sm_count / 2);
        run("(f) 1G blocks beside 2 co-runners", m, f2, SIM_SHARE_MPS, true,
            "< 1 s");
        sim_scenario_free(f2);
    }
    if (want('g')) {
        SimScenario *f1 = sim_gen_big_beside(1000000000, 1, m->sm_count / 2);
        run("(g) 1G blocks beside 1 co-runner", m, f1, SIM_SHARE_MPS, true,
            "< 1 s");
        sim_scenario_free(f1);
    }
    /* (e) the same 20k kernels spread over more and more MPS clients: the
     * cost per event should not grow with the clients.  48 is the H100's
     * client limit; for 64 (the range) the bench raises the model's
     * mps_max_clients to 64 and doubles its connection budget, a
     * hypothetical GPU that admits them all (with the H100's limits 16
     * clients would be refused and their kernels not run). */
    if (want('e')) {
        printf("\n(e) cost per event against MPS clients (target: flat; 64: "
               "mps_max_clients raised to 64)\n");
        const uint32_t clients[] = {4, 8, 16, 32, 48, 64};
        double first = 0;
        for (size_t i = 0; i < G_N_ELEMENTS(clients); i++) {
            if (clients[i] > m->mps_max_clients) {
                m->mps_max_clients = clients[i];
                m->mps_connection_budget *= 2;
            }
            SimScenario *e = sim_gen_many_small(20000, clients[i], 5);
            char label[64];
            snprintf(label, sizeof label, "(e) 20k kernels, %u clients",
                     clients[i]);
            double per = run(label, m, e, SIM_SHARE_MPS, false, "");
            if (i == 0)
                first = per;
            printf("%-36s %.0f ns of CPU per event, x%.2f of %u clients\n", "",
                   per, first > 0 ? per / first : 0, clients[0]);
            sim_scenario_free(e);
        }
    }
    sim_gpu_model_free(m);
    return 0;
}
