/* eventq.c -- indexed binary min-heap of events.  See eventq.h. */
#include "eventq.h"

#include <glib.h>

static inline bool before(const SimEvent *a, const SimEvent *b)
{
    return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static inline void place(SimEventQ *q, uint32_t i, SimEvent *e)
{
    q->heap[i] = e;
    e->index = i;
}

static void sift_up(SimEventQ *q, uint32_t i)
{
    SimEvent *e = q->heap[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!before(e, q->heap[parent]))
            break;
        place(q, i, q->heap[parent]);
        i = parent;
    }
    place(q, i, e);
}

static void sift_down(SimEventQ *q, uint32_t i)
{
    SimEvent *e = q->heap[i];
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= q->len)
            break;
        uint32_t c = l;
        if (l + 1 < q->len && before(q->heap[l + 1], q->heap[l]))
            c = l + 1;
        if (!before(q->heap[c], e))
            break;
        place(q, i, q->heap[c]);
        i = c;
    }
    place(q, i, e);
}

void sim_eventq_init(SimEventQ *q)
{
    q->heap = NULL;
    q->len = q->cap = 0;
    q->next_seq = 0;
}

void sim_eventq_destroy(SimEventQ *q)
{
    for (uint32_t i = 0; i < q->len; i++)
        q->heap[i]->index = SIM_EVENT_IDLE;
    g_free(q->heap);
    q->heap = NULL;
    q->len = q->cap = 0;
}

void sim_eventq_schedule(SimEventQ *q, SimEvent *e, SimTime when)
{
    g_assert(when != SIM_TIME_NEVER);
    if (sim_event_pending(e)) {
        /* Move in place: a new key, then sift whichever way it goes.  The
         * new sequence number is the largest, so the event still goes
         * after every event already at @when. */
        e->when = when;
        e->seq = q->next_seq++;
        uint32_t i = e->index;
        if (i > 0 && before(e, q->heap[(i - 1) / 2]))
            sift_up(q, i);
        else
            sift_down(q, i);
        return;
    }
    if (q->len == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 64;
        q->heap = g_renew(SimEvent *, q->heap, q->cap);
    }
    e->when = when;
    e->seq = q->next_seq++;
    place(q, q->len++, e);
    sift_up(q, e->index);
}

void sim_eventq_cancel(SimEventQ *q, SimEvent *e)
{
    if (!sim_event_pending(e))
        return;
    uint32_t i = e->index;
    g_assert(i < q->len && q->heap[i] == e);
    e->index = SIM_EVENT_IDLE;
    q->len--;
    if (i == q->len)
        return;
    /* Move the last event into the hole; it may need to go either way. */
    SimEvent *last = q->heap[q->len];
    place(q, i, last);
    if (i > 0 && before(last, q->heap[(i - 1) / 2]))
        sift_up(q, i);
    else
        sift_down(q, i);
}

SimEvent *sim_eventq_pop(SimEventQ *q)
{
    if (q->len == 0)
        return NULL;
    SimEvent *e = q->heap[0];
    sim_eventq_cancel(q, e);
    return e;
}

bool sim_eventq_check(const SimEventQ *q)
{
    for (uint32_t i = 0; i < q->len; i++) {
        if (q->heap[i]->index != i)
            return false;
        if (i > 0 && before(q->heap[i], q->heap[(i - 1) / 2]))
            return false;
    }
    return true;
}
