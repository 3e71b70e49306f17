/* infer_sample.h -- the solo-time inference of a large trace on windows
 * of it, then one run of the whole (README "Solo-time inference on a
 * sample").
 *
 * The inference (replay.h) simulates the whole trace in every round; on
 * 10^6 overlapping kernels a round is one simulation of about 18 s and it
 * takes 3 to 5.  An op's time alone depends on the ops it overlapped, and
 * an op of a big trace has many twins (same process, stream, kernel name,
 * grid and block, or copy direction and size) that overlapped alike.  So a
 * trace of at least SIM_INFER_SAMPLE_MIN timed GPU ops is inferred on
 * SIM_INFER_SAMPLE_WINDOWS windows of SIM_INFER_SAMPLE_OPS ops in all
 * (at 10^5 ops, 20%: a sample round costs a fifth of a whole one),
 * spread over it, each with the full inference (every op of a window gets
 * its own time alone); every op outside them is scaled by its class's
 * factor (summed time alone over summed recorded time of the windows' ops
 * of its class, the ops that ran alone and those that overlapped apart).
 * The whole trace is then simulated once, and that run is the result when
 * its score is at most SIM_INFER_SAMPLE_SLACK above the windows' mean
 * score; otherwise the inference goes on over the whole trace from these
 * times, as without the sample.
 */
#ifndef SIM_INFER_SAMPLE_H
#define SIM_INFER_SAMPLE_H

#include <glib.h>
#include <stdbool.h>

#include "gpu_model.h"
#include "import.h"

#define SIM_INFER_SAMPLE_MIN 50000
#define SIM_INFER_SAMPLE_OPS 20000
#define SIM_INFER_SAMPLE_WINDOWS 4
#define SIM_INFER_SAMPLE_SLACK 0.10
/* 1/EDGE of a window's ops at each end are context only (infer_sample.c). */
#define SIM_INFER_SAMPLE_EDGE 10

/* How a trace is sampled (tests take smaller ones). */
typedef struct {
    uint64_t min_ops; /* timed GPU ops a trace needs to be sampled */
    uint64_t ops;     /* ops in all windows together */
    int windows;
    double slack; /* the whole run's score may be this much (relative)
                     above the windows' mean score */
} SimInferSample;
#define SIM_INFER_SAMPLE_DEFAULT                                               \
    ((SimInferSample){SIM_INFER_SAMPLE_MIN, SIM_INFER_SAMPLE_OPS,              \
                      SIM_INFER_SAMPLE_WINDOWS, SIM_INFER_SAMPLE_SLACK})
/* Never sampled: the whole trace in every round. */
#define SIM_INFER_SAMPLE_NONE ((SimInferSample){UINT64_MAX, 0, 0, 0})

/* If @sc qualifies (at least @how->min_ops GPU ops with recorded
 * times; kernels, copies, host gaps and syncs only, one iteration, no
 * arrivals), infer its windows' times alone and scale every other op by
 * its class's factor, setting *@accept to the score the whole run must
 * reach (>= 0) and *@rounds to the windows' most rounds; otherwise
 * *@accept = -1 and @sc is untouched.  False with @error set if a window's
 * simulation fails. */
bool sim_infer_sample(SimScenario *sc, const SimImportReport *rep,
                      const GpuModel *m, int max_rounds, uint32_t sm_sample,
                      const SimInferSample *how, double *accept, int *rounds,
                      GError **error);

#endif /* SIM_INFER_SAMPLE_H */
