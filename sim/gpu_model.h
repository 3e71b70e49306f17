/* gpu_model.h -- a GPU model: the hardware facts and scheduling parameters
 * that the engine reads, loaded from models/NAME.json.
 *
 * Every field has its unit in its name and a provenance string in the file's
 * "source" object.  The loader is table-driven (gpu_model.c, model_fields[]):
 * it rejects unknown fields, reports missing ones, and range-checks each value,
 * naming the file and the field.  A GpuModel is a plain value: the caller owns
 * it and frees it with sim_gpu_model_free().
 */
#ifndef SIM_GPU_MODEL_H
#define SIM_GPU_MODEL_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernel_class.h"
#include "simtime.h"

#define SIM_MAX_SMS 512 /* upper bound on sm_count (bitmaps, arrays) */
#define SIM_MAX_CARVEOUTS 16
/* Entries of sm_ilp_saturation_warps: ILP 2, 4, ... 2^SIM_MAX_ILP_SAT. */
#define SIM_MAX_ILP_SAT 6
/* Points of host_wake_us: (idle gap, wake cost) pairs. */
#define SIM_MAX_HOST_WAKE 8
/* Entries of mps_func_lru_weight: LRU distances 0 .. SIM_MAX_FUNC_LRU - 1,
 * the last one standing for every larger distance. */
#define SIM_MAX_FUNC_LRU 16
#define SIM_MAX_SUBPARTITIONS 4

/* How the block dispatcher picks an SM for the next block (see
 * gpu-scheduling-rules.md S8 and §2.4). */
typedef enum {
    SIM_PLACE_MOST_FREE,   /* most free warps first, ties by dispatch order */
    SIM_PLACE_FILL_FIRST,  /* lowest dispatch-order SM that fits */
    SIM_PLACE_ROUND_ROBIN, /* one block per SM in dispatch order, cycling */
    SIM_PLACE_MOST_ROOM,   /* most of the kernel's blocks fitting first, then
                              as most-free (FINDINGS.md §30) */
} SimPlacement;

/* Where a time-sliced context can be preempted. */
typedef enum {
    SIM_PREEMPT_INSTRUCTION, /* Pascal and later: mid-block, blocks frozen */
    SIM_PREEMPT_BLOCK,       /* Kepler, Maxwell: only at block boundaries */
} SimPreemption;

/* How an MPS active-thread percentage becomes an SM count. */
typedef enum {
    SIM_ROUND_DOWN,
    SIM_ROUND_UP,
    SIM_ROUND_NEAREST,
} SimRounding;

/* Which SMs an MPS client limited to N SMs may use. */
typedef enum {
    SIM_MPS_SMS_DYNAMIC, /* any N SMs at a time, chosen at dispatch */
    SIM_MPS_SMS_STATIC,  /* a fixed set of N SMs, offset per client */
} SimMpsSmAssign;

typedef struct GpuModel {
    char *name;          /* file stem, e.g. "h100-sxm" */
    char *display_name;  /* e.g. "NVIDIA H100 SXM5 80GB" */
    char *path;          /* file it was loaded from (for messages) */
    GHashTable *sources; /* JSON field name -> provenance string (owned) */
    bool calibrated;     /* parameters calibrated on real hardware */
    int cc_major, cc_minor;

    /* --- SM resources (the occupancy calculator's inputs) --- */
    uint32_t sm_count;
    uint32_t sms_per_tpc; /* MPS limits and partitions go by TPC */
    uint32_t max_threads_per_sm;
    uint32_t max_warps_per_sm;
    uint32_t max_blocks_per_sm;
    uint32_t max_threads_per_block;
    uint32_t regs_per_sm; /* 32-bit registers */
    uint32_t max_regs_per_block;
    uint32_t max_regs_per_thread;
    uint32_t reg_alloc_unit_regs; /* per-warp allocation granularity */
    uint32_t reg_subpartitions;   /* register file split (4; 2 on cc 6.0) */
    uint32_t warp_alloc_granularity;
    uint32_t smem_per_sm_bytes; /* largest carveout */
    uint32_t smem_carveouts_kib[SIM_MAX_CARVEOUTS];
    uint32_t n_smem_carveouts;
    uint32_t smem_rule_skips; /* bit i: smem_carveouts_kib[i] is one the
                                 driver chooses but hqsim's size rule never
                                 derives (smem_carveouts_rule_skips_kib;
                                 smem_config.c) */
    uint32_t max_smem_per_block_bytes; /* with opt-in */
    uint32_t smem_alloc_granularity_bytes;
    uint32_t smem_reserved_per_block_bytes;
    uint32_t max_resident_grids;

    /* --- Work queues --- */
    uint32_t connections_default; /* CUDA_DEVICE_MAX_CONNECTIONS default */
    uint32_t connections_max;
    uint32_t stream_priority_levels; /* e.g. 6 for the range [0,-5] */

    /* --- Block execution and contention --- */
    SimPlacement placement;
    uint32_t *dispatch_order;        /* sm_count SM ids, first to last */
    double sm_saturation_warps;      /* Tmax: an SM's saturated issue
                                         rate, in warps of a lone-warp
                                         kernel's speed */
    double sm_full_speed_warps;      /* L0: warps an SM runs each at a
                                         lone warp's speed (latency fully
                                         hidden); >= Tmax: a hard knee */
    bool sm_release_staggered;       /* a wave's SMs go back to the
                                         dispatcher one at a time, in a
                                         seeded order (engine_sm.c) */
    double sm_block_end_spread;      /* s: blocks of one kernel placed
                                         together on a saturated SM end
                                         spread over the last s of their
                                         time while another kernel waits
                                         (engine_sm.c); 0: together */
    double sm_late_start_warps;      /* a fixed-time block placed on an
                                         SM already holding this many
                                         resident warps starts late
                                         (engine_sm.c, late_split); 0: off */
    SimTime sm_late_start_tick_ns;   /* the period of those late starts */
    double sm_late_start_phase_min;  /* a late block's first warp starts
                                         a uniform [min, 1] of a tick after
                                         its placement, its other warps one
                                         tick later */
    double sm_age_priority_warps;    /* lambda: load beyond saturation
                                         over which older warps take
                                         priority (engine_issue.c); 0: off,
                                         proportional sharing */
    double sm_issue_share_max;       /* share of issue slots busy of a kernel
                                  whose warps never stall (0: unknown) */
    double sm_issue_share_saturated; /* share of issue slots busy (as
                                         Nsight Compute counts them) when
                                         the SM is saturated: a kernel's
                                         sm_intensity over it is its share
                                         of the saturated rate */
    double sm_ilp_room_exponent;     /* a: a warp scheduler's room for a
                                         second warp beyond one at full
                                         speed shrinks as ILP^-a from the
                                         ILP-1 curve's (kernels with an ilp
                                         and no sm_intensity; 0: off, every
                                         warp counts as ILP 1) */
    double sm_ilp_saturation_warps[SIM_MAX_ILP_SAT]; /* the saturated rate
                                         of ILP 2, 4, 8, ... warps alone, in
                                         their lone-warp speeds per SM,
                                         measured (optional; where given it
                                         replaces the exponent) */
    uint32_t n_sm_ilp_saturation_warps;
    /* "bare_kernel_classes" (optional): per SimKernelClass, a bare trace
     * kernel's default Nsight Compute "Issue Slots Busy" and "DRAM
     * Throughput" (% of the GPU's peak) per warp resident on an SM in its
     * first wave, averaged over all SMs (engine_sm.c bare_intensities;
     * fitted: harness/bare_kernel_fit.py, FINDINGS.md §56).  Without it,
     * or for a class whose issue rate is 0, a bare kernel's every warp is
     * a dependent FMA chain. */
    bool has_bare_classes;
    double bare_issue_pct_per_warp[SIM_KCLASS_N];
    double bare_dram_pct_per_warp[SIM_KCLASS_N];
    double sm_greedy_warp_share;      /* a warp of known ILP holds its
                                         scheduler (issues first beside
                                         other warps at any load) when
                                         alone it takes more than this
                                         share of the scheduler's rate
                                         saturated with ILP-1 warps */
    SimTime submit_latency_ns;        /* API return -> op visible at its
                                         hardware queue */
    SimTime kernel_launch_latency_ns; /* queue head -> first block */
    SimTime launch_api_ns;            /* host time of cudaLaunchKernel */
    SimTime copy_api_ns;              /* host time of cudaMemcpyAsync */
    SimTime sync_api_ns;              /* host time to return from a sync */
    SimTime event_api_ns;             /* host time of cudaEventRecord /
                                         cudaStreamWaitEvent */

    /* --- CUDA graphs (engine_graph.c) --- */
    /* part of a kernel's recorded duration that does not grow with its
       waves: it completes this long after its last block (engine_sm.c) */
    SimTime kernel_fixed_ns;
    SimTime graph_launch_api_ns;     /* host time of cudaGraphLaunch ... */
    SimTime graph_node_api_ns;       /* ... plus this per node */
    SimTime graph_launch_latency_ns; /* graph visible at an idle queue
                                         head -> its root nodes start */
    SimTime graph_wait_latency_ns;   /* graph already visible, its stream
                                         predecessor completes -> roots */
    SimTime graph_node_spacing_ns;   /* a node's dependency ends -> it
                                         starts (kernels and copies) */
    /* the same once the GPU has switched between contexts */
    SimTime graph_node_spacing_sliced_ns;
    SimTime graph_to_memset_ns;   /* the same, before a memset node */
    SimTime graph_from_memset_ns; /* the same, after a memset node */
    /* memset nodes of at most this many bytes take the two memset
     * spacings above; larger ones are spaced like kernel nodes */
    uint32_t graph_memset_slow_max_bytes;
    SimTime graph_branch_stagger_ns; /* nodes made ready at one instant
                                         start this much apart */
    /* what a profiler (CUPTI) adds to a graph kernel node's recorded
     * duration: taken out when a trace is run as the unprofiled process
     * (--host-scale, sim_scenario_unprofile_graphs) */
    SimTime profiler_kernel_ns;

    /* --- What an MPS client pays beyond a process of its own --- */
    SimTime mps_client_api_ns;    /* per launch/copy/event/graph call */
    SimTime mps_client_sync_ns;   /* per synchronize */
    SimTime mps_client_launch_ns; /* per kernel launch (latency) */
    SimTime mps_client_node_ns;   /* per graph node (spacing) */
    SimTime mps_client_kernel_ns; /* per kernel of >= 2 blocks, stream
                                         or graph node: it reaches the
                                         dispatcher later (1-block kernels
                                         measured nothing) */
    /* A graph kernel node of >= 2 blocks right after the client's 1-block
     * kernel starts mps_func_fetch x w(d) x L(P) later, d its function's
     * LRU distance in the client (distinct other functions since it last
     * ran), w = mps_func_lru_weight[min(d, n - 1)], L the loaded DRAM
     * latency at its own and its context's pressure (engine_share.c). */
    SimTime mps_func_fetch_ns;
    /* Such a fetch holds up the server's other clients too: each of them
     * starts its next kernel (any width, graph or stream) the largest
     * w(d) x L(P) of the fetches since its last kernel times this later
     * (engine_share.c). */
    SimTime mps_func_xreload_ns;
    /* While a kernel of another client of its server runs (a block
     * placed), a graph kernel node (any width) starts mps_func_busy x w(D)
     * later, D its function's LRU distance among the server's (client,
     * function) pairs, w the same table (engine_share.c, FINDINGS §43,
     * §52). */
    SimTime mps_func_busy_ns;
    /* The other clients' load on the memory path (FINDINGS §54, §60,
     * §62; engine_share.c): an MPS client's kernel (any width, graph node
     * or stream launch) starts later by the rest of the mps_fend_hold that
     * the other clients' last kernel start keeps the launch front end,
     * and, unless it is fixed-time (wall_clock, self_timed: no memory
     * accesses of its own), takes mps_mem_load x R / (R + mps_mem_load_half)
     * longer, R the DRAM pressure of the other clients' resident blocks
     * (units of the achievable bandwidth).  0 (both times): off. */
    SimTime mps_fend_hold_ns;
    SimTime mps_mem_load_ns;
    double mps_mem_load_half;
    /* The memory part paid per dependent memory round trip of a block
     * too (FINDINGS §65): it grows by this share of the part of the
     * block's time alone (its work per wave) that waits, 1 - its measured
     * issue share / sm_issue_share_max (all of it without one), times the
     * same R / (R + mps_mem_load_half).  The memory part is paid inside
     * the kernel, by its first blocks on each SM.  0: off. */
    double mps_mem_trip_share;
    /* With l2_evict_mb > 0 the round trips of that wait are the kernel's
     * L2 hits that the other clients' DRAM stream evicts before their
     * reuse (FINDINGS.md §67, §69; engine_share.c memload_wait): of its
     * loads the L2-served share h (Nsight Compute: 1 - DRAM read bytes /
     * L2 read bytes from the SMs; l2_served_default without one) lose
     * 1 - exp(-(X / l2_evict_mb)^l2_evict_shape), X the bytes the others
     * bring in (R x dram_achievable_gbps) over l2_reuse_share x T, and
     * each lost hit costs l2_miss_ratio - 1 hit latencies; the block's
     * waiting time w x T is then longer by mps_mem_trip_share x h x loss
     * x (l2_miss_ratio - 1) / (h + (1 - h) x l2_miss_ratio).  0: off (the
     * share applies to every round trip alike, FINDINGS §65). */
    double l2_evict_mb;
    double l2_evict_shape;
    double l2_miss_ratio;
    double l2_reuse_share;
    double l2_served_default;
    /* A device-to-host copy of an MPS client starts this much later per
     * other client of the server with device work in flight when the copy
     * could start: the hand-off to the copy engine waits behind busy
     * neighbours (FINDINGS.md §44; engine_copy.c). */
    SimTime mps_copy_handoff_ns;
    /* A graph kernel node (any width) of an MPS client whose function is
     * at LRU distance >= mps_func_evict_lru in that client (distinct other
     * functions since it last ran, as eng_func_lru_touch counts them; a
     * function not among the last SIM_MAX_FUNC_LRU counts as that, a first
     * run too once that many ran; a first run before pays nothing) starts
     * mps_func_evict later: the PyTorch kernels of a lone client pay
     * nothing over 8 distinct functions and ~0.2 us each over 16
     * (FINDINGS §55; engine_share.c). */
    SimTime mps_func_evict_ns;
    uint32_t mps_func_evict_lru;
    double mps_func_lru_weight[SIM_MAX_FUNC_LRU];
    uint32_t n_mps_func_lru_weight;

    /* --- Contexts and time-slicing --- */
    SimPreemption preemption;
    SimTime timeslice_ns;
    SimTime context_switch_ns;      /* switch out of a context with blocks
                                       resident (they are preempted) */
    SimTime context_switch_idle_ns; /* switch out of a context with none
                                       (it ran out of work) */
    SimTime idle_yield_ns;
    double context_state_gbps;  /* resident state saved/restored at a
                                         switch, GB/s */
    SimTime context_resume_ns;  /* progress lost by preempted blocks
                                         at each resume */
    uint64_t context_mem_bytes; /* device memory per CUDA context */

    /* --- MPS --- */
    bool mps_supported;
    bool mps_volta; /* Volta+ MPS: per-client connections,
                                         thread-percentage limits */
    uint32_t mps_max_clients;
    uint32_t mps_connections_default;
    uint32_t mps_connection_budget; /* channels the server can hand out */
    uint32_t mps_min_tpcs;          /* smallest SM limit, in TPCs */
    SimRounding mps_pct_rounding;
    SimMpsSmAssign mps_sm_assign;
    uint64_t mps_server_mem_bytes;
    uint64_t mps_client_mem_bytes;

    /* --- Memory and copies --- */
    uint64_t device_mem_bytes; /* usable, as cudaMemGetInfo total */
    uint32_t copy_engines_h2d;
    uint32_t copy_engines_d2h;
    double h2d_bandwidth_gbps; /* pinned, GB/s = 1e9 bytes/s */
    double d2h_bandwidth_gbps;
    double d2d_bandwidth_gbps;
    double pageable_bandwidth_factor; /* pageable / pinned bandwidth */
    double copy_duplex_factor;        /* each direction's bandwidth while
                                         H2D and D2H copies overlap */
    SimTime copy_latency_ns;
    double dram_bandwidth_gbps;  /* nominal peak (datasheet) */
    double dram_achievable_gbps; /* B: what the delivered-bandwidth
                                         curve approaches (engine_dram.c);
                                         0: DRAM not shared */
    double dram_curve_exponent;  /* n of d(r) = r / (1 + r^n)^(1/n) */
    /* the part of a kernel's launch path (graph node spacing, stream launch
     * latency) that waits on DRAM: paid L(P) - 1 more times under pressure
     * P (engine_dram.c) */
    SimTime dram_launch_latency_ns;
    /* A per-SM ceiling on DRAM throughput (engine_dram.c): an SM whose
     * resident warps of DRAM-demanding kernels number W moves at most
     * dram_sm_gbps_max x W / (W + dram_sm_half_warps) GB/s (Little's law:
     * its bytes in flight over a latency that grows with them).  0: none. */
    double dram_sm_gbps_max;
    double dram_sm_half_warps;

    /* --- Metrics --- */
    SimTime nvml_sample_period_ns; /* nvidia-smi GPU-Util window */
    uint32_t sm_clock_mhz;
    uint32_t host_cores; /* CPU cores of the machine, shared by
                                         the processes' host threads
                                         (optional; 0: unlimited) */
    /* host_wake_us (optional): an open-loop request that finds its
     * process idle for a gap g pays host_wake(g) of host CPU work before
     * its first call: linear between the points (gap, cost), from (0, 0),
     * held beyond the last; gaps strictly increasing (FINDINGS §59) */
    SimTime host_wake_gap_ns[SIM_MAX_HOST_WAKE];
    SimTime host_wake_cost_ns[SIM_MAX_HOST_WAKE];
    uint32_t n_host_wake; /* 0: no wake cost */
} GpuModel;

/* Load and validate one model file.
 * Returns: (transfer full) (nullable): NULL with @error set on failure. */
GpuModel *sim_gpu_model_load(const char *path, GError **error);

/* Find a model by name ("h100-sxm") or by path (anything containing '/' or
 * ending in .json).  Names are looked up in @models_dir (NULL: the default,
 * see sim_models_dir()). */
GpuModel *sim_gpu_model_find(const char *name_or_path, const char *models_dir,
                             GError **error);

/* The directory holding the bundled models, the first of: $HQSIM_MODELS
 * if set and not empty; HQSIM_DATADIR/models if the build set HQSIM_DATADIR
 * (an installed hqsim: PREFIX/share/hqsim) and it is a folder; models/ of
 * the source tree the binary was built from, if it is a folder; ./models.
 * Returns: (transfer none). */
const char *sim_models_dir(void);

/* List model files (sorted names without .json) in @dir.
 * Returns: (transfer full) NULL-terminated; free with g_strfreev. */
char **sim_gpu_model_list(const char *dir, GError **error);

void sim_gpu_model_free(GpuModel *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GpuModel, sim_gpu_model_free)

/* A deep copy (for what-if runs that modify a field). */
GpuModel *sim_gpu_model_copy(const GpuModel *m);

/* An SM's issue rate with @L warps resident (in lone-warp speeds, each
 * warp of a kernel without a given intensity counting 1): L up to
 * sm_full_speed_warps, then rising smoothly to sm_saturation_warps, which
 * it approaches (measured on an H100 with dependent FMA chains: 4 warps run
 * at full speed, 8 at 0.82 of the saturated rate, FINDINGS.md §5). */
double sim_gpu_model_issue_rate(const GpuModel *m, double L);

/* The same curve with its knee at @knee warps (clamped to
 * [sm_full_speed_warps, sm_saturation_warps]): an SM whose warp schedulers
 * each hold one warp that asks more than an ILP-1 warp still runs every
 * such lone warp at full speed (engine_issue.c). */
double sim_gpu_model_issue_rate_knee(const GpuModel *m, double L, double knee);

/* The load, in ILP-1 warps, of one warp of a kernel of @ilp independent
 * chains: the saturated rate of ILP-1 warps over that of such warps,
 * Ts / Ts_ilp.  Ts_ilp from sm_ilp_saturation_warps where the model gives
 * it (linear in log2(ilp) between ILP 1 (Ts) and the entries, the last
 * entry beyond them), else L0 + (Ts - L0) ilp^-a with a =
 * sm_ilp_room_exponent; 1 for ilp <= 1 or neither given. */
double sim_gpu_model_ilp_warp_load(const GpuModel *m, uint32_t ilp);

/* exp(@x) bit for bit, from a per-thread table of recent arguments (the
 * engine's curves are asked again and again at the same loads). */
double sim_gpu_model_memo_exp(double x);

/* Speed of each of @L resident warps relative to a lone warp:
 * issue_rate(L) / L (1 for L <= 0). */
double sim_gpu_model_warp_speed(const GpuModel *m, double L);

/* The host wake cost of an open-loop request after its process sat idle
 * for @gap (host_wake_us, linear from (0, 0) through its points, held
 * beyond the last); 0 where the model has no table. */
SimTime sim_gpu_model_host_wake(const GpuModel *m, SimTime gap);

/* The load, in warps, at which an SM issues @share (0..1) of its saturated
 * rate: how a kernel's given SM intensity becomes warps.  1 gives the
 * SM's maximum warps (or Tmax with a hard knee). */
double sim_gpu_model_load_for_share(const GpuModel *m, double share);

/* How the model rounds an active thread percentage to whole TPCs, as
 * words after "rounded": "down", "up" or "to nearest".
 * Returns: (transfer none). */
const char *sim_gpu_model_rounding_phrase(const GpuModel *m);

/* The SM count an MPS client at @pct percent (0 < pct <= 100) may use, per
 * the model's TPC granularity and rounding rule; at least one TPC. */
uint32_t sim_gpu_model_mps_sm_limit(const GpuModel *m, double pct);

/* The highest MPS client count given @connections per client. */
uint32_t sim_gpu_model_mps_client_limit(const GpuModel *m,
                                        uint32_t connections);

/* Print one line per field with its value and source (for `hqsim models
 * --show NAME`). */
void sim_gpu_model_describe(const GpuModel *m, GString *out);

#endif /* SIM_GPU_MODEL_H */
