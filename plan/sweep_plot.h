/* sweep_plot.h -- sweep curves: throughput and p99 latency against the
 * number of processes, one line per mode / thread percentage (and
 * connections, GPU, workload when those axes have several values).
 *
 * Drawn with cairo into PNG or SVG.  The drawing is self-contained (axes,
 * ticks, legend) until the viz/ module's shared plotting code exists; what
 * could move there is listed at the top of sweep_plot.c.
 */
#ifndef SIM_SWEEP_PLOT_H
#define SIM_SWEEP_PLOT_H

#include <glib.h>
#include <stdbool.h>

#include "slo.h"
#include "sweep.h"

/* Write the plot to @path, atomically: PNG if it ends in ".png", SVG if in
 * ".svg" (else a usage error).  @slo is nullable; when active, its
 * objectives are drawn as dashed lines. */
bool sim_sweep_plot_write(const SimSweep *sw, const SimSlo *slo,
                          const char *path, GError **error);

/* The plot as an SVG document (for embedding in HTML).
 * Returns: (transfer full). */
char *sim_sweep_plot_svg(const SimSweep *sw, const SimSlo *slo);

/* Free cairo's and fontconfig's process-wide caches (font faces, the
 * font configuration).  They are kept for the life of the process and
 * partly unreachable, which ASan and valgrind report as leaks.  Call once
 * no cairo object is alive and no thread draws, e.g. before a command
 * returns; drawing afterwards initialises them again. */
void sim_sweep_plot_cleanup(void);

#endif /* SIM_SWEEP_PLOT_H */
