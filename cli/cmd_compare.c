/* cmd_compare.c -- `hqsim compare`: one workload under several sharing
 * modes, side by side, with the ratios (before/after MPS). */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "error.h"
#include "report.h"
#include "sweep.h"

int sim_cmd_compare(int argc, char **argv)
{
    SimCliOpts o;
    memset(&o, 0, sizeof o);
    char *modes = NULL;
    char **files = NULL;
    g_autofree char *names_help = sim_share_mode_help();
    g_autofree char *modes_help = g_strdup_printf(
        "Comma-separated sharing modes to compare: %s (default "
        "timeslice,mps)",
        names_help);
    GOptionEntry own[] = {
        {"modes", 'm', 0, G_OPTION_ARG_STRING, &modes, modes_help, "M1,M2"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL,
         NULL},
        G_OPTION_ENTRY_NULL};
    g_autoptr(GArray) all = sim_cli_entries(&o, own);
    int status = 0;
    if (!sim_cli_parse("compare", "SCENARIO|TRACE...",
                       "Runs the workload once per mode (default: every "
                       "process time-sliced in its own context, then every "
                       "process an MPS client) and prints the two side by "
                       "side with the ratio after/before.",
                       (GOptionEntry *)all->data, &argc, &argv, &status)) {
        sim_cli_opts_clear(&o);
        return status;
    }
    g_autoptr(GError) error = NULL;
    g_auto(GStrv) names = g_strsplit(modes ? modes : "timeslice,mps", ",", 0);
    uint32_t n = g_strv_length(names);
    SimResult **runs = g_new0(SimResult *, MAX(n, 1));
    int n_files = files ? (int)g_strv_length(files) : 0;
    g_autoptr(SimScenario) sc = NULL;
    g_autoptr(GpuModel) m = NULL;
    if (n == 0)
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE, "--modes is empty");
    else if ((sc = sim_cli_load(files, n_files, &o, &error)) &&
             (m = sim_cli_model(&o, sc, &error))) {
        for (uint32_t i = 0; i < n && !error; i++) {
            SimOptions so;
            sim_cli_sim_options(&o, &so);
            if (sim_share_mode_parse(names[i], &so.mode, &error))
                runs[i] = sim_engine_run(m, sc, &so, &error);
        }
        if (!error && sim_cli_write_outputs(&o, runs, n, m, sc, &error) &&
            !o.quiet && !sim_cli_json_to_stdout(&o)) {
            g_autoptr(GString) out = g_string_new(NULL);
            sim_report_compare_text(runs, n, m, sc, out);
            fputs(out->str, stdout);
        }
    }
    for (uint32_t i = 0; i < n; i++)
        sim_result_free(runs[i]);
    g_free(runs);
    g_free(modes);
    g_strfreev(files);
    sim_cli_opts_clear(&o);
    return error ? sim_cli_report_error(error) : 0;
}
