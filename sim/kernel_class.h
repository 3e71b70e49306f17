/* kernel_class.h -- the class of a kernel a bare trace gives no Nsight
 * Compute data for, from its name (issue 10, FINDINGS.md §56).
 *
 * A timeline (Kineto, nsys, nvprof) records a kernel's name, grid, block,
 * registers, shared memory and duration, not how busy it keeps an SM's
 * issue slots or the DRAM: hqsim takes every warp for a dependent FMA
 * chain.  With --bare-classes the import gives such a kernel its class
 * (SimKernelSpec.bare_class), and the engine its class's default issue
 * share and DRAM throughput per resident warp from the GPU model
 * (GpuModel.bare_issue_pct_per_warp / bare_dram_pct_per_warp, fitted by
 * harness/bare_kernel_fit.py), where the model has them.  The class comes from an
 * ordered table of name fragments (kernel_class.c): the first class with a
 * fragment found in the name, case-insensitively, wins.  Pure functions;
 * no ownership. */
#ifndef SIM_KERNEL_CLASS_H
#define SIM_KERNEL_CLASS_H

#include <stdbool.h>

typedef enum {
    SIM_KCLASS_NONE = 0, /* not a bare kernel: measured intensities, a
                            scenario's own, or the FMA-chain assumption */
    SIM_KCLASS_GEMV,
    SIM_KCLASS_SGEMM, /* CUDA-core FP32 GEMMs: an FFMA stream */
    SIM_KCLASS_GEMM,
    SIM_KCLASS_NORM,
    SIM_KCLASS_ELEMENTWISE,
    SIM_KCLASS_OTHER
} SimKernelClass;
#define SIM_KCLASS_N (SIM_KCLASS_OTHER + 1)

/* The class of a kernel named @name (never SIM_KCLASS_NONE: a name that
 * matches no fragment is "other"). */
SimKernelClass sim_kernel_class_of(const char *name);

/* "gemv", "sgemm", "gemm", "norm", "elementwise", "other"; "" for NONE.
 * Returns: (transfer none). */
const char *sim_kernel_class_name(SimKernelClass c);

/* The class named @s (one of the names above, not ""); false if none. */
bool sim_kernel_class_parse(const char *s, SimKernelClass *c);

#endif /* SIM_KERNEL_CLASS_H */
