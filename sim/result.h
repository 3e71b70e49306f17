/* result.h -- what one simulation produced: per-op records, per-process and
 * per-stream statistics, GPU-wide metrics, and (optionally) the timelines
 * that pictures and the Perfetto export draw.
 *
 * A SimResult is plain data owned by the caller (sim_result_free).  Times are
 * SimTime nanoseconds from the start of the simulation.  Strings point into
 * the result's own string chunk, so a result outlives the scenario and model
 * it came from.
 */
#ifndef SIM_RESULT_H
#define SIM_RESULT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "simtime.h"

#define SIM_NO_INDEX UINT32_MAX

/* One GPU op (kernel, copy, event record/wait) as it ran. */
typedef struct {
    uint32_t proc;      /* index into SimResult.procs */
    uint32_t stream;    /* index into that process's streams */
    uint32_t op_index;  /* index into the process's ops */
    uint32_t node;      /* graph node of op op_index, or SIM_NO_INDEX */
    uint32_t iteration; /* closed-loop iteration or open-loop request */
    SimOpKind kind;
    uint32_t ctx;      /* index into SimResult.contexts */
    int32_t queue;     /* hardware queue within the context; -1 none */
    const char *name;  /* kernel name, or copy direction */
    SimTime issue_ns;  /* host finished issuing it */
    SimTime start_ns;  /* first block dispatched / copy began */
    SimTime end_ns;    /* last block done / copy done */
    uint32_t sms_used; /* distinct SMs that ran one of its blocks */
    uint32_t sm_set;   /* index into SimResult.sm_sets, or SIM_NO_INDEX */
    uint64_t blocks;   /* kernel blocks (0 for other ops) */
    bool aborted;      /* killed by a fault before it finished */
} SimOpRecord;

typedef struct {
    const char *name;
    int priority;
    uint32_t queue; /* hardware queue it was mapped to */
    uint64_t ops;   /* GPU ops completed */
    SimTime first_start_ns;
    SimTime last_end_ns;
    SimTime busy_ns;    /* sum of op durations */
    GArray *latency_ns; /* SimTime: issue -> end of each kernel/copy */
} SimStreamResult;

typedef enum {
    SIM_PROC_OK,
    SIM_PROC_NOT_STARTED, /* refused at start: memory, MPS client limit */
    SIM_PROC_KILLED,      /* a fatal fault (its own, or an MPS peer's) */
} SimProcStatus;

typedef struct {
    const char *name;
    SimProcStatus status;
    const char *status_reason; /* why not OK (nullable) */
    bool mps;
    uint32_t ctx;         /* index into SimResult.contexts */
    uint32_t connections; /* hardware queues it used */
    uint32_t sm_limit;    /* SMs it may use (sm_count if unlimited) */
    double active_thread_pct;
    uint64_t mem_bytes;       /* device memory charged to it (allocations
                                   + its context or MPS client share) */
    uint64_t mem_alloc_bytes; /* of which its own allocations; the rest
                                   is per-context overhead */
    SimTime start_ns;
    SimTime end_ns; /* its last op finished (or it died) */
    uint64_t kernels, copies;
    uint32_t iterations_done;
    GArray *latency_ns; /* SimTime per iteration / request */
    SimStreamResult *streams;
    uint32_t n_streams;
} SimProcResult;

typedef struct {
    const char *name; /* process name, or "MPS server" */
    bool mps_server;
    uint64_t mem_bytes; /* context overhead */
} SimContextResult;

/* A span during which one context held the GPU (time-slicing). */
typedef struct {
    uint32_t ctx;
    SimTime start_ns, end_ns;
} SimSlice;

/* A change of the warps resident on one SM (only with record_timeline). */
typedef struct {
    SimTime t_ns;
    uint32_t sm;
    uint32_t warps; /* resident warps of the context holding the GPU */
} SimSmSample;

typedef struct SimResult {
    char *gpu_name; /* model name */
    char *mode;     /* "timeslice", "mps", "scenario" */
    uint32_t sm_count;
    uint32_t max_warps_per_sm;
    SimTime makespan_ns; /* time the last op finished */
    SimTime nvml_period_ns;

    /* GPU-wide metrics over [0, makespan] */
    double gpu_util;            /* share of time >= 1 kernel executing */
    double gpu_util_max_sample; /* highest nvidia-smi style sample */
    double sm_active;           /* mean over SMs: share of time >= 1 warp */
    double achieved_occupancy;  /* mean resident warps / max warps */
    uint64_t context_switches;
    SimTime copy_busy_ns[SIM_COPY_N_DIRS];
    uint64_t device_mem_used_bytes;
    uint64_t device_mem_bytes;
    uint64_t events; /* simulation events processed */

    SimProcResult *procs;
    uint32_t n_procs;
    SimContextResult *contexts;
    uint32_t n_contexts;

    GArray *ops;          /* SimOpRecord (empty without record_ops) */
    GArray *sm_sets;      /* uint64_t[sm_words] per kernel record */
    uint32_t sm_words;    /* 64-bit words per SM set */
    GArray *busy;         /* SimTime pairs: intervals with >= 1 kernel
                                   executing, sorted, disjoint */
    GArray *util_samples; /* double per nvml period: nvidia-smi view */
    GArray *slices;       /* SimSlice */
    GArray *sm_timeline;  /* SimSmSample (only with record_timeline) */
    GPtrArray *notes;     /* char*: what the user should know (limits
                                   hit, rounding, refused processes) */
    GStringChunk *strings;
} SimResult;

SimResult *sim_result_new(void);
void sim_result_free(SimResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimResult, sim_result_free)

const char *sim_result_intern(SimResult *r, const char *s);
void sim_result_note(SimResult *r, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* Percentile (0..100) of a SimTime array by nearest rank; 0 when empty. */
SimTime sim_percentile(const GArray *times, double pct);
/* Mean of a SimTime array, rounded to the ns; 0 when empty. */
SimTime sim_time_mean(const GArray *times);

/* Completed iterations per second of simulated time for a process. */
double sim_proc_throughput(const SimProcResult *p);

/* Whether SM @sm is in SM set @set. */
bool sim_sm_set_has(const SimResult *r, uint32_t set, uint32_t sm);

/* "0-65,70,72-80" for an SM set (transfer full). */
char *sim_sm_set_format(const SimResult *r, uint32_t set);

#endif /* SIM_RESULT_H */
