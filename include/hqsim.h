/* hqsim.h -- the public C API of libhqsim: simulate how processes share an
 * NVIDIA GPU (time-slicing or MPS), from a scenario or profiler traces.
 *
 * This header is the whole public surface: it includes no internal header,
 * and every type it names is opaque but the validation's plain result
 * structures (HqsimValidation*, read-only, allocated by the library), so a
 * program built against it keeps working when the engine's structures
 * change.  Build with
 *     cc prog.c -Iinclude $(pkg-config --cflags glib-2.0) build/libhqsim.so
 *
 * What it does is what the command line does, through the same code:
 *   hqsim_run      = `hqsim run FILE... [options]`
 *   hqsim_compare  = `hqsim compare FILE... [options]`
 *   hqsim_sweep    = `hqsim sweep FILE... [options]`
 *   hqsim_import   = `hqsim import FILE... -o - [options]`
 *   hqsim_replay   = `hqsim replay FILE... [options]` (as JSON)
 *   hqsim_validate = `hqsim validate DIR [options]`
 * Options are the commands' long options by name, values as text
 * (hqsim_options_set), and results give the numbers the commands print;
 * hqsim_result_json / hqsim_sweep_json are byte for byte the files that
 * `--json FILE` writes.
 *
 * Errors.  Every function that can fail takes a GError ** (GLib's error
 * type, the project's error type throughout): on failure it returns NULL
 * or FALSE and sets *error (if error is not NULL) with domain HQSIM_ERROR,
 * a code from HqsimErrorCode and a message naming the file, line and field
 * where there is one:
 *     "scenario.json:14: process 'a' op 3: field 'grid': must be >= 1"
 * The caller owns the GError: free it with g_error_free() (or
 * g_clear_error()).
 *
 * Ownership.  Every pointer a function returns is stated "(transfer
 * full)" -- the caller owns it and frees it with the function named -- or
 * "(transfer none)" -- it belongs to the object it came from and lives as
 * long as that object.  Inputs are never taken over: the caller keeps
 * (and frees) what it passes in.
 *
 * Threads.  Distinct objects may be used on distinct threads at once (the
 * engine shares nothing mutable between runs); one object must not be
 * used by two threads at once.  Output files (options "json", "csv",
 * "perfetto", "picture", "report", "plot") are written one call at a
 * time (a process-wide lock).  The work limits (`hqsim --limit`,
 * hqsim_limit_set) are process-wide: set them before any run starts.
 */
#ifndef HQSIM_H
#define HQSIM_H

#include <glib.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* This header's version: the major changes only when a declaration here
 * changes incompatibly (and then so does the library's soname). */
#define HQSIM_API_MAJOR 1
#define HQSIM_API_MINOR 2

/* The API version the library implements, "MAJOR.MINOR" ("1.2").
 * Returns: (transfer none). */
const char *hqsim_version(void);

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

#define HQSIM_ERROR (hqsim_error_quark())
GQuark hqsim_error_quark(void);

typedef enum {
    HQSIM_ERROR_IO,          /* cannot read or write a file */
    HQSIM_ERROR_PARSE,       /* not well-formed: bad JSON, CSV, gzip */
    HQSIM_ERROR_INVALID,     /* well-formed but wrong: a missing, unknown
                                or out-of-range field */
    HQSIM_ERROR_UNSUPPORTED, /* valid but not something hqsim models */
    HQSIM_ERROR_DEADLOCK,    /* the scenario can never finish */
    HQSIM_ERROR_NOFIT,       /* a kernel fits on no SM */
    HQSIM_ERROR_USAGE,       /* a bad option name or value */
    HQSIM_ERROR_LIMIT,       /* asks for more than a stated limit */
    HQSIM_ERROR_CANCELLED,   /* stopped by its progress callback (1.2) */
} HqsimErrorCode;

/* ------------------------------------------------------------------------
 * Options: the command line's long options, by name, as text
 * ------------------------------------------------------------------------ */

typedef struct HqsimOptions HqsimOptions;

/* No options set: every command's defaults.
 * Returns: (transfer full): free with hqsim_options_free(). */
HqsimOptions *hqsim_options_new(void);
void hqsim_options_free(HqsimOptions *o); /* NULL is fine */

/* Set option @name (a long option without "--", e.g. "gpu", "processes",
 * "thread-pct", "mode") to @value, as the command line would read it
 * ("8", "mps", "1-8", "equal,50"); a flag ("no-jitter", "as-recorded",
 * "loop-request") takes "1"/"true"/"yes" or "0"/"false"/"no".  Setting it
 * again replaces the value; @value NULL unsets it.
 *
 * The names and what they mean are those of `hqsim run --help`, `hqsim
 * compare --help`, `hqsim sweep --help`, `hqsim import --help` and `hqsim
 * replay --help` (one table serves both), but --quiet (nothing is
 * printed) and import's --output (hqsim_import returns the text).  An unknown name fails here; a value is
 * checked (range, list syntax) when a command reads it, and an option the
 * command does not take (e.g. "modes" for hqsim_run) fails that command
 * -- both with HQSIM_ERROR_USAGE naming the option.  "fixed" (sweep)
 * takes its files separated by ','.
 *
 * Output files: options "json", "csv", "perfetto", "picture", "report"
 * (run, compare) and "csv", "json", "plot", "report" (sweep) name a file
 * that the command writes once it has run, exactly as the command line
 * does ("-": standard output): all of them, or on a failure none, and the
 * command then fails (HQSIM_ERROR_IO naming the file) and returns no
 * result. */
gboolean hqsim_options_set(HqsimOptions *o, const char *name, const char *value,
                           GError **error);

/* Progress: @done of @total units, called on the calling thread, @done
 * never going back within one run or sweep, the last call with @done ==
 * @total -- hqsim_run and hqsim_compare: GPU ops of the run under way
 * (every 65536 engine events and once at its end; each mode of a
 * comparison counts from 0 again); hqsim_sweep: configurations finished
 * (as they finish, and every 250 ms while they run on several threads).
 * It must not change or free the options it was set on. */
typedef void (*HqsimProgressFn)(uint64_t done, uint64_t total, void *data);

/* Call @fn (NULL: none) with @data (not owned; it must outlive the runs
 * made with @o) as commands made with @o progress.  Replaces a callback
 * set by hqsim_options_set_progress_stop. */
void hqsim_options_set_progress(HqsimOptions *o, HqsimProgressFn fn,
                                void *data);

/* A progress callback that can stop the work (1.2): return TRUE to go on,
 * FALSE to stop.  Called as HqsimProgressFn is. */
typedef gboolean (*HqsimProgressStopFn)(uint64_t done, uint64_t total,
                                        void *data);

/* As hqsim_options_set_progress, but once @fn returns FALSE the command
 * stops: a run at once (within SIM_PROGRESS_EVENTS engine events), a
 * sweep once the configurations under way finish (no new one starts).
 * It then fails with HQSIM_ERROR_CANCELLED, returns no result and writes
 * no output file.  Replaces a callback set by hqsim_options_set_progress.
 * (1.2) */
void hqsim_options_set_progress_stop(HqsimOptions *o, HqsimProgressStopFn fn,
                                     void *data);

/* ------------------------------------------------------------------------
 * Work limits: `hqsim --limit NAME=N`, process-wide
 * ------------------------------------------------------------------------ */

/* Raise (or lower) limit @name ("ops", "events", "processes"...: `hqsim
 * --help` lists them with their defaults) to @value (a positive integer,
 * k/M/G suffixes allowed, as text: "5M").  Process-wide: call it before
 * any run starts, never while one is under way on any thread.  Fails with
 * HQSIM_ERROR_USAGE naming the limit or the value. */
gboolean hqsim_limit_set(const char *name, const char *value, GError **error);

/* Every limit back to its default (same rule). */
void hqsim_limits_reset(void);

/* ------------------------------------------------------------------------
 * Running: one workload (a native scenario, or one or more profiler
 * traces that together make one workload; formats are detected from
 * content), prepared as the command line prepares it
 * ------------------------------------------------------------------------ */

typedef struct HqsimResult HqsimResult;

/* `hqsim run FILES`: one run, in option "mode" (scenario, timeslice or
 * mps; default: as each process of the scenario says).  @files is
 * NULL-terminated, @o nullable (defaults).
 * Returns: (transfer full) (nullable): free with hqsim_result_free(). */
HqsimResult *hqsim_run(const char *const *files, const HqsimOptions *o,
                       GError **error);

/* `hqsim compare FILES`: one run per mode of option "modes" (default
 * "timeslice,mps"), in that order.
 * Returns: (transfer full) (nullable): free with hqsim_result_free(). */
HqsimResult *hqsim_compare(const char *const *files, const HqsimOptions *o,
                           GError **error);

void hqsim_result_free(HqsimResult *r); /* NULL is fine */

/* Runs in the result: 1 for hqsim_run, one per mode for hqsim_compare.
 * In the functions below @run is in [0, hqsim_result_n_runs) and @proc in
 * [0, hqsim_result_n_procs); out-of-range indices are programming errors
 * (a g_return_val_if_fail warning and 0 or NULL). */
uint32_t hqsim_result_n_runs(const HqsimResult *r);

/* The GPU model's name ("h100-sxm").  Returns: (transfer none). */
const char *hqsim_result_gpu(const HqsimResult *r);
/* "timeslice", "mps" or "scenario".  Returns: (transfer none). */
const char *hqsim_result_mode(const HqsimResult *r, uint32_t run);

/* Simulated time until the last op finished, in milliseconds. */
double hqsim_result_makespan_ms(const HqsimResult *r, uint32_t run);
/* Completed iterations (or requests) per second, all processes. */
double hqsim_result_throughput(const HqsimResult *r, uint32_t run);
/* Percentile @pct (0..100, nearest rank) of every process's iteration
 * latencies together, in milliseconds. */
double hqsim_result_latency_ms(const HqsimResult *r, uint32_t run, double pct);

/* GPU-wide utilization over [0, makespan], each in [0, 1]. */
typedef enum {
    HQSIM_UTIL_GPU,       /* share of time >= 1 kernel executes (what
                               nvidia-smi's utilization measures) */
    HQSIM_UTIL_GPU_MAX,   /* highest nvidia-smi style sample */
    HQSIM_UTIL_SM_ACTIVE, /* mean over SMs of the share of time with
                               >= 1 resident warp */
    HQSIM_UTIL_OCCUPANCY, /* achieved occupancy: mean resident warps /
                               maximum warps */
} HqsimUtil;
double hqsim_result_util(const HqsimResult *r, uint32_t run, HqsimUtil u);

uint32_t hqsim_result_n_procs(const HqsimResult *r, uint32_t run);
/* Returns: (transfer none). */
const char *hqsim_result_proc_name(const HqsimResult *r, uint32_t run,
                                   uint32_t proc);
/* "ok", "not_started" (refused: memory, MPS client limit) or "killed".
 * Returns: (transfer none). */
const char *hqsim_result_proc_status(const HqsimResult *r, uint32_t run,
                                     uint32_t proc);
double hqsim_result_proc_throughput(const HqsimResult *r, uint32_t run,
                                    uint32_t proc);
/* Percentile @pct (0..100) of the process's iteration latencies, in
 * milliseconds (0 when it completed none). */
double hqsim_result_proc_latency_ms(const HqsimResult *r, uint32_t run,
                                    uint32_t proc, double pct);

/* The JSON summary `hqsim run|compare --json FILE` writes for the same
 * inputs and options.
 * Returns: (transfer full): free with hqsim_free(). */
char *hqsim_result_json(const HqsimResult *r);
/* The text summary the command prints.
 * Returns: (transfer full): free with hqsim_free(). */
char *hqsim_result_text(const HqsimResult *r);

/* ------------------------------------------------------------------------
 * Sweeping: `hqsim sweep FILES` (processes x mode x thread percentage x
 * connections x GPU x workload; each file is one workload).  Options as
 * the command's: "processes" "1-8", "modes", "thread-pct", "connections",
 * "gpu" (lists), "threads", "slo-p99-ms", "slo-throughput", "fixed"
 * (files separated by ',')...
 * ------------------------------------------------------------------------ */

typedef struct HqsimSweep HqsimSweep;

/* Runs every configuration (on option "threads" threads; default the
 * cores).  Fails if set-up fails or if every configuration failed; a
 * configuration that fails alone is a row with an error in the JSON.
 * Returns: (transfer full) (nullable): free with hqsim_sweep_free(). */
HqsimSweep *hqsim_sweep(const char *const *files, const HqsimOptions *o,
                        GError **error);
void hqsim_sweep_free(HqsimSweep *s); /* NULL is fine */

/* Configurations, in the sweep's order (that of every output). */
uint32_t hqsim_sweep_n_configs(const HqsimSweep *s);

/* What `hqsim sweep --json FILE` writes for the same inputs and options
 * (configurations, per-process rows, objectives' answers).
 * Returns: (transfer full): free with hqsim_free(). */
char *hqsim_sweep_json(const HqsimSweep *s);
/* The table the command prints.
 * Returns: (transfer full): free with hqsim_free(). */
char *hqsim_sweep_text(const HqsimSweep *s);

/* ------------------------------------------------------------------------
 * Importing and replaying profiler traces: `hqsim import` and `hqsim
 * replay`.  Options as the commands': "gpu", "models-dir", "pin-held";
 * import: "format", "process" (pids or names separated by ','),
 * "launch-latency-us", "from-ms", "to-ms"; replay: "as-recorded", "each".
 * ------------------------------------------------------------------------ */

/* The native scenario `hqsim import FILES -o -` writes: the traces
 * (several files: several processes) as one JSON document.
 * Returns: (transfer full) (nullable): free with hqsim_free(). */
char *hqsim_import(const char *const *files, const HqsimOptions *o,
                   GError **error);

/* `hqsim replay FILES`: simulate the traces as recorded (all files as one
 * workload, or each alone with option "each") and compare every GPU op
 * with its recording.  A JSON array, one object per replay, with the
 * numbers the command's table prints: {"trace": first file's name, "gpu",
 * "ops", "recorded_ms", "simulated_ms", "makespan_error" (simulated /
 * recorded - 1), "median_end_error", "worst_end_error" (end-time errors
 * over the recorded span)}.
 * Returns: (transfer full) (nullable): free with hqsim_free(). */
char *hqsim_replay(const char *const *files, const HqsimOptions *o,
                   GError **error);

/* ------------------------------------------------------------------------
 * Validating against measurements: `hqsim validate DIR` (1.2).  Options
 * as the command's: "gpu" (default h100-sxm), "models-dir", "filter" (a
 * regular expression on experiment ids), "measured-block-times".
 * ------------------------------------------------------------------------ */

/* One measured experiment, replayed (or skipped). */
typedef struct {
    char *id;             /* the experiment's id in the manifest */
    char *category;       /* "contention/sm", "mps"... */
    char *measures;       /* what it measures (the manifest's words) */
    gboolean calibration; /* TRUE: used to derive the model's values
                             (fitted); FALSE: a prediction */
    char *skipped;        /* why it was not replayed; NULL: replayed */
    uint32_t processes, ops, iterations;
    double measured_ms;     /* median over iterations of the makespan */
    double predicted_ms;    /* the same, simulated */
    double error;           /* median over iterations of (predicted -
                             measured) / measured */
    double end_error;       /* median over GPU ops of |end time error| /
                             the iteration's measured span */
    uint32_t ends;          /* GPU op end times compared */
    uint32_t ends_within10; /* of which within 10% of the span */
} HqsimValidationRow;

/* Over the replayed experiments of one role (and category). */
typedef struct {
    uint32_t n;                             /* experiments */
    uint32_t over5, over15, within10;       /* |error| > 5%, > 15%, <= 10% */
    uint32_t ends, ends_within10;           /* as in the rows, summed */
    double median_abs_error, max_abs_error; /* of |error| */
    double median_end_error;                /* median of the rows' end_error
                                           (medians: NaN when n is 0) */
} HqsimValidationSummary;

/* Every experiment of the data set, in the manifest's order, and the
 * summaries the command prints.  The structures are read-only; they
 * change only with the major version. */
typedef struct {
    char *dir; /* the data set */
    char *gpu; /* the model's name ("h100-sxm") */
    uint32_t n_rows;
    HqsimValidationRow **rows; /* (transfer none): n_rows rows */
    HqsimValidationSummary prediction, calibration;
} HqsimValidation;

/* `hqsim validate DIR`: replay every measured experiment of data set @dir
 * (a folder with a manifest.json: traces/measured/h100 of the source
 * tree) with the same host calls at the same times, and compare
 * makespans and op end times with the measurements.
 * Returns: (transfer full) (nullable): free with hqsim_validation_free(),
 * which frees the rows and their strings with it. */
HqsimValidation *hqsim_validate(const char *dir, const HqsimOptions *o,
                                GError **error);
void hqsim_validation_free(HqsimValidation *v); /* NULL is fine */

/* The summary over the replayed experiments of @category ("contention/":
 * every category under it; NULL: all), fitted (@calibration TRUE) or
 * predicted: a line of `hqsim validate`'s per-category table. */
HqsimValidationSummary hqsim_validation_summary(const HqsimValidation *v,
                                                gboolean calibration,
                                                const char *category);

/* The whole validation as JSON: {"dir", "gpu", "rows": [{id, category,
 * measures, role ("calibration" or "prediction"), skipped (null: replayed),
 * processes, ops, iterations, measured_ms, predicted_ms, error,
 * end_error, ends, ends_within10}], "prediction": {summary},
 * "calibration": {summary}}, the summaries' keys those of
 * HqsimValidationSummary.
 * Returns: (transfer full): free with hqsim_free(). */
char *hqsim_validation_json(const HqsimValidation *v);

/* Free a string this API returned (transfer full).  NULL is fine. */
void hqsim_free(void *p);

#ifdef __cplusplus
}
#endif

#endif /* HQSIM_H */
