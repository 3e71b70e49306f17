/* scenario.h -- a workload: processes, their streams, and the ordered program
 * of operations each process's host thread issues.
 *
 * A SimScenario is what the native JSON loader (scenario_load.c) and every
 * profiler importer (import/) produce, and what the engine consumes.  It is
 * plain data with no simulation state, so one scenario can be simulated many
 * times (compare, sweep) and written back out (scenario_write.c).
 *
 * Ownership: the scenario owns its processes; a process owns its streams, ops
 * and event names; all strings (kernel names, stream names...) live in the
 * scenario's string chunk, so an op is small and copying ops is cheap.
 *
 * Program model: a process's host thread walks `ops` in order.  Each op takes
 * `api_ns` of host time (SIM_TIME_NEVER: the GPU model's default for its
 * kind) and then, for GPU work, is enqueued on its stream.  The whole list is
 * one *iteration*; a closed-loop process runs `iterations` of them, each
 * starting once the previous one has completed on the GPU; an open-loop
 * process runs one iteration per arrival.
 */
#ifndef SIM_SCENARIO_H
#define SIM_SCENARIO_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernel_class.h"
#include "simtime.h"

typedef enum {
    SIM_OP_KERNEL,       /* GPU: a grid of blocks */
    SIM_OP_COPY,         /* GPU: a memcpy on a copy engine */
    SIM_OP_HOST_GAP,     /* host: busy for a while (CPU work, launch gaps) */
    SIM_OP_STREAM_SYNC,  /* host: wait until the stream's work is done */
    SIM_OP_DEVICE_SYNC,  /* host: wait until all the process's work is done */
    SIM_OP_EVENT_RECORD, /* GPU: record event after the stream's prior work */
    SIM_OP_EVENT_WAIT,   /* GPU: the stream waits for the event's last record */
    SIM_OP_EVENT_SYNC,   /* host: wait for the event's last record */
    SIM_OP_GRAPH,        /* GPU: a CUDA graph launched by one host call */
    SIM_OP_N_KINDS
} SimOpKind;

typedef enum {
    SIM_COPY_H2D,
    SIM_COPY_D2H,
    SIM_COPY_D2D,
    SIM_COPY_N_DIRS
} SimCopyDir;

/* A kernel launch.  Its work is given one of two ways:
 *  - duration_ns: how long the whole kernel takes when it runs alone on the
 *    GPU (what a profiler records), or
 *  - block_time_ns: how long one block takes when the kernel runs alone
 *    (blocks of the kernel sharing SMs with each other as they would).
 * Exactly one is non-zero.  The engine derives each block's work from it so
 * that the kernel alone reproduces that time exactly. */
typedef struct {
    const char *name; /* in the scenario's string chunk */
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t regs_per_thread; /* 0: unknown, treated as 32 */
    uint32_t static_smem_bytes;
    uint32_t dynamic_smem_bytes;
    uint32_t smem_config_bytes; /* the shared-memory configuration the
                             driver gives its SMs when it runs alone
                             (Nsight Compute's "Shared Memory Configuration
                             Size"); 0: unknown, hqsim's rule (smem_config.c) */
    uint8_t carveout_pct;       /* its preferred shared-memory carveout, % of
                             the largest (cudaFuncAttributePreferredShared-
                             MemoryCarveout); only with has_carveout_pct */
    bool has_carveout_pct;      /* false: none, the driver's default */
    SimTime duration_ns;
    SimTime block_time_ns;
    double sm_intensity;  /* share of SM issue capacity the kernel uses alone
                             (0..1]; 0: derive from resident warps */
    double sm_pipe_share; /* share of its SMs' busiest unit the kernel keeps
                             busy alone (Nsight Compute's Compute (SM)
                             Throughput); above its sm_intensity it is bound
                             on a pipe other than the issue slots (e.g. the
                             shared-memory pipe, engine_issue.c); 0: none */
    uint32_t ilp;         /* independent dependency chains per warp (its
                             instruction-level parallelism), 1..64; 0:
                             unknown.  Sets its warps' demand on their warp
                             scheduler when sm_intensity is not given
                             (engine_issue.c) */
    double mem_intensity; /* share of the peak DRAM bandwidth used alone
                             (Nsight Compute's DRAM Throughput); 0: none
                             (engine_dram.c) */
    uint64_t dram_bytes;  /* DRAM bytes it moves; 0: use mem_intensity */
    double l2_served;     /* share of its loads from the SMs that L2
                             serves alone (Nsight Compute: 1 - DRAM read
                             bytes / L2 read bytes); only with
                             has_l2_served (engine_share.c memload_wait) */
    bool has_l2_served;
    bool faults;        /* raises a fatal GPU fault when it starts */
    uint8_t bare_class; /* SimKernelClass (kernel_class.h): imported with
                             --bare-classes from a timeline without Nsight
                             Compute data for it;
                             with no sm_intensity/mem_intensity/dram_bytes/ilp
                             of its own, the engine gives it its class's
                             default issue share and DRAM throughput per
                             resident warp (GpuModel.bare_*_pct_per_warp);
                             0: none (its own or the FMA-chain assumption) */
    bool wall_clock;    /* its blocks run a fixed wall-clock time (they
                             spin on a timer): sharing an SM does not slow
                             them, preemption only delays their end */
    bool self_timed;    /* its blocks run for a fixed time of their own
                             running: sharing an SM does not slow them,
                             preemption pauses them, a resume costs
                             nothing (kernels that spin for a measured
                             running time) */
} SimKernelSpec;

typedef struct {
    uint64_t bytes;
    SimCopyDir dir;
    bool pinned;         /* pageable copies block the host */
    SimTime duration_ns; /* recorded duration; 0: from bandwidth model */
} SimCopySpec;

typedef struct SimGraph SimGraph;

typedef struct {
    SimOpKind kind;
    uint32_t stream; /* index into the process's streams (GPU ops and
                          stream sync) */
    uint32_t event;  /* index into the process's events (event ops) */
    SimTime api_ns;  /* host time to issue; SIM_TIME_NEVER: model default */
    SimTime at_ns;   /* the host makes the call no earlier than this,
                          relative to the process start (recorded call
                          times of a trace); 0: as soon as the host is
                          free */
    uint32_t line;   /* source line (or table row), for messages; 0 if
                          unknown */
    uint16_t where;  /* what `line` counts in: 0, a line of the
                          scenario's source; else its process's
                          wheres[where - 1] */
    union {
        SimKernelSpec kernel;
        SimCopySpec copy;
        SimTime gap_ns;  /* SIM_OP_HOST_GAP */
        SimGraph *graph; /* SIM_OP_GRAPH: owned by the scenario */
    } u;
} SimOp;

/* What a graph node does, for the device-side spacing between nodes
 * (gpu_model.h: graph_spacing_ns[from][to]). */
typedef enum {
    SIM_NODE_KERNEL,
    SIM_NODE_MEMSET,
    SIM_NODE_COPY,
    SIM_NODE_N_KINDS
} SimNodeKind;

/* One node of a CUDA graph: its work is an ordinary kernel or copy op
 * (a memset is a device-to-device copy of its size and duration) on the
 * graph op's stream, so the engine runs it like any kernel or copy. */
typedef struct {
    SimOp op; /* SIM_OP_KERNEL or SIM_OP_COPY; op.stream is the
                            graph op's stream (set by the engine's users) */
    SimNodeKind kind;
    const char *id; /* the file's id (string chunk), NULL if none */
    uint32_t *deps; /* indices of the nodes it runs after (in
                            SimGraph.dep_store) */
    uint32_t n_deps;
} SimGraphNode;

/* A CUDA graph: nodes and their dependencies, a DAG (checked by
 * sim_graph_finish).  Immutable once finished, except for the nodes' work
 * (solo-time inference rescales it); shared by the ops that launch it. */
struct SimGraph {
    SimGraphNode *nodes;
    uint32_t n_nodes;
    uint32_t *dep_store; /* all nodes' deps, n_edges */
    uint32_t n_edges;
    uint32_t *succ_off; /* successors of node i: succ[succ_off[i] ..
                              succ_off[i+1]) (sim_graph_finish) */
    uint32_t *succ;
    uint32_t n_kernels;
    bool unprofiled; /* run as without the profiler it was recorded under
                        (sim_scenario_unprofile_graphs): small memset nodes
                        are spaced as kernel nodes (engine_graph.c) */
};

typedef struct {
    const char *name; /* in the scenario's string chunk */
    int priority;     /* CUDA convention: lower number = higher priority,
                          0 is the default; clamped to the model's range */
} SimStreamSpec;

typedef enum {
    SIM_ARRIVALS_NONE,    /* closed loop: `iterations` back to back */
    SIM_ARRIVALS_UNIFORM, /* one request every 1/rate seconds */
    SIM_ARRIVALS_POISSON, /* exponential gaps at `rate`, seeded */
    SIM_ARRIVALS_LIST,    /* explicit request times */
} SimArrivalKind;

typedef struct {
    SimArrivalKind kind;
    double rate_per_s;
    uint32_t count;    /* requests for UNIFORM/POISSON */
    SimTime *times_ns; /* LIST: sorted, relative to process start */
    uint32_t n_times;
} SimArrivals;

/* Op fields whose range the validator checks, as an importer may name
 * them after the trace's columns (SimProcessSpec.columns). */
typedef enum {
    SIM_COL_GRID_X,
    SIM_COL_GRID_Y,
    SIM_COL_GRID_Z,
    SIM_COL_BLOCK_X,
    SIM_COL_BLOCK_Y,
    SIM_COL_BLOCK_Z,
    SIM_COL_REGS,
    SIM_COL_SMEM_STATIC,
    SIM_COL_SMEM_DYNAMIC,
    SIM_COL_KERNEL_DURATION,
    SIM_COL_COPY_BYTES,
    SIM_COL_COPY_DURATION,
    SIM_COL_N
} SimColumn;

typedef struct {
    const char *name;
    SimTime start_ns;             /* when the process starts (creates its
                                   context) */
    bool mps;                     /* an MPS client (else its own context) */
    double active_thread_pct;     /* MPS: 0 < pct <= 100; 100 = no limit */
    uint64_t device_mem_bytes;    /* device memory the process allocates */
    uint64_t mps_mem_limit_bytes; /* MPS pinned-memory limit; 0 = none */
    uint32_t connections;         /* CUDA_DEVICE_MAX_CONNECTIONS; 0 = default */
    uint32_t iterations;          /* closed loop: >= 1 */
    SimArrivals arrivals;
    SimStreamSpec *streams; /* in creation order */
    uint32_t n_streams;
    SimOp *ops;
    uint32_t n_ops;
    const char **event_names; /* in the string chunk */
    uint32_t n_events;
    struct SimJitter *jitter; /* spread of its op times (sim/jitter.h,
                                   owned); NULL: every request the same */
    const char **wheres;      /* where its ops' lines are, as message
                                   prefixes the line number follows:
                                   "b.csv:" or "r.sqlite: table T, row "
                                   (in the string chunk; SimOp.where) */
    uint32_t n_wheres;
    const char *columns[SIM_COL_N]; /* an imported process: the trace's
                                   column each field was read from, as the
                                   file spells it (in the string chunk),
                                   for messages; NULL: the native field's
                                   name.  Three equal names of grid or
                                   block dimensions: one tuple column */
} SimProcessSpec;

typedef struct SimScenario {
    char *source;       /* file it came from (owned) */
    char *format;       /* "hqsim", "nvprof", "nsys-sqlite"... */
    char *description;  /* (nullable, owned) */
    char *gpu;          /* suggested GPU model name (nullable) */
    char *gpu_recorded; /* the GPU a trace names, as it names it
                                   (nullable, owned) */
    char *gpu_mapping;  /* why `gpu` is not exactly the recorded
                                   GPU (nearest by generation, or no GPU
                                   named and one assumed); NULL when exact
                                   or native (owned) */
    char *clock_note;   /* traces recorded apart were moved to start
                                   together: which, and how far apart they
                                   were (nullable, owned; import/README.md
                                   rule 1) */
    uint64_t seed;
    uint32_t host_cores; /* CPU cores the processes' host threads
                                   share (sim/engine_host.c); 0: the GPU
                                   model's, else unlimited */
    GStringChunk *strings;
    GPtrArray *processes; /* SimProcessSpec*, owned */
    GPtrArray *graphs;    /* SimGraph*, owned (graph ops point here) */
} SimScenario;

/* An empty scenario; add processes with sim_scenario_add_process(). */
SimScenario *sim_scenario_new(const char *source, const char *format);
void sim_scenario_free(SimScenario *sc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimScenario, sim_scenario_free)

/* Intern a string in the scenario (NULL stays NULL).
 * Returns: (transfer none), valid as long as the scenario. */
const char *sim_scenario_intern(SimScenario *sc, const char *s);

/* Append a new process with defaults (iterations 1, 100%, no streams).
 * Returns: (transfer none). */
SimProcessSpec *sim_scenario_add_process(SimScenario *sc, const char *name);

/* Append a stream; returns its index. */
uint32_t sim_process_add_stream(SimScenario *sc, SimProcessSpec *p,
                                const char *name, int priority);
/* Append an event; returns its index. */
uint32_t sim_process_add_event(SimScenario *sc, SimProcessSpec *p,
                               const char *name);
/* Append an op (copied); returns a pointer to the stored op, valid until
 * the next append.  api_ns defaults to SIM_TIME_NEVER if the caller left it
 * 0 and set nothing: callers set it explicitly. */
SimOp *sim_process_add_op(SimProcessSpec *p, const SimOp *op);

/* Where @op of @p comes from, for messages: "x.json:12", "b.csv:7",
 * "r.sqlite: table CUPTI_ACTIVITY_KIND_KERNEL, row 4", or the scenario's
 * source alone when the line is unknown.  Returns: (transfer full). */
char *sim_op_location(const SimScenario *sc, const SimProcessSpec *p,
                      const SimOp *op);

/* The SimOp.where of ops of @p whose lines are counted after @prefix
 * ("b.csv:" for line N of b.csv, "r.sqlite: table T, row " for row N of
 * table T); the same prefix gives the same value.  0 (the scenario's
 * source) past 65535 prefixes. */
uint16_t sim_process_where(SimScenario *sc, SimProcessSpec *p,
                           const char *prefix);

/* A new empty graph owned by @sc; add nodes with sim_graph_add_node(),
 * then call sim_graph_finish(). */
SimGraph *sim_scenario_new_graph(SimScenario *sc);
/* Append a node (copied) with @n_deps dependencies (node indices < the
 * new node's index, or any index if the caller checks with finish).
 * Returns: the node's index. */
uint32_t sim_graph_add_node(SimGraph *g, const SimGraphNode *node,
                            const uint32_t *deps, uint32_t n_deps);
/* Build the successor lists and check the graph: dependencies in range,
 * no cycle.  On a cycle, *bad is a node on it.  Returns false on error. */
bool sim_graph_finish(SimGraph *g, uint32_t *bad);
/* Deep copy of @g into @dst (kernel names and ids interned there). */
SimGraph *sim_graph_copy(SimScenario *dst, const SimGraph *g);
/* Kernel and copy ops a graph op contributes to the op count. */
static inline uint32_t sim_op_gpu_count(const SimOp *op)
{
    return op->kind == SIM_OP_GRAPH ? op->u.graph->n_nodes : 1;
}

/* A deep copy (fresh string chunk). */
SimScenario *sim_scenario_copy(const SimScenario *sc);

/* Before copying every process @n times (--processes): the processes and
 * ops limits (bounds.h), checked before the memory is spent. */
/* Ops one run simulates: each process's ops (a graph op counts its
 * nodes, sim_op_gpu_count) x its iterations (or arrivals), summed,
 * saturating at UINT64_MAX. */
uint64_t sim_scenario_work(const SimScenario *sc);

/* Kernel-to-SM placements one run makes at least on a GPU of @sms SMs:
 * each kernel launch (also a graph's kernel nodes) reaches min(blocks,
 * @sms) SMs, x its process's iterations (or arrivals), summed, saturating.
 * The engine's cost per kernel grows with the SMs it reaches (a block
 * group per SM), so this bounds a run's time from below where ops do
 * not. */
uint64_t sim_scenario_placements(const SimScenario *sc, uint32_t sms);

bool sim_scenario_check_copies(const SimScenario *sc, uint32_t n,
                               GError **error);

/* Append a copy of every process of @src to @dst (a process whose name
 * @dst already has gets " (fixed)" appended).  Used by `sweep --fixed`. */
void sim_scenario_append(SimScenario *dst, const SimScenario *src);

/* Append @n copies of process @index named NAME#1..NAME#n (the original
 * becomes NAME#0 when n >= 1).  Used by --processes N. */
void sim_scenario_replicate_process(SimScenario *sc, uint32_t index,
                                    uint32_t n_total);

/* The native format's ranges (README "Scenario format"): the loader reads
 * them and sim_scenario_validate() applies them to every scenario, imported
 * ones included, so whatever `import` writes, `run` reads back. */
#define SIM_MAX_REGS_PER_THREAD 1024u
#define SIM_MAX_SMEM_BYTES (1u << 24)
#define SIM_MAX_TIME_US 1e12 /* durations, at_us, start_us */
#define SIM_MAX_API_US 1e9
#define SIM_MAX_COPY_BYTES ((uint64_t)1 << 50)

/* CUDA's largest grid and block dimensions (x, y, z). */
extern const uint32_t sim_cuda_grid_max[3];
extern const uint32_t sim_cuda_block_max[3];

/* Total threads of a kernel's block / blocks of its grid. */
static inline uint64_t sim_kernel_threads_per_block(const SimKernelSpec *k)
{
    return (uint64_t)k->block[0] * k->block[1] * k->block[2];
}
static inline uint64_t sim_kernel_blocks(const SimKernelSpec *k)
{
    return (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
}

const char *sim_op_kind_name(SimOpKind k);
const char *sim_copy_dir_name(SimCopyDir d);

/* Load a native scenario (JSON).  Errors name file, line and field.
 * Returns: (transfer full) (nullable). */
SimScenario *sim_scenario_load(const char *path, GError **error);
/* The same from text in memory (tests). */
SimScenario *sim_scenario_parse(const char *name, const char *text, size_t len,
                                GError **error);

/* Write @sc as a native scenario (JSON) to @path, atomically.  Consecutive
 * identical ops are written once with a "repeat" count. */
bool sim_scenario_write(const SimScenario *sc, const char *path,
                        GError **error);
/* The same into a string. Returns: (transfer full). */
char *sim_scenario_to_json(const SimScenario *sc);

/* Check a scenario built by an importer or by hand: stream and event indices
 * in range, kernels with non-zero grids, exactly one work measure, etc.
 * Errors name the process and op (and its source line if known). */
bool sim_scenario_validate(const SimScenario *sc, GError **error);

#endif /* SIM_SCENARIO_H */
