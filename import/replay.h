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
#include "infer_sample.h"
#include "result.h"

typedef struct {
    char *gpu;        /* model it ran on (owned) */
    char *formats;    /* (owned) */
    uint32_t kernels; /* GPU ops compared: kernels, copies, memsets */
    uint32_t ops;
    double rec_span_ms;    /* recorded first start .. last end */
    double sim_span_ms;    /* simulated */
    double makespan_err;   /* (sim - rec) / rec */
    double median_end_err; /* median |end error| / recorded span */
    double worst_end_err;
    uint32_t worst_op;
    int solo_rounds; /* rounds of solo-time inference (0: none) */
} SimReplayStats;

void sim_replay_stats_clear(SimReplayStats *s);

/* A trace records how long each op took *as it ran*: kernels that
 * overlapped were slowed by each other, so their recorded durations are not
 * their times alone, which is what the engine takes.  Find the times alone
 * for which simulating @sc on @m reproduces the recorded durations: each
 * round simulates and scales every recorded op's time by recorded /
 * simulated, damped for ops that overshoot (their error changed sign: the
 * step exponent halves, down to 1/64).  It stops when
 *  - no op's simulated time is more than SIM_INFER_TOLERANCE (0.1%) off
 *    its recording (converged), or
 *  - the round's score (summed |recorded - simulated| over summed recorded
 *    time) has not improved by SIM_INFER_MIN_GAIN (1%) of itself for
 *    SIM_INFER_PATIENCE (2) rounds (stalled: ops of overlapping streams can
 *    trade places from round to round and never settle), or
 *  - its gains shrink so fast that the rest would not make one round
 *    count (settled): the last three rounds each the best so far (by
 *    SIM_INFER_MIN_GAIN), their scores s0 > s1 > s2, and the geometric
 *    series of gains the ratio
 *    q = (s1 - s2) / (s0 - s1) < 1 predicts, (s1 - s2) q / (1 - q), is
 *    below SIM_INFER_MIN_GAIN of s2 (sim_infer_settled()), or
 *  - after @max_rounds simulations,
 * and leaves the times of the best-scoring round in @sc (the converged one
 * if it converged).  Ops that never overlapped keep their recorded time.
 * A large trace (SIM_INFER_SAMPLE_DEFAULT: at least 50,000 timed GPU ops,
 * no events or graphs) is first inferred on windows of it
 * (infer_sample.h); round 0 then simulates the whole trace with the times
 * the windows gave, and is the result when it scores at most 10% above the
 * windows' mean score, which takes one whole simulation instead of 3 to 5.
 * Returns the number of rounds of updates (0: the recording was matched as
 * given), or -1 with @error set.  With @final, hands over that round's
 * result: a run of @sc as left, with default options, so callers need not
 * simulate it again.  With @sm_sample M > 1 every round (and so that
 * result) simulates 1 SM in M (SimOptions.sm_sample, README "Sampled
 * SMs"): the times alone are then inferred on the sampled GPU; 0 or 1:
 * every SM. */
#define SIM_INFER_TOLERANCE 1e-3
#define SIM_INFER_MIN_GAIN 0.01
/* Patience 2, not 3: a stalled round after the best costs a whole
 * simulation, and on every trace we have no round beat the best after two
 * stalled ones (QUICK=1 bench/identical.sh: 103 of 103 cases identical;
 * 4-stream bench/big_trace.py traces: 6 -> 5 simulations).  Patience 1 is
 * too short: torch_multistream_trace gains 0.8% in round 2, then 37% in
 * round 3 (replay makespan -3.3% would become +8.0%). */
#define SIM_INFER_PATIENCE 2
#define SIM_INFER_MAX_ROUNDS 40
/* Whether the scores of the last three rounds, @s0 (oldest) .. @s2 (the
 * best so far), settled: the rounds after would gain less, all together,
 * than SIM_INFER_MIN_GAIN of @s2 if each gained q times the one before
 * (q = (s1 - s2) / (s0 - s1), the last step's shrink).  The patience rule
 * would spend SIM_INFER_PATIENCE whole simulations to see the same: on the
 * 4-stream bench/big_trace.py traces (scores 1.29, 0.329, 0.296, 0.308,
 * 0.298) q = 0.033, the rest 0.0011 = 0.36% of 0.296, so round 2 is the
 * result after 3 simulations instead of 5, the same one. */
bool sim_infer_settled(double s0, double s1, double s2);
int sim_workload_infer_solo_run(SimScenario *sc, const SimImportReport *rep,
                                const GpuModel *m, int max_rounds,
                                uint32_t sm_sample, SimResult **final,
                                GError **error);
/* sim_workload_infer_solo_run() with another sampling of large traces
 * than SIM_INFER_SAMPLE_DEFAULT (tests; SIM_INFER_SAMPLE_NONE: none). */
int sim_workload_infer_solo_with(SimScenario *sc, const SimImportReport *rep,
                                 const GpuModel *m, int max_rounds,
                                 uint32_t sm_sample, const SimInferSample *how,
                                 SimResult **final, GError **error);
/* The inference of sim_workload_infer_solo_run() over the whole of @sc
 * (never on a sample, infer_sample.h), its best round's score into
 * @score. */
int sim_workload_infer_solo_score(SimScenario *sc, const SimImportReport *rep,
                                  const GpuModel *m, int max_rounds,
                                  uint32_t sm_sample, double *score,
                                  GError **error);
int sim_workload_infer_solo(SimScenario *sc, const SimImportReport *rep,
                            const GpuModel *m, int max_rounds, GError **error);

/* Import @paths with @opt (gpu_model NULL: the trace's closest model) and
 * replay them; with @infer_solo, after sim_workload_infer_solo().  Fails if the import or the simulation fails, or if the
 * input has no timeline. */
bool sim_identity_replay(char *const *paths, int n_paths,
                         const SimImportOptions *opt, bool infer_solo,
                         SimReplayStats *out, GError **error);

#endif /* SIM_REPLAY_H */
