/* optrange.c -- option ranges.  See optrange.h. */
#include "optrange.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* 2^53: every integer up to it is exact in a double. */
#define EXACT_MAX 9007199254740992.0

/* The ranges.  `run`, `compare` and `sweep` share names and meanings
 * (README "Commands"); list options (`sweep -n 1-8,16`, `-t 25,50`,
 * `-c 2,8`, `--mem-mib`) check each item against the same row. */
static const SimOptRange ranges[] = {
    /* simulate commands */
    {"processes", 1, 4096, false, true},
    {"connections", 1, 32, false, true},
    {"thread-pct", 0, 100, true, false},
    {"seed", 0, EXACT_MAX, false, true},
    {"host-cores", 0, 1048576, false, true},
    {"time-limit-ms", 0, 1e12, true, false},
    {"sm-sample", 1, 1024, false, true},
    {"request-model", 2, 1e8, false, true},
    {"host-scale", 0, 1000, true, false},
    {"iterations", 1, 1e8, false, true},
    {"mem-mib", 0, 16777216, false, false}, /* 16 TiB */
    {"arrival-rate", 0, 1e9, true, false},
    /* sweep */
    {"threads", 1, 4096, false, true},
    {"slo-p99-ms", 0, 1e9, true, false},
    {"slo-throughput", 0, 1e12, true, false},
    /* gen */
    {"kernels", 1, 1e8, false, true},
    {"blocks", 1, 1099511627776.0, false, true}, /* 2^40 */
    /* import */
    {"launch-latency-us", 0, 1e6, false, false},
    {"from-ms", 0, 1e12, false, false},
    {"to-ms", 0, 1e12, true, false},
};

const SimOptRange *sim_opt_ranges(size_t *n)
{
    *n = G_N_ELEMENTS(ranges);
    return ranges;
}

const SimOptRange *sim_opt_range(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ranges); i++)
        if (!strcmp(ranges[i].name, name))
            return &ranges[i];
    return NULL;
}

char *sim_opt_range_text(const SimOptRange *r)
{
    if (r->min_open)
        return g_strdup_printf("(%.17g, %.17g]", r->min, r->max);
    return g_strdup_printf("%.17g-%.17g", r->min, r->max);
}

static bool out_of_range(const SimOptRange *r, const char *s, GError **error)
{
    g_autofree char *range = sim_opt_range_text(r);
    g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--%s %s: expected %s in %s",
                r->name, s, r->integer ? "a whole number" : "a number", range);
    return false;
}

bool sim_opt_parse_double(const char *name, const char *s, double *out,
                          GError **error)
{
    const SimOptRange *r = sim_opt_range(name);
    g_return_val_if_fail(r, false);
    g_autofree char *t = g_strstrip(g_strdup(s ? s : ""));
    char *end = NULL;
    errno = 0;
    double v = *t ? g_ascii_strtod(t, &end) : NAN;
    if (!end || *end || errno || !isfinite(v) ||
        (r->min_open ? v <= r->min : v < r->min) || v > r->max ||
        (r->integer && v != floor(v)))
        return out_of_range(r, t, error);
    *out = v;
    return true;
}

bool sim_opt_parse_int64(const char *name, const char *s, int64_t *out,
                         GError **error)
{
    const SimOptRange *r = sim_opt_range(name);
    g_return_val_if_fail(r && r->integer, false);
    g_autofree char *t = g_strstrip(g_strdup(s ? s : ""));
    gint64 v = 0;
    if (!g_ascii_string_to_signed(t, 10, G_MININT64, G_MAXINT64, &v, NULL) ||
        (r->min_open ? (double)v <= r->min : (double)v < r->min) ||
        (double)v > r->max)
        return out_of_range(r, t, error);
    *out = v;
    return true;
}
