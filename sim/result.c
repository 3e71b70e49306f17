/* result.c -- SimResult construction and small queries.  See result.h. */
#include "result.h"

#include <math.h>
#include <stdarg.h>

SimResult *sim_result_new(void)
{
    SimResult *r = g_new0(SimResult, 1);
    r->strings = g_string_chunk_new(4096);
    r->ops = g_array_new(FALSE, FALSE, sizeof(SimOpRecord));
    r->sm_sets = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    r->busy = g_array_new(FALSE, FALSE, sizeof(SimTime));
    r->util_samples = g_array_new(FALSE, FALSE, sizeof(double));
    r->slices = g_array_new(FALSE, FALSE, sizeof(SimSlice));
    r->sm_timeline = g_array_new(FALSE, FALSE, sizeof(SimSmSample));
    r->notes = g_ptr_array_new_with_free_func(g_free);
    return r;
}

void sim_result_free(SimResult *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n_procs; i++) {
        SimProcResult *p = &r->procs[i];
        if (p->latency_ns)
            g_array_free(p->latency_ns, TRUE);
        for (uint32_t s = 0; s < p->n_streams; s++)
            if (p->streams[s].latency_ns)
                g_array_free(p->streams[s].latency_ns, TRUE);
        g_free(p->streams);
    }
    g_free(r->procs);
    g_free(r->contexts);
    g_array_free(r->ops, TRUE);
    g_array_free(r->sm_sets, TRUE);
    g_array_free(r->busy, TRUE);
    g_array_free(r->util_samples, TRUE);
    g_array_free(r->slices, TRUE);
    g_array_free(r->sm_timeline, TRUE);
    g_ptr_array_free(r->notes, TRUE);
    g_string_chunk_free(r->strings);
    g_free(r->gpu_name);
    g_free(r->mode);
    g_free(r);
}

const char *sim_result_intern(SimResult *r, const char *s)
{
    return s ? g_string_chunk_insert_const(r->strings, s) : NULL;
}

void sim_result_note(SimResult *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    /* The same note from many processes is said once. */
    for (guint i = 0; i < r->notes->len; i++)
        if (g_str_equal(g_ptr_array_index(r->notes, i), s)) {
            g_free(s);
            return;
        }
    g_ptr_array_add(r->notes, s);
}

static int cmp_time(const void *a, const void *b)
{
    SimTime x = *(const SimTime *)a, y = *(const SimTime *)b;
    return x < y ? -1 : x > y;
}

SimTime sim_percentile(const GArray *times, double pct)
{
    if (!times || times->len == 0)
        return 0;
    SimTime *v = g_memdup2(times->data, sizeof(SimTime) * times->len);
    qsort(v, times->len, sizeof(SimTime), cmp_time);
    /* Nearest rank: the smallest value with at least pct% at or below. */
    size_t rank = (size_t)ceil(pct / 100.0 * times->len);
    if (rank < 1)
        rank = 1;
    if (rank > times->len)
        rank = times->len;
    SimTime r = v[rank - 1];
    g_free(v);
    return r;
}

SimTime sim_time_mean(const GArray *times)
{
    if (!times || times->len == 0)
        return 0;
    double s = 0;
    for (guint i = 0; i < times->len; i++)
        s += (double)g_array_index(times, SimTime, i);
    return (SimTime)llround(s / times->len);
}

double sim_proc_throughput(const SimProcResult *p)
{
    SimTime span = p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0;
    if (span == 0)
        return 0;
    return p->iterations_done / (span / 1e9);
}

bool sim_sm_set_has(const SimResult *r, uint32_t set, uint32_t sm)
{
    if (set == SIM_NO_INDEX)
        return false;
    const uint64_t *w =
        &g_array_index(r->sm_sets, uint64_t, (size_t)set * r->sm_words);
    return (w[sm / 64] >> (sm % 64)) & 1;
}

char *sim_sm_set_format(const SimResult *r, uint32_t set)
{
    GString *s = g_string_new(NULL);
    uint32_t i = 0;
    while (i < r->sm_count) {
        if (!sim_sm_set_has(r, set, i)) {
            i++;
            continue;
        }
        uint32_t j = i;
        while (j + 1 < r->sm_count && sim_sm_set_has(r, set, j + 1))
            j++;
        if (s->len)
            g_string_append_c(s, ' ');
        if (j > i)
            g_string_append_printf(s, "%u-%u", i, j);
        else
            g_string_append_printf(s, "%u", i);
        i = j + 1;
    }
    return g_string_free(s, FALSE);
}
