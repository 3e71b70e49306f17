/* options.h -- the one table of the options of the commands that read
 * workloads (`run`, `compare`, `sweep`, `import`, `replay`, `validate`),
 * shared by
 * the command line (cli/), the C API (api/hqsim.c) and, through `hqsim
 * COMMAND --help`, the man page and the bash completion
 * (tests/test_e2e_options.c checks the three list the table's options).
 *
 * A row gives an option's name, short name, the commands that take it, how
 * its text is read (its type; numbers against their range in
 * sim/optrange.c), where the value lands in PlanSettings, and its help
 * text.  Every option is set through plan_opt_set(), from the command
 * line's parser and from hqsim_options_set() alike, so both read a value
 * the same way and fail with the same message.  The functions below then
 * turn the settings into what the modules below take (PrepOptions,
 * SimOptions, the GPU model, a sweep's space, SimImportOptions, the
 * output files), once, for every caller.
 */
#ifndef PLAN_OPTIONS_H
#define PLAN_OPTIONS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "gpu_model.h"
#include "import.h"
#include "prepare.h"
#include "replay.h"
#include "result.h"
#include "scenario.h"
#include "slo.h"
#include "sweep.h"
#include "validate.h"

/* The commands, as bits of PlanOption.commands. */
typedef enum {
    PLAN_CMD_RUN = 1u << 0,
    PLAN_CMD_COMPARE = 1u << 1,
    PLAN_CMD_SWEEP = 1u << 2,
    PLAN_CMD_IMPORT = 1u << 3,
    PLAN_CMD_REPLAY = 1u << 4,
    PLAN_CMD_VALIDATE = 1u << 5,
} PlanCommand;

/* How an option's text is read (plan_opt_set). */
typedef enum {
    PLAN_ARG_TEXT,   /* char *, kept as given (lists: read later) */
    PLAN_ARG_FILE,   /* char *, a file name (not converted to UTF-8) */
    PLAN_ARG_FILES,  /* char ** (NULL-terminated), one file per setting:
                        repeatable */
    PLAN_ARG_TEXTS,  /* the same for texts (import --process) */
    PLAN_ARG_FLAG,   /* bool: the command line's flag takes no value; the
                        API's value is 1/true/yes or 0/false/no */
    PLAN_ARG_INT,    /* int, range-checked (sim/optrange.h) */
    PLAN_ARG_INT64,  /* int64_t, range-checked */
    PLAN_ARG_DOUBLE, /* double, range-checked */
} PlanArgType;

/* At most this many rows (a static assertion in options.c). */
#define PLAN_MAX_OPTIONS 64

/* What the options of one command set.  All zero: every default.  Strings
 * are owned (plan_settings_clear frees them). */
typedef struct {
    /* the workload and the GPU */
    char *gpu;         /* run, compare: a model; sweep: a list */
    char *models_dir;  /* nullable: the bundled models */
    int processes;     /* run, compare: copies of each process (0: 1) */
    int connections;   /* 0: as the scenario / model */
    double thread_pct; /* 0: as the scenario */
    int64_t seed;      /* 0: the scenario's */
    int host_cores;    /* 0: the scenario's, else the model's */
    bool no_jitter;
    double time_limit_ms; /* 0: none */
    int sm_sample;        /* 0 or 1: every SM; else SimOptions.sm_sample */
    int request_model;    /* 0 off; else exact iterations per process
                             (sim/reqmodel.h) of each run, or of each
                             configuration of a sweep */
    bool as_recorded, loop_request;
    bool recorded_clocks; /* traces recorded apart keep their clocks */
    bool bare_classes;    /* kernels without ncu data: class defaults */
    int iterations;       /* 0: as the workload says */
    double host_scale;    /* 0: 1 */
    char *mem_mib;        /* prepare.h */
    char *spread;         /* --request-spread FILE */
    double arrival_rate;
    char *arrival_times; /* --arrival-times FILE */
    /* sharing modes */
    char *mode;  /* run */
    char *modes; /* compare, sweep: a list */
    /* the sweep's axes (lists, read by sim_sweep_parse_*) and knobs */
    char *processes_list, *connections_list, *thread_pct_list;
    int threads;
    double slo_p99_ms, slo_throughput;
    char **fixed; /* --fixed FILE..., NULL-terminated */
    /* outputs (run, compare; sweep: csv, json, plot, report) */
    char *json, *csv, *perfetto, *perfetto_detail, *picture, *picture_kind;
    char *report, *plot;
    bool quiet;
    /* import and replay */
    char *output;   /* import -o FILE */
    char *format;   /* import --format */
    char **process; /* import --process P..., NULL-terminated */
    double launch_latency_us, from_ms, to_ms; /* when given (below) */
    bool pin_held, each;
    /* validate */
    char *filter;         /* --filter RE: experiments whose id matches */
    bool measured_blocks; /* --measured-block-times */
    char *markdown;       /* --markdown FILE */
    /* given[i]: row i of the table was set (for options whose every value
     * means something, such as --from-ms 0) */
    bool given[PLAN_MAX_OPTIONS];
} PlanSettings;

typedef struct {
    const char *name;  /* long name, without "--" */
    char short_name;   /* 0: none */
    unsigned commands; /* PlanCommand bits */
    PlanArgType type;
    size_t offset;    /* of its field in PlanSettings */
    const char *arg;  /* what --help calls the value ("N") */
    const char *help; /* --help text; "%s" (at most one) stands for
                              the sharing modes' names */
    bool cli_only;    /* not an API option (the API prints nothing) */
} PlanOption;

/* Every row, in --help order.  A name has one row per meaning: `sweep
 * --processes` (a list) and `run --processes` (a number) are two rows
 * with disjoint commands.  Returns: (transfer none). */
const PlanOption *plan_opt_table(size_t *n);

/* The row of @name for @command, or NULL.  Returns: (transfer none). */
const PlanOption *plan_opt_find(const char *name, PlanCommand command);

/* Whether any command takes @name. */
bool plan_opt_known(const char *name);

/* --help text of @row: its help with the modes filled in and, for a
 * number (or a list of numbers) with a range, the range appended ("[1-
 * 4096]", "[each (0, 100]]").  Returns: (transfer full). */
char *plan_opt_help(const PlanOption *row);

/* Read @value for @row into @s (see PlanArgType; a flag's NULL value is
 * "true").  Fails with SIM_ERROR_USAGE naming the option. */
bool plan_opt_set(PlanSettings *s, const PlanOption *row, const char *value,
                  GError **error);

void plan_settings_clear(PlanSettings *s);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(PlanSettings, plan_settings_clear)

/* Checks that need no input: output options (--picture-kind, the
 * picture's extension...), and for `run` its mode; before anything is
 * loaded or simulated. */
bool plan_settings_check(const PlanSettings *s, PlanCommand command,
                         GError **error);

/* What plan/prepare.h takes.  @po's strings point into @s. */
void plan_settings_prep(const PlanSettings *s, PrepOptions *po);

/* What the engine takes: sim_options_init, then the settings; operations
 * recorded; the timeline recorded when an output draws it.  No progress
 * hook (the caller's). */
void plan_settings_sim(const PlanSettings *s, SimOptions *so);

/* One run of @sc on @m with @so: the engine's, or with --request-model W
 * the request model's (sim/reqmodel.h), as `run` and `compare` do it.
 * Returns: (transfer full) (nullable). */
SimResult *plan_simulate(const PlanSettings *s, const GpuModel *m,
                         const SimScenario *sc, const SimOptions *so,
                         GError **error);

/* The model of --gpu, else the scenario's "gpu", else h100-sxm.
 * Returns: (transfer full) (nullable). */
GpuModel *plan_settings_model(const PlanSettings *s, const SimScenario *sc,
                              GError **error);

/* Load and prepare the workload in @files (@n of them) for the GPU of
 * plan_settings_model, with --processes copies (plan/prepare.h); a note
 * on what was changed (or NULL) in @note.
 * Returns: (transfer full) (nullable). */
SimScenario *plan_settings_load(char *const *files, int n,
                                const PlanSettings *s, char **note,
                                GError **error);

/* plan_settings_load, and into *@solo_run the last round of the solo-time
 * inference when it ran (a trace, not --as-recorded) and nothing since
 * changed the workload or its GPU (prep_load_run): no --processes copies,
 * no --arrival-times, --gpu absent or the recorded GPU's name.  That round
 * is a run of the returned scenario with sim_options_init's defaults: see
 * plan_run_is_solo_run.  Else NULL.
 * Returns: (transfer full) (nullable); *@solo_run (transfer full). */
SimScenario *plan_settings_load_run(char *const *files, int n,
                                    const PlanSettings *s, char **note,
                                    SimResult **solo_run, GError **error);

/* Whether a run of @sc with @so simulates exactly what a run with
 * sim_options_init's defaults and sm_sample = @infer_sm_sample (the
 * inference's: PrepOptions.sm_sample) does, recording the same: the same
 * mode, seed, connections, thread percentage, host cores, jitter and SM
 * sample, operations recorded, no timeline, no time limit, no invariant
 * checks, no shared event budget.  (The progress hook only observes.) */
bool plan_run_is_solo_run(const SimOptions *so, const SimScenario *sc,
                          uint32_t infer_sm_sample);

/* Fill @sp (sim_sweep_space_init'ed) for `sweep`: the axes from their
 * lists, each file of @files (NULL-terminated) and --fixed loaded as one
 * workload, the GPU list. */
bool plan_settings_sweep_space(const PlanSettings *s, char *const *files,
                               SimSweepSpace *sp, GError **error);

/* Whether option @name of @command was set. */
bool plan_settings_given(const PlanSettings *s, const char *name,
                         PlanCommand command);

/* What the importers take (import/import.h) for `import` and `replay`.
 * @opt's strings point into @s. */
void plan_settings_import(const PlanSettings *s, SimImportOptions *opt);

/* `replay`: each file of @files on its own (--each) or all as one
 * workload, simulated as recorded (after inferring times alone unless
 * --as-recorded) and compared with the recording (import/replay.h); @row
 * gets each replay's statistics and the name of its first file, in
 * order.  The first failure stops (rows already given stay given). */
bool plan_settings_replay(const PlanSettings *s, char *const *files,
                          void (*row)(const char *name,
                                      const SimReplayStats *st, void *data),
                          void *data, GError **error);

/* `validate`: replay every measured experiment of data set @dir (a
 * folder with a manifest.json, sim/validate.h) that --filter keeps, on
 * --gpu (default h100-sxm).  *model (transfer full) gets the model.
 * Returns: (transfer full) (nullable): a GPtrArray of SimValRow, in the
 * manifest's order. */
GPtrArray *plan_settings_validate(const PlanSettings *s, const char *dir,
                                  GpuModel **model, GError **error);

/* Write the output files the settings name (--json, --csv, --perfetto,
 * --picture, --report) for one run or a comparison of @n runs: all of
 * them or, on the first failure, none (outfile.h's group: outputs written
 * in place, like devices and FIFOs, excepted).  Main thread only. */
bool plan_settings_write_runs(const PlanSettings *s, SimResult *const *runs,
                              uint32_t n, const GpuModel *m,
                              const SimScenario *sc, GError **error);

/* The same for a sweep (--csv, --json, --plot, --report); @slo and
 * @answers nullable. */
bool plan_settings_write_sweep(const PlanSettings *s, const SimSweep *sw,
                               const SimSlo *slo, const GArray *answers,
                               GError **error);

#endif /* PLAN_OPTIONS_H */
