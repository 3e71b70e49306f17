/* cli_common.h -- what `run`, `compare` and `sweep` share: their options
 * (plan/options.h's table), loading the workload and its GPU model, the
 * progress line, and the outputs.
 */
#ifndef SIM_CLI_COMMON_H
#define SIM_CLI_COMMON_H

#include <glib.h>

#include "engine.h"
#include "gpu_model.h"
#include "options.h"
#include "result.h"
#include "scenario.h"

/* Parse the command line of simulate command @which (one PlanCommand
 * bit): every option of plan/options.h's table for it into @s, the
 * remaining arguments into @files (NULL-terminated, nullable); on --help
 * or an error prints and returns FALSE with *status set (main.c). */
gboolean sim_cli_parse_settings(const char *command, const char *params,
                                const char *description, PlanSettings *s,
                                PlanCommand which, char ***files, int *argc,
                                char ***argv, int *status);

/* A simulate command, parsed and its workload loaded. */
typedef struct {
    PlanSettings s;
    char **files;    /* the inputs, NULL-terminated (nullable) */
    SimScenario *sc; /* prepared for the GPU of m */
    GpuModel *m;
    /* `run` only: the solo-time inference's last round, a run of sc with
     * sim_options_init's defaults (plan_settings_load_run), or NULL */
    SimResult *solo_run;
} SimCliCommand;

/* The opening of `run` and `compare`: parse @argc/@argv for @which (@name
 * and @description for --help), check the settings (plan_settings_check),
 * load and prepare the workload (a note on what was changed goes to
 * stderr unless --quiet) and find its GPU model.  Returns -1 when the
 * command goes on, else the exit status (--help, or an error reported
 * once); @c is to be cleared either way. */
int sim_cli_prepare_command(SimCliCommand *c, PlanCommand which,
                            const char *name, const char *description, int argc,
                            char **argv);
void sim_cli_command_clear(SimCliCommand *c);

/* SimOptions from @c's settings (plan_settings_sim) with the progress on
 * stderr: a line redrawn in place on a terminal; elsewhere, unless
 * --quiet, a status line after 10 s of wall time and every 30 s after,
 * saying where the run stands (@what: "" or " (mps)" for one run of a
 * comparison) and what bounds it.  HQSIM_PROGRESS=0|1|always|lines
 * overrides (cli_common.c). */
void sim_cli_sim_options(const SimCliCommand *c, const char *what,
                         SimOptions *so);

/* Whether a command other than run and compare (sweep) prints status
 * lines rather than a redrawn line (*@always: at every report, tests), or
 * the redrawn line: the same rules as sim_cli_sim_options. */
bool sim_cli_status_lines(bool quiet, bool *always);
bool sim_cli_redrawn_progress(void);

/* Whether a status line is due at @now for a task started at @start_us
 * whose last line was at @last_us (0: none yet). */
bool sim_cli_status_due(gint64 start_us, gint64 last_us, gint64 now,
                        bool always);

/* Whether an output (--json, --csv, ... -) goes to stdout: then stdout
 * holds it alone (no text summary), so scripts can parse it. */
bool sim_cli_output_to_stdout(const PlanSettings *s);

#endif /* SIM_CLI_COMMON_H */
