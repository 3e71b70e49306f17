/* reqmodel.h -- the approximate model of whole requests (`run
 * --request-model W`): simulate a closed loop exactly for its first W
 * iterations, then advance the rest one event per request.
 *
 * The exact part runs every process for W iterations (the engine, as it
 * would run them; until the first process finishes it is the full run's
 * own start, op for op).  Each exact request of a process's second half
 * (the first half is a warm-up) is a sample of a service time, filed by
 * its state: the request's process class (copies made by --processes are
 * one class) and how many processes had a request in flight when it
 * started (itself included).  Then every process goes on from its last
 * request that ended before the first process finished, one request at a
 * time in time order: each request draws the time of one sample of its
 * state, keyed by (seed, process, iteration) so the run is reproducible,
 * preferring samples that drew the same per-request spread row
 * (sim/jitter.h) as the request does.  A state the exact part never saw
 * (a closed loop's tail) takes the nearest seen one, counted in the note;
 * a workload with nothing to draw (open loop, a process that did not run,
 * no process longer than W iterations) falls back to the exact run of the
 * whole workload, with a note.
 *
 * What the result holds: per process, the exact part's latencies then the
 * drawn ones, its end, iterations, and its kernel and copy counts and its
 * streams' op counts and busy times scaled by iterations; GPU-wide metrics
 * (utilization, occupancy, the per-op records) are the exact part's.  A
 * note says the run is approximate.
 */
#ifndef SIM_REQMODEL_H
#define SIM_REQMODEL_H

#include <glib.h>

#include "engine.h"
#include "gpu_model.h"
#include "result.h"
#include "scenario.h"

/* The smallest W: iteration 0 is a request's first position (kept exact,
 * never a sample), so at least one more iteration makes the samples. */
#define SIM_REQMODEL_MIN_EXACT 2u

/* Run @sc on @m with @opt as the request model with @exact iterations
 * (>= SIM_REQMODEL_MIN_EXACT) simulated exactly per process.  Returns the
 * result (transfer full) or NULL with @error set (the engine's errors). */
SimResult *sim_reqmodel_run(const GpuModel *m, const SimScenario *sc,
                            const SimOptions *opt, uint32_t exact,
                            GError **error);

#endif /* SIM_REQMODEL_H */
