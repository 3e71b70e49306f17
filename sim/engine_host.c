/* engine_host.c -- the host CPU as a shared resource.
 *
 * Host work -- API calls (launch, copy, event, the return of a sync) and
 * host gaps -- runs on the machine's CPU cores.  With C cores and k host
 * threads doing host work at once, each progresses at min(1, C/k) of a
 * core (processor sharing: the OS scheduler's time slices are far shorter
 * than a request, so on that scale each runnable thread gets an equal
 * share).  Waiting (a synchronize, an event, the next arrival, a recorded
 * call time) takes no core: the threads block rather than spin.
 *
 * Invariants: while cores == 0 (the machine has at least as many cores as
 * processes, or no count was given) nothing here runs and host work takes
 * exactly its own time, as before this module existed.  Otherwise every
 * thread in `busy` has its EV_HOST at the time its work ends at the current
 * rate; every change of the busy set first accounts progress up to now at
 * the old rate, then moves the events.
 */
#include <math.h>

#include "engine_internal.h"

void host_cpu_init(Engine *E, uint32_t cores)
{
    HostCpu *h = &E->cpu;
    /* Fewer threads than cores never contend: keep the exact path. */
    h->cores = cores && cores < E->n_procs ? cores : 0;
    h->busy = g_ptr_array_new();
    h->share = h->cores;
}

void host_cpu_free(Engine *E)
{
    g_ptr_array_free(E->cpu.busy, TRUE);
}

/* Account the progress of every busy thread since h->last. */
static void advance(Engine *E)
{
    HostCpu *h = &E->cpu;
    double done = (double)(E->now - h->last) * h->cores / h->share;
    for (guint i = 0; i < h->busy->len; i++) {
        Proc *P = g_ptr_array_index(h->busy, i);
        P->cpu_left = MAX(0.0, P->cpu_left - done);
    }
    h->last = E->now;
}

static void schedule_end(Engine *E, Proc *P)
{
    /* left x share / cores: exact in whole ns when the work is */
    SimTime d = (SimTime)ceil(P->cpu_left * E->cpu.share / E->cpu.cores);
    sim_eventq_schedule(&E->q, &P->ev_host, E->now + d);
}

/* The share for the current busy set.  If it changed, every busy thread's
 * end moves; if not, their events stand and only @fresh (nullable), just
 * added, needs one. */
static void reschedule(Engine *E, Proc *fresh)
{
    HostCpu *h = &E->cpu;
    guint k = h->busy->len;
    uint32_t share = MAX(k, h->cores);
    if (share == h->share) {
        if (fresh)
            schedule_end(E, fresh);
        return;
    }
    h->share = share;
    for (guint i = 0; i < k; i++)
        schedule_end(E, g_ptr_array_index(h->busy, i));
}

void host_cpu_work(Engine *E, Proc *P, SimTime d)
{
    HostCpu *h = &E->cpu;
    P->host = HOST_BUSY;
    if (!h->cores) {
        sim_eventq_schedule(&E->q, &P->ev_host, E->now + d);
        return;
    }
    advance(E);
    P->cpu_left = (double)d;
    P->cpu_slot = h->busy->len;
    P->on_cpu = true;
    g_ptr_array_add(h->busy, P);
    reschedule(E, P);
}

void host_cpu_done(Engine *E, Proc *P)
{
    HostCpu *h = &E->cpu;
    if (!P->on_cpu)
        return;
    advance(E);
    /* Swap-remove: the last thread takes P's slot. */
    Proc *last = g_ptr_array_index(h->busy, h->busy->len - 1);
    g_ptr_array_index(h->busy, P->cpu_slot) = last;
    last->cpu_slot = P->cpu_slot;
    g_ptr_array_set_size(h->busy, h->busy->len - 1);
    P->on_cpu = false;
    P->cpu_left = 0;
    reschedule(E, NULL);
}
