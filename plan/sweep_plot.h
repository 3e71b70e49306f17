/* sweep_plot.h -- sweep curves: throughput and p99 latency against the
 * number of processes, one line per mode / thread percentage (and
 * connections, GPU, workload when those axes have several values).
 *
 * Drawn into PNG or SVG with the one plotting module, viz/plot.h (canvas,
 * value axes, markers, line styles).
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

/* viz_plot_cleanup (viz/plot.h), e.g. before a command returns. */
void sim_sweep_plot_cleanup(void);

#endif /* SIM_SWEEP_PLOT_H */
