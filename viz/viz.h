/* viz.h -- what people look at: the Chrome/Perfetto trace export, pictures
 * (timelines, SM occupancy, GPU-Util vs SM-active) as PNG or SVG, and the
 * self-contained HTML report.  Inputs are results only: nothing here
 * simulates, and the same results give the same bytes.
 *
 * Every function takes @n runs of one workload (1 for `hqsim run`, one per
 * mode for `hqsim compare`), the GPU model and the scenario they came from
 * (the scenario supplies kernel shapes; results must come from it), and
 * writes @path atomically (outfile.h): on failure nothing appears there.
 */
#ifndef SIM_VIZ_H
#define SIM_VIZ_H

#include <glib.h>

#include "gpu_model.h"
#include "outfile.h"
#include "result.h"
#include "scenario.h"

/* How much of a run the Perfetto export writes (--perfetto-detail).  Every
 * level has every GPU op as a slice; they differ in counters: */
typedef enum {
    SIM_PERFETTO_OPS,     /* GPU-wide counters only, sampled */
    SIM_PERFETTO_SAMPLED, /* + per-SM counters; long runs sampled (default) */
    SIM_PERFETTO_FULL,    /* every counter change (SM counters of very long
                             runs still as means over 20 000 windows) */
} SimPerfettoDetail;
#define SIM_PERFETTO_DEFAULT SIM_PERFETTO_SAMPLED

/* Parse a level name ("ops", "sampled", "full"); the error lists them. */
gboolean sim_viz_perfetto_detail_parse(const char *s, SimPerfettoDetail *out,
                                       GError **error);

/* Chrome Trace Event JSON that Perfetto and chrome://tracing open: tracks
 * per process/stream, per hardware queue of each process (each MPS client's
 * own queues on Volta and later: Hyper-Q as it runs), per context slice,
 * per SM (or SM group), and counters, at @detail.  Several runs (compare)
 * become separate process groups in one file.  A @path ending in ".gz" is
 * gzip-compressed.  viz/perfetto_check.h checks the result. */
gboolean sim_viz_perfetto_detail(SimResult *const *runs, uint32_t n,
                                 const GpuModel *m, const SimScenario *sc,
                                 const char *path, SimPerfettoDetail detail,
                                 GError **error);

/* The same at SIM_PERFETTO_DEFAULT. */
gboolean sim_viz_perfetto(SimResult *const *runs, uint32_t n, const GpuModel *m,
                          const SimScenario *sc, const char *path,
                          GError **error);

/* One self-contained HTML page: summary tables and pictures. */
gboolean sim_viz_report(SimResult *const *runs, uint32_t n, const GpuModel *m,
                        const SimScenario *sc, const char *path,
                        GError **error);

/* Which pictures to draw (a bit set). */
typedef enum {
    SIM_VIZ_PICTURE_TIMELINE = 1 << 0, /* rows per stream, time-slices */
    SIM_VIZ_PICTURE_SM = 1 << 1,       /* SM x time heat map of warps */
    SIM_VIZ_PICTURE_UTIL = 1 << 2,     /* GPU-Util, SM-active, occupancy */
    SIM_VIZ_PICTURE_ALL = 7,
} SimVizPictureKind;

/* Parse "timeline", "sm", "util" or "all", or a comma-separated list. */
gboolean sim_viz_picture_kind_parse(const char *s, SimVizPictureKind *out,
                                    GError **error);

/* The chosen pictures of @n runs stacked top to bottom on one time axis
 * (for a comparison each kind shows every run, one above the other), as
 * PNG or SVG by @path's extension. */
gboolean sim_viz_picture(SimResult *const *runs, uint32_t n, const GpuModel *m,
                         const SimScenario *sc, SimVizPictureKind kinds,
                         const char *path, GError **error);

/* ------------------------------------------------------------------------
 * Every output of a run or comparison, from one table (outputs.c)
 * ------------------------------------------------------------------------ */

/* What the run outputs are written from. */
typedef struct {
    SimResult *const *runs;
    uint32_t n;
    const GpuModel *m;
    const SimScenario *sc;
    const char *picture_kind;    /* --picture-kind; NULL: all */
    const char *perfetto_detail; /* --perfetto-detail; NULL: the default */
} SimVizRuns;

/* The formats, in the order they are written: json (the JSON summary or
 * comparison), csv (per-op rows; one file per mode for a comparison),
 * perfetto, picture, report.  Each writer takes a SimVizRuns.  *n gets the
 * count.  Returns: (transfer none). */
const SimOutputFormat *sim_viz_outputs(size_t *n);

/* Whether --csv @path can take the CSVs of @n runs: one run writes @path
 * itself; several write one file each, named after @path with the run's
 * mode before the extension, so @path must be a file name, not "-" or a
 * device, FIFO or /dev/stdout (sim_out_in_place), where their names would
 * not exist. */
bool sim_viz_csv_check(const char *path, uint32_t n, GError **error);

#endif /* SIM_VIZ_H */
