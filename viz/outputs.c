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

/* One CSV per run; for a comparison each run's file has its mode before
 * the extension (out.csv: out.timeslice.csv, out.mps.csv). */
static bool write_csv(const void *what, const char *path, GError **error)
{
    const SimVizRuns *r = what;
    if (r->n == 1)
        return sim_report_csv(r->runs[0], r->m, path, error);
    for (uint32_t i = 0; i < r->n; i++) {
        g_autofree char *base = g_strdup(path);
        char *dot = strrchr(base, '.');
        if (dot && !strchr(dot, '/'))
            *dot = 0;
        const char *ext = dot ? path + (dot - base) : "";
        g_autofree char *one =
            g_strdup_printf("%s.%s%s", base, r->runs[i]->mode, ext);
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
