/* cmd_import.c -- `hqsim import TRACE... -o scenario.json`: convert
 * profiler exports (or merge native scenarios) into one native scenario,
 * written atomically, and say in one paragraph what was imported. */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "error.h"
#include "import.h"

int sim_cmd_import(int argc, char **argv)
{
    g_auto(PlanSettings) o = {0};
    g_auto(GStrv) files = NULL;
    int status = 0;
    if (!sim_cli_parse_settings(
            "import", "TRACE... -o SCENARIO.json",
            "Converts profiler exports into a native scenario. Formats are "
            "detected from the content: nvprof --print-gpu-trace --csv, nsys "
            "stats cuda_gpu_trace CSV, nsys SQLite export, Nsight Compute "
            "--csv (alone, or with a trace to supply per-kernel resources), "
            "PyTorch profiler / Kineto JSON[.gz], and native scenarios.  "
            "Several files become several processes.",
            &o, PLAN_CMD_IMPORT, &files, &argc, &argv, &status))
        return status;
    g_autoptr(GError) error = NULL;
    int n = files ? (int)g_strv_length(files) : 0;
    if (!o.output)
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                    "give the output file with -o FILE");
    else if (n == 0)
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                    "give at least one trace file");
    SimImportOptions opt;
    plan_settings_import(&o, &opt);
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = NULL;
    if (!error)
        sc = sim_workload_load_report(files, n, &opt, &rep, &error);
    if (sc) {
        if (strcmp(o.output, "-") == 0) {
            g_autofree char *json = sim_scenario_to_json(sc);
            fputs(json, stdout);
        } else if (sim_scenario_write(sc, o.output, &error) && !o.quiet) {
            g_autofree char *summary = sim_import_report_summary(rep);
            printf("%s\nWrote %s.\n", summary, o.output);
        }
    }
    return error ? sim_cli_report_error(error) : 0;
}
