/* eventq.h -- the pending-event set: an indexed binary min-heap ordered by
 * (time, sequence).
 *
 * The sequence number is a 64-bit insertion counter, so events at equal
 * times leave the queue in the order they were scheduled (FIFO) and every run
 * of the same inputs processes events in the same order.  Events are
 * intrusive: the owner embeds a SimEvent in its own struct (an SM, a host
 * thread, a copy engine) and the heap stores pointers, so scheduling never
 * allocates.  Each event remembers its heap slot, which makes cancel and
 * reschedule O(log n) -- the engine reschedules an SM's next completion every
 * time the blocks sharing it change.
 *
 * Invariants (checked by sim_eventq_check): heap order on (when, seq); for
 * every slot i, heap[i]->index == i; an event not in the heap has index
 * SIM_EVENT_IDLE.
 */
#ifndef SIM_EVENTQ_H
#define SIM_EVENTQ_H

#include <stdbool.h>
#include <stdint.h>

#include "simtime.h"

#define SIM_EVENT_IDLE UINT32_MAX

typedef struct SimEvent {
    SimTime when;
    uint64_t seq;
    uint32_t index; /* heap slot, or SIM_EVENT_IDLE */
    uint16_t kind;  /* the owner's event kind (engine.c's enum) */
    void *obj;      /* the owner */
} SimEvent;

typedef struct {
    SimEvent **heap;
    uint32_t len, cap;
    uint64_t next_seq;
} SimEventQ;

void sim_eventq_init(SimEventQ *q);
void sim_eventq_destroy(SimEventQ *q);

/* Prepare an embedded event (not scheduled). */
static inline void sim_event_init(SimEvent *e, uint16_t kind, void *obj)
{
    e->when = SIM_TIME_NEVER;
    e->seq = 0;
    e->index = SIM_EVENT_IDLE;
    e->kind = kind;
    e->obj = obj;
}

static inline bool sim_event_pending(const SimEvent *e)
{
    return e->index != SIM_EVENT_IDLE;
}

/* Schedule @e at @when, or move it there if already pending (it then takes a
 * new sequence number: it goes after events already at @when).  O(log n). */
void sim_eventq_schedule(SimEventQ *q, SimEvent *e, SimTime when);

/* Remove @e if pending.  O(log n). */
void sim_eventq_cancel(SimEventQ *q, SimEvent *e);

/* The earliest event, still in the queue (NULL if empty). */
static inline SimEvent *sim_eventq_peek(const SimEventQ *q)
{
    return q->len ? q->heap[0] : 0;
}

/* Remove and return the earliest event (NULL if empty). */
SimEvent *sim_eventq_pop(SimEventQ *q);

/* Verify the invariants; for tests and debug builds. */
bool sim_eventq_check(const SimEventQ *q);

#endif /* SIM_EVENTQ_H */
