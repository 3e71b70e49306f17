/* import.h -- profiler traces (and native scenarios) in, one SimScenario out.
 *
 * Formats, detected from each file's content, never its name:
 *   "hqsim"       native scenario JSON (an object with "hqsim_scenario")
 *   "nvprof"      nvprof --print-gpu-trace --csv
 *   "nsys-csv"    nsys stats --report cuda_gpu_trace (gputrace) CSV
 *   "nsys-sqlite" nsys export --type sqlite
 *   "ncu"         Nsight Compute --csv (details or raw page)
 *   "kineto"      PyTorch profiler / Kineto JSON, plain or .json.gz
 * The rules that turn a recorded timeline into a replayable program (issue
 * order, host gaps, synchronization, streams, memsets) are in
 * import/README.md; workload.c implements them once for every format.
 *
 * Several files make one scenario: every trace process becomes a scenario
 * process; an ncu file given with a trace enriches that trace's kernels
 * (matched by kernel name and launch order) instead of adding a process.
 */
#ifndef SIM_IMPORT_H
#define SIM_IMPORT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "simtime.h"

/* The kernel launch latency assumed when neither the options nor a GPU
 * model give one: the time from a kernel reaching the head of its hardware
 * queue to its first block.  It is the bundled models' value (3 us). */
#define SIM_IMPORT_DEFAULT_LAUNCH_LATENCY_NS 3000u

typedef struct {
    SimTime launch_latency_ns; /* L in import/README.md; SIM_TIME_NEVER:
                                    the GPU model's kernel_launch_latency */
    const char *gpu_model;     /* the model the scenario will run on
                                    (name or file); NULL: the one closest to
                                    the GPU the trace names (transfer none) */
    const char *models_dir;    /* where to find it; NULL: the default */
    const char *format;        /* force this format for every file;
                                    NULL: detect (transfer none) */
    SimTime window_start_ns;   /* keep ops whose recorded start lies in
                                    [start, end), measured from the first
                                    GPU op of each file */
    SimTime window_end_ns;     /* SIM_TIME_NEVER: no end */
    char **processes;          /* NULL-terminated pids or process names
                                    to keep; NULL: all (transfer none) */
    bool pin_held;             /* issue ops that waited for something the
                                    trace does not show just in time
                                    (import/README.md, "Held ops") */
    bool recorded_clocks;      /* keep every absolute clock as recorded,
                                    even between files recorded apart
                                    (import/README.md, rule 1) */
    bool bare_classes;         /* kernels without Nsight Compute data get
                                    their class by name (SimKernelSpec.
                                    bare_class) and so the GPU model's
                                    default issue share for it; false:
                                    every warp a dependent FMA chain */
} SimImportOptions;

/* Defaults: L from the GPU model (else the default above), the trace's own
 * GPU, detect formats, no window, every process. */
void sim_import_options_init(SimImportOptions *opt);

/* What an import found, per scenario process.  Recorded times are in
 * scenario time (the process's start_ns included), one entry per op of the
 * process (aligned with SimProcessSpec.ops), SIM_TIME_NEVER for ops that
 * have no recorded GPU execution (gaps, syncs, events) and for processes
 * from native scenarios or untimed traces. */
typedef struct {
    char *name;   /* scenario process name (owned) */
    char *source; /* file it came from (owned) */
    uint32_t n_streams;
    uint32_t n_kernels; /* memsets not included */
    uint32_t n_copies;
    uint32_t n_memsets; /* imported as kernels named "[CUDA memset]" */
    uint32_t n_syncs;   /* host syncs and stream waits */
    uint32_t n_graphs;  /* graph launches (their nodes are counted
                                as kernels, copies and memsets) */
    uint32_t n_ops;
    SimTime span_ns;       /* first recorded GPU start .. last end */
    SimTime *rec_start_ns; /* n_ops entries (owned), or NULL */
    SimTime *rec_end_ns;
    SimTime **rec_node_start_ns; /* n_ops entries (owned), or NULL: per
                                    graph op, its nodes' recorded times
                                    (owned; NULL for other ops) */
    SimTime **rec_node_end_ns;
    uint32_t n_late; /* ops that cannot be issued by start - L */
    SimTime max_late_ns;
} SimImportProcess;

typedef struct {
    char *formats;  /* "nvprof", "nsys-sqlite+ncu", ... (owned) */
    char *gpu_name; /* as the first trace names it (nullable) */
    uint32_t n_files;
    SimImportProcess *procs;
    uint32_t n_procs;
    SimTime span_ns; /* recorded span over all processes */
    bool timed;      /* some input had a timeline (not ncu alone) */
    SimTime launch_latency_ns;
    uint64_t n_skipped;     /* rows/events not imported (see notes) */
    uint32_t ncu_matched;   /* trace kernels enriched from ncu */
    uint32_t ncu_unmatched; /* trace kernels without an ncu record */
    uint32_t ncu_unused;    /* ncu records no trace kernel used */
    char **notes;           /* NULL-terminated (owned): skipped rows,
                                assumptions, GPU mapping */
} SimImportReport;

void sim_import_report_free(SimImportReport *r);
/* Free a process's recorded times (rec_*). */
void sim_import_process_clear_times(SimImportProcess *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimImportReport, sim_import_report_free)

/* The format of @path from its content: one of the names above.  Fails for
 * an unreadable, empty or unrecognized file, naming what was found.
 * Returns: (transfer none) a static string, or NULL. */
const char *sim_import_detect(const char *path, GError **error);

/* The NULL-terminated list of format names. Returns: (transfer none). */
const char *const *sim_import_formats(void);

/* Load @n_paths files (detecting each format unless @opt says) and merge
 * them into one scenario.  @opt may be NULL for the defaults.  Errors name
 * the file, the line (or table/row) and the field.
 * Returns: (transfer full) (nullable). */
SimScenario *sim_workload_load(char *const *paths, int n_paths,
                               const SimImportOptions *opt, GError **error);

/* The same, also returning what was imported (@report may be NULL).
 * Returns: (transfer full) (nullable); *report (transfer full). */
SimScenario *sim_workload_load_report(char *const *paths, int n_paths,
                                      const SimImportOptions *opt,
                                      SimImportReport **report, GError **error);

/* A one-paragraph human summary of @r (format, processes, streams,
 * kernels, copies, span, GPU).  Returns: (transfer full). */
char *sim_import_report_summary(const SimImportReport *r);

/* The hqsim model closest to the GPU a trace names (@gpu_name nullable,
 * @cc_major 0 if unknown).  *generation (nullable) is set to NULL when the
 * model *is* that GPU, else to the generation that made the choice.
 * Returns: (transfer none) a model name, or NULL if nothing is known. */
const char *sim_import_gpu_model_for(const char *gpu_name, int cc_major,
                                     int cc_minor, const char **generation);

#endif /* SIM_IMPORT_H */
