/* cli_common.h -- what `run`, `compare` and `sweep` share: loading the
 * workload, choosing the GPU model, the what-if knobs, and the outputs.
 */
#ifndef SIM_CLI_COMMON_H
#define SIM_CLI_COMMON_H

#include <glib.h>

#include "engine.h"
#include "gpu_model.h"
#include "prepare.h"
#include "result.h"
#include "scenario.h"

/* Option values common to the simulate commands (filled by GOption). */
typedef struct {
    char *gpu;          /* --gpu */
    char *models_dir;   /* --models-dir */
    int connections;    /* --connections */
    double thread_pct;  /* --thread-pct */
    int processes;      /* --processes: copies of each process */
    gint64 seed;        /* --seed */
    int host_cores;     /* --host-cores (0: scenario / model) */
    gboolean no_jitter; /* --no-jitter */
    double time_limit_ms;
    char *json;         /* --json FILE */
    char *csv;          /* --csv FILE */
    char *perfetto;     /* --perfetto FILE */
    char *perfetto_detail; /* --perfetto-detail ops|sampled|full */
    char *report;       /* --report FILE.html */
    char *picture;      /* --picture FILE.png|FILE.svg */
    char *picture_kind; /* --picture-kind timeline|sm|util|all */
    gboolean quiet;     /* no text summary */
    gboolean timeline;  /* record per-SM timeline (pictures) */
    gboolean as_recorded; /* traces: take recorded durations as times
                             alone (no solo-time inference) */
    gboolean recorded_clocks; /* traces recorded apart keep their clocks */
    double host_scale;  /* --host-scale: multiply host time (0: 1) */
    gboolean loop_request; /* --loop-request: one request as a loop */
    int iterations;     /* --iterations: closed-loop iterations (0: as
                           the workload says) */
    char *mem_mib;      /* --mem-mib SPEC (prepare.h) */
    char *spread;       /* --request-spread FILE (prepare.h) */
    double arrival_rate; /* --arrival-rate R: Poisson open loop (0: off) */
    char *arrival_times; /* --arrival-times FILE (prepare.h) */
} SimCliOpts;

/* A command's option table: the rows for SimCliOpts followed by @own
 * (terminated by a row without long_name); ->data is the zero-terminated
 * GOptionEntry table.  Returns: (transfer full). */
GArray *sim_cli_entries(SimCliOpts *o, const GOptionEntry *own);

/* The preparation options (plan/prepare.h) the command line asks for. */
void sim_cli_prep_options(const SimCliOpts *o, PrepOptions *po);

/* Load one native scenario or one or more profiler traces and prepare it
 * for the GPU of --gpu (else the workload's) with --processes copies: the
 * whole pipeline of plan/prepare.h.  Returns: (transfer full) (nullable). */
SimScenario *sim_cli_load(char **files, int n, const SimCliOpts *o,
                          GError **error);

/* The model named by --gpu, else the scenario's "gpu", else h100-sxm.
 * Returns: (transfer full) (nullable). */
GpuModel *sim_cli_model(const SimCliOpts *o, const SimScenario *sc,
                        GError **error);

/* SimOptions from the command line. */
void sim_cli_sim_options(const SimCliOpts *o, SimOptions *so);

void sim_cli_opts_clear(SimCliOpts *o);

/* Whether --json - sends the JSON to stdout: then stdout holds it alone
 * (no text summary), so scripts can parse it. */
bool sim_cli_json_to_stdout(const SimCliOpts *o);

/* Write the outputs the options ask for (--json, --csv, --perfetto,
 * --picture, --report) for one run or a comparison of @n runs: all of them
 * or, on the first failure, none (outputs written in place, like devices
 * and FIFOs, excepted). */
gboolean sim_cli_write_outputs(const SimCliOpts *o, SimResult *const *runs,
                               uint32_t n, const GpuModel *m,
                               const SimScenario *sc, GError **error);

#endif /* SIM_CLI_COMMON_H */
