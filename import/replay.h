/* replay.h -- identity replay: import a trace, simulate it under its
 * original configuration, and compare every GPU op with its recording.
 *
 * A trace replays faithfully when the import rules (stream order, issue
 * times, dependencies) and the engine (a kernel running as it ran takes its
 * recorded time) are both right; the statistics say how faithfully.
 */
#ifndef SIM_REPLAY_H
#define SIM_REPLAY_H

#include <glib.h>
#include <stdbool.h>

#include "gpu_model.h"
#include "import.h"

typedef struct {
    char *gpu;              /* model it ran on (owned) */
    char *formats;          /* (owned) */
    uint32_t kernels;       /* GPU ops compared: kernels, copies, memsets */
    uint32_t ops;
    double rec_span_ms;     /* recorded first start .. last end */
    double sim_span_ms;     /* simulated */
    double makespan_err;    /* (sim - rec) / rec */
    double median_end_err;  /* median |end error| / recorded span */
    double worst_end_err;
    uint32_t worst_op;
    int solo_rounds;        /* rounds of solo-time inference (0: none) */
} SimReplayStats;

void sim_replay_stats_clear(SimReplayStats *s);

/* A trace records how long each op took *as it ran*: kernels that
 * overlapped were slowed by each other, so their recorded durations are not
 * their times alone, which is what the engine takes.  Find the times alone
 * for which simulating @sc on @m reproduces the recorded durations: a fixed
 * point, each round scaling every recorded op's time by recorded /
 * simulated, until no op changes by more than 0.1% (at most @max_rounds).
 * Ops that never overlapped keep their recorded time.  Modifies @sc.
 * Returns the number of rounds run (0 if nothing needed changing), or -1
 * with @error set. */
int sim_workload_infer_solo(SimScenario *sc, const SimImportReport *rep,
                            const GpuModel *m, int max_rounds,
                            GError **error);

/* Import @paths with @opt (gpu_model NULL: the trace's closest model) and
 * replay them; with @infer_solo, after sim_workload_infer_solo().  Fails if the import or the simulation fails, or if the
 * input has no timeline. */
bool sim_identity_replay(char *const *paths, int n_paths,
                         const SimImportOptions *opt, bool infer_solo,
                         SimReplayStats *out, GError **error);

#endif /* SIM_REPLAY_H */
