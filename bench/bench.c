/* bench.c -- `make bench`: how fast the engine runs, on synthetic
 * workloads (sim/gen.c).  Prints, per workload: ops, events, wall time of
 * the simulation alone (the workload is built in memory first), events per
 * second, simulated time per wall second, and the process's peak resident
 * memory.  A benchmark, not a test: nothing here passes or fails. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "engine.h"
#include "gen.h"
#include "gpu_model.h"

static long peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024; /* KiB on Linux */
}

static void run(const char *label, const GpuModel *m, SimScenario *sc,
                SimShareMode mode, bool record)
{
    uint64_t ops = 0;
    for (guint i = 0; i < sc->processes->len; i++)
        ops += ((SimProcessSpec *)g_ptr_array_index(sc->processes, i))->n_ops;
    SimOptions o;
    sim_options_init(&o);
    o.mode = mode;
    o.record_ops = record;
    GError *err = NULL;
    gint64 t0 = g_get_monotonic_time();
    SimResult *r = sim_engine_run(m, sc, &o, &err);
    gint64 t1 = g_get_monotonic_time();
    if (!r) {
        fprintf(stderr, "bench: %s: %s\n", label, err->message);
        exit(1);
    }
    double wall = (t1 - t0) / 1e6;
    printf("%-38s %-9s %9llu %11llu %8.3f %12.0f %12.1f %8ld\n", label,
           sim_share_mode_name(mode), (unsigned long long)ops,
           (unsigned long long)r->events, wall, r->events / wall,
           (r->makespan_ns / 1e9) / wall, peak_rss_mib());
    sim_result_free(r);
}

int main(int argc, char **argv)
{
    const char *model = argc > 1 ? argv[1] : "h100-sxm";
    GError *err = NULL;
    GpuModel *m = sim_gpu_model_find(model, NULL, &err);
    if (!m) {
        fprintf(stderr, "bench: %s\n", err->message);
        return 1;
    }
    printf("GPU model %s; wall time of sim_engine_run only\n\n", m->name);
    printf("%-38s %-9s %9s %11s %8s %12s %12s %8s\n", "workload", "mode",
           "ops", "events", "wall_s", "events/s", "sim_s/wall_s", "rss_MiB");
    SimScenario *a = sim_gen_many_small(100000, 8, 1);
    run("(a) 100k small kernels, 8 processes", m, a, SIM_SHARE_TIMESLICE,
        true);
    run("(a) 100k small kernels, 8 processes", m, a, SIM_SHARE_MPS, true);
    run("(a) same, without per-op records", m, a, SIM_SHARE_MPS, false);
    sim_scenario_free(a);
    SimScenario *b = sim_gen_big_grid(10000000);
    run("(b) one kernel of 10M blocks", m, b, SIM_SHARE_TIMESLICE, true);
    sim_scenario_free(b);
    SimScenario *c = sim_gen_many_small(1000000, 8, 2);
    run("(c) 1M small kernels, 8 processes", m, c, SIM_SHARE_MPS, false);
    sim_scenario_free(c);
    SimScenario *d = sim_gen_big_grid(1000000000);
    run("(d) one kernel of 1G blocks", m, d, SIM_SHARE_TIMESLICE, true);
    sim_scenario_free(d);
    sim_gpu_model_free(m);
    return 0;
}
