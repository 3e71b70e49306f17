/* engine.h -- simulate a scenario on a GPU model.
 *
 * The engine is a discrete-event simulator (event heap ordered by (time,
 * sequence), integer nanoseconds).  It owns no policy knowledge of its own:
 * hardware facts and scheduling parameters come from the GpuModel, block
 * placement and preemption from small ops tables selected by the model, and
 * the workload from the SimScenario.  It never reads the wall clock and draws
 * randomness only from a generator seeded by the options, so the same inputs
 * give the same result, bit for bit.
 *
 * What it models, in order of the path an op takes (SPEC.md "The model"):
 *   host thread (API time, gaps, syncs, iterations, arrivals)
 *   -> stream (issue order) -> hardware queue (connections, FIFO, head-of-line
 *   blocking) -> resident-grid limit and launch latency -> block dispatcher
 *   (priority then launch order, leftover policy, occupancy per SM, MPS SM
 *   limits) -> SMs (co-resident blocks share issue capacity) ;
 *   contexts time-sliced against each other (timeslice, switch cost, idle
 *   yield, preemption granularity); MPS clients share one context; copies on
 *   copy engines per direction; device memory per context and client.
 */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <glib.h>
#include <stdbool.h>

#include "bounds.h"
#include "gpu_model.h"
#include "result.h"
#include "scenario.h"

typedef enum {
    SIM_SHARE_AS_SCENARIO, /* each process as its "mps" field says */
    SIM_SHARE_TIMESLICE,   /* every process its own context */
    SIM_SHARE_MPS,         /* every process an MPS client */
} SimShareMode;

/* Where a run stands, for a progress display (SimOptions.progress). */
typedef struct {
    SimTime now;        /* simulated time reached */
    uint64_t events;    /* events processed so far */
    uint64_t ops_done;  /* GPU ops (kernels, copies, event records and
                           waits) completed */
    bool finished;      /* the last call, once the run is over */
    uint64_t ops_total; /* GPU ops the workload issues if nothing dies:
                           ops per iteration x iterations (or requests) */
} SimProgress;

/* Events between two calls of SimOptions.progress. */
#define SIM_PROGRESS_EVENTS 65536u

typedef struct {
    SimShareMode mode;
    uint32_t connections;     /* 0: per process / model default */
    double active_thread_pct; /* 0: as the scenario; else for every MPS
                                  client */
    bool record_ops;          /* fill SimResult.ops */
    bool record_timeline;     /* fill SimResult.sm_timeline */
    uint64_t seed;            /* 0: the scenario's seed */
    SimTime time_limit_ns;    /* 0: none; else stop with an error */
    uint32_t host_cores;      /* CPU cores the host threads share; 0: the
                                  scenario's, else the model's, else
                                  unlimited (sim/engine_host.c) */
    bool no_jitter;           /* ignore the processes' jitter: every
                                  request as specified (sim/jitter.h) */
    bool check_invariants;    /* verify the engine's internal invariants
                                  after every instant (tests; slow) */
    uint32_t sm_sample;       /* 0 or 1: every SM (the default).  M > 1:
                                  the approximate model of a busy GPU that
                                  simulates 1 SM in M, each kernel with
                                  1/M of its blocks (engine.c, "Sampled
                                  SMs") */
    /* Optional hook (NULL: none), called from the event loop every
     * SIM_PROGRESS_EVENTS events and once at the end, with @progress_data.
     * It observes only: it must not touch the engine or the scenario.  It
     * returns false to stop the run, which then fails with
     * SIM_ERROR_CANCELLED (the C API's caller stopping it).  Its cost is
     * one counter test per event. */
    bool (*progress)(void *data, const SimProgress *p);
    void *progress_data;
    /* Optional (NULL: none): an events limit this run shares with others
     * (a sweep's configurations, bounds.h), on top of its own. */
    SimEventBudget *event_budget;
} SimOptions;

/* Defaults: as the scenario, record ops, no timeline, no limit. */
void sim_options_init(SimOptions *o);

const char *sim_share_mode_name(SimShareMode m);
/* Parse a mode's name (sim_share_mode_name's, or "time-slicing"); the
 * error lists the names.  (engine_share.c holds the one name table.) */
bool sim_share_mode_parse(const char *s, SimShareMode *out, GError **error);
/* Every mode with its meaning, for --help: "timeslice (own contexts), ...".
 * Returns: (transfer full). */
char *sim_share_mode_help(void);
/* "Under MPS", "Without MPS (time-sliced)", "As the scenario shares it". */
const char *sim_share_mode_phrase(SimShareMode m);
/* Whether mode @m makes a process an MPS client (@process_mps: what the
 * process asks for; the run's mode may override it). */
bool sim_share_mode_mps(SimShareMode m, bool process_mps);
/* Whether an active thread percentage applies in mode @m (not when every
 * process has its own context). */
bool sim_share_mode_takes_pct(SimShareMode m);

/* Run @sc on @m.  Fails on a kernel that fits on no SM, a deadlock, or the
 * time limit; the message names the process, stream and op.
 * Returns: (transfer full) (nullable). */
SimResult *sim_engine_run(const GpuModel *m, const SimScenario *sc,
                          const SimOptions *opt, GError **error);

#endif /* SIM_ENGINE_H */
