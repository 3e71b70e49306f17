/* validate.h -- replay measured GPU experiments and compare.
 *
 * A measured data set (traces/measured/h100/) has a manifest.json listing
 * every experiment (processes, MPS settings, connections) and, per
 * experiment, an ops CSV with one row per op of every process and
 * iteration: what was launched (kernel shape, copy size), the host's call
 * time and API time, and the GPU's start and end (%globaltimer).  For each
 * experiment sim_validate() builds a scenario that makes the same calls at
 * the same host times, with each kernel's measured solo duration as its
 * work, runs it, and compares per iteration: the makespan (first call to
 * last end) and every op's end time.
 *
 * Experiments listed in the data set's calibration.txt were used to derive
 * the model's values; the rest are predictions.
 */
#ifndef SIM_VALIDATE_H
#define SIM_VALIDATE_H

#include <glib.h>
#include <stdbool.h>

#include "gpu_model.h"

typedef struct {
    char *id;
    char *category;
    char *measures;   /* what the experiment measures (manifest) */
    bool calibration; /* used to derive model values */
    char *skipped;    /* why it was not replayed (NULL: replayed) */
    uint32_t processes, ops, iterations;
    double meas_ms; /* median over iterations of the makespan */
    double pred_ms;
    double err;     /* median over iterations of (pred - meas)/meas */
    double end_err; /* median over ops of |end error| / iteration span */
    uint32_t ends;  /* GPU op end times compared (all iterations) */
    uint32_t ends_within10; /* of which within 10% of the span */
} SimValRow;

void sim_val_row_free(SimValRow *r);

/* Replay every experiment of @dir whose id matches @filter (a GRegex; NULL:
 * all).  Returns: (transfer full) GPtrArray of SimValRow (nullable). */
/* @measured_blocks: give timer ("gt"/"tslice") kernels their measured
 * median block time instead of the nominal one, to separate errors of
 * the input from errors of the scheduling model. */
GPtrArray *sim_validate(const char *dir, const GpuModel *m, const char *filter,
                        bool measured_blocks, GError **error);
/* The same with SimOptions.sm_sample = @sm_sample (0 or 1: every SM, as
 * sim_validate): the sampled model's predictions against the same data. */
GPtrArray *sim_validate_sampled(const char *dir, const GpuModel *m,
                                const char *filter, bool measured_blocks,
                                uint32_t sm_sample, GError **error);

/* Summary over replayed rows with the given role: count, median and
 * largest |err|, and how many are above 5% and 15%. */
typedef struct {
    uint32_t n, over5, over15;
    uint32_t within10;            /* makespans within 10% */
    uint32_t ends, ends_within10; /* op end times, and within 10% of span */
    double median_abs_err, max_abs_err;
    double median_end_err;
} SimValSummary;

SimValSummary sim_validate_summary(GPtrArray *rows, bool calibration);

/* The same over the rows of one @category (NULL: all; "parent/": every
 * category "parent/..."). */
SimValSummary sim_validate_summary_of(GPtrArray *rows, bool calibration,
                                      const char *category);

#endif /* SIM_VALIDATE_H */
