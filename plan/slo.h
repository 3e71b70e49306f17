/* slo.h -- service-level questions over a sweep: "the largest N, and the
 * best thread percentage, with p99 latency <= X ms and throughput >= Y per
 * second".
 *
 * A configuration meets the objectives when it ran, every process started
 * (none refused for memory or the MPS client limit) and none was killed,
 * the worst process's p99 latency is within the latency objective (each
 * process is a service with its own budget), and the throughput of all
 * processes together reaches the throughput objective.
 *
 * The answer is given per workload, GPU and sharing mode ("with or without
 * MPS"): among the configurations that meet the objectives, those with the
 * largest N; among them the best (highest throughput, then lowest worst
 * p99, then sweep order) with the thread percentage and connections it
 * used, the runner-up, and why the next larger N swept fails.
 */
#ifndef SIM_SLO_H
#define SIM_SLO_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sweep.h"

typedef struct {
    double p99_ms;     /* worst process p99 <= this; 0: no objective */
    double throughput; /* iterations per second, all processes, >= this;
                          0: no objective */
} SimSlo;

#define SIM_SLO_NONE UINT32_MAX

/* The answer for one group (workload, GPU, mode).  Row indices into
 * SimSweep.rows, or SIM_SLO_NONE. */
typedef struct {
    uint32_t workload, gpu;
    SimShareMode mode;
    uint32_t best;       /* meets the objectives with the largest N */
    uint32_t runner_up;  /* the next best with that N */
    uint32_t next;       /* the closest miss at next_n (every
                            configuration there misses) */
    uint32_t next_n;     /* the smallest N swept above best's (or the
                            smallest N if nothing meets the objectives);
                            0 if none */
    uint32_t next_count; /* configurations with N = next_n in the group */
} SimSloAnswer;

/* Whether any objective is set. */
bool sim_slo_active(const SimSlo *slo);

/* Whether @row meets @slo.  If not and @why is non-NULL, append why
 * ("worst p99 25.1 ms > 20 ms; 4 of 32 processes refused
 * (device_memory)"). */
bool sim_slo_meets(const SimSlo *slo, const SimSweepRow *row, GString *why);

/* One answer per (workload, GPU, mode) group, in sweep order.
 * Returns: (transfer full) GArray of SimSloAnswer. */
GArray *sim_slo_answer(const SimSweep *sw, const SimSlo *slo);

/* The objectives as a sentence ("worst process p99 <= 20 ms, throughput
 * >= 500 iterations/s"). Returns: (transfer full). */
char *sim_slo_describe(const SimSlo *slo);

#endif /* SIM_SLO_H */
