/* smem_config.h -- a kernel's shared-memory configuration and the window of
 * SM configurations its blocks may join (FINDINGS.md §3, §28).
 *
 * An idle SM takes the configuration of the first kernel placed on it; a
 * busy SM keeps its own.  A block of another kernel joins a busy SM only if
 * the SM's configuration lies in its kernel's window, else it waits for an
 * SM to empty (measured on an H100: a 1-block victim loses either ~0 or
 * 0.5-0.9 us per graph node beside others, nothing between).
 *
 *  - own: the configuration the kernel gets alone: its smem_config_bytes
 *    (Nsight Compute's "Shared Memory Configuration Size") when given, else
 *    the rule: the smallest listed carveout (smem_carveouts_kib, less the
 *    rule skips) that holds its blocks per SM; with a preferred carveout p
 *    and no measured configuration, the larger of that and p's.
 *  - window without a preference: [own, largest] (§3: a kernel may join
 *    SMs configured for its own configuration or more);
 *  - with a preference p (carveout_pct, rounded up to a rule carveout):
 *    [min(need, p), own], need the rule's configuration (§28 --fit: not
 *    max(need, p); 0%-preference kernels configured 8 KB join only 8 KB
 *    SMs).
 * Pure functions of the model and the kernel spec; no ownership. */
#ifndef SIM_SMEM_CONFIG_H
#define SIM_SMEM_CONFIG_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpu_model.h"
#include "scenario.h"

typedef struct {
    uint32_t own;    /* bytes: its configuration alone */
    uint32_t lo, hi; /* bytes: SM configurations it may join */
} SimSmemWindow;

/* The rule's configuration for @want bytes of shared memory per SM: the
 * smallest listed carveout, not a rule skip, that holds them (the largest
 * when none does). */
uint32_t sim_smem_rule_config(const GpuModel *m, uint64_t want);

/* @k's configuration and window, for @blocks_per_sm blocks of
 * @block_smem bytes each (with the reservation: SimBlockNeeds).  Fails
 * when smem_config_bytes is not a listed carveout of @m or holds no
 * block. */
bool sim_smem_window(const GpuModel *m, const SimKernelSpec *k,
                     uint32_t blocks_per_sm, uint32_t block_smem,
                     SimSmemWindow *out, GError **error);

#endif /* SIM_SMEM_CONFIG_H */
