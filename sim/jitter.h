/* jitter.h -- seeded variation of op times: the spread of real requests.
 *
 * Real kernel times and host gaps vary from request to request, so a
 * closed loop of identical requests has p99 = p50 where a real one does
 * not.  A SimJitter multiplies three classes of time by factors:
 *
 *   kernel   the work of each kernel (its time alone)
 *   copy     the time of each copy
 *   host     host time: host gaps and API calls (defaults included)
 *
 * Two sources, multiplied together:
 *   - per op: one draw per op instance and class from a distribution --
 *     lognormal (median 1, `sigma` the standard deviation of the log),
 *     uniform on [min, max], or empirical (one of a list of factors, each
 *     equally likely);
 *   - per request: rows of (kernel, copy, host) factors, one row drawn per
 *     iteration (or open-loop request) and applied to all its ops: the
 *     measured spread of a trace's repeated requests (--loop-request
 *     fills it), which keeps the correlation within a request.
 *
 * Invariant: every draw is a pure function of (seed, process index,
 * iteration, op index, class) -- a hash, no generator state -- so results
 * are the same bytes whatever order the events run in, on any thread or MPI
 * rank, run after run.  Without a jitter every factor is exactly 1 and
 * nothing is rounded, so runs without one are unchanged.
 */
#ifndef SIM_JITTER_H
#define SIM_JITTER_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "simtime.h"

/* SplitMix64's finalizer: a bijection that mixes every input bit into
 * every output bit.  The counter-based draws of the spread, of the
 * request model (sim/reqmodel.c), of --sm-sample's rounding (engine.c) and
 * the drain order of identical SMs (engine_sm.c) hash their keys with it,
 * so a draw depends on its key alone. */
static inline uint64_t sim_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

struct SimJsonDoc;
struct cJSON;

typedef enum {
    SIM_JIT_KERNEL,
    SIM_JIT_COPY,
    SIM_JIT_HOST,
    SIM_JIT_N_CLASSES
} SimJitClass;

typedef enum {
    SIM_DIST_NONE,      /* factor 1 */
    SIM_DIST_LOGNORMAL, /* exp(sigma * z), z standard normal: a = sigma */
    SIM_DIST_UNIFORM,   /* uniform on [a, b] */
    SIM_DIST_EMPIRICAL, /* values[k], k uniform in [0, n) */
} SimDistKind;

typedef struct {
    SimDistKind kind;
    double a, b;
    double *values; /* EMPIRICAL (owned) */
    uint32_t n;
} SimDist;

typedef struct SimJitter {
    SimDist op[SIM_JIT_N_CLASSES]; /* per op instance */
    double *rows; /* per request: n_rows x SIM_JIT_N_CLASSES factors,
                           in class order (owned); NULL: none */
    uint32_t n_rows;
} SimJitter;

/* The class whose time a factor multiplies for ops of @kind (a SimOpKind):
 * kernels -> KERNEL, copies -> COPY, everything else's host time -> HOST. */
SimJitClass sim_jitter_class_of(int op_kind);

/* Deep copy (NULL stays NULL) and free. */
SimJitter *sim_jitter_copy(const SimJitter *j);
void sim_jitter_free(SimJitter *j);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimJitter, sim_jitter_free)

/* The per-request row of iteration @iter of process @proc: a pointer to
 * SIM_JIT_N_CLASSES factors, or NULL when @j has no rows. */
const double *sim_jitter_row(const SimJitter *j, uint64_t seed, uint32_t proc,
                             uint32_t iter);

/* The factor for one op instance: its request row's factor (@row may be
 * NULL) times its own draw.  1 exactly when neither varies. */
double sim_jitter_factor(const SimJitter *j, const double *row, uint64_t seed,
                         uint32_t proc, uint32_t iter, uint32_t op,
                         SimJitClass c);
/* The same for node @node of the graph op @op: each node draws apart. */
double sim_jitter_factor_node(const SimJitter *j, const double *row,
                              uint64_t seed, uint32_t proc, uint32_t iter,
                              uint32_t op, uint32_t node, SimJitClass c);

/* @t scaled by @f, rounded to the ns; @t itself when @f is 1. */
SimTime sim_jitter_scale(SimTime t, double f);

/* Parse a "jitter" object (README, "Scenario format"); errors name the
 * file, line and field.  Returns: (transfer full) (nullable). */
SimJitter *sim_jitter_parse(const struct SimJsonDoc *doc,
                            const struct cJSON *node, const char *what,
                            GError **error);

/* Append @j as a JSON object (the parse format) to @out. */
void sim_jitter_to_json(const SimJitter *j, GString *out);

#endif /* SIM_JITTER_H */
