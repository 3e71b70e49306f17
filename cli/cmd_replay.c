/* cmd_replay.c -- `hqsim replay`: identity replay of profiler traces (see
 * import/replay.h). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "replay.h"

int sim_cmd_replay(int argc, char **argv)
{
    char *gpu = NULL, *models = NULL;
    gboolean pin = FALSE, each = FALSE, as_recorded = FALSE, clocks = FALSE;
    char **files = NULL;
    GOptionEntry entries[] = {
        {"gpu", 'g', 0, G_OPTION_ARG_STRING, &gpu,
         "GPU model (default: the one closest to the traced GPU)", "MODEL"},
        {"models-dir", 0, 0, G_OPTION_ARG_FILENAME, &models,
         "Folder of GPU model files", "DIR"},
        {"pin-held", 0, 0, G_OPTION_ARG_NONE, &pin,
         "Issue ops that waited for something the trace does not show just "
         "in time (import/README.md)",
         NULL},
        {"as-recorded", 0, 0, G_OPTION_ARG_NONE, &as_recorded,
         "Take recorded durations as times alone (default: infer the times "
         "alone that reproduce the recording, see import/README.md)",
         NULL},
        {"recorded-clocks", 0, 0, G_OPTION_ARG_NONE, &clocks,
         "Keep the recorded clocks of traces recorded apart (default: "
         "traces whose recorded spans do not overlap each start at their "
         "first op)",
         NULL},
        {"each", 0, 0, G_OPTION_ARG_NONE, &each,
         "Replay each file on its own (default: all files as one workload)",
         NULL},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL,
         NULL},
        G_OPTION_ENTRY_NULL};
    int status = 0;
    if (!sim_cli_parse("replay", "TRACE...",
                       "Imports the traces, simulates them as recorded and "
                       "compares every GPU op with its recording: recorded "
                       "vs simulated makespan and end-time errors.",
                       entries, &argc, &argv, &status))
        return status;
    g_autoptr(GError) error = NULL;
    int n = files ? (int)g_strv_length(files) : 0;
    if (n == 0)
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE, "give a trace");
    else {
        printf("%-48s %-10s %7s %12s %12s %9s %11s %11s\n", "trace", "gpu",
               "ops", "recorded_ms", "simulated_ms", "makespan",
               "median_end", "worst_end");
        for (int i = 0; i < (each ? n : 1) && !error; i++) {
            SimImportOptions opt;
            sim_import_options_init(&opt);
            opt.gpu_model = gpu;
            opt.models_dir = models;
            opt.pin_held = pin;
            opt.recorded_clocks = clocks;
            SimReplayStats s;
            if (!sim_identity_replay(each ? files + i : files, each ? 1 : n,
                                     &opt, !as_recorded, &s, &error))
                break;
            const char *name = strrchr(files[i], '/');
            name = name ? name + 1 : files[i];
            printf("%-48.48s %-10s %7u %12.3f %12.3f %+8.2f%% %10.3f%% "
                   "%10.3f%%\n",
                   name, s.gpu, s.kernels, s.rec_span_ms, s.sim_span_ms,
                   100 * s.makespan_err, 100 * s.median_end_err,
                   100 * s.worst_end_err);
            sim_replay_stats_clear(&s);
        }
    }
    g_free(gpu);
    g_free(models);
    g_strfreev(files);
    return error ? sim_cli_report_error(error) : 0;
}
