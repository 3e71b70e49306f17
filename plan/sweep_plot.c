/* sweep_plot.c -- throughput and p99 latency against the number of
 * processes, with cairo.  See sweep_plot.h.
 *
 * Two panels share the x axis (processes sharing the GPU): throughput of
 * all processes on a linear axis from 0, and the worst process's p99
 * latency on a log axis (time-slicing and MPS differ by orders of
 * magnitude).  A filled marker is a configuration where every process
 * started; a hollow one had processes refused (memory, MPS client limit),
 * so its numbers cover fewer processes than the axis says.  A failed run
 * leaves a gap.
 *
 * Could be shared with viz/ later (nothing here knows about sweeps but
 * draw_sweep and series_of): the VizScale/VizBox mapping, nice tick steps, log
 * ticks, axis and grid drawing, the legend, the palette, the
 * PNG/SVG-to-atomic-file plumbing (sim_sweep_plot_write) and
 * sim_sweep_plot_cleanup, which belongs in main() once several modules
 * draw.
 */
#include "sweep_plot.h"

#include <cairo.h>
#include <math.h>
#include <string.h>

#include "error.h"
#include "outfile.h"
#include "plot.h"

#define PLOT_W 960.0
#define PLOT_H 720.0
#define MARGIN_L 84.0
#define LEGEND_W 260.0

/* ------------------------------------------------------------------------
 * The sweep's series
 * ------------------------------------------------------------------------ */

/* Rows of one series: every axis but N fixed.  N is the innermost axis of
 * the sweep order, so a series is a run of |processes| consecutive rows. */
typedef struct {
    uint32_t first, count;
    char *label;
} Series;

static char *series_label(const SimSweep *sw, const SimSweepConfig *c)
{
    const SimSweepSpace *sp = &sw->space;
    GString *s = g_string_new(NULL);
    if (sp->workloads->len > 1) {
        const SimScenario *sc = g_ptr_array_index(sp->workloads, c->workload);
        g_autofree char *base = g_path_get_basename(sc->source);
        g_string_append_printf(s, "%s, ", base);
    }
    if (sp->gpus->len > 1)
        g_string_append_printf(
            s, "%s, ", ((GpuModel *)g_ptr_array_index(sp->gpus, c->gpu))->name);
    if (sp->connections->len > 1) {
        if (c->connections)
            g_string_append_printf(s, "%u conn, ", c->connections);
        else
            g_string_append(s, "default conn, ");
    }
    g_string_append(s, sim_share_mode_name(c->mode));
    if (sim_share_mode_takes_pct(c->mode)) {
        g_autofree char *p = sim_sweep_pct_label(&c->pct, c->mode);
        if (c->pct.kind == SIM_SWEEP_PCT_VALUE)
            g_string_append_printf(s, " %s%%", p);
        else if (c->pct.kind == SIM_SWEEP_PCT_EQUAL)
            g_string_append(s, " equal share");
        else if (sp->pcts->len > 1)
            g_string_append(s, " as scenario");
    }
    return g_string_free(s, FALSE);
}

static GArray *series_of(const SimSweep *sw)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(Series));
    uint32_t per = sw->space.processes->len;
    for (uint32_t i = 0; i + per <= sw->n_configs; i += per) {
        Series s = {i, per, series_label(sw, &sw->configs[i])};
        g_array_append_val(out, s);
    }
    return out;
}

static void series_free(GArray *a)
{
    for (guint i = 0; i < a->len; i++)
        g_free(g_array_index(a, Series, i).label);
    g_array_free(a, TRUE);
}

static bool row_plotted(const SimSweepRow *r)
{
    return r->done && !r->error;
}

/* One panel's curves.  @latency: the worst p99 (ms) instead of
 * throughput. */
static void draw_curves(cairo_t *cr, const SimSweep *sw, const GArray *ser,
                        const VizBox *b, const VizScale *xs, const VizScale *ys,
                        bool latency)
{
    cairo_save(cr);
    cairo_rectangle(cr, b->x0 - 5, b->y0 - 5, b->x1 - b->x0 + 10,
                    b->y1 - b->y0 + 10);
    cairo_clip(cr);
    for (guint k = 0; k < ser->len; k++) {
        const Series *s = &g_array_index(ser, Series, k);
        viz_plot_line_style(cr, k);
        cairo_set_line_width(cr, 2);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        bool pen = false;
        for (uint32_t i = s->first; i < s->first + s->count; i++) {
            const SimSweepRow *r = &sw->rows[i];
            double v =
                latency ? sim_time_to_ms(r->p99_worst_ns) : r->throughput;
            if (!row_plotted(r) || (latency && !(v > 0))) {
                pen = false;
                continue;
            }
            double x = viz_plot_map_x(xs, b, r->n_procs),
                   y = viz_plot_map_y(ys, b, v);
            if (pen)
                cairo_line_to(cr, x, y);
            else
                cairo_move_to(cr, x, y);
            pen = true;
        }
        cairo_stroke(cr);
        for (uint32_t i = s->first; i < s->first + s->count; i++) {
            const SimSweepRow *r = &sw->rows[i];
            double v =
                latency ? sim_time_to_ms(r->p99_worst_ns) : r->throughput;
            if (!row_plotted(r) || (latency && !(v > 0)))
                continue;
            viz_plot_line_style(cr, k);
            viz_plot_marker(cr, viz_plot_map_x(xs, b, r->n_procs),
                            viz_plot_map_y(ys, b, v), r->refused == 0);
        }
    }
    cairo_restore(cr);
}

static void draw_legend(cairo_t *cr, const GArray *ser, double x, double y)
{
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    viz_plot_label(cr, x, y, 12, 0, true, "Configurations");
    y += 20;
    for (guint k = 0; k < ser->len; k++, y += 18) {
        const Series *s = &g_array_index(ser, Series, k);
        if (y > PLOT_H - 60) {
            cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
            g_autofree char *more =
                g_strdup_printf("... and %u more", ser->len - k);
            viz_plot_label(cr, x, y, 11, 0, false, more);
            y += 18;
            break;
        }
        viz_plot_line_style(cr, k);
        cairo_set_line_width(cr, 2);
        cairo_move_to(cr, x, y - 4);
        cairo_line_to(cr, x + 26, y - 4);
        cairo_stroke(cr);
        viz_plot_marker(cr, x + 13, y - 4, true);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        viz_plot_label(cr, x + 34, y, 11, 0, false, s->label);
    }
    y += 8;
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    viz_plot_marker(cr, x + 13, y - 4, false);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    viz_plot_label(cr, x + 34, y, 10, 0, false, "some processes refused");
    viz_plot_label(cr, x + 34, y + 13, 10, 0, false,
                   "(memory or MPS client limit)");
}

static char *plot_title(const SimSweep *sw)
{
    const SimSweepSpace *sp = &sw->space;
    GString *t = g_string_new("hqsim sweep: ");
    for (guint i = 0; i < sp->workloads->len; i++) {
        const SimScenario *sc = g_ptr_array_index(sp->workloads, i);
        g_autofree char *base = g_path_get_basename(sc->source);
        g_string_append_printf(t, "%s%s", i ? ", " : "", base);
    }
    g_string_append(t, " on ");
    for (guint i = 0; i < sp->gpus->len; i++)
        g_string_append_printf(
            t, "%s%s", i ? ", " : "",
            ((GpuModel *)g_ptr_array_index(sp->gpus, i))->display_name);
    return g_string_free(t, FALSE);
}

/* A panel's bold title, then (nullable) a note in the objective's
 * colour. */
static void panel_title(cairo_t *cr, const VizBox *b, const char *title,
                        const char *note)
{
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    viz_plot_label(cr, b->x0, b->y0 - 10, 13, 0, true, title);
    if (!note)
        return;
    cairo_text_extents_t e;
    cairo_text_extents(cr, title, &e);
    cairo_set_source_rgb(cr, 0.65, 0.1, 0.1);
    viz_plot_label(cr, b->x0 + e.x_advance + 6, b->y0 - 10, 12, 0, false, note);
}

static void draw_sweep(cairo_t *cr, const SimSweep *sw, const SimSlo *slo)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    g_autofree char *title = plot_title(sw);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    viz_plot_label(cr, MARGIN_L, 30, 16, 0, true, title);

    /* Ranges over the rows that ran. */
    double xmin = INFINITY, xmax = -INFINITY, tmax = 0;
    double lmin = INFINITY, lmax = 0;
    g_autoptr(GArray) xticks = g_array_new(FALSE, FALSE, sizeof(double));
    for (uint32_t i = 0; i < sw->n_configs; i++) {
        const SimSweepRow *r = &sw->rows[i];
        if (!row_plotted(r))
            continue;
        double x = r->n_procs, l = sim_time_to_ms(r->p99_worst_ns);
        bool seen = false;
        for (guint j = 0; j < xticks->len && !seen; j++)
            seen = g_array_index(xticks, double, j) == x;
        if (!seen)
            g_array_append_val(xticks, x);
        xmin = MIN(xmin, x);
        xmax = MAX(xmax, x);
        tmax = MAX(tmax, r->throughput);
        if (l > 0) {
            lmin = MIN(lmin, l);
            lmax = MAX(lmax, l);
        }
    }
    bool have_slo = sim_slo_active(slo);
    if (have_slo && slo->throughput > 0)
        tmax = MAX(tmax, slo->throughput);
    if (have_slo && slo->p99_ms > 0) {
        lmin = MIN(lmin, slo->p99_ms);
        lmax = MAX(lmax, slo->p99_ms);
    }
    if (xticks->len == 0) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        viz_plot_label(cr, PLOT_W / 2, PLOT_H / 2, 14, 0.5, false,
                       "no configuration ran: nothing to plot");
        return;
    }
    /* Every x value swept gets a tick when there are few; else 1-2-5. */
    if (xticks->len > 12) {
        g_array_set_size(xticks, 0);
        double step = viz_plot_step_above((xmax - xmin) / 8);
        for (double v = ceil(xmin / step) * step; v <= xmax; v += step)
            g_array_append_val(xticks, v);
    }
    double pad = MAX((xmax - xmin) * 0.04, 0.5);
    VizScale xs = {xmin - pad, xmax + pad, false};
    double tstep = viz_plot_step_above(MAX(tmax, 1e-9) * 1.05 / 5);
    VizScale ts = {0, ceil(MAX(tmax, 1e-9) * 1.05 / tstep) * tstep, false};
    if (!(lmax > 0))
        lmin = lmax = 1;
    VizScale ls = {pow(10, floor(log10(lmin))), pow(10, ceil(log10(lmax))),
                   true};
    if (ls.hi <= ls.lo)
        ls.hi = ls.lo * 10;

    double x1 = PLOT_W - LEGEND_W;
    VizBox top = {MARGIN_L, 70, x1, 320};
    VizBox bottom = {MARGIN_L, 385, x1, 635};
    GArray *ser = series_of(sw);

    bool t_obj = have_slo && slo->throughput > 0;
    bool l_obj = have_slo && slo->p99_ms > 0;
    g_autofree char *t_title = g_strdup_printf(
        "Throughput of all processes (iterations/s)%s", t_obj ? ";" : "");
    g_autofree char *t_note =
        t_obj ? g_strdup_printf("dashed: objective >= %g/s", slo->throughput)
              : NULL;
    g_autofree char *l_title = g_strdup_printf(
        "p99 latency of the worst process (ms, log scale)%s", l_obj ? ";" : "");
    g_autofree char *l_note =
        l_obj ? g_strdup_printf("dashed: objective <= %g ms", slo->p99_ms)
              : NULL;

    panel_title(cr, &top, t_title, t_note);
    viz_plot_value_axis_y(cr, &top, &ts);
    viz_plot_value_axis_x(cr, &top, &xs, xticks);
    draw_curves(cr, sw, ser, &top, &xs, &ts, false);
    if (t_obj)
        viz_plot_hline(cr, &top, &ts, slo->throughput);
    viz_plot_frame(cr, &top);

    panel_title(cr, &bottom, l_title, l_note);
    viz_plot_value_axis_y(cr, &bottom, &ls);
    viz_plot_value_axis_x(cr, &bottom, &xs, xticks);
    draw_curves(cr, sw, ser, &bottom, &xs, &ls, true);
    if (l_obj)
        viz_plot_hline(cr, &bottom, &ls, slo->p99_ms);
    viz_plot_frame(cr, &bottom);

    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    viz_plot_label(cr, (bottom.x0 + bottom.x1) / 2, bottom.y1 + 40, 12, 0.5,
                   false, "processes sharing the GPU");
    draw_legend(cr, ser, x1 + 24, top.y0);
    series_free(ser);
}

/* ------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------ */

/* One drawing, whatever the format: the canvas is the plotting module's
 * (viz/plot.h), like the pictures'. */
static GBytes *render(const SimSweep *sw, const SimSlo *slo, VizFormat fmt,
                      GError **error)
{
    VizPlot *p = viz_plot_new(fmt, PLOT_W, PLOT_H);
    draw_sweep(viz_plot_cr(p), sw, slo);
    return viz_plot_finish(p, error);
}

char *sim_sweep_plot_svg(const SimSweep *sw, const SimSlo *slo)
{
    g_autoptr(GBytes) b = render(sw, slo, VIZ_FORMAT_SVG, NULL);
    gsize n = 0;
    const char *d = b ? g_bytes_get_data(b, &n) : "";
    return g_strndup(d, n);
}

bool sim_sweep_plot_write(const SimSweep *sw, const SimSlo *slo,
                          const char *path, GError **error)
{
    VizFormat fmt;
    if (!viz_plot_format_from_path(path, &fmt, NULL)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--plot %s: the name must end in .png or .svg", path);
        return false;
    }
    g_autoptr(GError) e = NULL;
    g_autoptr(GBytes) b = render(sw, slo, fmt, &e);
    if (!b) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot draw %s: %s", path,
                    e->message);
        return false;
    }
    gsize n = 0;
    const char *d = g_bytes_get_data(b, &n);
    return sim_write_file_atomic(path, d, n, error);
}

void sim_sweep_plot_cleanup(void)
{
    viz_plot_cleanup();
}
