/* main.c -- the hqsim command line: dispatch to a subcommand.
 *
 * Every subcommand lives in its own file and is listed in commands[] below;
 * `hqsim help` prints the table.  Errors are reported here (or by the command
 * itself through sim_cli_report_error), once.
 */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "commands.h"
#include "error.h"

static const SimCommand commands[] = {
    {"run", "simulate a scenario or profiler trace", sim_cmd_run},
    {"compare", "run one workload under several sharing modes (before/after "
                "MPS)",
     sim_cmd_compare},
    {"sweep", "capacity planning: sweep processes, modes, thread "
              "percentages, connections, GPUs; answer SLO questions",
     sim_cmd_sweep},
    {"import", "convert a profiler trace into a native scenario",
     sim_cmd_import},
    {"replay", "identity replay: simulate traces as recorded and compare",
     sim_cmd_replay},
    {"occupancy", "blocks per SM and the limiting resource for a kernel",
     sim_cmd_occupancy},
    {"models", "list GPU models, or show one with its sources",
     sim_cmd_models},
    {"validate", "replay measured experiments and print the accuracy table",
     sim_cmd_validate},
    {"gen", "generate a synthetic workload (benchmarks)", sim_cmd_gen},
    {"calibrate", "measure this machine's NVIDIA GPU and fit a model file "
                  "(or --fit earlier data)",
     sim_cmd_calibrate},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: hqsim COMMAND [OPTIONS...]\n\n"
               "Simulates how an NVIDIA GPU schedules concurrent work: "
               "Hyper-Q queues,\nblock dispatch, SM sharing, time-slicing "
               "between processes, and MPS.\n\nCommands:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'hqsim COMMAND --help' describes a command's options.\n");
    g_autofree char *limits = sim_limits_describe();
    fprintf(f,
            "\nEvery command takes --limit NAME=N (repeatable) to raise one "
            "of the limits\non the work an input may ask for "
            "(NAME, default, meaning):\n%s",
            limits);
}

/* Take every "--limit NAME=N" / "--limit=NAME=N" before a "--" out of
 * argv (any command takes them; they are set before the command runs and
 * never change afterwards, see bounds.h).  Returns false on a bad one. */
static bool take_limits(int *argc, char **argv)
{
    int out = 0, i = 0;
    for (; i < *argc && strcmp(argv[i], "--"); i++) {
        const char *val = NULL;
        if (!strncmp(argv[i], "--limit=", 8))
            val = argv[i] + 8;
        else if (!strcmp(argv[i], "--limit")) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "hqsim: --limit needs NAME=N\n");
                return false;
            }
            val = argv[++i];
        }
        if (!val) {
            argv[out++] = argv[i];
            continue;
        }
        g_autoptr(GError) error = NULL;
        if (!sim_limit_set_arg(val, &error)) {
            fprintf(stderr, "hqsim: %s\n", error->message);
            return false;
        }
    }
    for (; i < *argc; i++) /* "--" and what follows, unchanged */
        argv[out++] = argv[i];
    *argc = out;
    argv[out] = NULL;
    return true;
}

int sim_cli_report_error(const GError *error)
{
    fprintf(stderr, "hqsim: %s\n", error->message);
    return error->domain == SIM_ERROR && error->code == SIM_ERROR_USAGE ? 2
                                                                        : 1;
}

gboolean sim_cli_parse(const char *command, const char *params,
                       const char *description, const GOptionEntry *entries,
                       int *argc, char ***argv, int *status)
{
    /* The program name already reads "hqsim COMMAND" (main sets argv[0]):
     * the usage line only adds the parameters. */
    g_autoptr(GOptionContext) ctx = g_option_context_new(params);
    if (description)
        g_option_context_set_description(ctx, description);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, argc, argv, &error)) {
        fprintf(stderr, "hqsim %s: %s\n(see 'hqsim %s --help')\n", command,
                error->message, command);
        *status = 2;
        return FALSE;
    }
    return TRUE;
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "C");
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!take_limits(&argc, argv))
        return 2;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") ||
        !strcmp(name, "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "--version")) {
        printf("hqsim 0.1\n");
        return 0;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        if (!strcmp(name, commands[i].name)) {
            /* argv[1] becomes the program name the command parses. */
            g_autofree char *prog = g_strdup_printf("hqsim %s", name);
            argv[1] = prog;
            return commands[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "hqsim: unknown command '%s'\n\n", name);
    usage(stderr);
    return 2;
}
