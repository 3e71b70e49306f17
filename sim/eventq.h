/* eventq.h -- the pending-event set: events in FIFO buckets of equal time,
 * the buckets in an indexed binary min-heap ordered by (time, bucket
 * sequence).
 *
 * Events leave the queue in (time, sequence) order, the sequence a 64-bit
 * scheduling counter, so events at equal times leave in the order they were
 * scheduled (FIFO) and every run of the same inputs processes events in the
 * same order.  Events are intrusive: the owner embeds a SimEvent in its own
 * struct (an SM, a host thread, a copy engine), so scheduling allocates only
 * when more buckets are pending than ever before.
 *
 * Why buckets: the engine reschedules many SMs' next completions at once
 * (a wave's end; engine_dram.c's retimes of the SMs it still retimes when
 * the pressure changes), mostly to the time they already had or to one time shared by
 * many.  A reschedule within the open bucket is O(1) (to its tail); one to
 * the open bucket's time, an append; only a new time costs a heap insert.
 *
 * Only a bucket that is the newest at its time is appended to: the open
 * bucket (the one created last, if still pending; one created later at its
 * time would be open instead), or one marked newest (below).  So of two
 * buckets at one time, every event of the older was scheduled before any
 * of the newer, and the order (time, bucket sequence, place in bucket) is
 * the order (time, sequence).
 *
 * Newest marks: the engine's DRAM retimes move many SMs to distinct times
 * (each its own bucket), open at one time after another.  A bucket marked
 * newest is known to be the newest at its time, so an event scheduled at
 * that time goes to its tail, and an event that already is its tail stays
 * (it would be last of all events at that time anyway): no heap work.  A
 * small direct-mapped table keyed by time holds the one bucket per slot
 * that may carry the mark; creating a bucket at a time, or evicting a
 * bucket of another time from the slot, takes the mark off the bucket in
 * the slot.  So a marked bucket is its slot's occupant, and no bucket at
 * its time was created after it (that would have taken its slot).
 *
 * Reserved places: an owner that knows now that its event will be
 * scheduled in this instant, but not yet when, takes the event's sequence
 * number now (sim_eventq_reserve) and fills in the time later
 * (sim_eventq_fill): the event then goes where a schedule at reservation
 * would have put it, before every event at its time scheduled since.
 * Scheduling or cancelling a reserved event drops the reservation, as
 * rescheduling or cancelling a pending one would have moved it.  So an
 * owner may put off the work of a schedule that is mostly superseded in the
 * same instant (engine_sm.c: an SM's event after a block completion, which
 * the dispatch of the same instant mostly retimes) and do it only where
 * it was not, in the same order of events as if done at once.  While
 * reservations are out the queue logs every schedule and fill (event,
 * sequence, time) to find those places; a small direct-mapped table keyed
 * by time (the newest table's slots) holds the largest sequence logged at
 * the slot's times, so a fill at a time nothing was scheduled at since is
 * an append.
 *
 * Invariants (checked by sim_eventq_check): heap order on (when, seq) of
 * buckets; for every slot i, heap[i]->index == i; every bucket in the heap
 * holds events of its time, linked both ways, in increasing sequence; len
 * counts them; the open bucket is in the heap and the newest at its time; a
 * marked bucket is in the heap, its slot's occupant and the newest at its
 * time; an event in no bucket has bucket NULL.
 */
#ifndef SIM_EVENTQ_H
#define SIM_EVENTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "simtime.h"

typedef struct SimEventBucket SimEventBucket;

typedef struct SimEvent {
    SimTime when;
    uint64_t seq;
    struct SimEvent *prev, *next; /* in its bucket, by sequence */
    SimEventBucket *bucket;       /* NULL: not pending */
    uint16_t kind;                /* the owner's event kind (engine.c's enum) */
    bool reserved;                /* its seq taken, its time not yet given */
    void *obj;                    /* the owner */
} SimEvent;

struct SimEventBucket {
    SimTime when;
    uint64_t seq;          /* creation order */
    SimEvent *head, *tail; /* never empty while in the heap */
    uint32_t index;        /* heap slot */
    bool newest;           /* known newest at its time (see above) */
    SimEventBucket *free;  /* next recycled bucket */
};

/* Slots of the newest-bucket table (a power of two). */
#define SIM_EVENTQ_NEWEST_SLOTS 256

/* One schedule or fill while reservations are out. */
typedef struct {
    SimEvent *e;
    uint64_t seq;
    SimTime when;
} SimEventLog;

typedef struct {
    SimEventBucket **heap;
    uint32_t nb, cap;     /* buckets in the heap, slots */
    uint32_t len;         /* events pending */
    uint64_t next_seq;    /* events' */
    uint64_t next_bseq;   /* buckets' */
    SimEventBucket *open; /* the only bucket appended to, or NULL */
    SimEventBucket *free; /* recycled buckets */
    /* per slot the bucket that may be marked newest, or NULL */
    SimEventBucket *newest[SIM_EVENTQ_NEWEST_SLOTS];
    /* Reserved places (above): how many are out; the log since the first
     * of them; per slot of the newest table the largest sequence logged
     * at its times, valid where its generation is log_gen's. */
    uint32_t reserved;
    uint32_t log_n, log_cap;
    SimEventLog *log;
    uint64_t log_gen;
    uint64_t log_max[SIM_EVENTQ_NEWEST_SLOTS];
    uint64_t log_max_gen[SIM_EVENTQ_NEWEST_SLOTS];
} SimEventQ;

/* The newest-table slot of time @when (Fibonacci hashing). */
static inline uint32_t sim_eventq_slot(SimTime when)
{
    return (uint32_t)(((uint64_t)when * 0x9e3779b97f4a7c15ull) >> 56) &
           (SIM_EVENTQ_NEWEST_SLOTS - 1);
}

void sim_eventq_init(SimEventQ *q);
void sim_eventq_destroy(SimEventQ *q);

/* Prepare an embedded event (not scheduled). */
static inline void sim_event_init(SimEvent *e, uint16_t kind, void *obj)
{
    e->when = SIM_TIME_NEVER;
    e->seq = 0;
    e->prev = e->next = NULL;
    e->bucket = NULL;
    e->kind = kind;
    e->reserved = false;
    e->obj = obj;
}

static inline bool sim_event_pending(const SimEvent *e)
{
    return e->bucket != NULL;
}

/* Schedule @e at @when, or move it there if already pending (it then takes a
 * new sequence number: it goes after events already at @when).  O(1) at
 * the time of the open or a marked bucket, else O(log buckets). */
void sim_eventq_schedule(SimEventQ *q, SimEvent *e, SimTime when);

/* Remove @e if pending, or drop its reservation.  O(1), O(log buckets) if
 * that empties its bucket. */
void sim_eventq_cancel(SimEventQ *q, SimEvent *e);

/* Take @e's place in the order now (it must not be pending): @e is
 * pending only once sim_eventq_fill gives its time. */
void sim_eventq_reserve(SimEventQ *q, SimEvent *e);

static inline bool sim_event_reserved(const SimEvent *e)
{
    return e->reserved;
}

/* Schedule the reserved @e at @when in the place it reserved: after the
 * events at @when scheduled before the reservation, before those scheduled
 * since.  O(1) as a schedule where nothing was scheduled at @when's slot of
 * the newest table since, else O(schedules since the first reservation out). */
void sim_eventq_fill(SimEventQ *q, SimEvent *e, SimTime when);

/* The earliest event, still in the queue (NULL if empty). */
static inline SimEvent *sim_eventq_peek(const SimEventQ *q)
{
    return q->nb ? q->heap[0]->head : 0;
}

/* Remove and return the earliest event (NULL if empty). */
SimEvent *sim_eventq_pop(SimEventQ *q);

/* Verify the invariants; for tests and debug builds. */
bool sim_eventq_check(const SimEventQ *q);

#endif /* SIM_EVENTQ_H */
