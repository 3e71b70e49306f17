/* pictures.h -- drawing hqsim's pictures into memory (for files and for the
 * HTML report).  See viz.h for what each picture shows.
 */
#ifndef SIM_VIZ_PICTURES_H
#define SIM_VIZ_PICTURES_H

#include <glib.h>

#include "gpu_model.h"
#include "plot.h"
#include "result.h"
#include "scenario.h"
#include "viz.h"

/* Width of every picture, in pixels (PNG) or CSS pixels (SVG). */
#define SIM_VIZ_PICTURE_WIDTH 1400

/* Most timeline rows drawn per run; beyond it streams are merged per
 * process, and beyond that processes are left out (the picture says so). */
#define SIM_VIZ_MAX_ROWS 40

/* The pictures @kinds of @n runs, stacked, as PNG or SVG bytes.  With
 * @titled, a title (workload, GPU, makespans) and a heading per kind come
 * first; the HTML report has its own and leaves them out.
 * Returns: (transfer full) (nullable). */
GBytes *sim_viz_picture_render(SimResult *const *runs, uint32_t n,
                               const GpuModel *m, const SimScenario *sc,
                               SimVizPictureKind kinds, gboolean titled,
                               VizFormat fmt, GError **error);

#endif /* SIM_VIZ_PICTURES_H */
