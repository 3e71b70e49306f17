/* pictures.c -- timelines, SM occupancy heat maps and utilization curves
 * drawn with cairo.  See viz.h and pictures.h.
 *
 * Every panel maps simulated time [0, t_max] onto the same PLOT_W columns
 * (t_max: the longest run, so a comparison shares one axis).  What a panel
 * shows in a column is an average over that column's time, computed from
 * the results by adding each interval's overlap to the columns it covers
 * (bins_add).  The cost is therefore O(records + covered columns) whatever
 * the number of kernels, and the drawing is bounded by rows x columns:
 * a trace of a million kernels draws as fast and as small as a short one.
 * Sub-column kernels stay visible (a column with any kernel time is drawn,
 * lighter when little of it was busy).
 *
 * Layout: a title, then per kind (timeline, SM heat map, utilization) a
 * legend and one panel per run, each with its own labelled time axis.
 */
#include "pictures.h"

#include <math.h>
#include <string.h>

#include "error.h"
#include "outfile.h"

#define PIC_W SIM_VIZ_PICTURE_WIDTH
#define LABEL_W 230.0 /* left column: row labels */
#define RIGHT_W 30.0
#define PLOT_X LABEL_W
#define PLOT_W ((double)PIC_W - LABEL_W - RIGHT_W)
#define COLS ((uint32_t)(PIC_W - 230 - 30)) /* one column per pixel */
#define UTIL_BIN_PX 4                       /* utilization curve bins */
#define AXIS_H 44.0
#define TITLE_H 26.0

static const VizRgb INK = {0.15, 0.15, 0.15};
static const VizRgb MUTED = {0.45, 0.45, 0.45};
static const VizRgb MPS_SERVER = {0.33, 0.36, 0.40};
static const VizRgb IDLE_CELL = {0.95, 0.95, 0.95};
static const VizRgb KILLED = {0.80, 0.05, 0.05};
static const VizRgb SEVERAL = {0.72, 0.72, 0.72};

/* ------------------------------------------------------------------------
 * Binning
 * ------------------------------------------------------------------------ */

/* Add @w times the share of each bin that [t0, t1) covers to @bins (@n
 * bins of @npb ns each, from 0). */
static void bins_add(double *bins, uint32_t n, double npb, SimTime t0,
                     SimTime t1, double w)
{
    if (t1 <= t0 || n == 0)
        return;
    double c0 = (double)t0 / npb, c1 = (double)t1 / npb;
    if (c0 >= n)
        return;
    if (c1 > n)
        c1 = n;
    uint32_t i0 = (uint32_t)c0;
    uint32_t i1 = (uint32_t)ceil(c1);
    for (uint32_t i = i0; i < i1 && i < n; i++) {
        double lo = MAX(c0, (double)i), hi = MIN(c1, (double)i + 1);
        if (hi > lo)
            bins[i] += (hi - lo) * w;
    }
}

/* Per-context slices (indices into r->slices, in time order). */
typedef struct {
    GArray **by_ctx; /* SimSlice per context */
    uint32_t n;
} CtxSlices;

static void ctx_slices_init(CtxSlices *cs, const SimResult *r)
{
    cs->n = r->n_contexts;
    cs->by_ctx = g_new0(GArray *, MAX(cs->n, 1));
    for (uint32_t c = 0; c < cs->n; c++)
        cs->by_ctx[c] = g_array_new(FALSE, FALSE, sizeof(SimSlice));
    for (guint i = 0; i < r->slices->len; i++) {
        const SimSlice *s = &g_array_index(r->slices, SimSlice, i);
        if (s->ctx < cs->n)
            g_array_append_val(cs->by_ctx[s->ctx], *s);
    }
}

static void ctx_slices_clear(CtxSlices *cs)
{
    for (uint32_t c = 0; c < cs->n; c++)
        g_array_free(cs->by_ctx[c], TRUE);
    g_free(cs->by_ctx);
}

/* Add kernel time [s, e) of context @ctx to @run where the context held
 * the GPU and to @frozen where it did not (time-slicing: its blocks were
 * frozen or it waited for its turn).  With one context, all of it runs.
 * O(log slices + slices overlapped). */
static void add_kernel(const CtxSlices *cs, uint32_t ctx, SimTime s, SimTime e,
                       double *run, double *frozen, double npb)
{
    if (cs->n <= 1 || ctx >= cs->n) {
        bins_add(run, COLS, npb, s, e, 1);
        return;
    }
    const GArray *sl = cs->by_ctx[ctx];
    /* First slice ending after s. */
    guint lo = 0, hi = sl->len;
    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        if (g_array_index(sl, SimSlice, mid).end_ns <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    SimTime t = s;
    for (guint i = lo; i < sl->len && t < e; i++) {
        const SimSlice *x = &g_array_index(sl, SimSlice, i);
        if (x->start_ns >= e)
            break;
        if (x->start_ns > t)
            bins_add(frozen, COLS, npb, t, x->start_ns, 1);
        SimTime a = MAX(t, x->start_ns), b = MIN(e, x->end_ns);
        bins_add(run, COLS, npb, a, b, 1);
        t = MAX(t, b);
    }
    if (t < e)
        bins_add(frozen, COLS, npb, t, e, 1);
}

/* ------------------------------------------------------------------------
 * Colours of processes and contexts
 * ------------------------------------------------------------------------ */

static VizRgb proc_colour(uint32_t p)
{
    return viz_plot_series_colour(p);
}

static VizRgb ctx_colour(const SimResult *r, uint32_t ctx)
{
    if (ctx < r->n_contexts && r->contexts[ctx].mps_server)
        return MPS_SERVER;
    for (uint32_t p = 0; p < r->n_procs; p++)
        if (r->procs[p].ctx == ctx && !r->procs[p].mps)
            return proc_colour(p);
    return MPS_SERVER;
}

/* ------------------------------------------------------------------------
 * Common pieces
 * ------------------------------------------------------------------------ */

typedef struct {
    SimResult *const *runs;
    uint32_t n;
    const GpuModel *m;
    const SimScenario *sc;
    SimTime t_max; /* shared time axis */
    double npb;    /* ns per column */
} Ctx;

static double panel_title(cairo_t *cr, double y, const Ctx *c,
                          const SimResult *r, const char *what)
{
    cairo_save(cr);
    viz_plot_set_rgb(cr, INK);
    viz_plot_font(cr, 13, TRUE);
    double x = 12;
    if (c->n > 1) {
        g_autofree char *mode = g_strdup_printf("%s:", r->mode);
        x += viz_plot_text(cr, x, y + 17, VIZ_ALIGN_LEFT, 0, mode) + 8;
    }
    viz_plot_font(cr, 13, FALSE);
    viz_plot_text(cr, x, y + 17, VIZ_ALIGN_LEFT, PIC_W - x - 12, what);
    cairo_restore(cr);
    return y + TITLE_H;
}

/* Mark where a run ended when the axis is longer (comparisons). */
static void end_marker(cairo_t *cr, const Ctx *c, const SimResult *r,
                       double top, double bottom)
{
    if (r->makespan_ns >= c->t_max)
        return;
    double x = PLOT_X + PLOT_W * (double)r->makespan_ns / (double)c->t_max;
    cairo_save(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.04);
    cairo_rectangle(cr, x, top, PLOT_X + PLOT_W - x, bottom - top);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    double d[] = {4, 3};
    cairo_set_dash(cr, d, 2, 0);
    cairo_move_to(cr, round(x) + 0.5, top);
    cairo_line_to(cr, round(x) + 0.5, bottom);
    cairo_stroke(cr);
    viz_plot_font(cr, 11, FALSE);
    double div;
    const char *unit = viz_plot_time_unit(c->t_max, &div);
    g_autofree char *t = g_strdup_printf("all done at %.4g %s",
                                         (double)r->makespan_ns / div, unit);
    viz_plot_text(cr, x + 4, top + 12, VIZ_ALIGN_LEFT, 0, t);
    cairo_restore(cr);
}

/* ------------------------------------------------------------------------
 * Timeline
 * ------------------------------------------------------------------------ */

typedef struct {
    char *label;  /* process name, or "name (N streams)" */
    char *stream; /* stream name (NULL on a per-process row) */
    uint32_t proc;
    double *run, *frozen, *copy; /* COLS each: busy share of the column */
    uint8_t *edge; /* COLS: a kernel at least MIN_EDGE_COLS wide starts
                      here (drawn as a thin gap, so back-to-back kernels
                      stay apart) */
} Row;

#define MIN_EDGE_COLS 6

typedef struct {
    Row *rows;
    uint32_t n_rows;
    bool per_process; /* streams merged into one row per process */
    uint32_t hidden;  /* processes not drawn */
    uint32_t streams; /* streams with GPU work */
} Rows;

static void rows_clear(Rows *rs)
{
    for (uint32_t i = 0; i < rs->n_rows; i++) {
        g_free(rs->rows[i].label);
        g_free(rs->rows[i].stream);
        g_free(rs->rows[i].run);
        g_free(rs->rows[i].frozen);
        g_free(rs->rows[i].copy);
        g_free(rs->rows[i].edge);
    }
    g_free(rs->rows);
}

/* Choose the rows of run @r (one per stream with GPU work, or one per
 * process when there are too many) and bin its ops into them. */
static void rows_build(Rows *rs, const Ctx *c, const SimResult *r)
{
    memset(rs, 0, sizeof *rs);
    /* Which streams have kernels or copies. */
    g_autofree uint32_t *first = g_new0(uint32_t, r->n_procs + 1);
    for (uint32_t p = 0; p < r->n_procs; p++)
        first[p + 1] = first[p] + r->procs[p].n_streams;
    g_autofree bool *used = g_new0(bool, MAX(first[r->n_procs], 1));
    g_autofree bool *proc_used = g_new0(bool, MAX(r->n_procs, 1));
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord, i);
        if ((o->kind == SIM_OP_KERNEL || o->kind == SIM_OP_COPY) &&
            o->proc < r->n_procs && o->stream < r->procs[o->proc].n_streams) {
            used[first[o->proc] + o->stream] = true;
            proc_used[o->proc] = true;
        }
    }
    uint32_t n_procs_used = 0;
    for (uint32_t p = 0; p < r->n_procs; p++) {
        n_procs_used += proc_used[p];
        for (uint32_t s = 0; s < r->procs[p].n_streams; s++)
            rs->streams += used[first[p] + s];
    }
    rs->per_process = rs->streams > SIM_VIZ_MAX_ROWS;
    uint32_t want =
        rs->per_process ? MIN(n_procs_used, SIM_VIZ_MAX_ROWS) : rs->streams;
    rs->hidden = rs->per_process ? n_procs_used - want : 0;
    rs->rows = g_new0(Row, MAX(want, 1));
    /* Row of each (process, stream); UINT32_MAX when not drawn. */
    g_autofree uint32_t *row_of = g_new0(uint32_t, MAX(first[r->n_procs], 1));
    for (uint32_t p = 0; p < r->n_procs; p++) {
        const SimProcResult *pr = &r->procs[p];
        bool proc_row_made = false;
        for (uint32_t s = 0; s < pr->n_streams; s++) {
            uint32_t k = first[p] + s;
            row_of[k] = UINT32_MAX;
            if (!used[k])
                continue;
            if (rs->per_process && proc_row_made) {
                row_of[k] = rs->n_rows - 1;
                continue;
            }
            if (rs->n_rows == want)
                continue;
            Row *row = &rs->rows[rs->n_rows];
            row->proc = p;
            if (rs->per_process) {
                uint32_t ns = 0;
                for (uint32_t t = 0; t < pr->n_streams; t++)
                    ns += used[first[p] + t];
                row->label = g_strdup_printf("%s (%u stream%s)", pr->name, ns,
                                             ns == 1 ? "" : "s");
                proc_row_made = true;
            } else {
                row->label = g_strdup(pr->name);
                row->stream = g_strdup(pr->streams[s].name);
            }
            row->run = g_new0(double, COLS);
            row->frozen = g_new0(double, COLS);
            row->copy = g_new0(double, COLS);
            row->edge = g_new0(uint8_t, COLS);
            row_of[k] = rs->n_rows++;
        }
    }
    CtxSlices cs;
    ctx_slices_init(&cs, r);
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord, i);
        if ((o->kind != SIM_OP_KERNEL && o->kind != SIM_OP_COPY) ||
            o->proc >= r->n_procs || o->stream >= r->procs[o->proc].n_streams)
            continue;
        uint32_t row = row_of[first[o->proc] + o->stream];
        if (row == UINT32_MAX || o->end_ns <= o->start_ns)
            continue;
        Row *rw = &rs->rows[row];
        double c0 = (double)o->start_ns / c->npb;
        if ((double)o->end_ns / c->npb - c0 >= MIN_EDGE_COLS && c0 >= 1 &&
            c0 < COLS)
            rw->edge[(uint32_t)c0] = 1;
        if (o->kind == SIM_OP_COPY)
            bins_add(rw->copy, COLS, c->npb, o->start_ns, o->end_ns, 1);
        else
            add_kernel(&cs, o->ctx, o->start_ns, o->end_ns, rw->run, rw->frozen,
                       c->npb);
    }
    ctx_slices_clear(&cs);
}

/* Quantized coverage: 0 (nothing), or 1..4 quarters (any time at all
 * shows as at least a quarter, so short kernels stay visible). */
static int level(double v)
{
    if (!(v > 0))
        return 0;
    return v >= 1 ? 4 : 1 + (int)(v * 3.999);
}

/* Draw one strip of cells: for each maximal run of columns with equal
 * (style, level), one rectangle.  @style(col) picks the colour class. */
static void strip(cairo_t *cr, double y, double h, const int *style,
                  const int *lvl, const VizRgb *colours)
{
    uint32_t i = 0;
    while (i < COLS) {
        if (lvl[i] == 0) {
            i++;
            continue;
        }
        uint32_t j = i + 1;
        while (j < COLS && lvl[j] == lvl[i] && style[j] == style[i])
            j++;
        VizRgb col = colours[style[i]];
        double a = 0.25 + 0.75 * (lvl[i] - 1) / 3.0;
        cairo_set_source_rgba(cr, col.r, col.g, col.b, a);
        cairo_rectangle(cr, PLOT_X + i * PLOT_W / COLS, y,
                        (j - i) * PLOT_W / COLS, h);
        cairo_fill(cr);
        i = j;
    }
}

static double timeline_legend(cairo_t *cr, double y, const Ctx *c)
{
    const SimResult *r = c->runs[0];
    cairo_save(cr);
    viz_plot_font(cr, 11, FALSE);
    double x = 12;
    uint32_t shown = MIN(r->n_procs, VIZ_PLOT_N_SERIES_COLOURS);
    for (uint32_t p = 0; p < shown; p++) {
        g_autofree char *name = viz_plot_fit(cr, r->procs[p].name, 170);
        double need = 34 + viz_plot_text_width(cr, name);
        if (x + need > PIC_W - 12) {
            x = 12;
            y += 16;
        }
        x = viz_plot_legend_box(cr, x, y + 12, proc_colour(p), name);
    }
    if (r->n_procs > shown) {
        viz_plot_set_rgb(cr, MUTED);
        g_autofree char *more =
            g_strdup_printf("+%u more (colours repeat every %d processes)",
                            r->n_procs - shown, VIZ_PLOT_N_SERIES_COLOURS);
        viz_plot_text(cr, x, y + 12, VIZ_ALIGN_LEFT, 0, more);
    }
    y += 18;
    x = 12;
    VizRgb blue = proc_colour(0);
    static const char *const what[] = {
        "kernel running (lighter: busy for part of the pixel)",
        "kernel started but its context is switched out (time-slicing)",
        "copy (bottom strip)",
        "MPS server context",
        "several contexts took turns within the pixel",
        "process killed by a fault",
    };
    VizRgb col[] = {blue,  viz_plot_pale(blue, 0.72), INK, MPS_SERVER, SEVERAL,
                    KILLED};
    for (size_t k = 0; k < G_N_ELEMENTS(what); k++) {
        if (x + 34 + viz_plot_text_width(cr, what[k]) > PIC_W - 12) {
            x = 12;
            y += 16;
        }
        if (k + 1 < G_N_ELEMENTS(what)) {
            x = viz_plot_legend_box(cr, x, y + 12, col[k], what[k]);
            continue;
        }
        /* The last one is a cross, as drawn on the rows. */
        cairo_set_source_rgb(cr, KILLED.r, KILLED.g, KILLED.b);
        cairo_set_line_width(cr, 2);
        cairo_move_to(cr, x + 1, y + 3);
        cairo_line_to(cr, x + 10, y + 12);
        cairo_move_to(cr, x + 10, y + 3);
        cairo_line_to(cr, x + 1, y + 12);
        cairo_stroke(cr);
        viz_plot_set_rgb(cr, INK);
        viz_plot_text(cr, x + 16, y + 12, VIZ_ALIGN_LEFT, 0, what[k]);
    }
    cairo_restore(cr);
    return y + 24;
}

static double timeline_panel(cairo_t *cr, double y, const Ctx *c,
                             const SimResult *r, const Rows *rsp)
{
    const Rows rs = *rsp;
    g_autofree char *title =
        rs.per_process
            ? g_strdup_printf("timeline: one row per process (%u streams "
                              "are too many to draw one by one)",
                              rs.streams)
            : g_strdup("timeline: one row per stream, colour = process");
    y = panel_title(cr, y, c, r, title);
    double rh = rs.n_rows <= 12 ? 18 : rs.n_rows <= 24 ? 14 : 10;
    double top = y;
    cairo_save(cr);
    /* Who held the GPU: the context slices. */
    viz_plot_font(cr, 11, FALSE);
    viz_plot_set_rgb(cr, INK);
    viz_plot_text(cr, PLOT_X - 8, y + 11, VIZ_ALIGN_RIGHT, LABEL_W - 16,
                  "GPU held by context");
    /* Per pixel column: the context holding the GPU longest in it, and
     * how much of the column any context held it.  Slices do not overlap
     * and come in time order.  A column where several contexts took turns
     * and none held it most of the time is drawn as "several". */
    g_autofree uint32_t *best = g_new0(uint32_t, COLS);
    g_autofree double *best_t = g_new0(double, COLS);
    g_autofree double *held = g_new0(double, COLS);
    g_autofree uint32_t *turns = g_new0(uint32_t, COLS);
    for (guint i = 0; i < r->slices->len; i++) {
        const SimSlice *s = &g_array_index(r->slices, SimSlice, i);
        /* A context keeps the GPU a while after its work (idle yield):
         * clip to the end of the run. */
        SimTime end = MIN(s->end_ns, r->makespan_ns);
        if (end <= s->start_ns)
            continue;
        double c0 = (double)s->start_ns / c->npb, c1 = (double)end / c->npb;
        for (uint32_t k = (uint32_t)c0; k < COLS && k < ceil(c1); k++) {
            double part = MIN(c1, k + 1.0) - MAX(c0, (double)k);
            held[k] += part;
            turns[k]++;
            if (part > best_t[k]) {
                best_t[k] = part;
                best[k] = s->ctx;
            }
        }
    }
    for (uint32_t k = 0; k < COLS;) {
        if (held[k] <= 0) {
            k++;
            continue;
        }
        bool mixed = turns[k] > 2 && best_t[k] < 0.6 * held[k];
        uint32_t j = k + 1;
        while (j < COLS && held[j] > 0 &&
               (turns[j] > 2 && best_t[j] < 0.6 * held[j]) == mixed &&
               (mixed || best[j] == best[k]))
            j++;
        viz_plot_set_rgb(cr, mixed ? SEVERAL : ctx_colour(r, best[k]));
        cairo_rectangle(cr, PLOT_X + k * PLOT_W / COLS, y + 2,
                        (j - k) * PLOT_W / COLS, 12);
        cairo_fill(cr);
        k = j;
    }
    y += 20;
    /* Rows. */
    g_autofree int *style = g_new0(int, COLS);
    g_autofree int *lvl = g_new0(int, COLS);
    uint32_t prev_proc = UINT32_MAX;
    for (uint32_t i = 0; i < rs.n_rows; i++) {
        const Row *row = &rs.rows[i];
        double ry = y + i * rh;
        if (i % 2 == 0) {
            cairo_set_source_rgb(cr, 0.975, 0.975, 0.975);
            cairo_rectangle(cr, PLOT_X, ry, PLOT_W, rh);
            cairo_fill(cr);
        }
        if (prev_proc != UINT32_MAX && row->proc != prev_proc) {
            cairo_set_source_rgba(cr, 0, 0, 0, 0.18);
            cairo_move_to(cr, 6, round(ry) + 0.5);
            cairo_line_to(cr, PLOT_X + PLOT_W, round(ry) + 0.5);
            cairo_stroke(cr);
        }
        prev_proc = row->proc;
        VizRgb pc = proc_colour(row->proc);
        viz_plot_set_rgb(cr, pc);
        cairo_rectangle(cr, 8, ry + rh / 2 - 4, 8, 8);
        cairo_fill(cr);
        viz_plot_font(cr, rh >= 14 ? 11 : 9, FALSE);
        viz_plot_set_rgb(cr, INK);
        /* "process / stream": the stream keeps up to half the room, the
         * process name the rest, each shortened in the middle. */
        double ty = ry + rh / 2 + (rh >= 14 ? 4 : 3), room = LABEL_W - 28;
        if (row->stream) {
            g_autofree char *st = viz_plot_fit(cr, row->stream, room / 2);
            g_autofree char *tail = g_strconcat(" / ", st, NULL);
            double tw = viz_plot_text_width(cr, tail);
            double pw = viz_plot_text(cr, 20, ty, VIZ_ALIGN_LEFT, room - tw,
                                      row->label);
            viz_plot_text(cr, 20 + pw, ty, VIZ_ALIGN_LEFT, 0, tail);
        } else {
            viz_plot_text(cr, 20, ty, VIZ_ALIGN_LEFT, room, row->label);
        }
        /* Kernels: frozen time pale underneath, running time solid on
         * top, each as dark as its share of the column; a context's
         * slice shorter than a pixel still shows among frozen time. */
        double kh = rh - 2;
        VizRgb pale[1] = {viz_plot_pale(pc, 0.72)}, solid[1] = {pc};
        for (uint32_t k = 0; k < COLS; k++) {
            lvl[k] = level(row->frozen[k]);
            style[k] = 0;
        }
        strip(cr, ry + 1, kh, style, lvl, pale);
        for (uint32_t k = 0; k < COLS; k++)
            lvl[k] = level(row->run[k]);
        strip(cr, ry + 1, kh, style, lvl, solid);
        cairo_set_source_rgb(cr, 1, 1, 1);
        for (uint32_t k = 1; k < COLS; k++)
            if (row->edge[k] && (row->run[k - 1] > 0 || row->frozen[k - 1] > 0))
                cairo_rectangle(cr, PLOT_X + k * PLOT_W / COLS, ry + 1, 1, kh);
        cairo_fill(cr);
        /* Copies: a dark strip along the bottom. */
        for (uint32_t k = 0; k < COLS; k++) {
            lvl[k] = level(row->copy[k]);
            style[k] = 0;
        }
        VizRgb cc[1] = {INK};
        strip(cr, ry + rh - 1 - MAX(3, rh / 4), MAX(3, rh / 4), style, lvl, cc);
    }
    /* Killed processes: a red cross where each of their rows ends. */
    cairo_set_source_rgb(cr, KILLED.r, KILLED.g, KILLED.b);
    cairo_set_line_width(cr, 2);
    for (uint32_t i = 0; i < rs.n_rows; i++) {
        const SimProcResult *pr = &r->procs[rs.rows[i].proc];
        if (pr->status != SIM_PROC_KILLED)
            continue;
        double x = PLOT_X + PLOT_W * (double)pr->end_ns / (double)c->t_max;
        double cy = y + i * rh + rh / 2, d = MIN(rh / 2 - 1, 5);
        cairo_move_to(cr, x - d, cy - d);
        cairo_line_to(cr, x + d, cy + d);
        cairo_move_to(cr, x + d, cy - d);
        cairo_line_to(cr, x - d, cy + d);
    }
    cairo_stroke(cr);
    cairo_set_line_width(cr, 1);
    double bottom = y + rs.n_rows * rh;
    if (rs.n_rows == 0) {
        viz_plot_set_rgb(cr, MUTED);
        viz_plot_text(cr, PLOT_X + 8, y + 14, VIZ_ALIGN_LEFT, 0,
                      "no kernel or copy ran");
        bottom = y + 20;
    }
    end_marker(cr, c, r, top, bottom);
    cairo_restore(cr);
    viz_plot_time_axis(cr, PLOT_X, PLOT_W, bottom + 2, top, c->t_max, TRUE);
    y = bottom + AXIS_H;
    if (rs.hidden) {
        cairo_save(cr);
        viz_plot_font(cr, 11, FALSE);
        cairo_set_source_rgb(cr, 0.7, 0.1, 0.1);
        g_autofree char *msg = g_strdup_printf(
            "%u more process%s not drawn (at most %d rows); --perfetto "
            "shows every stream",
            rs.hidden, rs.hidden == 1 ? "" : "es", SIM_VIZ_MAX_ROWS);
        viz_plot_text(cr, PLOT_X, y + 4, VIZ_ALIGN_LEFT, 0, msg);
        cairo_restore(cr);
        y += 16;
    }
    return y + 8;
}

/* ------------------------------------------------------------------------
 * SM heat map and utilization (one pass over the SM timeline)
 * ------------------------------------------------------------------------ */

typedef struct {
    double *heat;   /* S x COLS: mean resident warps */
    uint32_t n_ub;  /* utilization bins */
    double *busy;   /* n_ub: share with >= 1 kernel running */
    double *active; /* n_ub: mean over SMs of the share with a warp */
    double *occ;    /* n_ub: resident warps / maximum */
} SmBins;

static void sm_bins_build(SmBins *b, const Ctx *c, const SimResult *r,
                          bool heat)
{
    uint32_t S = r->sm_count;
    b->n_ub = COLS / UTIL_BIN_PX;
    double npu = c->npb * UTIL_BIN_PX;
    b->heat = heat ? g_new0(double, (size_t)MAX(S, 1) * COLS) : NULL;
    b->busy = g_new0(double, b->n_ub);
    b->active = g_new0(double, b->n_ub);
    b->occ = g_new0(double, b->n_ub);
    for (guint i = 0; i + 1 < r->busy->len; i += 2)
        bins_add(b->busy, b->n_ub, npu, g_array_index(r->busy, SimTime, i),
                 g_array_index(r->busy, SimTime, i + 1), 1);
    if (S == 0)
        return;
    g_autofree SimTime *since = g_new0(SimTime, S);
    g_autofree uint32_t *warps = g_new0(uint32_t, S);
    double maxw = (double)MAX(r->max_warps_per_sm, 1);
    const GArray *tl = r->sm_timeline;
    for (guint i = 0; i <= tl->len; i++) {
        /* After the last sample, close every SM at the makespan. */
        bool last = i == tl->len;
        uint32_t lo = 0, hi = S;
        SimTime t = r->makespan_ns;
        uint32_t nw = 0;
        if (!last) {
            const SimSmSample *s = &g_array_index(tl, SimSmSample, i);
            if (s->sm >= S)
                continue;
            lo = s->sm;
            hi = s->sm + 1;
            t = s->t_ns;
            nw = s->warps;
        }
        for (uint32_t sm = lo; sm < hi; sm++) {
            if (t > since[sm] && warps[sm] > 0) {
                if (heat)
                    bins_add(b->heat + (size_t)sm * COLS, COLS, c->npb,
                             since[sm], t, warps[sm]);
                bins_add(b->active, b->n_ub, npu, since[sm], t, 1.0 / S);
                bins_add(b->occ, b->n_ub, npu, since[sm], t,
                         warps[sm] / (maxw * S));
            }
            if (t >= since[sm])
                since[sm] = t;
            warps[sm] = nw;
        }
    }
}

static void sm_bins_clear(SmBins *b)
{
    g_free(b->heat);
    g_free(b->busy);
    g_free(b->active);
    g_free(b->occ);
}

static double heat_legend(cairo_t *cr, double y, const Ctx *c)
{
    const SimResult *r = c->runs[0];
    cairo_save(cr);
    viz_plot_font(cr, 11, FALSE);
    viz_plot_set_rgb(cr, INK);
    double x = 12;
    x += viz_plot_text(cr, x, y + 12, VIZ_ALIGN_LEFT, 0,
                       "resident warps per SM (mean over the pixel):");
    x += 10;
    viz_plot_set_rgb(cr, IDLE_CELL);
    cairo_rectangle(cr, x, y + 2, 14, 12);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.7, 0.7, 0.7);
    cairo_rectangle(cr, x + 0.5, y + 2.5, 13, 11);
    cairo_stroke(cr);
    viz_plot_set_rgb(cr, INK);
    x += 18;
    x += viz_plot_text(cr, x, y + 12, VIZ_ALIGN_LEFT, 0, "none") + 14;
    double bw = 240;
    for (int i = 0; i < (int)bw; i++) {
        viz_plot_set_rgb(cr, viz_plot_heat_colour((i + 0.5) / bw));
        cairo_rectangle(cr, x + i, y + 2, 1.2, 12);
        cairo_fill(cr);
    }
    viz_plot_set_rgb(cr, INK);
    char lab[64];
    viz_plot_text(cr, x, y + 27, VIZ_ALIGN_LEFT, 0, "1");
    g_snprintf(lab, sizeof lab, "%u", r->max_warps_per_sm / 2);
    viz_plot_text(cr, x + bw / 2, y + 27, VIZ_ALIGN_CENTER, 0, lab);
    g_snprintf(lab, sizeof lab, "%u warps (full SM)", r->max_warps_per_sm);
    viz_plot_text(cr, x + bw, y + 27, VIZ_ALIGN_LEFT, 0, lab);
    cairo_restore(cr);
    return y + 34;
}

static double heat_panel(cairo_t *cr, double y, const Ctx *c,
                         const SimResult *r, const SmBins *b)
{
    uint32_t S = r->sm_count;
    g_autofree char *title = g_strdup_printf(
        "SM occupancy: one row per SM (%u SMs), colour = resident warps of "
        "the context holding the GPU",
        S);
    y = panel_title(cr, y, c, r, title);
    /* Row height: about 300 px in all, at least 1 px per SM row. */
    int rh = (int)CLAMP(300 / MAX(S, 1), 1, 14);
    int h = rh * (int)S;
    cairo_surface_t *img =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)COLS, MAX(h, 1));
    cairo_surface_flush(img);
    unsigned char *data = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    double maxw = (double)MAX(r->max_warps_per_sm, 1);
    for (uint32_t sm = 0; sm < S; sm++) {
        const double *row = b->heat + (size_t)sm * COLS;
        for (uint32_t k = 0; k < COLS; k++) {
            double v = row[k];
            VizRgb col =
                v > 1e-9 ? viz_plot_heat_colour(MAX(v / maxw, 1.0 / maxw * 0.5))
                         : IDLE_CELL;
            uint32_t px = 0xff000000u | ((uint32_t)lround(col.r * 255) << 16) |
                          ((uint32_t)lround(col.g * 255) << 8) |
                          (uint32_t)lround(col.b * 255);
            for (int dy = 0; dy < rh; dy++)
                memcpy(data + (size_t)((int)sm * rh + dy) * stride + k * 4, &px,
                       4);
        }
    }
    cairo_surface_mark_dirty(img);
    cairo_save(cr);
    cairo_set_source_surface(cr, img, PLOT_X, y);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, PLOT_X, y, PLOT_W, h);
    cairo_fill(cr);
    cairo_surface_destroy(img);
    /* SM axis. */
    viz_plot_font(cr, 11, FALSE);
    viz_plot_set_rgb(cr, INK);
    double step = viz_plot_nice_step(S, MAX(2, h / 40));
    for (double v = 0; v < S; v += step) {
        double yy = y + v * rh + rh / 2.0;
        cairo_move_to(cr, PLOT_X - 4, round(yy) + 0.5);
        cairo_line_to(cr, PLOT_X, round(yy) + 0.5);
        cairo_stroke(cr);
        char lab[32];
        g_snprintf(lab, sizeof lab, "%g", v);
        viz_plot_text(cr, PLOT_X - 7, yy + 4, VIZ_ALIGN_RIGHT, 0, lab);
    }
    cairo_save(cr);
    cairo_translate(cr, PLOT_X - 44, y + h / 2.0);
    cairo_rotate(cr, -G_PI / 2);
    viz_plot_text(cr, 0, 0, VIZ_ALIGN_CENTER, 0, "SM");
    cairo_restore(cr);
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_rectangle(cr, PLOT_X - 0.5, y - 0.5, PLOT_W + 1, h + 1);
    cairo_stroke(cr);
    end_marker(cr, c, r, y, y + h);
    cairo_restore(cr);
    viz_plot_time_axis(cr, PLOT_X, PLOT_W, y + h + 1, y + h, c->t_max, TRUE);
    return y + h + AXIS_H + 8;
}

static const VizRgb C_SMI = {0.84, 0.15, 0.16};
static const VizRgb C_BUSY = {0.96, 0.62, 0.25};
static const VizRgb C_ACTIVE = {0.12, 0.47, 0.71};
static const VizRgb C_OCC = {0.17, 0.63, 0.17};

static double util_legend(cairo_t *cr, double y, const Ctx *c)
{
    double div;
    SimTime bin_ns = (SimTime)(c->npb * UTIL_BIN_PX);
    const char *unit = viz_plot_time_unit(MAX(bin_ns, 1), &div);
    double bin = c->npb * UTIL_BIN_PX / div;
    const SimResult *r = c->runs[0];
    cairo_save(cr);
    viz_plot_font(cr, 11, FALSE);
    double x = 12;
    g_autofree char *smi = g_strdup_printf(
        "GPU-Util as nvidia-smi reports it (one value per %g ms sample)",
        sim_time_to_ms(r->nvml_period_ns));
    x = viz_plot_legend_line(cr, x, y + 12, C_SMI, 3, FALSE, smi);
    x = viz_plot_legend_box(cr, x, y + 12, viz_plot_pale(C_BUSY, 0.45),
                            "GPU busy: >= 1 kernel running");
    x = viz_plot_legend_line(cr, x, y + 12, C_ACTIVE, 2, FALSE,
                             "SM-active: SMs with >= 1 warp");
    viz_plot_legend_line(cr, x, y + 12, C_OCC, 2, FALSE,
                         "achieved occupancy: warps / max");
    viz_plot_set_rgb(cr, MUTED);
    g_autofree char *note = g_strdup_printf(
        "curves are means over bins of %.3g %s; the numbers after each mode "
        "are over the whole run",
        bin, unit);
    viz_plot_text(cr, 12, y + 28, VIZ_ALIGN_LEFT, 0, note);
    cairo_restore(cr);
    return y + 36;
}

/* A step curve of @v (n bins over [0, t_max]), 0..1 on [@top, @bot]. */
static void step_curve(cairo_t *cr, const double *v, uint32_t n, double top,
                       double bot, uint32_t upto)
{
    double bw = PLOT_W / n;
    for (uint32_t i = 0; i < upto && i < n; i++) {
        double yy = bot - (bot - top) * CLAMP(v[i], 0, 1);
        if (i == 0)
            cairo_move_to(cr, PLOT_X, yy);
        else
            cairo_line_to(cr, PLOT_X + i * bw, yy);
        cairo_line_to(cr, PLOT_X + (i + 1) * bw, yy);
    }
    cairo_stroke(cr);
}

static double util_panel(cairo_t *cr, double y, const Ctx *c,
                         const SimResult *r, const SmBins *b)
{
    g_autofree char *title = g_strdup_printf(
        "utilization: GPU-Util %.1f%%, SM-active %.1f%%, achieved occupancy "
        "%.1f%%",
        100 * r->gpu_util, 100 * r->sm_active, 100 * r->achieved_occupancy);
    y = panel_title(cr, y, c, r, title);
    double h = 150, top = y + 4, bot = y + 4 + h;
    cairo_save(cr);
    viz_plot_font(cr, 11, FALSE);
    for (int pct = 0; pct <= 100; pct += 25) {
        double yy = round(bot - h * pct / 100.0) + 0.5;
        cairo_set_source_rgba(cr, 0, 0, 0, pct == 0 ? 0.5 : 0.10);
        cairo_move_to(cr, PLOT_X, yy);
        cairo_line_to(cr, PLOT_X + PLOT_W, yy);
        cairo_stroke(cr);
        viz_plot_set_rgb(cr, INK);
        char lab[16];
        g_snprintf(lab, sizeof lab, "%d%%", pct);
        viz_plot_text(cr, PLOT_X - 7, yy + 4, VIZ_ALIGN_RIGHT, 0, lab);
    }
    /* Bins up to this run's end (later bins are after it finished). */
    double npu = c->npb * UTIL_BIN_PX;
    uint32_t upto =
        (uint32_t)MIN((double)b->n_ub, ceil((double)r->makespan_ns / npu));
    /* GPU busy as a filled area. */
    double bw = PLOT_W / b->n_ub;
    viz_plot_set_rgb(cr, viz_plot_pale(C_BUSY, 0.45));
    for (uint32_t i = 0; i < upto; i++) {
        double v = CLAMP(b->busy[i], 0, 1);
        if (v > 0) {
            cairo_rectangle(cr, PLOT_X + i * bw, bot - h * v, bw, h * v);
        }
    }
    cairo_fill(cr);
    cairo_set_line_width(cr, 1.6);
    viz_plot_set_rgb(cr, C_OCC);
    step_curve(cr, b->occ, b->n_ub, top, bot, upto);
    viz_plot_set_rgb(cr, C_ACTIVE);
    step_curve(cr, b->active, b->n_ub, top, bot, upto);
    /* nvidia-smi samples: one flat segment per period. */
    cairo_set_line_width(cr, 3);
    viz_plot_set_rgb(cr, C_SMI);
    SimTime P = MAX(r->nvml_period_ns, 1);
    for (guint i = 0; i < r->util_samples->len; i++) {
        SimTime t0 = (SimTime)i * P, t1 = MIN(t0 + P, r->makespan_ns);
        double v = g_array_index(r->util_samples, double, i);
        double yy = bot - h * CLAMP(v, 0, 1);
        double x0 = PLOT_X + PLOT_W * (double)t0 / (double)c->t_max;
        double x1 = PLOT_X + PLOT_W * (double)t1 / (double)c->t_max;
        if (i == 0)
            cairo_move_to(cr, x0, yy);
        else
            cairo_line_to(cr, x0, yy);
        cairo_line_to(cr, x1, yy);
    }
    cairo_stroke(cr);
    end_marker(cr, c, r, top, bot);
    cairo_restore(cr);
    viz_plot_time_axis(cr, PLOT_X, PLOT_W, bot + 1, bot, c->t_max, TRUE);
    return bot + AXIS_H + 8;
}

/* ------------------------------------------------------------------------
 * Whole pictures
 * ------------------------------------------------------------------------ */

static double heading(cairo_t *cr, double y, const char *text)
{
    cairo_save(cr);
    cairo_set_source_rgb(cr, 0.93, 0.95, 0.98);
    cairo_rectangle(cr, 0, y, PIC_W, 26);
    cairo_fill(cr);
    viz_plot_font(cr, 14, TRUE);
    viz_plot_set_rgb(cr, INK);
    viz_plot_text(cr, 12, y + 18, VIZ_ALIGN_LEFT, PIC_W - 24, text);
    cairo_restore(cr);
    return y + 32;
}

/* Draw the whole picture from @y = 0 and return its height.  Called twice:
 * once to measure, once to draw (plot.h). */
static double draw(cairo_t *cr, const Ctx *c, SimVizPictureKind kinds,
                   gboolean titled, const Rows *rows, const SmBins *bins)
{
    SimResult *const *runs = c->runs;
    uint32_t n = c->n;
    const GpuModel *m = c->m;
    const SimScenario *sc = c->sc;
    double y = 8;
    if (titled) {
        /* Title: what ran where. */
        cairo_save(cr);
        viz_plot_font(cr, 15, TRUE);
        viz_plot_set_rgb(cr, INK);
        g_autofree char *base =
            sc ? g_path_get_basename(sc->source) : g_strdup("workload");
        g_autofree char *head = g_strdup_printf(
            "hqsim: %s on %s", base, m ? m->display_name : runs[0]->gpu_name);
        viz_plot_text(cr, 12, y + 16, VIZ_ALIGN_LEFT, PIC_W - 24, head);
        viz_plot_font(cr, 11, FALSE);
        viz_plot_set_rgb(cr, MUTED);
        g_autoptr(GString) sub = g_string_new(NULL);
        for (uint32_t i = 0; i < n; i++) {
            const SimResult *r = runs[i];
            double thr = 0;
            for (uint32_t k = 0; k < r->n_procs; k++)
                thr += sim_proc_throughput(&r->procs[k]);
            g_string_append_printf(sub, "%s%s: makespan %.3f ms, %.1f iters/s",
                                   i ? ";  " : "", r->mode,
                                   sim_time_to_ms(r->makespan_ns), thr);
        }
        viz_plot_text(cr, 12, y + 33, VIZ_ALIGN_LEFT, PIC_W - 24, sub->str);
        cairo_restore(cr);
        y += 44;
    }
    if (kinds & SIM_VIZ_PICTURE_TIMELINE) {
        if (titled)
            y = heading(cr, y, "Timeline");
        y = timeline_legend(cr, y, c);
        for (uint32_t i = 0; i < n; i++)
            y = timeline_panel(cr, y, c, runs[i], &rows[i]);
    }
    if (kinds & (SIM_VIZ_PICTURE_SM | SIM_VIZ_PICTURE_UTIL)) {
        if (kinds & SIM_VIZ_PICTURE_SM) {
            if (titled)
                y = heading(cr, y, "SM occupancy over time");
            y = heat_legend(cr, y, c);
            for (uint32_t i = 0; i < n; i++)
                y = heat_panel(cr, y, c, runs[i], &bins[i]);
        }
        if (kinds & SIM_VIZ_PICTURE_UTIL) {
            if (titled)
                y = heading(cr, y,
                            "GPU-Util (nvidia-smi) vs SM-active vs "
                            "achieved occupancy");
            y = util_legend(cr, y, c);
            for (uint32_t i = 0; i < n; i++)
                y = util_panel(cr, y, c, runs[i], &bins[i]);
        }
    }
    return y + 4;
}

GBytes *sim_viz_picture_render(SimResult *const *runs, uint32_t n,
                               const GpuModel *m, const SimScenario *sc,
                               SimVizPictureKind kinds, gboolean titled,
                               VizFormat fmt, GError **error)
{
    g_return_val_if_fail(runs && n > 0, NULL);
    Ctx c = {runs, n, m, sc, 0, 0};
    for (uint32_t i = 0; i < n; i++)
        c.t_max = MAX(c.t_max, runs[i]->makespan_ns);
    c.t_max = MAX(c.t_max, SIM_US(1));
    c.npb = (double)c.t_max / COLS;
    /* What the panels show, binned once for both passes. */
    Rows *rows = g_new0(Rows, n);
    SmBins *bins = g_new0(SmBins, n);
    for (uint32_t i = 0; i < n; i++) {
        if (kinds & SIM_VIZ_PICTURE_TIMELINE)
            rows_build(&rows[i], &c, runs[i]);
        if (kinds & (SIM_VIZ_PICTURE_SM | SIM_VIZ_PICTURE_UTIL))
            sm_bins_build(&bins[i], &c, runs[i],
                          (kinds & SIM_VIZ_PICTURE_SM) != 0);
    }
    VizPlot *measure = viz_plot_new(fmt, PIC_W, 0);
    double h = draw(viz_plot_cr(measure), &c, kinds, titled, rows, bins);
    viz_plot_free(measure);
    VizPlot *p = viz_plot_new(fmt, PIC_W, h);
    draw(viz_plot_cr(p), &c, kinds, titled, rows, bins);
    for (uint32_t i = 0; i < n; i++) {
        rows_clear(&rows[i]);
        sm_bins_clear(&bins[i]);
    }
    g_free(rows);
    g_free(bins);
    return viz_plot_finish(p, error);
}

gboolean sim_viz_picture_kind_parse(const char *s, SimVizPictureKind *out,
                                    GError **error)
{
    g_auto(GStrv) parts = g_strsplit(s, ",", -1);
    unsigned k = 0;
    for (int i = 0; parts[i]; i++) {
        const char *w = g_strstrip(parts[i]);
        if (!strcmp(w, "timeline"))
            k |= SIM_VIZ_PICTURE_TIMELINE;
        else if (!strcmp(w, "sm"))
            k |= SIM_VIZ_PICTURE_SM;
        else if (!strcmp(w, "util"))
            k |= SIM_VIZ_PICTURE_UTIL;
        else if (!strcmp(w, "all"))
            k |= SIM_VIZ_PICTURE_ALL;
        else {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                        "unknown picture kind '%s' (use timeline, sm, util "
                        "or all)",
                        w);
            return FALSE;
        }
    }
    if (!k) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--picture-kind is empty");
        return FALSE;
    }
    *out = (SimVizPictureKind)k;
    return TRUE;
}

gboolean sim_viz_picture(SimResult *const *runs, uint32_t n, const GpuModel *m,
                         const SimScenario *sc, SimVizPictureKind kinds,
                         const char *path, GError **error)
{
    VizFormat fmt;
    if (!viz_plot_format_from_path(path, &fmt, error))
        return FALSE;
    g_autoptr(GBytes) bytes =
        sim_viz_picture_render(runs, n, m, sc, kinds, TRUE, fmt, error);
    if (!bytes)
        return FALSE;
    gsize len = 0;
    const char *data = g_bytes_get_data(bytes, &len);
    return sim_write_file_atomic(path, data, len, error);
}
