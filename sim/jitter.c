/* jitter.c -- seeded variation of op times.  See jitter.h. */
#include "jitter.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "json.h"
#include "scenario.h"

/* Bounds on every factor: a factor of 0 would make work vanish, one above
 * 100 is a typo rather than a spread. */
#define FACTOR_MIN 1e-3
#define FACTOR_MAX 100.0
#define SIGMA_MAX 3.0
#define MAX_VALUES 1000000u

/* Draw keys that are not op indices: the request row, and the second
 * uniform of a normal draw. */
#define KEY_ROW UINT32_MAX
#define KEY_SECOND 0x9e37u

static const char *const class_names[SIM_JIT_N_CLASSES] = {"kernel", "copy",
                                                           "host"};
static const char *const dist_names[] = {"none", "lognormal", "uniform",
                                         "empirical", NULL};

SimJitClass sim_jitter_class_of(int op_kind)
{
    return op_kind == SIM_OP_KERNEL ? SIM_JIT_KERNEL
           : op_kind == SIM_OP_COPY ? SIM_JIT_COPY
                                    : SIM_JIT_HOST;
}

SimJitter *sim_jitter_copy(const SimJitter *j)
{
    if (!j)
        return NULL;
    SimJitter *c = g_memdup2(j, sizeof *j);
    for (int k = 0; k < SIM_JIT_N_CLASSES; k++)
        c->op[k].values =
            g_memdup2(j->op[k].values, sizeof(double) * j->op[k].n);
    c->rows =
        g_memdup2(j->rows, sizeof(double) * SIM_JIT_N_CLASSES * j->n_rows);
    return c;
}

void sim_jitter_free(SimJitter *j)
{
    if (!j)
        return;
    for (int k = 0; k < SIM_JIT_N_CLASSES; k++)
        g_free(j->op[k].values);
    g_free(j->rows);
    g_free(j);
}

/* ------------------------------------------------------------------------
 * Draws: a counter-based hash, so a draw depends on its key alone
 * ------------------------------------------------------------------------ */

static uint64_t key_hash(uint64_t seed, uint32_t proc, uint32_t iter,
                         uint32_t op, uint32_t cls)
{
    uint64_t h = sim_mix64(seed);
    h = sim_mix64(h ^ proc);
    h = sim_mix64(h ^ iter);
    h = sim_mix64(h ^ op);
    return sim_mix64(h ^ cls);
}

/* A uniform number in (0, 1): 53 bits, never 0 or 1. */
static double unit(uint64_t h)
{
    return ((double)(h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double draw(const SimDist *d, uint64_t seed, uint32_t proc,
                   uint32_t iter, uint32_t op, uint32_t cls)
{
    uint64_t h = key_hash(seed, proc, iter, op, cls);
    switch (d->kind) {
    case SIM_DIST_LOGNORMAL: {
        /* Box-Muller from two independent uniforms of the same key. */
        double u1 = unit(h);
        double u2 = unit(key_hash(seed, proc, iter, op, cls + KEY_SECOND));
        double z = sqrt(-2.0 * log(u1)) * cos(2.0 * G_PI * u2);
        return exp(d->a * z);
    }
    case SIM_DIST_UNIFORM: return d->a + (d->b - d->a) * unit(h);
    case SIM_DIST_EMPIRICAL: return d->values[h % d->n];
    default: return 1.0;
    }
}

const double *sim_jitter_row(const SimJitter *j, uint64_t seed, uint32_t proc,
                             uint32_t iter)
{
    if (!j || !j->n_rows)
        return NULL;
    uint64_t h = key_hash(seed, proc, iter, KEY_ROW, 0);
    return j->rows + (size_t)(h % j->n_rows) * SIM_JIT_N_CLASSES;
}

/* @sub: 0 for an op, node + 1 for a graph node (a key of its own). */
static double factor(const SimJitter *j, const double *row, uint64_t seed,
                     uint32_t proc, uint32_t iter, uint32_t op, uint32_t sub,
                     SimJitClass c)
{
    double f = row ? row[c] : 1.0;
    if (j && j->op[c].kind != SIM_DIST_NONE)
        f *= draw(&j->op[c], seed, proc, iter, op,
                  (uint32_t)c + 2 * KEY_SECOND * sub);
    return f;
}

double sim_jitter_factor(const SimJitter *j, const double *row, uint64_t seed,
                         uint32_t proc, uint32_t iter, uint32_t op,
                         SimJitClass c)
{
    return factor(j, row, seed, proc, iter, op, 0, c);
}

double sim_jitter_factor_node(const SimJitter *j, const double *row,
                              uint64_t seed, uint32_t proc, uint32_t iter,
                              uint32_t op, uint32_t node, SimJitClass c)
{
    return factor(j, row, seed, proc, iter, op, node + 1, c);
}

SimTime sim_jitter_scale(SimTime t, double f)
{
    if (f == 1.0)
        return t;
    return (SimTime)llround((double)t * f);
}

/* ------------------------------------------------------------------------
 * The scenario format
 * ------------------------------------------------------------------------ */

static bool factor_ok(double v)
{
    return isfinite(v) && v >= FACTOR_MIN && v <= FACTOR_MAX;
}

static bool parse_values(const SimJsonDoc *doc, const cJSON *arr,
                         const char *what, const char *field, double *out,
                         uint32_t n, GError **error)
{
    uint32_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
    {
        if (i == n || !cJSON_IsNumber(v) || !factor_ok(v->valuedouble))
            return sim_json_fail(doc, v, error,
                                 "%s: jitter '%s': factors must be numbers "
                                 "in [%g, %g]",
                                 what, field, FACTOR_MIN, FACTOR_MAX);
        out[i++] = v->valuedouble;
    }
    return true;
}

static bool parse_dist(const SimJsonDoc *doc, const cJSON *o, const char *what,
                       const char *field, SimDist *d, GError **error)
{
    static const char *const keys[] = {"dist", "sigma",  "min",
                                       "max",  "values", NULL};
    if (!cJSON_IsObject(o))
        return sim_json_fail(
            doc, o, error, "%s: jitter '%s': expected an object", what, field);
    int kind = 0;
    if (!sim_json_check_keys(doc, o, keys, what, error) ||
        !sim_json_get_enum(doc, o, "dist", what, true, dist_names, &kind,
                           error))
        return false;
    d->kind = (SimDistKind)kind;
    switch (d->kind) {
    case SIM_DIST_LOGNORMAL:
        return sim_json_get_double(doc, o, "sigma", what, true, 0, SIGMA_MAX,
                                   &d->a, error);
    case SIM_DIST_UNIFORM:
        if (!sim_json_get_double(doc, o, "min", what, true, FACTOR_MIN,
                                 FACTOR_MAX, &d->a, error) ||
            !sim_json_get_double(doc, o, "max", what, true, FACTOR_MIN,
                                 FACTOR_MAX, &d->b, error))
            return false;
        if (d->b < d->a)
            return sim_json_fail(doc, o, error,
                                 "%s: jitter '%s': 'max' is below 'min'", what,
                                 field);
        return true;
    case SIM_DIST_EMPIRICAL: {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "values");
        int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
        if (n < 1 || (uint32_t)n > MAX_VALUES)
            return sim_json_fail(doc, v ? v : o, error,
                                 "%s: jitter '%s': 'values' must be an array "
                                 "of 1 to %u factors",
                                 what, field, MAX_VALUES);
        d->n = (uint32_t)n;
        d->values = g_new(double, d->n);
        return parse_values(doc, v, what, field, d->values, d->n, error);
    }
    default: return true;
    }
}

static bool parse_rows(const SimJsonDoc *doc, const cJSON *rows,
                       const char *what, SimJitter *j, GError **error)
{
    int n = cJSON_IsArray(rows) ? cJSON_GetArraySize(rows) : 0;
    if (n < 1 || (uint32_t)n > MAX_VALUES)
        return sim_json_fail(doc, rows, error,
                             "%s: jitter 'requests' must be an array of 1 to "
                             "%u rows [kernel, copy, host]",
                             what, MAX_VALUES);
    j->n_rows = (uint32_t)n;
    j->rows = g_new(double, (size_t)n *SIM_JIT_N_CLASSES);
    uint32_t i = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, rows)
    {
        if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != SIM_JIT_N_CLASSES)
            return sim_json_fail(doc, r, error,
                                 "%s: jitter 'requests': each row is "
                                 "[kernel, copy, host] factors",
                                 what);
        if (!parse_values(doc, r, what, "requests",
                          j->rows + (size_t)i++ * SIM_JIT_N_CLASSES,
                          SIM_JIT_N_CLASSES, error))
            return false;
    }
    return true;
}

SimJitter *sim_jitter_parse(const SimJsonDoc *doc, const cJSON *node,
                            const char *what, GError **error)
{
    static const char *const keys[] = {"kernel", "copy", "host", "requests",
                                       NULL};
    const char *w = what ? what : "scenario";
    if (!cJSON_IsObject(node)) {
        sim_json_fail(doc, node, error, "%s: 'jitter' must be an object", w);
        return NULL;
    }
    if (!sim_json_check_keys(doc, node, keys, what, error))
        return NULL;
    g_autoptr(SimJitter) j = g_new0(SimJitter, 1);
    for (int c = 0; c < SIM_JIT_N_CLASSES; c++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(node, class_names[c]);
        if (o && !parse_dist(doc, o, w, class_names[c], &j->op[c], error))
            return NULL;
    }
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(node, "requests");
    if (rows && !parse_rows(doc, rows, w, j, error))
        return NULL;
    return g_steal_pointer(&j);
}

static void put_factors(GString *o, const double *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        g_string_append_printf(o, "%s%.17g", i ? ", " : "", v[i]);
}

void sim_jitter_to_json(const SimJitter *j, GString *o)
{
    bool first = true;
    g_string_append_c(o, '{');
    for (int c = 0; c < SIM_JIT_N_CLASSES; c++) {
        const SimDist *d = &j->op[c];
        if (d->kind == SIM_DIST_NONE)
            continue;
        g_string_append_printf(o, "%s\"%s\": {\"dist\": \"%s\"",
                               first ? "" : ", ", class_names[c],
                               dist_names[d->kind]);
        first = false;
        if (d->kind == SIM_DIST_LOGNORMAL)
            g_string_append_printf(o, ", \"sigma\": %.17g", d->a);
        else if (d->kind == SIM_DIST_UNIFORM)
            g_string_append_printf(o, ", \"min\": %.17g, \"max\": %.17g", d->a,
                                   d->b);
        else {
            g_string_append(o, ", \"values\": [");
            put_factors(o, d->values, d->n);
            g_string_append_c(o, ']');
        }
        g_string_append_c(o, '}');
    }
    if (j->n_rows) {
        g_string_append_printf(o, "%s\"requests\": [", first ? "" : ", ");
        for (uint32_t i = 0; i < j->n_rows; i++) {
            g_string_append(o, i ? ", [" : "[");
            put_factors(o, j->rows + (size_t)i * SIM_JIT_N_CLASSES,
                        SIM_JIT_N_CLASSES);
            g_string_append_c(o, ']');
        }
        g_string_append_c(o, ']');
    }
    g_string_append_c(o, '}');
}
