/* plot.h -- cairo drawing helpers for hqsim's pictures: a canvas written
 * as PNG or SVG, time axes with readable ticks, text that fits its box,
 * legends and colour scales.
 *
 * Pictures are laid out top to bottom, so their height is known only once
 * drawn: callers draw once on a measuring canvas, then again on the real
 * one.  (Drawing once on a cairo recording surface and replaying it would
 * save the first pass, but cairo 1.16 leaks replayed recordings and reads
 * uninitialised extents of unbounded ones.)  Output is deterministic: no
 * timestamps, fixed fonts, fixed colours.
 */
#ifndef SIM_VIZ_PLOT_H
#define SIM_VIZ_PLOT_H

#include <cairo.h>
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "simtime.h"

typedef enum {
    VIZ_FORMAT_PNG,
    VIZ_FORMAT_SVG,
} VizFormat;

/* The format named by @path's extension (.png or .svg, any case). */
gboolean viz_plot_format_from_path(const char *path, VizFormat *out,
                                   GError **error);

typedef struct VizPlot VizPlot;

/* A canvas @width x @height units (pixels in PNG, CSS pixels in SVG),
 * white.  With @height <= 0 it only measures: drawing goes nowhere, so a
 * picture can be laid out once to learn its height, then drawn for real.
 * Returns: (transfer full). */
VizPlot *viz_plot_new(VizFormat fmt, double width, double height);
void viz_plot_free(VizPlot *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VizPlot, viz_plot_free)

/* The context to draw with (transfer none): font and line width preset. */
cairo_t *viz_plot_cr(VizPlot *p);
double viz_plot_width(const VizPlot *p);

/* Finish the picture and free @p.  SVG ids are numbered by first
 * appearance, so the same drawing gives the same bytes however many
 * pictures the process drew before.  Not for a measuring canvas.
 * Returns: (transfer full) (nullable) the PNG or SVG file's bytes. */
GBytes *viz_plot_finish(VizPlot *p, GError **error);

/* ------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------ */

typedef enum {
    VIZ_ALIGN_LEFT,
    VIZ_ALIGN_CENTER,
    VIZ_ALIGN_RIGHT,
} VizAlign;

/* @text (made valid UTF-8) shortened in the middle with "…" to fit @max_w
 * in the current font (0: no limit).  Returns: (transfer full). */
char *viz_plot_fit(cairo_t *cr, const char *text, double max_w);

/* Draw @text with its baseline at @y, aligned at @x, shortened as
 * viz_plot_fit() does to fit @max_w (0: no limit).  Returns the width
 * drawn. */
double viz_plot_text(cairo_t *cr, double x, double y, VizAlign align,
                     double max_w, const char *text);
double viz_plot_text_width(cairo_t *cr, const char *text);
void viz_plot_font(cairo_t *cr, double size, gboolean bold);

/* ------------------------------------------------------------------------
 * Axes
 * ------------------------------------------------------------------------ */

/* A "nice" step (1, 2 or 5 x 10^k) giving about @target steps over @range. */
double viz_plot_nice_step(double range, int target);

/* The unit that keeps time labels short over [0, @t_max]: sets *div (ns per
 * unit) and returns "ns", "µs", "ms" or "s". */
const char *viz_plot_time_unit(SimTime t_max, double *div);

/* A horizontal time axis under a plot area spanning [@x0, @x0 + @w] for
 * times [0, @t_max]: ticks at @y (pointing down), labels below, the unit's
 * title centred further down when @title is TRUE.  Vertical grid lines up
 * to @grid_top when it is < @y. */
void viz_plot_time_axis(cairo_t *cr, double x0, double w, double y,
                        double grid_top, SimTime t_max, gboolean title);

/* ------------------------------------------------------------------------
 * Colours
 * ------------------------------------------------------------------------ */

typedef struct {
    double r, g, b;
} VizRgb;

/* A qualitative colour for series @i (12 distinct colours, then repeat). */
VizRgb viz_plot_series_colour(uint32_t i);
#define VIZ_PLOT_N_SERIES_COLOURS 12

/* A perceptually ordered colour for @v in [0, 1] (viridis-like), for heat
 * maps. */
VizRgb viz_plot_heat_colour(double v);

/* Mix @c towards white by @amount in [0, 1]. */
VizRgb viz_plot_pale(VizRgb c, double amount);

void viz_plot_set_rgb(cairo_t *cr, VizRgb c);

/* A legend entry: a swatch and a label at (@x, @y baseline).  Returns the
 * x where the next entry may go. */
double viz_plot_legend_box(cairo_t *cr, double x, double y, VizRgb c,
                           const char *label);
double viz_plot_legend_line(cairo_t *cr, double x, double y, VizRgb c,
                            double width, gboolean dashed, const char *label);

/* ------------------------------------------------------------------------
 * Value axes, markers and line styles (the sweep plots)
 * ------------------------------------------------------------------------ */

/* A rectangle of the canvas, in its units. */
typedef struct {
    double x0, y0, x1, y1;
} VizBox;

/* A data range mapped onto a VizBox side; log scales map log10(v). */
typedef struct {
    double lo, hi;
    bool log;
} VizScale;

double viz_plot_map_x(const VizScale *s, const VizBox *b, double v);
double viz_plot_map_y(const VizScale *s, const VizBox *b, double v);

/* The 1, 2, 5 x 10^k step nearest above @raw (1 if @raw <= 0). */
double viz_plot_step_above(double raw);

/* Line colour and dash of series @k: Tableau 10 in its published order,
 * dashed from the eleventh series on. */
void viz_plot_line_style(cairo_t *cr, uint32_t k);

/* @s at @size points, its baseline at @y, @align 0 (left) to 1 (right)
 * of @x, in the current source colour. */
void viz_plot_label(cairo_t *cr, double x, double y, double size, double align,
                    bool bold, const char *s);

/* A tick label: 0.05, 3, 250, 12k, 1.5M.  Returns: (transfer full). */
char *viz_plot_tick_label(double v);

/* A crisp 1-unit grey line. */
void viz_plot_grid_line(cairo_t *cr, double x0, double y0, double x1, double y1,
                        double grey);

/* Y ticks, grid lines and labels of a panel (decades with 2 and 5 minor
 * lines on a log scale, about 5 steps on a linear one). */
void viz_plot_value_axis_y(cairo_t *cr, const VizBox *b, const VizScale *s);
/* X grid lines and labels at @ticks (double). */
void viz_plot_value_axis_x(cairo_t *cr, const VizBox *b, const VizScale *s,
                           const GArray *ticks);
void viz_plot_frame(cairo_t *cr, const VizBox *b);
/* A round marker in the current colour, hollow unless @filled. */
void viz_plot_marker(cairo_t *cr, double x, double y, bool filled);
/* A dashed horizontal line at @v (an objective). */
void viz_plot_hline(cairo_t *cr, const VizBox *b, const VizScale *s, double v);

/* Free cairo's and fontconfig's process-wide caches (font faces, the font
 * configuration): kept for the life of the process and partly
 * unreachable, which ASan and valgrind report as leaks.  Call once no
 * cairo object is alive and no thread draws; drawing afterwards
 * initialises them again. */
void viz_plot_cleanup(void);

#endif /* SIM_VIZ_PLOT_H */
