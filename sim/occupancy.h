/* occupancy.h -- the CUDA occupancy calculator: how many blocks of a kernel
 * fit on one SM of a GPU model, and which resource limits it.
 *
 * Follows the rules of cuda_occupancy.h / the Occupancy Calculator
 * (gpu-scheduling-rules.md §3.2): warps per block rounded up; registers
 * allocated per warp in units of reg_alloc_unit_regs and split across the
 * register file's sub-partitions; shared memory (static + dynamic + the
 * per-block reservation) rounded up to the allocation granularity against the
 * largest carveout; the block-slot limit.  The same per-block needs
 * (SimBlockNeeds) drive the engine's per-SM resource accounting when blocks
 * of different kernels share an SM.
 */
#ifndef SIM_OCCUPANCY_H
#define SIM_OCCUPANCY_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpu_model.h"
#include "scenario.h"

/* Static shared memory per block (__shared__ arrays) is limited to 48 KiB
 * on every architecture; more needs dynamic shared memory and the
 * cudaFuncAttributeMaxDynamicSharedMemorySize opt-in, up to the model's
 * max_smem_per_block_bytes.  A kernel declaring more static memory does
 * not compile ("uses too much shared data"): sim_block_needs refuses it. */
#define SIM_STATIC_SMEM_MAX_BYTES 49152u

typedef enum {
    SIM_LIMIT_WARPS,  /* threads/warps per SM */
    SIM_LIMIT_BLOCKS, /* block slots per SM */
    SIM_LIMIT_REGS,   /* register file */
    SIM_LIMIT_SMEM,   /* shared memory */
    SIM_LIMIT_N
} SimOccLimit;

/* What one block of a kernel takes from an SM. */
typedef struct {
    uint32_t warps;         /* ceil(threads / 32) */
    uint32_t regs_per_warp; /* allocated registers per warp (rounded) */
    uint32_t smem_bytes;    /* allocated shared memory incl. reservation */
} SimBlockNeeds;

typedef struct {
    SimBlockNeeds needs;
    uint32_t limit[SIM_LIMIT_N]; /* blocks per SM each resource allows */
    uint32_t blocks_per_sm;      /* the minimum of limit[] */
    SimOccLimit limiter;         /* which limit is the minimum (first of
                                    equals in enum order) */
    uint32_t active_warps;       /* blocks_per_sm * needs.warps */
    double occupancy;            /* active_warps / max_warps_per_sm */
} SimOccupancy;

/* Per-block needs of @k on @m.  Fails (SIM_ERROR_NOFIT) if a single block
 * exceeds a hard per-block limit: threads per block, registers per thread or
 * per block, shared memory per block. */
bool sim_block_needs(const GpuModel *m, const SimKernelSpec *k,
                     SimBlockNeeds *out, GError **error);

/* Occupancy of @k alone on an empty SM of @m. */
bool sim_occupancy(const GpuModel *m, const SimKernelSpec *k, SimOccupancy *out,
                   GError **error);

const char *sim_occ_limit_name(SimOccLimit l);

#endif /* SIM_OCCUPANCY_H */
