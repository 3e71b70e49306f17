/* transform.h -- what-if rewrites of a workload, applied after loading.
 *
 * They exist for traces: a profiled run carries the profiler's host
 * overhead and records one long run rather than a loop of requests.
 */
#ifndef SIM_TRANSFORM_H
#define SIM_TRANSFORM_H

#include <glib.h>
#include <stdbool.h>

#include "scenario.h"

/* Multiply all host time -- host gaps, explicit API times, recorded call
 * times -- by @f (> 0): a faster or slower CPU, or a profiler's overhead
 * taken out.  API times left to the model's defaults are not changed.  A
 * graph launch's recorded host time is dropped for the model's
 * (graph_launch_api_us + nodes x graph_node_api_us, measured unprofiled):
 * the profiler's cost of cudaGraphLaunch is not the host's times any one
 * factor (Kineto: 9-10 us for encoder b1's 90 nodes, 230-280 us for
 * decoder b1's 151; FINDINGS §48), so one scale for both made the fitted
 * scale a fit of the launch call alone. */
void sim_scenario_scale_host(SimScenario *sc, double f);

/* A profiled trace's CUDA graphs as the unprofiled process runs them
 * (prep_load under --host-scale): every graph kernel node's recorded
 * duration loses @kernel_ns (the recorded GPU's profiler_kernel_us; at
 * least 1 ns is left), and every graph is marked unprofiled, so its small
 * memset nodes take the kernel spacing instead of the two memset spacings
 * measured under CUPTI (engine_graph.c).  Measured on an H100 (FINDINGS
 * §61): a decoder b1 graph spans 441-445 us under Kineto and 424 us without
 * a profiler (CUDA events), alone and once contexts take turns alike;
 * resnet50 b1's, with 9 small memsets, 975-981 against 901 us.  Stream
 * kernels keep their recorded durations (not measured). */
void sim_scenario_unprofile_graphs(SimScenario *sc, SimTime kernel_ns);

/* Turn each process's recorded run of requests into a loop of one request:
 * the ops are cut after every device synchronize that ends device work (a
 * kernel, copy or graph since the previous one), the representative
 * request (the median by GPU work among all but the first, a warm-up) is
 * kept as the op list, and the process runs @iterations of it.  The other
 * requests' spread becomes the process's per-request jitter rows (each
 * request's kernel, copy and host time over the kept one's; sim/jitter.h),
 * unless it has rows already.  With @first (nullable, one entry per
 * process), first[p] is the index the kept request's first op had in
 * process p's recorded op list (to find its recorded times).  Fails for a
 * process with fewer than two such synchronizes. */
bool sim_scenario_loop_request(SimScenario *sc, uint32_t iterations,
                               uint32_t *first, GError **error);

/* Open loop: every process serves @count requests arriving as a Poisson
 * process at @rate_per_s (> 0) per process, seeded by the run's seed; a
 * request's latency runs from its arrival (queueing included). */
void sim_scenario_set_poisson(SimScenario *sc, double rate_per_s,
                              uint32_t count);

/* A measured request spread: @n (>= 1) latencies (any unit) of one process
 * serving requests one after another.  Each becomes a per-request jitter
 * row of one factor, latency over the median, on kernel, copy and host
 * time alike (sim/jitter.h), replacing every process's rows.  Fails for a
 * latency that is not positive. */
bool sim_scenario_set_spread(SimScenario *sc, const double *lat, uint32_t n,
                             GError **error);

#endif /* SIM_TRANSFORM_H */
