/* cmd_gen.c -- `hqsim gen`: write a synthetic workload as a scenario. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "gen.h"

int sim_cmd_gen(int argc, char **argv)
{
    char *kind = NULL, *out = NULL;
    gint64 kernels = 100000, blocks = 10000000, seed = 1;
    int procs = 8;
    GOptionEntry entries[] = {
        {"kind", 'k', 0, G_OPTION_ARG_STRING, &kind,
         "many-small (default) or big-grid", "KIND"},
        {"kernels", 0, 0, G_OPTION_ARG_INT64, &kernels,
         "many-small: number of kernels (default 100000)", "N"},
        {"processes", 'n', 0, G_OPTION_ARG_INT, &procs,
         "many-small: number of processes (default 8)", "N"},
        {"blocks", 0, 0, G_OPTION_ARG_INT64, &blocks,
         "big-grid: blocks of the one kernel (default 10000000)", "N"},
        {"seed", 0, 0, G_OPTION_ARG_INT64, &seed, "random seed (default 1)",
         "S"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
         "write the scenario to FILE (default: stdout)", "FILE"},
        G_OPTION_ENTRY_NULL};
    int status = 0;
    if (!sim_cli_parse("gen", "",
                       "Writes a synthetic workload (for "
                       "benchmarks) as a native scenario.",
                       entries, &argc, &argv, &status))
        return status;
    g_autoptr(GError) error = NULL;
    g_autoptr(SimScenario) sc = NULL;
    if (argc > 1)
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                    "unexpected argument '%s'", argv[1]);
    else if (!kind || !strcmp(kind, "many-small")) {
        if (kernels < 1 || kernels > 100000000 || procs < 1 || procs > 4096 ||
            seed < 0)
            g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                        "--kernels must be 1..1e8, --processes 1..4096");
        else
            sc = sim_gen_many_small((uint64_t)kernels, (uint32_t)procs,
                                    (uint64_t)seed);
    } else if (!strcmp(kind, "big-grid")) {
        if (blocks < 1 || blocks > ((gint64)1 << 40))
            g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                        "--blocks must be 1..2^40");
        else
            sc = sim_gen_big_grid((uint64_t)blocks);
    } else {
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                    "unknown --kind '%s' (many-small, big-grid)", kind);
    }
    if (sc) {
        if (out)
            sim_scenario_write(sc, out, &error);
        else {
            g_autofree char *text = sim_scenario_to_json(sc);
            fputs(text, stdout);
        }
    }
    g_free(kind);
    g_free(out);
    return error ? sim_cli_report_error(error) : 0;
}
