/* cmd_validate.c -- `hqsim validate`: the accuracy table against measured
 * GPU experiments (see validate.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "error.h"
#include "outfile.h"
#include "validate.h"

static void table(GPtrArray *rows, GString *o, bool markdown)
{
    if (markdown)
        g_string_append(o, "| experiment | category | role | processes | "
                           "measured ms | predicted ms | error | median "
                           "end error (% of span) |\n|---|---|---|---|---|"
                           "---|---|---|\n");
    else
        g_string_append_printf(o, "%-26s %-14s %-5s %4s %12s %12s %8s %8s\n",
                               "experiment", "category", "role", "proc",
                               "measured_ms", "predicted_ms", "error",
                               "end_err");
    for (guint i = 0; i < rows->len; i++) {
        const SimValRow *r = g_ptr_array_index(rows, i);
        if (r->skipped)
            continue;
        const char *role = r->calibration ? "calib" : "valid";
        if (markdown)
            g_string_append_printf(
                o,
                "| %s | %s | %s | %u | %.3f | %.3f | "
                "%+.1f%% | %.2f%% |\n",
                r->id, r->category,
                r->calibration ? "calibration" : "prediction", r->processes,
                r->meas_ms, r->pred_ms, 100 * r->err, 100 * r->end_err);
        else
            g_string_append_printf(o,
                                   "%-26s %-14s %-5s %4u %12.3f %12.3f "
                                   "%+7.1f%% %7.2f%%\n",
                                   r->id, r->category, role, r->processes,
                                   r->meas_ms, r->pred_ms, 100 * r->err,
                                   100 * r->end_err);
    }
}

/* One line per category and role (fitted = calibration, then predicted):
 * what the targets are stated in. */
static void by_category(GPtrArray *rows, GString *o, bool markdown)
{
    g_autoptr(GPtrArray) cats = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < rows->len; i++) {
        const SimValRow *r = g_ptr_array_index(rows, i);
        if (r->skipped)
            continue;
        /* a category "a/b" is listed after its parent "a/" */
        const char *slash = strchr(r->category, '/');
        g_autofree char *parent =
            slash ? g_strndup(r->category, (gsize)(slash - r->category + 1))
                  : NULL;
        const char *want[] = {parent, r->category};
        for (int w = 0; w < 2; w++) {
            bool seen = !want[w];
            for (guint j = 0; j < cats->len && !seen; j++)
                seen = !strcmp(g_ptr_array_index(cats, j), want[w]);
            if (!seen)
                g_ptr_array_add(cats, g_strdup(want[w]));
        }
    }
    g_ptr_array_add(cats, NULL); /* all */
    if (markdown)
        g_string_append(o, "| role | category | experiments | median "
                           "\\|makespan error\\| | largest | makespans "
                           "within 10% | end times within 10% of span |\n"
                           "|---|---|---|---|---|---|---|\n");
    else
        g_string_append_printf(o, "%-9s %-26s %5s %8s %8s %12s %14s\n", "role",
                               "category", "n", "median", "largest",
                               "ms_within10", "ends_within10");
    for (int cal = 0; cal < 2; cal++)
        for (guint j = 0; j < cats->len; j++) {
            const char *cat = g_ptr_array_index(cats, j);
            SimValSummary s = sim_validate_summary_of(rows, cal, cat);
            if (!s.n)
                continue;
            const char *role = cal ? "fitted" : "predicted";
            double pm = 100.0 * s.within10 / s.n;
            double pe = s.ends ? 100.0 * s.ends_within10 / s.ends : NAN;
            if (markdown)
                g_string_append_printf(
                    o,
                    "| %s | %s%s%s | %u | %.1f%% | %.1f%% | %.0f%% | "
                    "%.0f%% of %u |\n",
                    role, cat ? "" : "**", cat ? cat : "all", cat ? "" : "**",
                    s.n, 100 * s.median_abs_err, 100 * s.max_abs_err, pm, pe,
                    s.ends);
            else
                g_string_append_printf(
                    o, "%-9s %-26s %5u %7.1f%% %7.1f%% %11.0f%% %9.0f%%/%u\n",
                    role, cat ? cat : "all", s.n, 100 * s.median_abs_err,
                    100 * s.max_abs_err, pm, pe, s.ends);
        }
}

static void summary(GPtrArray *rows, GString *o)
{
    for (int c = 0; c < 2; c++) {
        SimValSummary s = sim_validate_summary(rows, c == 1);
        g_string_append_printf(
            o,
            "%s: %u experiments; makespan error median %.1f%%, largest "
            "%.1f%%, %u above 5%%, %u above 15%%; median end-time error "
            "%.2f%% of the span\n",
            c ? "calibration" : "prediction ", s.n, 100 * s.median_abs_err,
            100 * s.max_abs_err, s.over5, s.over15, 100 * s.median_end_err);
    }
    uint32_t skipped = 0;
    for (guint i = 0; i < rows->len; i++)
        skipped += ((SimValRow *)g_ptr_array_index(rows, i))->skipped != 0;
    if (skipped) {
        g_string_append_printf(o, "not replayed: %u (", skipped);
        bool first = true;
        for (guint i = 0; i < rows->len; i++) {
            const SimValRow *r = g_ptr_array_index(rows, i);
            if (!r->skipped)
                continue;
            g_string_append_printf(o, "%s%s: %s", first ? "" : "; ", r->id,
                                   r->skipped);
            first = false;
        }
        g_string_append(o, ")\n");
    }
}

int sim_cmd_validate(int argc, char **argv)
{
    g_auto(PlanSettings) o = {0};
    g_auto(GStrv) dirs = NULL;
    int status = 0;
    if (!sim_cli_parse_settings(
            "validate", "[DIR]",
            "Replays every measured experiment in DIR (default "
            "traces/measured/h100) with the same host calls at the same "
            "times, and compares makespans and op end times with the "
            "measurements.",
            &o, PLAN_CMD_VALIDATE, &dirs, &argc, &argv, &status))
        return status;
    g_autoptr(GError) error = NULL;
    g_autofree char *dir = dirs && dirs[0]
                               ? g_strdup(dirs[0])
#ifdef HQSIM_SOURCE_DIR
                               : g_build_filename(HQSIM_SOURCE_DIR, "traces",
                                                  "measured", "h100", NULL);
#else
                               : g_strdup("traces/measured/h100");
#endif
    g_autoptr(GpuModel) m = NULL;
    g_autoptr(GPtrArray) rows = plan_settings_validate(&o, dir, &m, &error);
    if (rows) {
        g_autoptr(GString) out = g_string_new(NULL);
        g_string_append_printf(out, "hqsim validate: %s against %s (%s)\n\n",
                               dir, m->name, m->display_name);
        table(rows, out, false);
        g_string_append_c(out, '\n');
        by_category(rows, out, false);
        g_string_append_c(out, '\n');
        summary(rows, out);
        fputs(out->str, stdout);
        if (o.markdown) {
            g_autoptr(GString) md = g_string_new(NULL);
            table(rows, md, true);
            g_string_append_c(md, '\n');
            by_category(rows, md, true);
            g_string_append_c(md, '\n');
            summary(rows, md);
            sim_write_file_atomic(o.markdown, md->str, md->len, &error);
        }
    }
    return error ? sim_cli_report_error(error) : 0;
}
