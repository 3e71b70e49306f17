/* pool.c -- a thread pool over independent jobs.  See pool.h. */
#include "pool.h"

typedef struct {
    const uint32_t *items;
    SimPoolFn fn;
    gpointer data;
    GMutex lock;   /* guards done */
    GCond changed; /* signalled when done grows */
    uint32_t done;
} Pool;

/* GThreadPool data must be non-NULL: tasks carry k + 1. */
static void worker(gpointer task, gpointer user)
{
    Pool *P = user;
    uint32_t k = GPOINTER_TO_UINT(task) - 1;
    P->fn(P->items[k], P->data);
    g_mutex_lock(&P->lock);
    P->done++;
    g_cond_signal(&P->changed);
    g_mutex_unlock(&P->lock);
}

void sim_pool_run(const uint32_t *items, uint32_t n, uint32_t threads,
                  SimPoolFn fn, gpointer data, SimPoolProgressFn progress,
                  gpointer progress_data)
{
    if (threads <= 1 || n <= 1) {
        for (uint32_t k = 0; k < n; k++) {
            fn(items[k], data);
            if (progress)
                progress(k + 1, n, progress_data);
        }
        if (n == 0 && progress)
            progress(0, 0, progress_data);
        return;
    }
    Pool P = {items, fn, data, {0}, {0}, 0};
    g_mutex_init(&P.lock);
    g_cond_init(&P.changed);
    /* Exclusive threads: they exist for this pool only and are joined by
     * g_thread_pool_free, so nothing outlives the call. */
    GThreadPool *pool =
        g_thread_pool_new(worker, &P, (gint)MIN(threads, n), TRUE, NULL);
    for (uint32_t k = 0; k < n; k++)
        g_thread_pool_push(pool, GUINT_TO_POINTER(k + 1), NULL);
    /* Wake at least every 250 ms so the progress line's clock moves while
     * a long configuration runs. */
    g_mutex_lock(&P.lock);
    while (P.done < n) {
        g_cond_wait_until(&P.changed, &P.lock,
                          g_get_monotonic_time() +
                              250 * G_TIME_SPAN_MILLISECOND);
        uint32_t done = P.done;
        if (progress && done < n) {
            g_mutex_unlock(&P.lock);
            progress(done, n, progress_data);
            g_mutex_lock(&P.lock);
        }
    }
    g_mutex_unlock(&P.lock);
    g_thread_pool_free(pool, FALSE, TRUE);
    if (progress)
        progress(n, n, progress_data);
    g_cond_clear(&P.changed);
    g_mutex_clear(&P.lock);
}

uint32_t sim_pool_default_threads(uint32_t local_ranks)
{
    guint cpus = g_get_num_processors();
    guint per = cpus / MAX(local_ranks, 1);
    return MAX(per, 1);
}
