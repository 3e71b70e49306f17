/* bounds.h -- stated limits on the work a small input can ask for.
 *
 * A few bytes of input can ask for unbounded work: a repeat count, nested
 * repeats, iterations x replicas, an arrival count, a grid of 2^40 blocks,
 * a timestamp a year away, a gzip bomb.  Every such count has a limit here,
 * checked where the count is read (before memory or time is spent), and a
 * limit error names the limit and the option that raises it:
 *
 *     "x.json:7: process 'a': 10000 x 10000 repeats expand to more than
 *      2000000 ops (limit 'ops'; raise it with --limit ops=N)"
 *
 * The table is process-wide: main() sets it from `--limit NAME=N` before
 * any command runs, and nothing changes it afterwards, so threads (sweep)
 * only read it.
 */
#ifndef SIM_BOUNDS_H
#define SIM_BOUNDS_H

#include <glib.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>

typedef enum {
    SIM_BOUND_INPUT_BYTES,    /* size of one input file as read */
    SIM_BOUND_INFLATED_BYTES, /* size of a gzip input once inflated */
    SIM_BOUND_JSON_VALUES,    /* values in one JSON input */
    SIM_BOUND_OPS,            /* ops after expanding repeats and replicas */
    SIM_BOUND_PROCESSES,      /* processes after replicas, --processes */
    SIM_BOUND_STREAMS,        /* streams of one process */
    SIM_BOUND_WORK,           /* ops a run simulates: ops x iterations (or
                                 arrivals), all processes */
    SIM_BOUND_BLOCKS,         /* blocks of one kernel (grid x*y*z) */
    SIM_BOUND_EVENTS,         /* engine events one run processes */
    SIM_BOUND_SIM_TIME_S,     /* simulated seconds before a run stops */
    SIM_BOUND_SAMPLES,        /* utilization samples kept per run */
    SIM_BOUND_SWEEP_WORK,     /* ops all configurations of one sweep
                                 simulate together */
    SIM_BOUND_PLACEMENTS,     /* kernel-SM placements a run makes at least:
                                 each launch min(blocks, SMs) */
    SIM_BOUND_N
} SimBound;

/* The current value of a limit. */
uint64_t sim_limit(SimBound which);

/* The events limit for a run that simulates @work ops: the user's
 * --limit events=N if given, else the larger of the default and
 * SIM_EVENTS_PER_OP events per op.  An op costs tens of events (a
 * kernel's launch, dispatch rounds and block completions on shared SMs),
 * so real workloads stay well under it, while events that grow with
 * simulated time and not with ops (contexts time-slicing endless
 * kernels) still stop at the default. */
#define SIM_EVENTS_PER_OP 256u
uint64_t sim_limit_events_for(uint64_t work);

/* An events limit shared by several runs (the configurations of one
 * sweep, run on several threads): each run takes events from it in
 * chunks and gives back what it did not use, so the runs together process
 * at most @limit events.  Once a run finds it empty, every later take
 * fails too, and the runs stop with a limit error.  Runs under way at
 * once may each hold up to SIM_EVENT_CHUNK events they have not used yet,
 * so runs on T threads may stop up to T x SIM_EVENT_CHUNK events short of
 * the limit. */
typedef struct {
    uint64_t limit;        /* events in all: for the message */
    _Atomic uint64_t left; /* events not yet taken */
    _Atomic bool hit;      /* a take found it empty */
} SimEventBudget;

#define SIM_EVENT_CHUNK 4096u

void sim_event_budget_init(SimEventBudget *b, uint64_t limit);

/* Take up to SIM_EVENT_CHUNK events; returns how many (0: empty, and the
 * budget is marked hit). */
uint64_t sim_event_budget_take(SimEventBudget *b);

/* Give back @n events taken and not used. */
void sim_event_budget_give(SimEventBudget *b, uint64_t n);

/* The limit's name as --limit spells it ("ops"). */
const char *sim_limit_name(SimBound which);

/* Parse "NAME=N" (N a positive integer, k/M/G suffixes allowed) and set
 * that limit. */
bool sim_limit_set_arg(const char *arg, GError **error);

/* Restore every default (tests). */
void sim_limits_reset(void);

/* One line per limit: name, value, meaning (for --help and the README). */
char *sim_limits_describe(void);

/* The tail every limit message ends with:
 * "(limit 'ops' = 2000000; raise it with --limit ops=N)". */
char *sim_limit_hint(SimBound which);

/* Set a limit error: "@prefix: @what exceeds/..." + hint.  Always returns
 * false. */
bool sim_limit_fail(GError **error, SimBound which, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

/* a + b, saturating at UINT64_MAX. */
uint64_t sim_add_sat(uint64_t a, uint64_t b);

/* a * b, saturating at UINT64_MAX (products of counts never wrap). */
uint64_t sim_mul_sat(uint64_t a, uint64_t b);

/* Convert a double to an integer in [lo, hi] without undefined
 * behaviour: false for NaN, infinities and values outside the range
 * (after rounding to nearest). */
bool sim_double_to_i64(double v, int64_t lo, int64_t hi, int64_t *out);

#endif /* SIM_BOUNDS_H */
