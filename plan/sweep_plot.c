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
 * draw_sweep and series_of): the Scale/Box mapping, nice tick steps, log
 * ticks, axis and grid drawing, the legend, the palette, the
 * PNG/SVG-to-atomic-file plumbing (sim_sweep_plot_write) and
 * sim_sweep_plot_cleanup, which belongs in main() once several modules
 * draw.
 */
#include "sweep_plot.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <string.h>

#include "error.h"
#include "outfile.h"

#define PLOT_W 960.0
#define PLOT_H 720.0
#define MARGIN_L 84.0
#define LEGEND_W 260.0

/* ------------------------------------------------------------------------
 * Scales, ticks and the palette (generic)
 * ------------------------------------------------------------------------ */

/* A rectangle of the surface, in device units (pixels). */
typedef struct {
    double x0, y0, x1, y1;
} Box;

/* Data range mapped onto a Box side; log scales map log10(v). */
typedef struct {
    double lo, hi;
    bool log;
} Scale;

static double scale_frac(const Scale *s, double v)
{
    if (s->log) {
        v = log10(MAX(v, 1e-300));
        return (v - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
    }
    return (v - s->lo) / (s->hi - s->lo);
}

static double map_x(const Scale *s, const Box *b, double v)
{
    return b->x0 + scale_frac(s, v) * (b->x1 - b->x0);
}

static double map_y(const Scale *s, const Box *b, double v)
{
    return b->y1 - scale_frac(s, v) * (b->y1 - b->y0);
}

/* The 1, 2, 5 x 10^k step nearest above @raw. */
static double nice_step(double raw)
{
    if (!(raw > 0))
        return 1;
    double p = pow(10, floor(log10(raw)));
    static const double m[] = {1, 2, 5, 10};
    for (size_t i = 0; i < G_N_ELEMENTS(m); i++)
        if (m[i] * p >= raw * (1 - 1e-9))
            return m[i] * p;
    return 10 * p;
}

/* Colour-blind-friendly categorical palette (Tableau 10); lines beyond ten
 * series repeat colours with a dash pattern. */
static const double palette[][3] = {
    {0.306, 0.475, 0.655}, {0.949, 0.557, 0.169}, {0.349, 0.631, 0.310},
    {0.882, 0.341, 0.349}, {0.463, 0.718, 0.698}, {0.929, 0.788, 0.282},
    {0.690, 0.478, 0.631}, {1.000, 0.616, 0.655}, {0.612, 0.459, 0.373},
    {0.729, 0.690, 0.675},
};
static const double dash_pattern[] = {6, 4};

static void set_series_style(cairo_t *cr, uint32_t k)
{
    const double *c = palette[k % G_N_ELEMENTS(palette)];
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    if ((k / G_N_ELEMENTS(palette)) % 2)
        cairo_set_dash(cr, dash_pattern, 2, 0);
    else
        cairo_set_dash(cr, NULL, 0, 0);
}

static void text_at(cairo_t *cr, double x, double y, double size,
                    double align, bool bold, const char *s)
{
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD
                                : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - align * e.x_advance, y);
    cairo_show_text(cr, s);
}

/* Tick label: 0.05, 3, 250, 12k, 1.5M. */
static char *tick_label(double v)
{
    double a = fabs(v);
    if (a >= 1e6)
        return g_strdup_printf("%gM", v / 1e6);
    if (a >= 1e4)
        return g_strdup_printf("%gk", v / 1e3);
    return g_strdup_printf("%g", v);
}

static void grid_line(cairo_t *cr, double x0, double y0, double x1,
                      double y1, double grey)
{
    cairo_set_source_rgb(cr, grey, grey, grey);
    cairo_set_line_width(cr, 1);
    cairo_set_dash(cr, NULL, 0, 0);
    /* Half-pixel offsets keep 1-pixel lines crisp in PNG. */
    cairo_move_to(cr, floor(x0) + 0.5, floor(y0) + 0.5);
    cairo_line_to(cr, floor(x1) + 0.5, floor(y1) + 0.5);
    cairo_stroke(cr);
}

/* Y ticks, grid lines and labels of one panel. */
static void draw_y_axis(cairo_t *cr, const Box *b, const Scale *s)
{
    if (s->log) {
        for (double d = s->lo; d <= s->hi * (1 + 1e-9); d *= 10) {
            static const double minor[] = {2, 5};
            for (size_t i = 0; i < G_N_ELEMENTS(minor); i++)
                if (d * minor[i] < s->hi) {
                    double y = map_y(s, b, d * minor[i]);
                    grid_line(cr, b->x0, y, b->x1, y, 0.93);
                }
            double y = map_y(s, b, d);
            grid_line(cr, b->x0, y, b->x1, y, 0.82);
            g_autofree char *l = tick_label(d);
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
            text_at(cr, b->x0 - 6, y + 4, 11, 1, false, l);
        }
        return;
    }
    double step = nice_step((s->hi - s->lo) / 5);
    for (double v = s->lo; v <= s->hi * (1 + 1e-9); v += step) {
        double y = map_y(s, b, v);
        grid_line(cr, b->x0, y, b->x1, y, 0.85);
        g_autofree char *l = tick_label(v);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        text_at(cr, b->x0 - 6, y + 4, 11, 1, false, l);
    }
}

static void draw_x_axis(cairo_t *cr, const Box *b, const Scale *s,
                        const GArray *ticks)
{
    for (guint i = 0; i < ticks->len; i++) {
        double v = g_array_index(ticks, double, i);
        double x = map_x(s, b, v);
        grid_line(cr, x, b->y0, x, b->y1, 0.9);
        g_autofree char *l = tick_label(v);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        text_at(cr, x, b->y1 + 16, 11, 0.5, false, l);
    }
}

static void draw_frame(cairo_t *cr, const Box *b)
{
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    cairo_set_line_width(cr, 1);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_rectangle(cr, floor(b->x0) + 0.5, floor(b->y0) + 0.5,
                    floor(b->x1) - floor(b->x0), floor(b->y1) - floor(b->y0));
    cairo_stroke(cr);
}

static void draw_marker(cairo_t *cr, double x, double y, bool filled)
{
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_new_sub_path(cr);
    cairo_arc(cr, x, y, 3.5, 0, 2 * G_PI);
    if (filled) {
        cairo_fill(cr);
        return;
    }
    double r, g, bl, a;
    cairo_pattern_get_rgba(cairo_get_source(cr), &r, &g, &bl, &a);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, r, g, bl);
    cairo_set_line_width(cr, 1.5);
    cairo_stroke(cr);
}

/* A dashed horizontal objective line; the panel title says what it is
 * (a label on the line would hide points at one end or the other). */
static void draw_objective(cairo_t *cr, const Box *b, const Scale *s,
                           double v)
{
    double y = map_y(s, b, v);
    static const double dash[] = {4, 3};
    cairo_set_source_rgb(cr, 0.65, 0.1, 0.1);
    cairo_set_line_width(cr, 1.2);
    cairo_set_dash(cr, dash, 2, 0);
    cairo_move_to(cr, b->x0, y);
    cairo_line_to(cr, b->x1, y);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

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
    if (c->mode != SIM_SHARE_TIMESLICE) {
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
                        const Box *b, const Scale *xs, const Scale *ys,
                        bool latency)
{
    cairo_save(cr);
    cairo_rectangle(cr, b->x0 - 5, b->y0 - 5, b->x1 - b->x0 + 10,
                    b->y1 - b->y0 + 10);
    cairo_clip(cr);
    for (guint k = 0; k < ser->len; k++) {
        const Series *s = &g_array_index(ser, Series, k);
        set_series_style(cr, k);
        cairo_set_line_width(cr, 2);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        bool pen = false;
        for (uint32_t i = s->first; i < s->first + s->count; i++) {
            const SimSweepRow *r = &sw->rows[i];
            double v = latency ? sim_time_to_ms(r->p99_worst_ns)
                               : r->throughput;
            if (!row_plotted(r) || (latency && !(v > 0))) {
                pen = false;
                continue;
            }
            double x = map_x(xs, b, r->n_procs), y = map_y(ys, b, v);
            if (pen)
                cairo_line_to(cr, x, y);
            else
                cairo_move_to(cr, x, y);
            pen = true;
        }
        cairo_stroke(cr);
        for (uint32_t i = s->first; i < s->first + s->count; i++) {
            const SimSweepRow *r = &sw->rows[i];
            double v = latency ? sim_time_to_ms(r->p99_worst_ns)
                               : r->throughput;
            if (!row_plotted(r) || (latency && !(v > 0)))
                continue;
            set_series_style(cr, k);
            draw_marker(cr, map_x(xs, b, r->n_procs), map_y(ys, b, v),
                        r->refused == 0);
        }
    }
    cairo_restore(cr);
}

static void draw_legend(cairo_t *cr, const GArray *ser, double x, double y)
{
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, x, y, 12, 0, true, "Configurations");
    y += 20;
    for (guint k = 0; k < ser->len; k++, y += 18) {
        const Series *s = &g_array_index(ser, Series, k);
        if (y > PLOT_H - 60) {
            cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
            g_autofree char *more =
                g_strdup_printf("... and %u more", ser->len - k);
            text_at(cr, x, y, 11, 0, false, more);
            y += 18;
            break;
        }
        set_series_style(cr, k);
        cairo_set_line_width(cr, 2);
        cairo_move_to(cr, x, y - 4);
        cairo_line_to(cr, x + 26, y - 4);
        cairo_stroke(cr);
        draw_marker(cr, x + 13, y - 4, true);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        text_at(cr, x + 34, y, 11, 0, false, s->label);
    }
    y += 8;
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    draw_marker(cr, x + 13, y - 4, false);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    text_at(cr, x + 34, y, 10, 0, false, "some processes refused");
    text_at(cr, x + 34, y + 13, 10, 0, false, "(memory or MPS client limit)");
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
static void panel_title(cairo_t *cr, const Box *b, const char *title,
                        const char *note)
{
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, b->x0, b->y0 - 10, 13, 0, true, title);
    if (!note)
        return;
    cairo_text_extents_t e;
    cairo_text_extents(cr, title, &e);
    cairo_set_source_rgb(cr, 0.65, 0.1, 0.1);
    text_at(cr, b->x0 + e.x_advance + 6, b->y0 - 10, 12, 0, false, note);
}

static void draw_sweep(cairo_t *cr, const SimSweep *sw, const SimSlo *slo)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    g_autofree char *title = plot_title(sw);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, MARGIN_L, 30, 16, 0, true, title);

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
        text_at(cr, PLOT_W / 2, PLOT_H / 2, 14, 0.5, false,
                "no configuration ran: nothing to plot");
        return;
    }
    /* Every x value swept gets a tick when there are few; else 1-2-5. */
    if (xticks->len > 12) {
        g_array_set_size(xticks, 0);
        double step = nice_step((xmax - xmin) / 8);
        for (double v = ceil(xmin / step) * step; v <= xmax; v += step)
            g_array_append_val(xticks, v);
    }
    double pad = MAX((xmax - xmin) * 0.04, 0.5);
    Scale xs = {xmin - pad, xmax + pad, false};
    double tstep = nice_step(MAX(tmax, 1e-9) * 1.05 / 5);
    Scale ts = {0, ceil(MAX(tmax, 1e-9) * 1.05 / tstep) * tstep, false};
    if (!(lmax > 0))
        lmin = lmax = 1;
    Scale ls = {pow(10, floor(log10(lmin))), pow(10, ceil(log10(lmax))),
                true};
    if (ls.hi <= ls.lo)
        ls.hi = ls.lo * 10;

    double x1 = PLOT_W - LEGEND_W;
    Box top = {MARGIN_L, 70, x1, 320};
    Box bottom = {MARGIN_L, 385, x1, 635};
    GArray *ser = series_of(sw);

    bool t_obj = have_slo && slo->throughput > 0;
    bool l_obj = have_slo && slo->p99_ms > 0;
    g_autofree char *t_title = g_strdup_printf(
        "Throughput of all processes (iterations/s)%s", t_obj ? ";" : "");
    g_autofree char *t_note =
        t_obj ? g_strdup_printf("dashed: objective >= %g/s", slo->throughput)
              : NULL;
    g_autofree char *l_title = g_strdup_printf(
        "p99 latency of the worst process (ms, log scale)%s",
        l_obj ? ";" : "");
    g_autofree char *l_note =
        l_obj ? g_strdup_printf("dashed: objective <= %g ms", slo->p99_ms)
              : NULL;

    panel_title(cr, &top, t_title, t_note);
    draw_y_axis(cr, &top, &ts);
    draw_x_axis(cr, &top, &xs, xticks);
    draw_curves(cr, sw, ser, &top, &xs, &ts, false);
    if (t_obj)
        draw_objective(cr, &top, &ts, slo->throughput);
    draw_frame(cr, &top);

    panel_title(cr, &bottom, l_title, l_note);
    draw_y_axis(cr, &bottom, &ls);
    draw_x_axis(cr, &bottom, &xs, xticks);
    draw_curves(cr, sw, ser, &bottom, &xs, &ls, true);
    if (l_obj)
        draw_objective(cr, &bottom, &ls, slo->p99_ms);
    draw_frame(cr, &bottom);

    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, (bottom.x0 + bottom.x1) / 2, bottom.y1 + 40, 12, 0.5, false,
            "processes sharing the GPU");
    draw_legend(cr, ser, x1 + 24, top.y0);
    series_free(ser);
}

/* ------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------ */

static cairo_status_t write_gstring(void *closure, const unsigned char *data,
                                    unsigned int len)
{
    g_string_append_len(closure, (const char *)data, len);
    return CAIRO_STATUS_SUCCESS;
}

char *sim_sweep_plot_svg(const SimSweep *sw, const SimSlo *slo)
{
    GString *out = g_string_new(NULL);
    cairo_surface_t *s = cairo_svg_surface_create_for_stream(
        write_gstring, out, PLOT_W, PLOT_H);
    cairo_t *cr = cairo_create(s);
    draw_sweep(cr, sw, slo);
    cairo_destroy(cr);
    cairo_surface_finish(s);
    cairo_surface_destroy(s);
    return g_string_free(out, FALSE);
}

static bool has_suffix_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && g_ascii_strcasecmp(s + n - m, suffix) == 0;
}

bool sim_sweep_plot_write(const SimSweep *sw, const SimSlo *slo,
                          const char *path, GError **error)
{
    if (has_suffix_ci(path, ".svg")) {
        g_autofree char *svg = sim_sweep_plot_svg(sw, slo);
        return sim_write_file_atomic(path, svg, strlen(svg), error);
    }
    if (!has_suffix_ci(path, ".png")) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--plot %s: the name must end in .png or .svg", path);
        return false;
    }
    cairo_surface_t *s =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, PLOT_W, PLOT_H);
    cairo_t *cr = cairo_create(s);
    draw_sweep(cr, sw, slo);
    cairo_destroy(cr);
    g_autoptr(GString) png = g_string_new(NULL);
    cairo_status_t st = cairo_surface_write_to_png_stream(s, write_gstring,
                                                          png);
    cairo_surface_destroy(s);
    if (st != CAIRO_STATUS_SUCCESS) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot draw %s: %s",
                    path, cairo_status_to_string(st));
        return false;
    }
    return sim_write_file_atomic(path, png->str, png->len, error);
}

void sim_sweep_plot_cleanup(void)
{
    cairo_debug_reset_static_data();
    FcFini();
}
