/* sweep.h -- capacity-planning sweeps: a space of configurations, running
 * each through the engine, and one summary row per configuration.
 *
 * A sweep is the cross product workload x GPU model x connections x sharing
 * mode x active thread percentage x N (copies of each process of the
 * workload, as `hqsim run --processes N`).  Configurations are numbered in
 * that order, N innermost, and every output lists them in that order,
 * whatever ran them (one thread, a thread pool, MPI ranks) and in whatever
 * order they finished: the same inputs give the same output bytes.
 *
 * Running a configuration reads the space (models, prepared scenarios) and
 * writes only its own row, and the engine shares nothing mutable between
 * runs, so distinct configurations may run on several threads at once.
 * A row keeps a summary of the SimResult (throughput, latency percentiles,
 * memory, the limits that were hit, per-process figures), not the result
 * itself: a large sweep stays small in memory and a row travels between MPI
 * ranks as a few hundred bytes (sim_sweep_row_pack).
 */
#ifndef SIM_SWEEP_H
#define SIM_SWEEP_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "gpu_model.h"
#include "result.h"
#include "scenario.h"

/* ------------------------------------------------------------------------
 * The space
 * ------------------------------------------------------------------------ */

typedef enum {
    SIM_SWEEP_PCT_SCENARIO, /* as each process says (time-slicing: n/a) */
    SIM_SWEEP_PCT_EQUAL,    /* 100 / (processes in the configuration) */
    SIM_SWEEP_PCT_VALUE,    /* the same given value for every client */
} SimSweepPctKind;

/* One value of the thread-percentage axis. */
typedef struct {
    SimSweepPctKind kind;
    double value; /* SIM_SWEEP_PCT_VALUE: in (0, 100] */
} SimSweepPct;

/* The axes of a sweep.  Every array holds distinct values; `processes` is
 * ascending, the others keep the order the user gave.  Time-slicing ignores
 * the thread-percentage axis: it contributes one configuration per point of
 * the other axes, not one per percentage. */
typedef struct {
    GPtrArray *workloads;   /* SimScenario*, owned, from prep_load (N = 1,
                              on the GPU it was recorded on) */
    GPtrArray *gpus;        /* GpuModel*, owned */
    GArray *connections;    /* uint32_t; 0: the scenario's / model default */
    GArray *modes;          /* SimShareMode */
    GArray *pcts;           /* SimSweepPct */
    GArray *processes;      /* uint32_t N >= 1, ascending */
    uint64_t seed;          /* 0: each scenario's own */
    SimTime time_limit_ns;  /* per configuration; 0: none */
    char *models_dir;       /* where workloads' recorded GPUs are found
                              (owned, nullable: the bundled models) */
    GPtrArray *fixed;       /* SimScenario*, owned, from prep_load: run
                              once beside every configuration (`--fixed`),
                              not swept */
    uint32_t host_cores;    /* 0: as the scenario / model (SimOptions) */
    bool no_jitter;         /* every request as specified (SimOptions) */
    uint32_t sm_sample;     /* 1 SM in M simulated (SimOptions); 0: all */
    uint32_t request_model; /* 0: exact; else each configuration runs the
                               request model with this many exact
                               iterations per process (sim/reqmodel.h) */
} SimSweepSpace;

/* An empty space (no axis values yet). */
void sim_sweep_space_init(SimSweepSpace *sp);
void sim_sweep_space_clear(SimSweepSpace *sp);

/* Parsers for the command line's lists; each appends to @out and fails
 * with SIM_ERROR_USAGE naming @option.
 *   processes:   "1,2,4,8", "1-16", "1-4,8,16" -> N in 1..4096, sorted,
 *                duplicates removed
 *   connections: "2,8", "default" -> 1..32 (0 for default)
 *   modes:       "timeslice,mps" (also "scenario")
 *   pcts:        "equal,25,50,100" (also "scenario") -> (0, 100] */
bool sim_sweep_parse_processes(const char *s, GArray *out, GError **error);
bool sim_sweep_parse_connections(const char *s, GArray *out, GError **error);
bool sim_sweep_parse_modes(const char *s, GArray *out, GError **error);
bool sim_sweep_parse_pcts(const char *s, GArray *out, GError **error);

/* The --gpu list @s (NULL: @dflt): each model found (in @models_dir,
 * nullable) and appended to @out (GpuModel*, owned by @out's free
 * function) once, in the order given. */
bool sim_sweep_parse_gpus(const char *s, const char *dflt,
                          const char *models_dir, GPtrArray *out,
                          GError **error);

/* "equal", "25", "scenario"; "-" for time-slicing.
 * Returns: (transfer full). */
char *sim_sweep_pct_label(const SimSweepPct *p, SimShareMode mode);

/* ------------------------------------------------------------------------
 * Configurations and rows
 * ------------------------------------------------------------------------ */

typedef struct {
    uint32_t index;       /* position in the sweep's order */
    uint32_t workload;    /* index into SimSweepSpace.workloads */
    uint32_t gpu;         /* index into SimSweepSpace.gpus */
    uint32_t connections; /* 0: default */
    SimShareMode mode;
    SimSweepPct pct;
    uint32_t n; /* copies of each process of the workload */
} SimSweepConfig;

/* Limits a configuration ran into, as bits of SimSweepRow.limits.  Taken
 * from the result: refused processes' statuses (client limit, memory),
 * killed processes, and the SM limit each MPS client got for its thread
 * percentage. */
typedef enum {
    SIM_SWEEP_LIMIT_MPS_CLIENTS = 1u << 0,  /* MPS client limit: refused */
    SIM_SWEEP_LIMIT_DEVICE_MEM = 1u << 1,   /* out of device memory */
    SIM_SWEEP_LIMIT_MPS_MEM = 1u << 2,      /* over its MPS memory limit */
    SIM_SWEEP_LIMIT_REFUSED = 1u << 3,      /* refused for another reason */
    SIM_SWEEP_LIMIT_PCT_ROUNDING = 1u << 4, /* SM limit != pct x SMs */
    SIM_SWEEP_LIMIT_PCT_IGNORED = 1u << 5,  /* pre-Volta MPS: no pct */
    SIM_SWEEP_LIMIT_NO_MPS = 1u << 6,       /* model without MPS */
    SIM_SWEEP_LIMIT_KILLED = 1u << 7,       /* a fatal fault */
} SimSweepLimit;
#define SIM_SWEEP_N_LIMITS 8

/* Short name of limit bit @bit ("mps_client_limit"...). */
const char *sim_sweep_limit_name(uint32_t bit);

/* One process of a configuration, as it ran. */
typedef struct {
    char *name;
    SimProcStatus status;
    char *reason;      /* why not OK (nullable) */
    double throughput; /* completed iterations per second */
    SimTime p50_ns, p90_ns, p99_ns, mean_ns;
    uint64_t mem_bytes; /* device memory charged to it */
    uint32_t sm_limit;  /* SMs it may use */
    double thread_pct;  /* active thread percentage it ran with */
    bool fixed;         /* from a --fixed workload, not swept */
} SimSweepProc;

/* The summary of one configuration's run.  `done` is set once the row is
 * filled; `error` is the run's failure (a kernel that fits on no SM of this
 * GPU, a deadlock, the time limit) and leaves every figure 0. */
typedef struct {
    SimSweepConfig cfg;
    bool done;
    char *error;       /* (nullable) */
    uint32_t n_procs;  /* processes in the configuration */
    double thread_pct; /* applied to every MPS client; 0: as the
                                  scenario */
    double throughput; /* all swept processes, iterations per
                                  second */
    SimTime p50_ns, p90_ns, p99_ns, mean_ns; /* over every swept
                                                process's iterations */
    SimTime p99_worst_ns; /* the highest per-process p99 (swept
                                  processes; fixed ones are background) */
    SimTime makespan_ns;
    uint64_t mem_used_bytes;   /* peak device memory in use */
    uint64_t mem_device_bytes; /* the model's device memory */
    uint32_t started, refused, killed;
    uint32_t limits;      /* SimSweepLimit bits */
    char **limit_details; /* one line per limit bit, in bit order
                                  (NULL-terminated, owned) */
    char **notes;         /* the result's notes without copy numbers
                                  and repeats counted (owned) */
    SimSweepProc *procs;  /* n_procs */
} SimSweepRow;

/* Whether every process's memory fitted (no memory refusal). */
bool sim_sweep_row_fits_memory(const SimSweepRow *row);

/* @s with the copy numbers of quoted process names dropped ('infer#3#1'
 * becomes 'infer'), so messages about different copies of a process
 * compare equal.  Returns: (transfer full). */
char *sim_sweep_elide_copies(const char *s);

/* Free what a row owns (not the row itself); leaves it zeroed but for
 * cfg. */
void sim_sweep_row_clear(SimSweepRow *row);

/* ------------------------------------------------------------------------
 * A sweep
 * ------------------------------------------------------------------------ */

typedef struct {
    SimSweepSpace space;
    SimSweepConfig *configs; /* n_configs, in sweep order */
    uint32_t n_configs;
    SimScenario **prepared; /* [(workload * |gpus| + gpu) * |processes| +
                                k]: the workload moved to that GPU
                                (prep_target) with processes[k] copies of
                                each process; read-only while
                                configurations run */
    SimSweepRow *rows;      /* n_configs; rows[i].cfg == configs[i] */
    uint32_t n_fixed_procs; /* processes of the --fixed workloads: the
                                last ones of every prepared scenario */
    uint64_t work;          /* ops all configurations simulate (at most
                                the sweep_work limit) */
    SimEventBudget *budget; /* the events limit of the whole sweep,
                                shared by its configurations (bounds.h):
                                the events limit of a run of @work ops */
} SimSweep;

/* Whether a configuration found the sweep's shared events limit used up
 * (SimSweep.budget); the sweep has then failed as a whole. */
bool sim_sweep_budget_hit(const SimSweep *sw);

/* Set the error of a sweep stopped at its events limit ("the sweep
 * stopped at its events limit: its N configurations (W ops) share E
 * events (limit 'events' = E for this sweep; raise it with --limit
 * events=N)").  Always returns false. */
bool sim_sweep_budget_fail(const SimSweep *sw, GError **error);

/* Expand @space (taken over: left empty) into its configurations and
 * prepare one scenario per workload, GPU and N, as `hqsim run` prepares
 * it (plan/prepare.h).  Fails on an empty axis or if a workload cannot be
 * moved to a GPU.
 * Returns: (transfer full) (nullable). */
SimSweep *sim_sweep_new(SimSweepSpace *space, GError **error);
void sim_sweep_free(SimSweep *sw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimSweep, sim_sweep_free)

/* The scenario configuration @i runs.  Returns: (transfer none). */
const SimScenario *sim_sweep_scenario(const SimSweep *sw, uint32_t i);

/* The engine options configuration @i runs with (record_ops off). */
void sim_sweep_options(const SimSweep *sw, uint32_t i, SimOptions *opt);

/* Run configuration @i and fill rows[i].  Safe to call from several
 * threads at once for distinct @i.  Cost: one engine run. */
void sim_sweep_run_config(SimSweep *sw, uint32_t i);

/* Fill @row from @r, the result of configuration @row->cfg of @sw. */
void sim_sweep_summarize(const SimSweep *sw, const SimResult *r,
                         SimSweepRow *row);

/* The order in which configurations are handed out: the most processes
 * first (longest first keeps the last thread or rank from finishing alone),
 * then by index.  Returns: (transfer full) n_configs indices. */
uint32_t *sim_sweep_schedule(const SimSweep *sw);

/* Which rows meet the objectives is not this module's business: slo.h. */

/* ------------------------------------------------------------------------
 * Rows as bytes (MPI)
 * ------------------------------------------------------------------------ */

/* Append @row (done) to @out.  Doubles are copied bit for bit, so a row
 * unpacked on a machine of the same architecture is identical.  */
void sim_sweep_row_pack(const SimSweepRow *row, GByteArray *out);

/* Read one row packed by sim_sweep_row_pack from *@p (advanced past it,
 * not beyond @end) into the matching row of @sw.  Fails on truncated or
 * inconsistent data (an index out of range, a row filled twice). */
bool sim_sweep_row_unpack(SimSweep *sw, const guint8 **p, const guint8 *end,
                          GError **error);

#endif /* SIM_SWEEP_H */
