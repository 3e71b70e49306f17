/* sweep_report.h -- what a sweep prints and writes: the table on stdout,
 * CSV, JSON, and a self-contained HTML page with the table and the plot.
 *
 * Everything here reads a finished sweep (every row done) and formats it;
 * nothing depends on how the rows were computed, so a serial run, a thread
 * pool and MPI ranks give the same bytes.  Files are written atomically
 * (outfile.h).  @slo and @answers are nullable: without objectives the
 * SLO column and section are left out (CSV keeps an empty column).
 */
#ifndef SIM_SWEEP_REPORT_H
#define SIM_SWEEP_REPORT_H

#include <glib.h>
#include <stdbool.h>

#include "outfile.h"
#include "slo.h"
#include "sweep.h"

/* The readable table, one block per workload and GPU, with the limits hit,
 * failed runs, and the answer to the objectives. */
void sim_sweep_report_text(const SimSweep *sw, const SimSlo *slo,
                           const GArray *answers, GString *out);

/* Only the answer to the objectives (part of the text report). */
/* The answer first: one sentence per (workload, GPU, mode) group
 * (sim_slo_sentence), under "Answer"; nothing without objectives. */
void sim_sweep_report_answer_text(const SimSweep *sw, const SimSlo *slo,
                                  const GArray *answers, GString *o);

void sim_sweep_report_slo_text(const SimSweep *sw, const SimSlo *slo,
                               const GArray *answers, GString *out);

/* JSON: the axes, the objectives and their answer, and per configuration
 * its knobs, figures, limits, per-process figures and notes.
 * Returns: (transfer full). */
char *sim_sweep_report_json(const SimSweep *sw, const SimSlo *slo,
                            const GArray *answers);

/* CSV, one row per configuration (process "all") followed by one row per
 * process of it; columns in sweep_report.c, csv_header. */
bool sim_sweep_report_csv(const SimSweep *sw, const SimSlo *slo,
                          const char *path, GError **error);

/* One HTML page: inputs, the answer, the plot (inline SVG) and the
 * table. */
bool sim_sweep_report_html(const SimSweep *sw, const SimSlo *slo,
                           const GArray *answers, const char *path,
                           GError **error);

/* What the sweep's outputs are written from. */
typedef struct {
    const SimSweep *sw;
    const SimSlo *slo;     /* nullable */
    const GArray *answers; /* SimSloAnswer, or NULL without objectives */
} SimSweepOutputs;

/* The sweep's output formats, in the order they are written: csv, json,
 * plot (PNG or SVG, sweep_plot.h), report (HTML).  Each writer takes a
 * SimSweepOutputs.  *n gets the count.  Returns: (transfer none). */
const SimOutputFormat *sim_sweep_outputs(size_t *n);

#endif /* SIM_SWEEP_REPORT_H */
