/* cmd_import.c -- `hqsim import TRACE... -o scenario.json`: convert
 * profiler exports (or merge native scenarios) into one native scenario,
 * written atomically, and say in one paragraph what was imported. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../import/import.h"
#include "commands.h"
#include "error.h"

static bool ms_to_ns(double ms, const char *opt, SimTime *out, GError **error)
{
    if (!isfinite(ms) || ms < 0 || ms > 1e12) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "%s must be a time in ms >= 0", opt);
        return false;
    }
    *out = (SimTime)llround(ms * 1e6);
    return true;
}

int sim_cmd_import(int argc, char **argv)
{
    char *output = NULL, *format = NULL, *gpu = NULL, *models_dir = NULL;
    char **processes = NULL, **files = NULL;
    double latency_us = -1, from_ms = -1, to_ms = -1;
    gboolean quiet = FALSE, pin_held = FALSE, clocks = FALSE;
    GOptionEntry entries[] = {
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
         "Write the native scenario to FILE ('-' for stdout); written to a "
         "temporary name and renamed",
         "FILE"},
        {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
         "Read every file as F (hqsim, nvprof, nsys-csv, nsys-sqlite, ncu, "
         "kineto) instead of detecting it from its content",
         "F"},
        {"gpu", 'g', 0, G_OPTION_ARG_STRING, &gpu,
         "GPU model the scenario is for (default: the closest to the GPU "
         "the trace names); its kernel launch latency is used to infer "
         "issue times",
         "MODEL"},
        {"models-dir", 0, 0, G_OPTION_ARG_FILENAME, &models_dir,
         "Folder of GPU model files (default: the bundled models/)", "DIR"},
        {"launch-latency-us", 0, 0, G_OPTION_ARG_DOUBLE, &latency_us,
         "Kernel launch latency for inferring issue times (default: the GPU "
         "model's)",
         "US"},
        {"from-ms", 0, 0, G_OPTION_ARG_DOUBLE, &from_ms,
         "Keep ops that start at least MS after each file's first GPU op",
         "MS"},
        {"to-ms", 0, 0, G_OPTION_ARG_DOUBLE, &to_ms,
         "Keep ops that start less than MS after each file's first GPU op",
         "MS"},
        {"process", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &processes,
         "Keep only this process (pid or name; repeatable)", "P"},
        {"pin-held", 0, 0, G_OPTION_ARG_NONE, &pin_held,
         "Issue ops that waited for something the trace does not show "
         "(sampled traces) just in time, so replay keeps them waiting",
         NULL},
        {"recorded-clocks", 0, 0, G_OPTION_ARG_NONE, &clocks,
         "Keep the recorded clocks of traces recorded apart (default: "
         "traces whose recorded spans do not overlap each start at their "
         "first op)",
         NULL},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
         "Do not print the summary", NULL},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL,
         NULL},
        G_OPTION_ENTRY_NULL};
    int status = 0;
    if (!sim_cli_parse("import", "TRACE... -o SCENARIO.json",
                       "Converts profiler exports into a native scenario. "
                       "Formats are detected from the content: nvprof "
                       "--print-gpu-trace --csv, nsys stats cuda_gpu_trace "
                       "CSV, nsys SQLite export, Nsight Compute --csv (alone, "
                       "or with a trace to supply per-kernel resources), "
                       "PyTorch profiler / Kineto JSON[.gz], and native "
                       "scenarios.  Several files become several processes.",
                       entries, &argc, &argv, &status))
        return status;
    g_autoptr(GError) error = NULL;
    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.format = format;
    opt.gpu_model = gpu;
    opt.models_dir = models_dir;
    opt.processes = processes;
    opt.pin_held = pin_held;
    opt.recorded_clocks = clocks;
    int n = files ? (int)g_strv_length(files) : 0;
    if (!output)
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                    "give the output file with -o FILE");
    else if (n == 0)
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                    "give at least one trace file");
    if (!error && latency_us >= 0)
        ms_to_ns(latency_us / 1000.0, "--launch-latency-us",
                 &opt.launch_latency_ns, &error);
    if (!error && from_ms >= 0)
        ms_to_ns(from_ms, "--from-ms", &opt.window_start_ns, &error);
    if (!error && to_ms >= 0)
        ms_to_ns(to_ms, "--to-ms", &opt.window_end_ns, &error);

    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = NULL;
    if (!error)
        sc = sim_workload_load_report(files, n, &opt, &rep, &error);
    if (sc) {
        if (strcmp(output, "-") == 0) {
            g_autofree char *json = sim_scenario_to_json(sc);
            fputs(json, stdout);
        } else if (sim_scenario_write(sc, output, &error) && !quiet) {
            g_autofree char *summary = sim_import_report_summary(rep);
            printf("%s\nWrote %s.\n", summary, output);
        }
    }
    g_free(output);
    g_free(format);
    g_free(gpu);
    g_free(models_dir);
    g_strfreev(processes);
    g_strfreev(files);
    return error ? sim_cli_report_error(error) : 0;
}
