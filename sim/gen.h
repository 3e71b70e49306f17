/* gen.h -- synthetic workloads for benchmarks and stress tests.
 *
 * Deterministic for a given seed.  The shapes are plausible rather than
 * realistic: they exist to load the engine, not to predict anything.
 */
#ifndef SIM_GEN_H
#define SIM_GEN_H

#include <stdint.h>

#include "scenario.h"

/* @kernels small kernels spread over @procs processes of 4 streams each:
 * grids of 1..256 blocks of 128..512 threads, 5..200 us, with a stream
 * synchronize every 64 kernels.  Returns: (transfer full). */
SimScenario *sim_gen_many_small(uint64_t kernels, uint32_t procs,
                                uint64_t seed);

/* One kernel of @blocks blocks of 256 threads (8 per SM on recent GPUs),
 * 1 us per block.  Returns: (transfer full). */
SimScenario *sim_gen_big_grid(uint64_t blocks);

/* The big grid, started at 100 us, beside @corunners processes that each
 * run one kernel of @corunner_blocks blocks of 128 threads lasting @blocks
 * ns (about as long as the big one): steady state beside co-runners
 * (engine_steady.c).  Returns: (transfer full). */
SimScenario *sim_gen_big_beside(uint64_t blocks, uint32_t corunners,
                                uint32_t corunner_blocks);

#endif /* SIM_GEN_H */
