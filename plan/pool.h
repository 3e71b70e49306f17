/* pool.h -- run independent jobs on a pool of threads and wait for them.
 *
 * The caller owns where results go: job k writes only its own slot, so no
 * job needs a lock.  The calling thread does none of the work: it waits
 * and reports progress, so progress output comes from one thread only.
 */
#ifndef SIM_POOL_H
#define SIM_POOL_H

#include <glib.h>
#include <stdint.h>

/* One job: @item is one of the values handed to sim_pool_run. */
typedef void (*SimPoolFn)(uint32_t item, gpointer data);

/* Progress: @done of @total jobs finished.  Called on the calling thread,
 * when jobs finish and every 250 ms in between (done may repeat), and once
 * at the end with done == total. */
typedef void (*SimPoolProgressFn)(uint32_t done, uint32_t total, gpointer data);

/* Run fn(items[k], data) for every k < n on @threads threads (a
 * GThreadPool; with threads <= 1, or a single job, in the calling thread,
 * in order) and return when all are done.  Jobs start in the order of
 * @items.  @progress is nullable. */
void sim_pool_run(const uint32_t *items, uint32_t n, uint32_t threads,
                  SimPoolFn fn, gpointer data, SimPoolProgressFn progress,
                  gpointer progress_data);

/* The default thread count: the processors this process may use (cgroup
 * and affinity limits included, as g_get_num_processors reports them),
 * divided among @local_ranks processes on this host; at least 1. */
uint32_t sim_pool_default_threads(uint32_t local_ranks);

#endif /* SIM_POOL_H */
