/* trace.h -- the importers' common intermediate form (internal to import/).
 *
 * Each format reader (nvprof.c, nsys_csv.c, nsys_sqlite.c, ncu.c,
 * kineto.c) only *transcribes* what its file recorded into a SimTrace:
 * processes, the streams the trace declares, and one SimTraceOp per GPU
 * activity or synchronization with its recorded GPU times and, where the
 * trace has them, the host API call's times.  It decides nothing about
 * issue order or host gaps: workload.c applies those rules once, the same
 * way for every format (import/README.md states them).
 *
 * Times are int64 nanoseconds in the file's own time base (see
 * SimTrace.absolute); SIM_TRACE_NO_TIME marks "not recorded".  Stream and
 * event ids are the trace's own numbers.  Strings live in the trace's
 * string chunk.
 */
#ifndef SIM_IMPORT_TRACE_H
#define SIM_IMPORT_TRACE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"

#define SIM_TRACE_NO_TIME INT64_MIN
#define SIM_TRACE_NO_ID INT64_MIN
/* Readers refuse times beyond this (about 146 years of ns), so that sums
 * and differences of two times never overflow int64. */
#define SIM_TRACE_MAX_TIME ((int64_t)1 << 62)

typedef enum {
    SIM_TRACE_KERNEL,
    SIM_TRACE_COPY,
    SIM_TRACE_MEMSET,
    SIM_TRACE_EVENT_RECORD, /* GPU: event recorded on `stream` */
    SIM_TRACE_EVENT_WAIT,   /* GPU: `stream` waits for `event` */
    SIM_TRACE_EVENT_SYNC,   /* host waits for `event` */
    SIM_TRACE_STREAM_SYNC,  /* host waits for `stream` (NO_ID: unknown) */
    SIM_TRACE_DEVICE_SYNC,  /* host waits for all its work */
} SimTraceKind;
#define SIM_TRACE_N_KINDS (SIM_TRACE_DEVICE_SYNC + 1)

typedef struct SimNcuKernel SimNcuKernel;

/* A kernel as a timeline records it: its launch configuration.  What only
 * Nsight Compute adds (intensities, pipe share, shared-memory
 * configuration, its own duration) stays in the ncu trace's SimNcuKernel,
 * pointed to, so that the 10^6 ops of a big trace do not each carry those
 * fields (SimTraceOp was 192 bytes with a whole SimKernelSpec, 120 now);
 * sim_trace_kernel_spec() makes the engine's SimKernelSpec from both. */
typedef struct {
    const char *name; /* in the trace's string chunk */
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t regs_per_thread; /* 0: unknown */
    uint32_t static_smem_bytes;
    uint32_t dynamic_smem_bytes;
    const SimNcuKernel *ncu; /* matched Nsight Compute record (owned by
                                its trace, which outlives the import's
                                build step); NULL: none */
} SimTraceKernel;

typedef struct {
    uint8_t kind;     /* SimTraceKind (one byte: see SimTraceKernel) */
    bool api_blocks;  /* the API returns only once the op is done
                                (cudaMemcpy): a stream sync follows it */
    bool in_graph;    /* a node of a CUDA graph launch ... */
    uint32_t line;    /* source line (CSV, JSON), or row of its
                                kind's table (SimTrace.kind_tables); 0 if
                                none */
    int64_t stream;   /* trace stream id; SIM_TRACE_NO_ID if none */
    int64_t event;    /* trace event id (event ops) */
    int64_t start_ns; /* GPU execution (kernel, copy, memset) */
    int64_t end_ns;
    int64_t api_start_ns; /* the host API call that issued it, if known */
    int64_t api_end_ns;
    int64_t graph; /* ... this one (the launch call's id): all
                                ops of one launch become one graph op */
    union {
        SimTraceKernel kernel;
        SimCopySpec copy;
        uint64_t memset_bytes;
    } u;
} SimTraceOp;

typedef struct {
    int64_t id;
    int priority; /* CUDA convention, 0 default */
} SimTraceStream;

typedef struct {
    char *name;
    int64_t pid;        /* -1 if unknown */
    GArray *ops;        /* SimTraceOp, in any order */
    GArray *streams;    /* SimTraceStream the trace declares, in
                                creation order; empty: order of first use */
    uint64_t mem_bytes; /* peak device memory the trace shows the
                                process holding (allocator reservations,
                                cudaMalloc'd bytes), beside its context;
                                0: the trace does not say */
} SimTraceProcess;

/* Per-kernel facts from Nsight Compute, for enrichment or on their own. */
struct SimNcuKernel {
    uint64_t id; /* ncu's "ID" (launch order) */
    int64_t pid;
    const char *name;
    const char *process; /* "Process Name" */
    int64_t stream;
    uint32_t line; /* first line of this kernel */
    uint32_t grid[3], block[3];
    bool has_grid, has_block;
    uint32_t regs;
    bool has_regs;
    uint32_t smem_static, smem_dynamic;
    bool has_smem_static, has_smem_dynamic;
    uint32_t smem_config; /* "Shared Memory Configuration Size", bytes; 0:
                             not in the report */
    int64_t duration_ns;  /* -1 unknown */
    double sm_intensity;  /* 0..1, 0 unknown */
    double mem_intensity;
    double sm_pipe_share;          /* 0..1, 0 unknown (scenario.h) */
    double issue_busy_pct, sm_pct; /* candidates for sm_intensity */
    double sm_tput_pct;       /* Compute (SM) Throughput: for sm_pipe_share */
    double dram_pct, mem_pct; /* candidates for mem_intensity */
    double l2_read_bytes;     /* L2 read sectors from the SMs x 32 (0: not
                                 in the report) */
    double dram_read_bytes;   /* -1: not in the report */
    double l2_served;         /* 1 - dram / L2 read bytes in [0, 1]; -1
                                 unknown (both needed) */
};

typedef struct {
    char *path;
    const char *format;     /* static string */
    char *gpu_name;         /* as the trace names it (nullable) */
    int cc_major, cc_minor; /* 0 if unknown */
    bool absolute;          /* times are ns since the Unix epoch, so files
                                can be aligned with each other */
    bool untimed;           /* no timeline (ncu on its own) */
    const char *const *kind_tables; /* per SimTraceKind: the database table
                                whose row an op's `line` is (static;
                                NULL: lines are text lines) */
    GStringChunk *strings;
    GPtrArray *processes; /* SimTraceProcess*, owned */
    GPtrArray *notes;     /* char*, owned: what was skipped or assumed */
    uint64_t n_skipped;   /* rows/events not imported */
    GArray *ncu;          /* SimNcuKernel (format "ncu" only) */
    const char *columns[SIM_COL_N]; /* the column each checked op field is
                                read from, as the file spells it (static
                                or in the string chunk; NULL: none), so
                                that range errors name it
                                (SimProcessSpec.columns) */
} SimTrace;

/* Records of one size allocated in chunks and freed together: the 10^6
 * API calls of a big trace cost a malloc each (and their hash keys one
 * more) otherwise. */
typedef struct {
    GPtrArray *chunks;
    size_t size;   /* of a record */
    unsigned used; /* records taken from the newest chunk */
} SimSlab;

void sim_slab_init(SimSlab *s, size_t size);
/* A zeroed record, valid until sim_slab_clear. */
void *sim_slab_new0(SimSlab *s);
void sim_slab_clear(SimSlab *s);

SimTrace *sim_trace_new(const char *path, const char *format);
void sim_trace_free(SimTrace *tr);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimTrace, sim_trace_free)

const char *sim_trace_intern(SimTrace *tr, const char *s);

/* Append a process.  Returns: (transfer none). */
SimTraceProcess *sim_trace_add_process(SimTrace *tr, const char *name,
                                       int64_t pid);
/* The process with @pid, or NULL. */
SimTraceProcess *sim_trace_find_process(SimTrace *tr, int64_t pid);

/* Append an op with every time unknown.  Returns: (transfer none), valid
 * until the next append to the same process. */
SimTraceOp *sim_trace_add_op(SimTraceProcess *p, SimTraceKind kind,
                             uint32_t line);

/* The engine's kernel spec of trace kernel @k: its launch configuration,
 * and from its matched Nsight Compute record (if any) the shared-memory
 * configuration, the intensities (when measured) and ncu's duration
 * (replaced by the timeline's recorded one where there is a timeline). */
void sim_trace_kernel_spec(const SimTraceKernel *k, SimKernelSpec *out);

void sim_trace_note(SimTrace *tr, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* The direction of a copy from the kind the profilers print, the first
 * @len bytes of @kind: "HtoD", "Host-to-Device", "Unified Device-to-Host",
 * "PtoP", "AtoD"...  Arrays count as device memory, peer copies as
 * device-to-device.  False for a kind with no copy in the GPU model
 * (host-to-host). */
bool sim_trace_copy_dir(const char *kind, size_t len, SimCopyDir *d);

/* What a synchronization API (cudaDeviceSynchronize, cuStreamSynchronize,
 * cudaEventSynchronize, cudaStreamWaitEvent...) does, as a SimTraceKind;
 * -1 if nothing (queries do not block) or unknown. */
int sim_trace_sync_kind_of_api(const char *name);

/* Whether a copy API holds the host until the copy is done: cudaMemcpy,
 * cudaMemcpy2D, cudaMemcpyToSymbol, cuMemcpyHtoD... but not the Async
 * forms. */
bool sim_trace_api_blocks(const char *name);

/* A kernel's base function name, for matching names across tools: the
 * demangled signature without return type, namespaces, template arguments,
 * parameter list and nvprof's " [123]" correlation suffix.
 * "void ns::k<int=1>(float*) [7]" -> "k".  Returns: (transfer full). */
char *sim_trace_kernel_base_name(const char *name);

/* Split "NAME (N)" (nvprof/nsys Device column) into the name; (transfer
 * full), NULL for "". */
char *sim_trace_device_name(const char *device);

/* Format readers.  Each fills @tr (created by the caller with the path and
 * format) from the file's text, or fails with an error naming the file, the
 * line (or table/row) and the field. */
bool sim_import_nvprof(SimTrace *tr, const char *text, size_t len,
                       GError **error);
bool sim_import_nsys_csv(SimTrace *tr, const char *text, size_t len,
                         GError **error);
bool sim_import_nsys_sqlite(SimTrace *tr, GError **error);
bool sim_import_ncu(SimTrace *tr, const char *text, size_t len, GError **error);
bool sim_import_kineto(SimTrace *tr, const char *text, size_t len,
                       GError **error);
/* Tests: read Kineto files as one cJSON tree, as before streaming
 * (kineto.c); and how many files were read so (streaming fell back, or
 * was off). */
void sim_kineto_force_tree(bool on);
uint64_t sim_kineto_tree_reads(void);
/* Tests: read an nsys SQLite export's kernels sorted by SQLite ("ORDER
 * BY start"), as before they were sorted here (nsys_sqlite.c). */
void sim_nsys_sqlite_force_sorted(bool on);
/* Tests: how many elements pass 1 read without a tree (kineto.c,
 * flat_event). */
uint64_t sim_kineto_flat_reads(void);

/* Format detectors, from a file's content (import/registry.c lists which
 * format has which).  Line detectors see one line of a text file's head
 * (@n bytes, no newline); JSON detectors the first bytes of a JSON
 * document; a file detector confirms a binary format whose magic matched,
 * or fails saying what the file is instead. */
bool sim_detect_nvprof_line(const char *line, size_t n);
bool sim_detect_nsys_csv_line(const char *line, size_t n);
bool sim_detect_ncu_line(const char *line, size_t n);
bool sim_detect_kineto_json(const char *head, size_t len);
bool sim_detect_nsys_sqlite_file(const char *path, GError **error);
/* Whether @line (@n bytes) starts with @prefix. */
bool sim_line_starts(const char *line, size_t n, const char *prefix);

/* Turn an ncu trace's kernels (tr->ncu) into untimed ops, one process per
 * profiled process, for use without a timeline.  Fails if a kernel lacks
 * its launch configuration or duration. */
bool sim_import_ncu_ops(SimTrace *tr, GError **error);

/* Whether an API call launches a CUDA graph (cudaGraphLaunch,
 * cuGraphLaunch and their _ptsz / _v10000 spellings). */
bool sim_trace_api_graph_launch(const char *api);

#endif /* SIM_IMPORT_TRACE_H */
