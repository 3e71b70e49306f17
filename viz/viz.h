/* viz.h -- what people look at: the Chrome/Perfetto trace export and the
 * self-contained HTML report with pictures (timelines, SM occupancy, GPU-Util
 * vs SM-active).  Inputs are results only. */
#ifndef SIM_VIZ_H
#define SIM_VIZ_H

#include <glib.h>

#include "gpu_model.h"
#include "result.h"
#include "scenario.h"

/* Chrome Trace Event JSON that Perfetto and chrome://tracing open: tracks
 * per process/stream, per hardware queue, per context slice, per SM (or SM
 * group), and counters.  Several runs (compare) become separate process
 * groups in one file. */
gboolean sim_viz_perfetto(SimResult *const *runs, uint32_t n,
                          const GpuModel *m, const SimScenario *sc,
                          const char *path, GError **error);

/* One self-contained HTML page: summary tables and pictures. */
gboolean sim_viz_report(SimResult *const *runs, uint32_t n, const GpuModel *m,
                        const SimScenario *sc, const char *path,
                        GError **error);

#endif /* SIM_VIZ_H */
