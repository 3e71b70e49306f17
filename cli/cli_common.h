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

/* SimOptions from the settings (plan_settings_sim) with the progress
 * line on stderr when it is a terminal. */
void sim_cli_sim_options(const PlanSettings *s, SimOptions *so);

/* Whether --json - sends the JSON to stdout: then stdout holds it alone
 * (no text summary), so scripts can parse it. */
bool sim_cli_json_to_stdout(const PlanSettings *s);

#endif /* SIM_CLI_COMMON_H */
