/* report.h -- turning SimResults into what people and programs read: the
 * text summary, the JSON summary, the per-op CSV, and the comparison of
 * several runs (before/after MPS).
 *
 * Everything here reads results only; nothing simulates.  Files are written
 * atomically through outfile.h.
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <glib.h>
#include <stdbool.h>

#include "gpu_model.h"
#include "result.h"
#include "scenario.h"

/* What a result for @sc (as plan/prepare.h's prep_target left it) on @m
 * should warn about: an uncalibrated model, a trace's GPU mapped to a model
 * inexactly (or assumed), work rescaled to another GPU.  Every report
 * prints these.  Returns: (transfer full) NULL-terminated, possibly empty. */
char **sim_report_caveats(const SimScenario *sc, const GpuModel *m);

/* The human summary of one run. */
void sim_report_text(const SimResult *r, const GpuModel *m,
                     const SimScenario *sc, GString *out);

/* The JSON summary of one run (no per-op rows: see the CSV).
 * Returns: (transfer full). */
char *sim_report_json(const SimResult *r, const GpuModel *m,
                      const SimScenario *sc);

/* One CSV row per op: process, stream, op, iteration, kind, name, queue,
 * context, issue/start/end in microseconds, SMs used and which, then the
 * GPU model @m ran on and whether it is calibrated (the last columns, named
 * as in the sweep CSV, so a row read alone says what its numbers rest on
 * and readers by column position are unaffected). */
bool sim_report_csv(const SimResult *r, const GpuModel *m, const char *path,
                    GError **error);

/* Side by side: the same workload under several modes, and the ratios of
 * each run to the first. */
void sim_report_compare_text(SimResult *const *runs, uint32_t n,
                             const GpuModel *m, const SimScenario *sc,
                             GString *out);
char *sim_report_compare_json(SimResult *const *runs, uint32_t n,
                              const GpuModel *m, const SimScenario *sc);

/* Mean of per-process throughputs' sum: completed iterations per second of
 * all processes together. */
double sim_result_total_throughput(const SimResult *r);

/* A percentile (p50, p90, p99...) over every process's iteration
 * latencies. */
SimTime sim_result_latency_pct(const SimResult *r, double pct);
/* Their mean (rounded to the ns). */
SimTime sim_result_latency_mean(const SimResult *r);

#endif /* SIM_REPORT_H */
