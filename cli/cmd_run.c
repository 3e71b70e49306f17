/* cmd_run.c -- `hqsim run`: simulate one workload and report. */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "report.h"

int sim_cmd_run(int argc, char **argv)
{
    SimCliCommand c;
    int status = sim_cli_prepare_command(
        &c, PLAN_CMD_RUN, "run",
        "Simulates the workload and prints a summary per process and stream "
        "and GPU-wide metrics.\nTRACE may be a native scenario (JSON) or a "
        "profiler export (nvprof/nsys CSV, nsys SQLite, ncu CSV, PyTorch "
        "profiler JSON[.gz]).",
        argc, argv);
    if (status >= 0) {
        sim_cli_command_clear(&c);
        return status;
    }
    g_autoptr(GError) error = NULL;
    SimOptions so;
    sim_cli_sim_options(&c, "", &so);
    g_autoptr(SimResult) r = NULL;
    bool mode_ok =
        !c.s.mode || sim_share_mode_parse(c.s.mode, &so.mode, &error);
    /* A trace's solo-time inference already ran this very simulation as
     * its last round: take that result rather than simulate again. */
    if (mode_ok && c.solo_run && !c.s.request_model &&
        plan_run_is_solo_run(&so, c.sc, (uint32_t)c.s.sm_sample))
        r = g_steal_pointer(&c.solo_run);
    g_clear_pointer(&c.solo_run, sim_result_free);
    if (mode_ok && !r)
        r = plan_simulate(&c.s, c.m, c.sc, &so, &error);
    if (r && plan_settings_write_runs(&c.s, &r, 1, c.m, c.sc, &error) &&
        !c.s.quiet && !sim_cli_output_to_stdout(&c.s)) {
        g_autoptr(GString) out = g_string_new(NULL);
        sim_report_text(r, c.m, c.sc, out);
        fputs(out->str, stdout);
    }
    sim_cli_command_clear(&c);
    return error ? sim_cli_report_error(error) : 0;
}
