/* cmd_replay.c -- `hqsim replay`: identity replay of profiler traces (see
 * import/replay.h). */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"

/* One line of the table per replay. */
static void print_row(const char *name, const SimReplayStats *s, void *data)
{
    (void)data;
    printf("%-48.48s %-10s %7u %12.3f %12.3f %+8.2f%% %10.3f%% %10.3f%%\n",
           name, s->gpu, s->kernels, s->rec_span_ms, s->sim_span_ms,
           100 * s->makespan_err, 100 * s->median_end_err,
           100 * s->worst_end_err);
}

int sim_cmd_replay(int argc, char **argv)
{
    g_auto(PlanSettings) o = {0};
    g_auto(GStrv) files = NULL;
    int status = 0;
    if (!sim_cli_parse_settings(
            "replay", "TRACE...",
            "Imports the traces, simulates them as recorded and compares "
            "every GPU op with its recording: recorded vs simulated makespan "
            "and end-time errors.",
            &o, PLAN_CMD_REPLAY, &files, &argc, &argv, &status))
        return status;
    g_autoptr(GError) error = NULL;
    /* The header, unless there is no trace to replay (then an error). */
    if (files && files[0])
        printf("%-48s %-10s %7s %12s %12s %9s %11s %11s\n", "trace", "gpu",
               "ops", "recorded_ms", "simulated_ms", "makespan", "median_end",
               "worst_end");
    if (!plan_settings_replay(&o, files, print_row, NULL, &error))
        return sim_cli_report_error(error);
    return 0;
}
