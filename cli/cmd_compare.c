/* cmd_compare.c -- `hqsim compare`: one workload under several sharing
 * modes, side by side, with the ratios (before/after MPS). */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "report.h"

int sim_cmd_compare(int argc, char **argv)
{
    SimCliCommand c;
    int status = sim_cli_prepare_command(
        &c, PLAN_CMD_COMPARE, "compare",
        "Runs the workload once per mode (default: every process "
        "time-sliced in its own context, then every process an MPS client) "
        "and prints the two side by side with the ratio after/before.",
        argc, argv);
    if (status >= 0) {
        sim_cli_command_clear(&c);
        return status;
    }
    g_autoptr(GError) error = NULL;
    /* Not empty (plan_settings_check). */
    g_auto(GStrv) names =
        g_strsplit(c.s.modes ? c.s.modes : "timeslice,mps", ",", 0);
    uint32_t n = g_strv_length(names);
    SimResult **runs = g_new0(SimResult *, MAX(n, 1));
    for (uint32_t i = 0; i < n && !error; i++) {
        SimOptions so;
        g_autofree char *what = g_strdup_printf(" (%s)", names[i]);
        sim_cli_sim_options(&c, what, &so);
        if (sim_share_mode_parse(names[i], &so.mode, &error))
            runs[i] = plan_simulate(&c.s, c.m, c.sc, &so, &error);
    }
    if (!error && plan_settings_write_runs(&c.s, runs, n, c.m, c.sc, &error) &&
        !c.s.quiet && !sim_cli_output_to_stdout(&c.s)) {
        g_autoptr(GString) out = g_string_new(NULL);
        sim_report_compare_text(runs, n, c.m, c.sc, out);
        fputs(out->str, stdout);
    }
    for (uint32_t i = 0; i < n; i++)
        sim_result_free(runs[i]);
    g_free(runs);
    sim_cli_command_clear(&c);
    return error ? sim_cli_report_error(error) : 0;
}
