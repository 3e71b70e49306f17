/* bounds.c -- stated limits on the work a small input can ask for.  See
 * bounds.h. */
#include "bounds.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

typedef struct {
    const char *name;
    uint64_t def;
    const char *meaning;
} LimitRow;

/* Defaults: well above every real trace in traces/ and ../shared/traces
 * (the largest, kineto-v100-resnet50-2021, is 35 MB of JSON, 1.5 M values,
 * 9,096 ops), and low enough that no input stays under them and still takes
 * more than about 1 GB of memory or, on a 2-core machine, more than a few
 * seconds (bench/adversarial.sh). */
static const LimitRow rows[SIM_BOUND_N] = {
    [SIM_BOUND_INPUT_BYTES] = {"input_bytes", (uint64_t)1 << 31,
                               "bytes of one input file"},
    [SIM_BOUND_INFLATED_BYTES] = {"inflated_bytes", (uint64_t)128 << 20,
                                  "bytes of a gzip input once inflated"},
    [SIM_BOUND_JSON_VALUES] = {"json_values", 4000000,
                               "values (numbers, strings, arrays, objects) "
                               "in one JSON input"},
    [SIM_BOUND_OPS] = {"ops", 2000000,
                       "ops of a scenario after expanding repeats and "
                       "replicas"},
    [SIM_BOUND_PROCESSES] = {"processes", 4096,
                             "processes after replicas and --processes"},
    [SIM_BOUND_STREAMS] = {"streams", 100000,
                           "streams of one process (after \"count\")"},
    [SIM_BOUND_WORK] = {"work", 5000000,
                        "ops one run simulates: ops x iterations (or "
                        "arrivals), all processes"},
    [SIM_BOUND_BLOCKS] = {"blocks", (uint64_t)1 << 40,
                          "blocks of one kernel (grid x * y * z)"},
    [SIM_BOUND_EVENTS] = {"events", 20000000,
                          "engine events one run processes (at least "
                          "256 per op it simulates)"},
    [SIM_BOUND_SIM_TIME_S] = {"sim_time_s", 1000,
                              "simulated seconds before a run stops"},
    [SIM_BOUND_SAMPLES] = {"samples", 1000000,
                           "utilization samples kept per run (the period "
                           "grows to stay under it)"},
    [SIM_BOUND_SWEEP_WORK] = {"sweep_work", 50000000,
                              "ops all configurations of one sweep "
                              "simulate together (its events limit is "
                              "shared by them all)"},
    /* A kernel costs the engine work on every SM it reaches (a block
     * group each), so a run's cost has this floor whatever its events:
     * on the 2-core development machine 0.16 CPU us per placement for
     * kernels alone, 0.81 under MPS contention (README "Bad input, limits
     * and fuzzing").  400 M: about 1 to 5.5 CPU minutes there, 11 times
     * the README's resnet18 x 8 MPS run (35.7 M at 300 iterations), so it
     * refuses absurd inputs, not real work at a few times its size; a run
     * longer than 10 s says where it stands on stderr (cli_common.c). */
    [SIM_BOUND_PLACEMENTS] = {"placements", 400000000,
                              "kernel-to-SM placements one run makes at "
                              "least: each kernel launch counts min(blocks, "
                              "SMs), x iterations (or arrivals), all "
                              "processes"},
};

/* Written only by main() before any command runs (see bounds.h). */
static uint64_t current[SIM_BOUND_N];
static bool set_by_user[SIM_BOUND_N];

uint64_t sim_limit(SimBound which)
{
    g_assert(which < SIM_BOUND_N);
    return set_by_user[which] ? current[which] : rows[which].def;
}

uint64_t sim_limit_events_for(uint64_t work)
{
    if (set_by_user[SIM_BOUND_EVENTS])
        return current[SIM_BOUND_EVENTS];
    return MAX(rows[SIM_BOUND_EVENTS].def,
               sim_mul_sat(work, SIM_EVENTS_PER_OP));
}

void sim_event_budget_init(SimEventBudget *b, uint64_t limit)
{
    b->limit = limit;
    atomic_init(&b->left, limit);
    atomic_init(&b->hit, false);
}

uint64_t sim_event_budget_take(SimEventBudget *b)
{
    uint64_t left = atomic_load(&b->left);
    for (;;) {
        if (atomic_load(&b->hit))
            return 0;
        uint64_t n = MIN(left, (uint64_t)SIM_EVENT_CHUNK);
        if (n == 0) {
            atomic_store(&b->hit, true);
            return 0;
        }
        /* On failure @left is reloaded with the current value. */
        if (atomic_compare_exchange_weak(&b->left, &left, left - n))
            return n;
    }
}

void sim_event_budget_give(SimEventBudget *b, uint64_t n)
{
    atomic_fetch_add(&b->left, n);
}

const char *sim_limit_name(SimBound which)
{
    g_assert(which < SIM_BOUND_N);
    return rows[which].name;
}

void sim_limits_reset(void)
{
    memset(set_by_user, 0, sizeof set_by_user);
}

bool sim_limit_set_arg(const char *arg, GError **error)
{
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
    for (int i = 0; i < SIM_BOUND_N; i++) {
        if (strlen(rows[i].name) != n || strncmp(rows[i].name, arg, n))
            continue;
        const char *s = eq ? eq + 1 : "";
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        uint64_t mult = 1;
        if (end && *end && !end[1])
            mult = *end == 'k'   ? 1000
                   : *end == 'M' ? 1000000
                   : *end == 'G' ? 1000000000
                                 : 0;
        else if (end && *end)
            mult = 0;
        if (!*s || *s == '-' || errno || mult == 0 || v == 0 ||
            v > UINT64_MAX / 2 / mult) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                        "--limit %s: expected %s=N with N a positive "
                        "integer (k, M, G suffixes allowed)",
                        arg, rows[i].name);
            return false;
        }
        current[i] = (uint64_t)v * mult;
        /* Inputs live in one GByteArray: its length is a guint. */
        if (i == SIM_BOUND_INPUT_BYTES || i == SIM_BOUND_INFLATED_BYTES)
            current[i] = MIN(current[i], (uint64_t)G_MAXUINT - 1);
        set_by_user[i] = true;
        return true;
    }
    g_autoptr(GString) names = g_string_new(NULL);
    for (int i = 0; i < SIM_BOUND_N; i++)
        g_string_append_printf(names, "%s%s", i ? ", " : "", rows[i].name);
    g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                "--limit %s: unknown limit (known: %s)", arg, names->str);
    return false;
}

char *sim_limits_describe(void)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < SIM_BOUND_N; i++)
        g_string_append_printf(s, "  %-15s %-12llu %s\n", rows[i].name,
                               (unsigned long long)sim_limit((SimBound)i),
                               rows[i].meaning);
    return g_string_free(s, FALSE);
}

char *sim_limit_hint(SimBound which)
{
    return g_strdup_printf(
        "(limit '%s' = %llu; raise it with --limit %s=N)", rows[which].name,
        (unsigned long long)sim_limit(which), rows[which].name);
}

bool sim_limit_fail(GError **error, SimBound which, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_autofree char *hint = sim_limit_hint(which);
    g_set_error(error, SIM_ERROR, SIM_ERROR_LIMIT, "%s %s", msg, hint);
    return false;
}

uint64_t sim_add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t sim_mul_sat(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

bool sim_double_to_i64(double v, int64_t lo, int64_t hi, int64_t *out)
{
    if (!isfinite(v))
        return false;
    double r = nearbyint(v);
    /* Compare as doubles first: a double beyond +-2^63 must not reach the
     * conversion (undefined behaviour). */
    if (r < -9223372036854775808.0 || r >= 9223372036854775808.0)
        return false;
    int64_t x = (int64_t)r;
    if (x < lo || x > hi)
        return false;
    *out = x;
    return true;
}
