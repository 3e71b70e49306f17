/* plot.c -- cairo drawing helpers.  See plot.h. */
#include "plot.h"

#include <cairo-svg.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "error.h"
#include "outfile.h"

#define FONT_FAMILY "DejaVu Sans"

struct VizPlot {
    VizFormat fmt;
    cairo_surface_t *surface; /* image (PNG, or 1x1 when measuring) or SVG */
    cairo_t *cr;
    GByteArray *bytes; /* SVG: the document as cairo writes it */
    double width;
    bool measuring; /* a layout pass: nothing is kept */
};

gboolean viz_plot_format_from_path(const char *path, VizFormat *out,
                                   GError **error)
{
    const char *dot = strrchr(path, '.');
    if (dot && !g_ascii_strcasecmp(dot, ".png")) {
        *out = VIZ_FORMAT_PNG;
        return TRUE;
    }
    /* A stream written in place ("-", /dev/stdout, a FIFO, /dev/null)
     * has no extension to go by: it gets SVG, text like the other
     * outputs. */
    if ((dot && !g_ascii_strcasecmp(dot, ".svg")) || sim_out_in_place(path)) {
        *out = VIZ_FORMAT_SVG;
        return TRUE;
    }
    g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                "%s: a picture's name must end in .png or .svg", path);
    return FALSE;
}

static cairo_status_t append_bytes(void *closure, const unsigned char *data,
                                   unsigned int length)
{
    g_byte_array_append(closure, data, length);
    return CAIRO_STATUS_SUCCESS;
}

VizPlot *viz_plot_new(VizFormat fmt, double width, double height)
{
    VizPlot *p = g_new0(VizPlot, 1);
    p->fmt = fmt;
    p->width = width;
    p->bytes = g_byte_array_new();
    int w = (int)ceil(width), h = (int)ceil(height);
    if (height <= 0) {
        /* Measuring: everything is clipped away. */
        p->measuring = true;
        p->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    } else if (fmt == VIZ_FORMAT_PNG) {
        p->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    } else {
        p->surface =
            cairo_svg_surface_create_for_stream(append_bytes, p->bytes, w, h);
        cairo_svg_surface_restrict_to_version(p->surface,
                                              CAIRO_SVG_VERSION_1_1);
#if CAIRO_VERSION >= CAIRO_VERSION_ENCODE(1, 16, 0)
        cairo_svg_surface_set_document_unit(p->surface, CAIRO_SVG_UNIT_PX);
#endif
    }
    p->cr = cairo_create(p->surface);
    if (!p->measuring) {
        cairo_set_source_rgb(p->cr, 1, 1, 1);
        cairo_paint(p->cr);
    }
    viz_plot_font(p->cr, 12, FALSE);
    cairo_set_line_width(p->cr, 1);
    return p;
}

void viz_plot_free(VizPlot *p)
{
    if (!p)
        return;
    if (p->cr)
        cairo_destroy(p->cr);
    if (p->surface)
        cairo_surface_destroy(p->surface);
    if (p->bytes)
        g_byte_array_unref(p->bytes);
    g_free(p);
}

cairo_t *viz_plot_cr(VizPlot *p)
{
    return p->cr;
}

double viz_plot_width(const VizPlot *p)
{
    return p->width;
}

/* cairo numbers SVG ids (image12, surface7...) from process-wide counters,
 * so the same picture drawn twice in one process would differ.  Renumber
 * them by first appearance in the document.  Only ids after `id="` or `#`
 * are touched: neither character occurs in base64 image data. */
typedef struct {
    GHashTable *map;  /* "image12" -> "image1" */
    GHashTable *next; /* "image" -> last number given (GUINT_TO_POINTER) */
} IdMap;

static gboolean renumber_id(const GMatchInfo *mi, GString *out, gpointer data)
{
    IdMap *m = data;
    g_autofree char *lead = g_match_info_fetch(mi, 1);
    g_autofree char *kind = g_match_info_fetch(mi, 2);
    g_autofree char *whole = g_match_info_fetch(mi, 0);
    const char *old = whole + strlen(lead);
    const char *mapped = g_hash_table_lookup(m->map, old);
    if (!mapped) {
        guint n = GPOINTER_TO_UINT(g_hash_table_lookup(m->next, kind)) + 1;
        g_hash_table_insert(m->next, g_strdup(kind), GUINT_TO_POINTER(n));
        char *v = g_strdup_printf("%s%u", kind, n);
        g_hash_table_insert(m->map, g_strdup(old), v);
        mapped = v;
    }
    g_string_append(out, lead);
    g_string_append(out, mapped);
    return FALSE;
}

/* Takes @svg; returns the renumbered document. */
static GByteArray *svg_stable_ids(GByteArray *svg)
{
    g_autoptr(GRegex) re = g_regex_new(
        "(id=\"|#)(image|surface|pattern|clip|mask|source)[0-9]+", 0, 0, NULL);
    IdMap m = {g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
               g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL)};
    g_autofree char *text = g_strndup((const char *)svg->data, svg->len);
    char *fixed =
        g_regex_replace_eval(re, text, -1, 0, 0, renumber_id, &m, NULL);
    g_hash_table_destroy(m.map);
    g_hash_table_destroy(m.next);
    g_byte_array_unref(svg);
    gsize len = strlen(fixed);
    return g_byte_array_new_take((guint8 *)fixed, len);
}

GBytes *viz_plot_finish(VizPlot *p, GError **error)
{
    g_return_val_if_fail(!p->measuring, NULL);
    cairo_destroy(p->cr);
    p->cr = NULL;
    cairo_status_t st;
    if (p->fmt == VIZ_FORMAT_PNG) {
        cairo_surface_flush(p->surface);
        st = cairo_surface_write_to_png_stream(p->surface, append_bytes,
                                               p->bytes);
    } else {
        cairo_surface_finish(p->surface);
        st = cairo_surface_status(p->surface);
    }
    GByteArray *bytes = p->bytes;
    VizFormat fmt = p->fmt;
    p->bytes = NULL;
    viz_plot_free(p);
    if (st != CAIRO_STATUS_SUCCESS) {
        g_byte_array_unref(bytes);
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot draw picture: %s",
                    cairo_status_to_string(st));
        return NULL;
    }
    if (fmt == VIZ_FORMAT_SVG)
        bytes = svg_stable_ids(bytes);
    return g_byte_array_free_to_bytes(bytes);
}

/* ------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------ */

void viz_plot_font(cairo_t *cr, double size, gboolean bold)
{
    cairo_select_font_face(cr, FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD
                                : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double viz_plot_text_width(cairo_t *cr, const char *text)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    return e.x_advance;
}

/* "start…end" keeping @k characters of @text (k < length). */
static char *middle_cut(const char *text, glong n, glong k)
{
    glong head = (k + 1) / 2, tail = k / 2;
    g_autofree char *pre = g_utf8_substring(text, 0, head);
    g_autofree char *post = g_utf8_substring(text, n - tail, n);
    return g_strconcat(pre, "…", post, NULL);
}

char *viz_plot_fit(cairo_t *cr, const char *text, double max_w)
{
    char *valid = g_utf8_validate(text, -1, NULL) ? g_strdup(text)
                                                  : g_utf8_make_valid(text, -1);
    if (max_w <= 0 || viz_plot_text_width(cr, valid) <= max_w)
        return valid;
    /* Most characters that fit around the ellipsis: binary search,
     * O(log n) measurements.  The middle goes, because names tend to
     * differ at their ends (infer#0, infer#1; stream0, stream1). */
    glong n = g_utf8_strlen(valid, -1), lo = 0, hi = n - 1;
    while (lo < hi) {
        glong mid = (lo + hi + 1) / 2;
        g_autofree char *t = middle_cut(valid, n, mid);
        if (viz_plot_text_width(cr, t) <= max_w)
            lo = mid;
        else
            hi = mid - 1;
    }
    char *cut = middle_cut(valid, n, lo);
    g_free(valid);
    return cut;
}

double viz_plot_text(cairo_t *cr, double x, double y, VizAlign align,
                     double max_w, const char *text)
{
    g_autofree char *shown = viz_plot_fit(cr, text, max_w);
    double w = viz_plot_text_width(cr, shown);
    double x0 = align == VIZ_ALIGN_LEFT     ? x
                : align == VIZ_ALIGN_CENTER ? x - w / 2
                                            : x - w;
    cairo_move_to(cr, x0, y);
    cairo_show_text(cr, shown);
    return w;
}

/* ------------------------------------------------------------------------
 * Axes
 * ------------------------------------------------------------------------ */

double viz_plot_nice_step(double range, int target)
{
    if (!(range > 0) || target < 1)
        return 1;
    double raw = range / target;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    double nice = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
    return nice * mag;
}

const char *viz_plot_time_unit(SimTime t_max, double *div)
{
    if (t_max >= SIM_S(2)) {
        *div = 1e9;
        return "s";
    }
    if (t_max >= SIM_MS(2)) {
        *div = 1e6;
        return "ms";
    }
    if (t_max >= SIM_US(2)) {
        *div = 1e3;
        return "µs";
    }
    *div = 1;
    return "ns";
}

void viz_plot_time_axis(cairo_t *cr, double x0, double w, double y,
                        double grid_top, SimTime t_max, gboolean title)
{
    double div;
    const char *unit = viz_plot_time_unit(MAX(t_max, 1), &div);
    double range = (double)MAX(t_max, 1) / div;
    double step = viz_plot_nice_step(range, MAX(2, (int)(w / 110)));
    cairo_save(cr);
    viz_plot_font(cr, 11, FALSE);
    cairo_set_line_width(cr, 1);
    for (int i = 0;; i++) {
        double v = i * step;
        if (v > range * (1 + 1e-9))
            break;
        double x = round(x0 + w * v / range) + 0.5;
        if (grid_top < y) {
            cairo_set_source_rgba(cr, 0, 0, 0, 0.10);
            cairo_move_to(cr, x, grid_top);
            cairo_line_to(cr, x, y);
            cairo_stroke(cr);
        }
        cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x, y + 4);
        cairo_stroke(cr);
        char label[32];
        g_snprintf(label, sizeof label, "%g", v);
        viz_plot_text(cr, x, y + 15, VIZ_ALIGN_CENTER, 0, label);
    }
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    cairo_move_to(cr, x0, y + 0.5);
    cairo_line_to(cr, x0 + w, y + 0.5);
    cairo_stroke(cr);
    if (title) {
        g_autofree char *t = g_strdup_printf("simulated time (%s)", unit);
        viz_plot_text(cr, x0 + w / 2, y + 31, VIZ_ALIGN_CENTER, 0, t);
    }
    cairo_restore(cr);
}

/* ------------------------------------------------------------------------
 * Colours
 * ------------------------------------------------------------------------ */

static VizRgb hex(uint32_t v)
{
    VizRgb c = {((v >> 16) & 255) / 255.0, ((v >> 8) & 255) / 255.0,
                (v & 255) / 255.0};
    return c;
}

VizRgb viz_plot_series_colour(uint32_t i)
{
    /* Tableau 10 plus two: distinct on screen and in print. */
    static const uint32_t pal[VIZ_PLOT_N_SERIES_COLOURS] = {
        0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2, 0xb07aa1,
        0xedc948, 0x9c755f, 0xff9da7, 0x8cd17d, 0xd37295, 0x86bcb6};
    return hex(pal[i % VIZ_PLOT_N_SERIES_COLOURS]);
}

VizRgb viz_plot_heat_colour(double v)
{
    /* viridis at nine stops, linearly interpolated. */
    static const uint32_t stops[] = {0x440154, 0x472d7b, 0x3b528b,
                                     0x2c728e, 0x21918c, 0x28ae80,
                                     0x5ec962, 0xaddc30, 0xfde725};
    const int n = G_N_ELEMENTS(stops);
    if (!(v > 0))
        v = 0;
    if (v > 1)
        v = 1;
    double f = v * (n - 1);
    int i = (int)floor(f);
    if (i >= n - 1)
        return hex(stops[n - 1]);
    double t = f - i;
    VizRgb a = hex(stops[i]), b = hex(stops[i + 1]);
    VizRgb c = {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t,
                a.b + (b.b - a.b) * t};
    return c;
}

VizRgb viz_plot_pale(VizRgb c, double amount)
{
    VizRgb p = {c.r + (1 - c.r) * amount, c.g + (1 - c.g) * amount,
                c.b + (1 - c.b) * amount};
    return p;
}

void viz_plot_set_rgb(cairo_t *cr, VizRgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

double viz_plot_legend_box(cairo_t *cr, double x, double y, VizRgb c,
                           const char *label)
{
    cairo_save(cr);
    viz_plot_set_rgb(cr, c);
    cairo_rectangle(cr, x, y - 9, 12, 10);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    double w = viz_plot_text(cr, x + 16, y, VIZ_ALIGN_LEFT, 0, label);
    cairo_restore(cr);
    return x + 16 + w + 18;
}

double viz_plot_legend_line(cairo_t *cr, double x, double y, VizRgb c,
                            double width, gboolean dashed, const char *label)
{
    cairo_save(cr);
    viz_plot_set_rgb(cr, c);
    cairo_set_line_width(cr, width);
    if (dashed) {
        double d[] = {5, 3};
        cairo_set_dash(cr, d, 2, 0);
    }
    cairo_move_to(cr, x, y - 4);
    cairo_line_to(cr, x + 22, y - 4);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    double w = viz_plot_text(cr, x + 27, y, VIZ_ALIGN_LEFT, 0, label);
    cairo_restore(cr);
    return x + 27 + w + 18;
}

/* ------------------------------------------------------------------------
 * Value axes (linear or log), markers and line styles: the sweep plots
 * ------------------------------------------------------------------------ */

static double scale_frac(const VizScale *s, double v)
{
    if (s->log) {
        v = log10(MAX(v, 1e-300));
        return (v - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
    }
    return (v - s->lo) / (s->hi - s->lo);
}

double viz_plot_map_x(const VizScale *s, const VizBox *b, double v)
{
    return b->x0 + scale_frac(s, v) * (b->x1 - b->x0);
}

double viz_plot_map_y(const VizScale *s, const VizBox *b, double v)
{
    return b->y1 - scale_frac(s, v) * (b->y1 - b->y0);
}

/* The 1, 2, 5 x 10^k step nearest above @raw. */
double viz_plot_step_above(double raw)
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

void viz_plot_line_style(cairo_t *cr, uint32_t k)
{
    const double *c = palette[k % G_N_ELEMENTS(palette)];
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    if ((k / G_N_ELEMENTS(palette)) % 2)
        cairo_set_dash(cr, dash_pattern, 2, 0);
    else
        cairo_set_dash(cr, NULL, 0, 0);
}

void viz_plot_label(cairo_t *cr, double x, double y, double size, double align,
                    bool bold, const char *s)
{
    viz_plot_font(cr, size, bold);
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - align * e.x_advance, y);
    cairo_show_text(cr, s);
}

/* Tick label: 0.05, 3, 250, 12k, 1.5M. */
char *viz_plot_tick_label(double v)
{
    double a = fabs(v);
    if (a >= 1e6)
        return g_strdup_printf("%gM", v / 1e6);
    if (a >= 1e4)
        return g_strdup_printf("%gk", v / 1e3);
    return g_strdup_printf("%g", v);
}

void viz_plot_grid_line(cairo_t *cr, double x0, double y0, double x1, double y1,
                        double grey)
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
void viz_plot_value_axis_y(cairo_t *cr, const VizBox *b, const VizScale *s)
{
    if (s->log) {
        for (double d = s->lo; d <= s->hi * (1 + 1e-9); d *= 10) {
            static const double minor[] = {2, 5};
            for (size_t i = 0; i < G_N_ELEMENTS(minor); i++)
                if (d * minor[i] < s->hi) {
                    double y = viz_plot_map_y(s, b, d * minor[i]);
                    viz_plot_grid_line(cr, b->x0, y, b->x1, y, 0.93);
                }
            double y = viz_plot_map_y(s, b, d);
            viz_plot_grid_line(cr, b->x0, y, b->x1, y, 0.82);
            g_autofree char *l = viz_plot_tick_label(d);
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
            viz_plot_label(cr, b->x0 - 6, y + 4, 11, 1, false, l);
        }
        return;
    }
    double step = viz_plot_step_above((s->hi - s->lo) / 5);
    for (double v = s->lo; v <= s->hi * (1 + 1e-9); v += step) {
        double y = viz_plot_map_y(s, b, v);
        viz_plot_grid_line(cr, b->x0, y, b->x1, y, 0.85);
        g_autofree char *l = viz_plot_tick_label(v);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        viz_plot_label(cr, b->x0 - 6, y + 4, 11, 1, false, l);
    }
}

void viz_plot_value_axis_x(cairo_t *cr, const VizBox *b, const VizScale *s,
                           const GArray *ticks)
{
    for (guint i = 0; i < ticks->len; i++) {
        double v = g_array_index(ticks, double, i);
        double x = viz_plot_map_x(s, b, v);
        viz_plot_grid_line(cr, x, b->y0, x, b->y1, 0.9);
        g_autofree char *l = viz_plot_tick_label(v);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        viz_plot_label(cr, x, b->y1 + 16, 11, 0.5, false, l);
    }
}

void viz_plot_frame(cairo_t *cr, const VizBox *b)
{
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    cairo_set_line_width(cr, 1);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_rectangle(cr, floor(b->x0) + 0.5, floor(b->y0) + 0.5,
                    floor(b->x1) - floor(b->x0), floor(b->y1) - floor(b->y0));
    cairo_stroke(cr);
}

void viz_plot_marker(cairo_t *cr, double x, double y, bool filled)
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
void viz_plot_hline(cairo_t *cr, const VizBox *b, const VizScale *s, double v)
{
    double y = viz_plot_map_y(s, b, v);
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
 * Process-wide caches
 * ------------------------------------------------------------------------ */

void viz_plot_cleanup(void)
{
    cairo_debug_reset_static_data();
    FcFini();
}
