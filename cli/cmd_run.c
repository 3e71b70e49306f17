/* cmd_run.c -- `hqsim run`: simulate one workload and report. */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "report.h"
#include "sweep.h"

int sim_cmd_run(int argc, char **argv)
{
    SimCliOpts o;
    memset(&o, 0, sizeof o);
    char *mode = NULL;
    char **files = NULL;
    g_autofree char *modes = sim_share_mode_help();
    g_autofree char *mode_help =
        g_strdup_printf("How processes share the GPU: %s", modes);
    GOptionEntry own[] = {
        {"mode", 'm', 0, G_OPTION_ARG_STRING, &mode, mode_help, "MODE"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL,
         NULL},
        G_OPTION_ENTRY_NULL};
    g_autoptr(GArray) all = sim_cli_entries(&o, own);
    int status = 0;
    if (!sim_cli_parse("run", "SCENARIO|TRACE...",
                       "Simulates the workload and prints a summary per "
                       "process and stream and GPU-wide metrics.\nTRACE may "
                       "be a native scenario (JSON) or a profiler export "
                       "(nvprof/nsys CSV, nsys SQLite, ncu CSV, PyTorch "
                       "profiler JSON[.gz]).",
                       (GOptionEntry *)all->data, &argc, &argv, &status)) {
        sim_cli_opts_clear(&o);
        return status;
    }
    g_autoptr(GError) error = NULL;
    SimOptions so;
    sim_cli_sim_options(&o, &so);
    int n_files = files ? (int)g_strv_length(files) : 0;
    g_autoptr(SimScenario) sc = NULL;
    g_autoptr(GpuModel) m = NULL;
    g_autoptr(SimResult) r = NULL;
    if ((!mode || sim_share_mode_parse(mode, &so.mode, &error)) &&
        (sc = sim_cli_load(files, n_files, &o, &error)) &&
        (m = sim_cli_model(&o, sc, &error)) &&
        (r = sim_engine_run(m, sc, &so, &error)) &&
        sim_cli_write_outputs(&o, &r, 1, m, sc, &error)) {
        if (!o.quiet && !sim_cli_json_to_stdout(&o)) {
            g_autoptr(GString) out = g_string_new(NULL);
            sim_report_text(r, m, sc, out);
            fputs(out->str, stdout);
        }
    }
    g_free(mode);
    g_strfreev(files);
    sim_cli_opts_clear(&o);
    return error ? sim_cli_report_error(error) : 0;
}
