/* commands.h -- the subcommands of the hqsim command line.
 *
 * Each command is one function in its own file (cli/cmd_NAME.c),
 * registered in main.c's command table.  A command parses its own options
 * (GOptionEntry table), prints its own --help, and returns a process exit
 * status; errors are reported once, by
 * sim_cli_report_error(), never deeper down.
 */
#ifndef SIM_COMMANDS_H
#define SIM_COMMANDS_H

#include <glib.h>

typedef int (*SimCommandFn)(int argc, char **argv);

typedef struct {
    const char *name;
    const char *summary;
    SimCommandFn fn;
} SimCommand;

/* Print "hqsim: MESSAGE" to stderr and return the exit status for it
 * (2 for usage errors, 1 otherwise).  Frees nothing. */
int sim_cli_report_error(const GError *error);

/* Parse @argc/@argv with @entries; on --help or an error prints and returns
 * FALSE with *status set. */
gboolean sim_cli_parse(const char *command, const char *params,
                       const char *description, const GOptionEntry *entries,
                       int *argc, char ***argv, int *status);

int sim_cmd_models(int argc, char **argv);
int sim_cmd_occupancy(int argc, char **argv);
int sim_cmd_run(int argc, char **argv);
int sim_cmd_compare(int argc, char **argv);
int sim_cmd_import(int argc, char **argv);
int sim_cmd_replay(int argc, char **argv);
int sim_cmd_sweep(int argc, char **argv);
int sim_cmd_validate(int argc, char **argv);
int sim_cmd_gen(int argc, char **argv);
int sim_cmd_calibrate(int argc, char **argv);

#endif /* SIM_COMMANDS_H */
