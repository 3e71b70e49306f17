/* retarget.h -- move a workload recorded on one GPU to another.
 *
 * The rule (README "What-if from a trace"):
 *  - a kernel with a recorded duration D on GPU A runs in
 *    waves_A = ceil(blocks / (SMs_A x blocks-per-SM_A)) waves, so one block
 *    takes D / waves_A; on GPU B a block takes that times clock_A / clock_B
 *    (per-SM throughput scales with the SM clock; differences in
 *    instructions per clock between architectures are not modelled), and
 *    the engine then finds B's own waves from B's occupancy;
 *  - a copy with a recorded duration scales by the ratio of the two GPUs'
 *    bandwidths in its direction;
 *  - kernels given by block time scale by the clock ratio alone;
 *  - with @fit_smem (imported traces), a kernel asking for more shared
 *    memory per block than B allows (an sm_90 cuDNN kernel of 227 KiB
 *    moved to a K40's 48 KiB) is given B's maximum, dynamic memory cut
 *    first: a library picks the variant that fits the GPU it runs on, and
 *    hqsim keeps the work, not the variant.  A native scenario's kernels
 *    keep what their author wrote (one that does not fit B fails there).
 */
#ifndef SIM_RETARGET_H
#define SIM_RETARGET_H

#include <glib.h>
#include <stdbool.h>

#include "gpu_model.h"
#include "scenario.h"

/* Rewrite @sc's work from @from to @to.  *@n_clamped (nullable) counts
 * the kernels whose shared memory was cut to @to's maximum.  Fails (naming
 * the op) if a kernel does not fit on @from. */
bool sim_scenario_retarget(SimScenario *sc, const GpuModel *from,
                           const GpuModel *to, bool fit_smem,
                           uint32_t *n_clamped, GError **error);

#endif /* SIM_RETARGET_H */
