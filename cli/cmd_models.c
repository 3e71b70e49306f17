/* cmd_models.c -- `hqsim models`: list the GPU models, or show one with the
 * provenance of every value.
 *
 * The list loads every file, so a broken model is reported here (and the
 * exit status is non-zero) rather than first surfacing in a long sweep.
 */
#include <stdio.h>

#include "commands.h"
#include "error.h"
#include "gpu_model.h"

static const char models_description[] =
    "Without --show, prints one line per model file: name, display name,\n"
    "compute capability, SM count, usable device memory and whether its\n"
    "parameters were calibrated on real hardware.  With --show NAME, prints\n"
    "every field of that model with its value and source.  NAME may also be\n"
    "a path to a model file.";

int sim_cmd_models(int argc, char **argv)
{
    g_autofree char *dir = NULL;
    g_autofree char *show = NULL;
    const GOptionEntry entries[] = {
        {"dir", 'd', 0, G_OPTION_ARG_FILENAME, &dir,
         "read models from DIR instead of the bundled models/ folder", "DIR"},
        {"show", 's', 0, G_OPTION_ARG_STRING, &show,
         "print every field of model NAME with its source", "NAME"},
        G_OPTION_ENTRY_NULL};
    int status = 0;
    if (!sim_cli_parse("models", "", models_description, entries, &argc, &argv,
                       &status))
        return status;
    if (argc > 1) {
        fprintf(stderr,
                "hqsim models: unexpected argument '%s'\n"
                "(see 'hqsim models --help')\n",
                argv[1]);
        return 2;
    }
    const char *models_dir = dir ? dir : sim_models_dir();
    g_autoptr(GError) error = NULL;

    if (show) {
        g_autoptr(GpuModel) m = sim_gpu_model_find(show, models_dir, &error);
        if (!m)
            return sim_cli_report_error(error);
        g_autoptr(GString) out = g_string_new(NULL);
        sim_gpu_model_describe(m, out);
        fputs(out->str, stdout);
        return 0;
    }

    g_auto(GStrv) names = sim_gpu_model_list(models_dir, &error);
    if (!names)
        return sim_cli_report_error(error);
    if (!names[0]) {
        fprintf(stderr, "hqsim: no model files (*.json) in %s\n", models_dir);
        return 1;
    }
    int rc = 0;
    printf("%-14s %-32s %-5s %5s %11s  %s\n", "NAME", "DISPLAY NAME", "CC",
           "SMS", "MEMORY MIB", "CALIBRATED");
    for (char **n = names; *n; n++) {
        g_autoptr(GError) e = NULL;
        g_autoptr(GpuModel) m = sim_gpu_model_find(*n, models_dir, &e);
        if (!m) {
            /* Keep listing the others; the status reports the failure. */
            rc = sim_cli_report_error(e);
            continue;
        }
        g_autofree char *cc =
            g_strdup_printf("%d.%d", m->cc_major, m->cc_minor);
        printf("%-14s %-32s %-5s %5u %11llu  %s\n", *n, m->display_name, cc,
               m->sm_count,
               (unsigned long long)(m->device_mem_bytes / (1024 * 1024)),
               m->calibrated ? "yes" : "no");
    }
    return rc;
}
