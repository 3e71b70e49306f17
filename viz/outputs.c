/* outputs.c -- the table of a run's (or comparison's) output formats.
 * See viz.h.  The command line maps its options onto these rows by name;
 * adding an output is a writer and one row here.
 */
#include <string.h>

#include "error.h"
#include "outfile.h"
#include "report.h"
#include "viz.h"

static bool write_json(const void *what, const char *path, GError **error)
{
    const SimVizRuns *r = what;
    g_autofree char *j =
        r->n == 1 ? sim_report_json(r->runs[0], r->m, r->sc)
                  : sim_report_compare_json(r->runs, r->n, r->m, r->sc);
    return sim_write_file_atomic(path, j, strlen(j), error);
}

/* @path with @mode before its extension (out.csv, mps: out.mps.csv). */
static char *csv_name(const char *path, const char *mode)
{
    g_autofree char *base = g_strdup(path);
    char *dot = strrchr(base, '.');
    const char *ext = "";
    if (dot && !strchr(dot, '/')) {
        ext = path + (dot - base);
        *dot = 0;
    }
    return g_strdup_printf("%s.%s%s", base, mode, ext);
}

bool sim_viz_csv_check(const char *path, uint32_t n, GError **error)
{
    if (n <= 1 || !sim_out_in_place(path))
        return true;
    g_autofree char *a = csv_name("out.csv", "timeslice");
    g_autofree char *b = csv_name("out.csv", "mps");
    g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                "--csv %s: a comparison writes one CSV per mode, named "
                "after the file given (out.csv: %s, %s), so it needs a file "
                "name, not %s",
                path, a, b,
                strcmp(path, "-") ? "a device, FIFO or /dev/stdout"
                                  : "'-' (standard output)");
    return false;
}

/* One CSV per run; for a comparison each run's file has its mode before
 * the extension (out.csv: out.timeslice.csv, out.mps.csv). */
static bool write_csv(const void *what, const char *path, GError **error)
{
    const SimVizRuns *r = what;
    if (r->n == 1)
        return sim_report_csv(r->runs[0], r->m, path, error);
    if (!sim_viz_csv_check(path, r->n, error))
        return false;
    for (uint32_t i = 0; i < r->n; i++) {
        g_autofree char *one = csv_name(path, r->runs[i]->mode);
        if (!sim_report_csv(r->runs[i], r->m, one, error))
            return false;
    }
    return true;
}

static bool write_perfetto(const void *what, const char *path, GError **error)
{
    const SimVizRuns *r = what;
    SimPerfettoDetail detail = SIM_PERFETTO_DEFAULT;
    if (r->perfetto_detail &&
        !sim_viz_perfetto_detail_parse(r->perfetto_detail, &detail, error))
        return false;
    return sim_viz_perfetto_detail(r->runs, r->n, r->m, r->sc, path, detail,
                                   error);
}

static bool write_picture(const void *what, const char *path, GError **error)
{
    const SimVizRuns *r = what;
    SimVizPictureKind kind = SIM_VIZ_PICTURE_ALL;
    if (r->picture_kind &&
        !sim_viz_picture_kind_parse(r->picture_kind, &kind, error))
        return false;
    return sim_viz_picture(r->runs, r->n, r->m, r->sc, kind, path, error);
}

static bool write_report(const void *what, const char *path, GError **error)
{
    const SimVizRuns *r = what;
    return sim_viz_report(r->runs, r->n, r->m, r->sc, path, error);
}

static const SimOutputFormat formats[] = {
    {"json", ".json", write_json},
    {"csv", ".csv", write_csv},
    {"perfetto", ".json or .json.gz", write_perfetto},
    {"picture", ".png or .svg", write_picture},
    {"report", ".html", write_report},
};

const SimOutputFormat *sim_viz_outputs(size_t *n)
{
    *n = G_N_ELEMENTS(formats);
    return formats;
}
