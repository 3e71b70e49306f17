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

/* What stops the next N (SimSloAnswer.next): the first that applies of
 * memory (a process refused for device or MPS memory), client limit (the
 * MPS server's), fault (a process killed), error (the run failed),
 * latency (worst p99 over the objective), throughput (under it). */
typedef enum {
    SIM_SLO_LIMIT_NONE, /* nothing larger was swept, or it passed */
    SIM_SLO_LIMIT_MEMORY,
    SIM_SLO_LIMIT_CLIENTS,
    SIM_SLO_LIMIT_FAULT,
    SIM_SLO_LIMIT_ERROR,
    SIM_SLO_LIMIT_LATENCY,
    SIM_SLO_LIMIT_THROUGHPUT,
} SimSloLimit;

SimSloLimit sim_slo_limited_by(const SimSlo *slo, const SimSweepRow *row);

/* "memory", "client_limit", "fault", "error", "latency", "throughput";
 * NULL for SIM_SLO_LIMIT_NONE. */
const char *sim_slo_limit_name(SimSloLimit l);

/* The answer for @a as one sentence a planner can act on: "Under MPS on
 * h100-sxm, 8 processes fit (N = 8) at 100% threads within worst p99
 * <= 5 ms: 1606.5 iterations/s, worst p99 4.98 ms; N = 16 is limited by
 * latency (worst p99 9.91 ms > 5 ms)."  Returns: (transfer full). */
char *sim_slo_sentence(const SimSweep *sw, const SimSlo *slo,
                       const SimSloAnswer *a);

/* The objectives as a sentence ("worst process p99 <= 20 ms, throughput
 * >= 500 iterations/s"). Returns: (transfer full). */
char *sim_slo_describe(const SimSlo *slo);

#endif /* SIM_SLO_H */
