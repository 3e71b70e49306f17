/* html_report.c -- the self-contained HTML report (`--report FILE.html`).  See
 * viz.h.
 *
 * One page, no external resources (no scripts, fonts, style sheets or
 * images from elsewhere): inline CSS, pictures as data: URIs (SVG, or PNG
 * when the SVG would be larger than REPORT_MAX_SVG).  Sections: what ran,
 * the summary (for a comparison, side by side with the ratio of the last
 * mode to the first), GPU-wide metrics with what each one means,
 * processes, streams, notes, and the pictures.  Tables are capped
 * (REPORT_MAX_PROCS, REPORT_MAX_STREAMS rows) and say how many rows they
 * left out; --json and --csv carry everything.  Every string from the
 * workload is HTML-escaped.  No date or host name: same results, same
 * bytes.
 */
#include <math.h>
#include <string.h>

#include "outfile.h"
#include "pictures.h"
#include "report.h"
#include "viz.h"

#define REPORT_MAX_PROCS 64
#define REPORT_MAX_STREAMS 48
#define REPORT_MAX_SVG (3u << 20)

static double ms(SimTime t)
{
    return sim_time_to_ms(t);
}

static const char *status_name(SimProcStatus s)
{
    switch (s) {
    case SIM_PROC_OK: return "ok";
    case SIM_PROC_NOT_STARTED: return "refused";
    default: return "killed";
    }
}

static SimTime proc_span(const SimProcResult *p)
{
    return p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0;
}

/* Append @s HTML-escaped. */
static void esc(GString *o, const char *s)
{
    g_autofree char *e = g_markup_escape_text(s ? s : "", -1);
    g_string_append(o, e);
}

static const char CSS[] =
    "body{font-family:'DejaVu Sans',Verdana,sans-serif;margin:0;"
    "color:#222;background:#fff;font-size:14px;line-height:1.45}"
    "main{max-width:1440px;margin:0 auto;padding:16px 24px 40px}"
    "h1{font-size:22px;margin:8px 0 4px}"
    "h2{font-size:18px;margin:28px 0 8px;padding-bottom:4px;"
    "border-bottom:2px solid #dde4ee}"
    "h3{font-size:15px;margin:18px 0 6px}"
    ".sub{color:#555;margin:2px 0}"
    "nav a{margin-right:14px}"
    "table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}"
    "th,td{padding:3px 10px;border-bottom:1px solid #e4e4e4;"
    "text-align:right;white-space:nowrap}"
    "th{background:#f2f5f9;font-weight:600}"
    "td.l,th.l{text-align:left}"
    "td.name{text-align:left;max-width:260px;overflow:hidden;"
    "text-overflow:ellipsis}"
    "td.def{text-align:left;white-space:normal;color:#555;max-width:560px}"
    "tr.key td{font-weight:600}"
    ".better{color:#1a7f37}.worse{color:#b42318}"
    ".killed,.refused{color:#b42318;font-weight:600}"
    "td.status{white-space:normal;min-width:60px;max-width:340px}"
    ".warn{background:#fdecea;border:1px solid #f5c2c0;padding:6px 12px;"
    "max-width:1100px;color:#7a1d14}"
    ".more{color:#777;font-style:italic}"
    "figure{margin:10px 0 24px}"
    "figure img{max-width:100%;height:auto;border:1px solid #e4e4e4}"
    "figcaption{color:#444;max-width:1100px;margin-top:6px}"
    "ul.notes li{margin:2px 0}"
    ".box{background:#f7f9fc;border:1px solid #dde4ee;padding:8px 14px;"
    "max-width:1100px}"
    "footer{color:#777;font-size:12px;margin-top:30px}";

/* ------------------------------------------------------------------------
 * Tables
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *label;
    double (*get)(const SimResult *r);
    const char *fmt;
    int better; /* +1: higher is better, -1: lower is better, 0: neither */
    bool key;
} Metric;

static double m_makespan(const SimResult *r)
{
    return ms(r->makespan_ns);
}
static double m_thr(const SimResult *r)
{
    return sim_result_total_throughput(r);
}
static double m_p50(const SimResult *r)
{
    return ms(sim_result_latency_pct(r, 50));
}
static double m_p90(const SimResult *r)
{
    return ms(sim_result_latency_pct(r, 90));
}
static double m_p99(const SimResult *r)
{
    return ms(sim_result_latency_pct(r, 99));
}
static double m_mean(const SimResult *r)
{
    return ms(sim_result_latency_mean(r));
}
static double m_util(const SimResult *r)
{
    return 100 * r->gpu_util;
}
static double m_util_max(const SimResult *r)
{
    return 100 * r->gpu_util_max_sample;
}
static double m_active(const SimResult *r)
{
    return 100 * r->sm_active;
}
static double m_occ(const SimResult *r)
{
    return 100 * r->achieved_occupancy;
}
static double m_switches(const SimResult *r)
{
    return (double)r->context_switches;
}
static double m_mem(const SimResult *r)
{
    return r->device_mem_used_bytes / 1048576.0;
}
static double m_h2d(const SimResult *r)
{
    return ms(r->copy_busy_ns[SIM_COPY_H2D]);
}
static double m_d2h(const SimResult *r)
{
    return ms(r->copy_busy_ns[SIM_COPY_D2H]);
}

static const Metric METRICS[] = {
    {"makespan (ms)", m_makespan, "%.3f", -1, true},
    {"throughput (iterations/s)", m_thr, "%.2f", +1, true},
    {"latency p50 (ms)", m_p50, "%.3f", -1, false},
    {"latency p90 (ms)", m_p90, "%.3f", -1, false},
    {"latency p99 (ms)", m_p99, "%.3f", -1, true},
    {"latency mean (ms)", m_mean, "%.3f", -1, false},
    {"GPU-Util, nvidia-smi (%)", m_util, "%.1f", 0, true},
    {"GPU-Util, highest sample (%)", m_util_max, "%.1f", 0, false},
    {"SM-active (%)", m_active, "%.1f", 0, true},
    {"achieved occupancy (%)", m_occ, "%.1f", 0, true},
    {"context switches", m_switches, "%.0f", -1, false},
    {"device memory, peak (MiB)", m_mem, "%.0f", -1, false},
    {"copy engines busy h2d (ms)", m_h2d, "%.3f", 0, false},
    {"copy engines busy d2h (ms)", m_d2h, "%.3f", 0, false},
};

static uint32_t count_status(const SimResult *r, SimProcStatus st)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->n_procs; i++)
        k += r->procs[i].status == st;
    return k;
}

static void summary(GString *o, SimResult *const *runs, uint32_t n)
{
    /* Killed or refused processes make makespan and throughput cover only
     * what ran: say so first, and do not call any mode better. */
    bool casualties = false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t killed = count_status(runs[i], SIM_PROC_KILLED);
        uint32_t refused = count_status(runs[i], SIM_PROC_NOT_STARTED);
        if (!killed && !refused)
            continue;
        if (!casualties)
            g_string_append(o, "<h2 id=\"summary\">Summary</h2>\n");
        casualties = true;
        g_string_append(o, "<p class=\"warn\">");
        if (n > 1) {
            esc(o, runs[i]->mode);
            g_string_append(o, ": ");
        }
        g_string_append_printf(
            o,
            "%u of %u processes killed, %u refused. Makespan, throughput and "
            "latency below cover only the work done before that (see "
            "Processes and Notes).</p>\n",
            killed, runs[i]->n_procs, refused);
    }
    if (!casualties)
        g_string_append(o, "<h2 id=\"summary\">Summary</h2>\n");
    if (n > 1)
        g_string_append_printf(
            o,
            "<p>The same workload under each mode; the last column is <b>%s "
            "/ %s</b>%s.</p>\n",
            runs[n - 1]->mode, runs[0]->mode,
            casualties ? " (not judged better or worse: processes died)"
                       : " (green: better, red: worse; utilization metrics "
                         "are neither — see below)");
    g_string_append(o, "<table><tr><th class=\"l\">metric</th>");
    for (uint32_t i = 0; i < n; i++) {
        g_string_append(o, "<th>");
        esc(o, runs[i]->mode);
        g_string_append(o, "</th>");
    }
    if (n > 1) {
        g_string_append(o, "<th>");
        esc(o, runs[n - 1]->mode);
        g_string_append(o, " / ");
        esc(o, runs[0]->mode);
        g_string_append(o, "</th>");
    }
    g_string_append(o, "</tr>\n");
    for (size_t k = 0; k < G_N_ELEMENTS(METRICS); k++) {
        const Metric *mt = &METRICS[k];
        g_string_append_printf(o, "<tr%s><td class=\"l\">%s</td>",
                               mt->key ? " class=\"key\"" : "", mt->label);
        for (uint32_t i = 0; i < n; i++) {
            g_string_append(o, "<td>");
            g_string_append_printf(o, mt->fmt, mt->get(runs[i]));
            g_string_append(o, "</td>");
        }
        if (n > 1) {
            double a = mt->get(runs[0]), b = mt->get(runs[n - 1]);
            if (a == 0 || !isfinite(b / a)) {
                g_string_append(o, "<td>–</td>");
            } else {
                double q = b / a;
                const char *cls = "";
                if (mt->better && !casualties && fabs(q - 1) > 0.005)
                    cls = (q > 1) == (mt->better > 0) ? " class=\"better\""
                                                      : " class=\"worse\"";
                g_string_append_printf(o, "<td%s>%.3fx</td>", cls, q);
            }
        }
        g_string_append(o, "</tr>\n");
    }
    static const struct {
        const char *label;
        SimProcStatus st;
    } statuses[] = {{"processes ok", SIM_PROC_OK},
                    {"processes killed by a fault", SIM_PROC_KILLED},
                    {"processes refused at start", SIM_PROC_NOT_STARTED}};
    for (size_t k = 0; k < G_N_ELEMENTS(statuses); k++) {
        g_string_append_printf(o, "<tr><td class=\"l\">%s</td>",
                               statuses[k].label);
        for (uint32_t i = 0; i < n; i++)
            g_string_append_printf(o, "<td>%u</td>",
                                   count_status(runs[i], statuses[k].st));
        if (n > 1)
            g_string_append(o, "<td></td>");
        g_string_append(o, "</tr>\n");
    }
    g_string_append(o, "</table>\n");
}

static void metrics_explained(GString *o, const SimResult *r)
{
    g_string_append(o, "<h2 id=\"metrics\">What the GPU metrics mean</h2>\n"
                       "<table><tr><th class=\"l\">metric</th>"
                       "<th class=\"l\">what it measures</th></tr>\n");
    g_string_append_printf(
        o,
        "<tr><td class=\"l\">GPU-Util (nvidia-smi)</td><td class=\"def\">"
        "Share of time in which <i>at least one kernel</i> was running "
        "(NVML's definition), reported once per %.0f ms sample. A single "
        "one-thread kernel reads 100%%. It says nothing about how much of "
        "the GPU the kernels used.</td></tr>\n",
        ms(r->nvml_period_ns));
    g_string_append_printf(
        o,
        "<tr><td class=\"l\">SM-active</td><td class=\"def\">Mean over the "
        "%u SMs of the share of time with at least one warp resident "
        "(DCGM SM_ACTIVE): how many SMs had work.</td></tr>\n",
        r->sm_count);
    g_string_append_printf(
        o,
        "<tr><td class=\"l\">achieved occupancy</td><td class=\"def\">"
        "Resident warps over the maximum (%u per SM), averaged over SMs and "
        "time (DCGM SM_OCCUPANCY): how full the SMs were.</td></tr>\n",
        r->max_warps_per_sm);
    g_string_append(
        o, "<tr><td class=\"l\">context switches</td><td class=\"def\">"
           "Time-slicing between processes in separate contexts; each costs "
           "a fixed switch time plus saving and restoring resident state. "
           "MPS clients share one context and do not switch.</td></tr>\n"
           "</table>\n");
}

static void procs_table(GString *o, const SimResult *r, uint32_t n)
{
    if (n > 1) {
        g_string_append(o, "<h3>");
        esc(o, r->mode);
        g_string_append(o, "</h3>\n");
    }
    g_string_append(o, "<table><tr><th class=\"l\">process</th><th "
                       "class=\"l\">context</th><th class=\"l\">status</th>"
                       "<th>kernels</th><th>iterations</th><th>makespan "
                       "(ms)</th><th>p50 (ms)</th><th>p99 (ms)</th>"
                       "<th>iterations/s</th><th>memory (MiB)</th>"
                       "<th>SMs allowed</th></tr>\n");
    uint32_t shown = MIN(r->n_procs, REPORT_MAX_PROCS);
    for (uint32_t i = 0; i < shown; i++) {
        const SimProcResult *p = &r->procs[i];
        g_string_append(o, "<tr><td class=\"name\" title=\"");
        esc(o, p->name);
        g_string_append(o, "\">");
        esc(o, p->name);
        g_string_append_printf(
            o, "</td><td class=\"l\">%s</td><td class=\"l status %s\">%s",
            p->status == SIM_PROC_NOT_STARTED ? "–"
            : p->mps                          ? "MPS client"
                                              : "own",
            status_name(p->status), status_name(p->status));
        if (p->status_reason) {
            g_string_append(o, ": ");
            esc(o, p->status_reason);
        }
        g_string_append_printf(
            o,
            "</td><td>%" G_GUINT64_FORMAT "</td><td>%u</td><td>%.3f</td>"
            "<td>%.3f</td><td>%.3f</td><td>%.2f</td><td>%.0f</td>"
            "<td>%u</td></tr>\n",
            p->kernels, p->iterations_done, ms(proc_span(p)),
            ms(sim_percentile(p->latency_ns, 50)),
            ms(sim_percentile(p->latency_ns, 99)), sim_proc_throughput(p),
            p->mem_bytes / 1048576.0, p->sm_limit);
    }
    if (r->n_procs > shown)
        g_string_append_printf(o,
                               "<tr><td class=\"l more\" colspan=\"11\">… "
                               "%u more processes (all of them are in "
                               "--json)</td></tr>\n",
                               r->n_procs - shown);
    g_string_append(o, "</table>\n");
}

static void streams_table(GString *o, const SimResult *r, uint32_t n)
{
    if (n > 1) {
        g_string_append(o, "<h3>");
        esc(o, r->mode);
        g_string_append(o, "</h3>\n");
    }
    g_string_append(o, "<table><tr><th class=\"l\">process</th><th "
                       "class=\"l\">stream</th><th>hardware queue</th>"
                       "<th>priority</th><th>ops</th><th>busy (ms)</th>"
                       "<th>p50 (ms)</th><th>p99 (ms)</th></tr>\n");
    uint32_t shown = 0, total = 0;
    for (uint32_t i = 0; i < r->n_procs; i++) {
        const SimProcResult *p = &r->procs[i];
        for (uint32_t s = 0; s < p->n_streams; s++) {
            const SimStreamResult *st = &p->streams[s];
            if (!st->ops)
                continue;
            total++;
            if (shown == REPORT_MAX_STREAMS)
                continue;
            shown++;
            g_string_append(o, "<tr><td class=\"name\">");
            esc(o, p->name);
            g_string_append(o, "</td><td class=\"name\">");
            esc(o, st->name);
            g_string_append_printf(
                o,
                "</td><td>%u</td><td>%d</td><td>%" G_GUINT64_FORMAT
                "</td><td>%.3f</td><td>%.3f</td><td>%.3f</td></tr>\n",
                st->queue, st->priority, st->ops, ms(st->busy_ns),
                ms(sim_percentile(st->latency_ns, 50)),
                ms(sim_percentile(st->latency_ns, 99)));
        }
    }
    if (total > shown)
        g_string_append_printf(o,
                               "<tr><td class=\"l more\" colspan=\"8\">… "
                               "%u more streams (all of them are in --json "
                               "and --csv)</td></tr>\n",
                               total - shown);
    g_string_append(o, "</table>\n");
}

static void notes(GString *o, SimResult *const *runs, uint32_t n)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        count += runs[i]->notes->len;
    if (!count)
        return;
    g_string_append(o, "<h2 id=\"notes\">Notes</h2>\n<ul class=\"notes\">\n");
    for (uint32_t i = 0; i < n; i++)
        for (guint j = 0; j < runs[i]->notes->len; j++) {
            g_string_append(o, "<li>");
            if (n > 1) {
                g_string_append(o, "[");
                esc(o, runs[i]->mode);
                g_string_append(o, "] ");
            }
            esc(o, g_ptr_array_index(runs[i]->notes, j));
            g_string_append(o, "</li>\n");
        }
    g_string_append(o, "</ul>\n");
}

/* ------------------------------------------------------------------------
 * Pictures
 * ------------------------------------------------------------------------ */

static gboolean figure(GString *o, SimResult *const *runs, uint32_t n,
                       const GpuModel *m, const SimScenario *sc,
                       SimVizPictureKind kind, const char *alt,
                       const char *caption, GError **error)
{
    g_autoptr(GBytes) svg = sim_viz_picture_render(runs, n, m, sc, kind, FALSE,
                                                   VIZ_FORMAT_SVG, error);
    if (!svg)
        return FALSE;
    const char *mime = "image/svg+xml";
    g_autoptr(GBytes) bytes = g_bytes_ref(svg);
    if (g_bytes_get_size(svg) > REPORT_MAX_SVG) {
        g_bytes_unref(bytes);
        bytes = sim_viz_picture_render(runs, n, m, sc, kind, FALSE,
                                       VIZ_FORMAT_PNG, error);
        if (!bytes)
            return FALSE;
        mime = "image/png";
    }
    gsize len = 0;
    const guchar *data = g_bytes_get_data(bytes, &len);
    g_autofree char *b64 = g_base64_encode(data, len);
    g_string_append_printf(o, "<figure><img alt=\"%s\" src=\"data:%s;base64,",
                           alt, mime);
    g_string_append(o, b64);
    g_string_append_printf(o, "\"><figcaption>%s</figcaption></figure>\n",
                           caption);
    return TRUE;
}

static gboolean pictures(GString *o, SimResult *const *runs, uint32_t n,
                         const GpuModel *m, const SimScenario *sc,
                         GError **error)
{
    g_string_append(o, "<h2 id=\"timeline\">Timeline</h2>\n");
    if (!figure(o, runs, n, m, sc, SIM_VIZ_PICTURE_TIMELINE,
                "timeline per stream",
                "One row per stream (or per process when there are many), "
                "coloured by process. Solid: a kernel running; pale: a "
                "kernel that has started but whose context is switched out "
                "(time-slicing freezes it); dark strip at the bottom: a "
                "copy. The band on top shows which context held the GPU; "
                "white gaps in it are context switches or an idle GPU."
                " A pixel with any kernel time is drawn, lighter when the "
                "kernel covered only part of it.",
                error))
        return FALSE;
    g_string_append(o, "<h2 id=\"sm\">SM occupancy</h2>\n");
    if (!figure(o, runs, n, m, sc, SIM_VIZ_PICTURE_SM, "SM occupancy heat map",
                "One row per SM, time to the right; the colour is the mean "
                "number of resident warps of the context holding the GPU in "
                "that pixel's time (light grey: none). A kernel that reads "
                "as 100% GPU-Util can leave almost every row grey.",
                error))
        return FALSE;
    g_string_append(o, "<h2 id=\"util\">GPU-Util vs SM-active vs "
                       "occupancy</h2>\n");
    return figure(o, runs, n, m, sc, SIM_VIZ_PICTURE_UTIL,
                  "utilization over time",
                  "Red: what nvidia-smi would print, one value per sampling "
                  "period. Orange area: share of time with at least one "
                  "kernel running (the same definition, in finer bins). "
                  "Blue: SM-active, the share of SMs with work. Green: "
                  "achieved occupancy, how full those SMs were. The gap "
                  "between red and blue is what GPU-Util does not tell.",
                  error);
}

/* ------------------------------------------------------------------------
 * The page
 * ------------------------------------------------------------------------ */

gboolean sim_viz_report(SimResult *const *runs, uint32_t n, const GpuModel *m,
                        const SimScenario *sc, const char *path, GError **error)
{
    g_return_val_if_fail(runs && n > 0 && path, FALSE);
    g_autoptr(GString) o = g_string_sized_new(1u << 20);
    const SimResult *r0 = runs[0];
    g_autofree char *base =
        sc ? g_path_get_basename(sc->source) : g_strdup("workload");
    g_string_append(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                       "<meta charset=\"utf-8\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, "
                       "initial-scale=1\">\n<title>hqsim report: ");
    esc(o, base);
    g_string_append_printf(o,
                           "</title>\n<style>%s</style>\n</head>\n<body>"
                           "\n<main>\n<h1>hqsim report: ",
                           CSS);
    esc(o, base);
    g_string_append(o, "</h1>\n<p class=\"sub\">");
    if (sc) {
        esc(o, sc->source);
        g_string_append(o, " (");
        esc(o, sc->format);
        g_string_append(o, ") · ");
    }
    if (m) {
        esc(o, m->display_name);
        g_string_append_printf(o, " (%s, %u SMs, %s)", m->name, m->sm_count,
                               m->calibrated ? "calibrated model"
                                             : "model not yet calibrated");
    } else {
        esc(o, r0->gpu_name);
    }
    g_string_append(o, " · ");
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            g_string_append(o, " vs ");
        esc(o, runs[i]->mode);
    }
    g_string_append_printf(o, " · %u process%s</p>\n", r0->n_procs,
                           r0->n_procs == 1 ? "" : "es");
    if (sc && m) {
        g_auto(GStrv) w = sim_report_caveats(sc, m);
        for (char **s = w; *s; s++) {
            g_string_append(o, "<p class=\"box\"><b>Warning:</b> ");
            esc(o, *s);
            g_string_append(o, "</p>\n");
        }
    }
    if (sc && sc->description) {
        g_string_append(o, "<p class=\"box\">");
        esc(o, sc->description);
        g_string_append(o, "</p>\n");
    }
    g_string_append(o, "<nav><a href=\"#summary\">Summary</a>"
                       "<a href=\"#metrics\">Metrics</a>"
                       "<a href=\"#processes\">Processes</a>"
                       "<a href=\"#streams\">Streams</a>"
                       "<a href=\"#timeline\">Timeline</a>"
                       "<a href=\"#sm\">SM occupancy</a>"
                       "<a href=\"#util\">Utilization</a></nav>\n");
    summary(o, runs, n);
    notes(o, runs, n);
    metrics_explained(o, r0);
    g_string_append(o, "<h2 id=\"processes\">Processes</h2>\n");
    for (uint32_t i = 0; i < n; i++)
        procs_table(o, runs[i], n);
    g_string_append(o, "<h2 id=\"streams\">Streams</h2>\n");
    for (uint32_t i = 0; i < n; i++)
        streams_table(o, runs[i], n);
    if (!pictures(o, runs, n, m, sc, error))
        return FALSE;
    g_string_append(o, "<footer>Made by hqsim from a simulation; every "
                       "number is a model's prediction. Machine-readable: "
                       "--json, --csv, --perfetto.</footer>\n</main>\n"
                       "</body>\n</html>\n");
    return sim_write_file_atomic(path, o->str, o->len, error);
}
