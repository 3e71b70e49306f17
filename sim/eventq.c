/* eventq.c -- FIFO buckets of equal-time events in an indexed binary
 * min-heap.  See eventq.h. */
#include "eventq.h"

#include <glib.h>

static inline bool before(const SimEventBucket *a, const SimEventBucket *b)
{
    return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static inline void place(SimEventQ *q, uint32_t i, SimEventBucket *b)
{
    q->heap[i] = b;
    b->index = i;
}

static void sift_up(SimEventQ *q, uint32_t i)
{
    SimEventBucket *b = q->heap[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!before(b, q->heap[parent]))
            break;
        place(q, i, q->heap[parent]);
        i = parent;
    }
    place(q, i, b);
}

static void sift_down(SimEventQ *q, uint32_t i)
{
    SimEventBucket *b = q->heap[i];
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= q->nb)
            break;
        uint32_t c = l;
        if (l + 1 < q->nb && before(q->heap[l + 1], q->heap[l]))
            c = l + 1;
        if (!before(q->heap[c], b))
            break;
        place(q, i, q->heap[c]);
        i = c;
    }
    place(q, i, b);
}

/* Fill the hole at heap slot @i with @b, which belongs at or below it:
 * the earlier child moves up into the hole, down to a leaf, then @b sifts
 * up from there.  One comparison per level where sift_down makes two; @b
 * comes from the heap's end and mostly belongs near the bottom again.
 * Another layout than sift_down's at times, the same heap order. */
static void fill_hole(SimEventQ *q, uint32_t i, SimEventBucket *b)
{
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= q->nb)
            break;
        uint32_t c = l;
        if (l + 1 < q->nb && before(q->heap[l + 1], q->heap[l]))
            c = l + 1;
        place(q, i, q->heap[c]);
        i = c;
    }
    place(q, i, b);
    sift_up(q, i);
}

void sim_eventq_init(SimEventQ *q)
{
    *q = (SimEventQ){0};
}

void sim_eventq_destroy(SimEventQ *q)
{
    for (uint32_t i = 0; i < q->nb; i++) {
        for (SimEvent *e = q->heap[i]->head, *n; e; e = n) {
            n = e->next;
            e->bucket = NULL;
            e->prev = e->next = NULL;
        }
        g_free(q->heap[i]);
    }
    for (SimEventBucket *b = q->free, *n; b; b = n) {
        n = b->free;
        g_free(b);
    }
    g_free(q->heap);
    g_free(q->log);
    *q = (SimEventQ){0};
}

/* A new empty bucket at @when, in the heap and open (the newest there). */
static SimEventBucket *bucket_new(SimEventQ *q, SimTime when)
{
    SimEventBucket *b = q->free;
    if (b)
        q->free = b->free;
    else
        b = g_new(SimEventBucket, 1);
    *b = (SimEventBucket){.when = when, .seq = q->next_bseq++, .newest = true};
    /* The slot's bucket is older (at this time: no longer the newest) or
     * of another time (evicted): either way it loses its mark. */
    SimEventBucket **slot = &q->newest[sim_eventq_slot(when)];
    if (*slot)
        (*slot)->newest = false;
    *slot = b;
    if (q->nb == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 64;
        q->heap = g_renew(SimEventBucket *, q->heap, q->cap);
    }
    place(q, q->nb++, b);
    sift_up(q, b->index);
    q->open = b;
    return b;
}

/* Take the emptied bucket @b out of the heap and recycle it. */
static void bucket_drop(SimEventQ *q, SimEventBucket *b)
{
    uint32_t i = b->index;
    if (q->open == b)
        q->open = NULL;
    SimEventBucket **slot = &q->newest[sim_eventq_slot(b->when)];
    if (*slot == b)
        *slot = NULL;
    b->free = q->free;
    q->free = b;
    if (i == --q->nb)
        return;
    /* Move the last bucket into the hole; it may need to go either way. */
    SimEventBucket *last = q->heap[q->nb];
    if (i > 0 && before(last, q->heap[(i - 1) / 2])) {
        place(q, i, last);
        sift_up(q, i);
    } else {
        fill_hole(q, i, last);
    }
}

/* Bucket @b, holding one event about to move to @when where no bucket
 * may take it, becomes the new bucket there: what bucket_drop(b) and then
 * bucket_new(when) would leave (the same (when, seq) keys, contents and
 * marks; only the heap's layout differs, and it pops the same order as
 * the keys are distinct), with one sift instead of two. */
static void bucket_move(SimEventQ *q, SimEventBucket *b, SimTime when)
{
    SimEventBucket **slot = &q->newest[sim_eventq_slot(b->when)];
    if (*slot == b)
        *slot = NULL;
    b->when = when;
    b->seq = q->next_bseq++;
    b->newest = true;
    slot = &q->newest[sim_eventq_slot(when)];
    if (*slot)
        (*slot)->newest = false;
    *slot = b;
    q->open = b;
    const uint32_t i = b->index;
    if (i > 0 && before(b, q->heap[(i - 1) / 2]))
        sift_up(q, i);
    else
        sift_down(q, i);
}

static void unlink_event(SimEventQ *q, SimEvent *e)
{
    SimEventBucket *b = e->bucket;
    *(e->prev ? &e->prev->next : &b->head) = e->next;
    *(e->next ? &e->next->prev : &b->tail) = e->prev;
    e->bucket = NULL;
    e->prev = e->next = NULL;
    q->len--;
    if (!b->head)
        bucket_drop(q, b);
}

static void append_event(SimEventQ *q, SimEventBucket *b, SimEvent *e)
{
    e->bucket = b;
    e->prev = b->tail;
    e->next = NULL;
    *(b->tail ? &b->tail->next : &b->head) = e;
    b->tail = e;
    q->len++;
}

/* A reservation of @e is over (filled, dropped): the last one out ends the
 * log. */
static void unreserve(SimEventQ *q, SimEvent *e)
{
    e->reserved = false;
    if (--q->reserved == 0) {
        q->log_n = 0;
        q->log_gen++;
    }
}

/* While reservations are out: @e was scheduled or filled at its time. */
static void log_event(SimEventQ *q, const SimEvent *e)
{
    if (q->log_n == q->log_cap) {
        q->log_cap = q->log_cap ? 2 * q->log_cap : 64;
        q->log = g_renew(SimEventLog, q->log, q->log_cap);
    }
    q->log[q->log_n++] = (SimEventLog){(SimEvent *)e, e->seq, e->when};
    const uint32_t s = sim_eventq_slot(e->when);
    if (q->log_max_gen[s] != q->log_gen || q->log_max[s] < e->seq) {
        q->log_max_gen[s] = q->log_gen;
        q->log_max[s] = e->seq;
    }
}

/* Put @e (its when and seq set) last of all events at @when. */
G_ALWAYS_INLINE static inline void schedule_at(SimEventQ *q, SimEvent *e,
                                               SimTime when)
{
    /* already last of all events at @when (the tail of the newest bucket
     * there): nothing moves */
    SimEventBucket *old = e->bucket;
    if (old && old->when == when && !e->next && (old == q->open || old->newest))
        return;
    SimEventBucket *b = q->open && q->open->when == when ? q->open : NULL;
    if (!b) {
        SimEventBucket *n = q->newest[sim_eventq_slot(when)];
        b = n && n->newest && n->when == when ? n : NULL;
    }
    if (!b && old && old->head == e && old->tail == e) {
        bucket_move(q, old, when); /* e alone there: no drop and new */
        return;
    }
    if (old)
        unlink_event(q, e);
    append_event(q, b ? b : bucket_new(q, when), e);
}

void sim_eventq_schedule(SimEventQ *q, SimEvent *e, SimTime when)
{
    g_assert(when != SIM_TIME_NEVER);
    if (G_UNLIKELY(e->reserved)) /* superseded: as a second schedule */
        unreserve(q, e);
    e->when = when;
    e->seq = q->next_seq++;
    schedule_at(q, e, when);
    if (G_UNLIKELY(q->reserved))
        log_event(q, e);
}

/* schedule_at out of line for sim_eventq_fill, so that its inlined copy
 * does not push the helpers out of sim_eventq_schedule's. */
G_GNUC_NO_INLINE static void schedule_at_fill(SimEventQ *q, SimEvent *e,
                                              SimTime when)
{
    schedule_at(q, e, when);
}

void sim_eventq_cancel(SimEventQ *q, SimEvent *e)
{
    if (e->bucket)
        unlink_event(q, e);
    else if (G_UNLIKELY(e->reserved))
        unreserve(q, e);
}

void sim_eventq_reserve(SimEventQ *q, SimEvent *e)
{
    g_assert(!e->bucket && !e->reserved);
    e->seq = q->next_seq++;
    e->reserved = true;
    q->reserved++;
}

/* The pending event at @when scheduled after sequence @seq with the
 * smallest sequence, from the log; NULL if none. */
static SimEvent *first_logged_after(const SimEventQ *q, SimTime when,
                                    uint64_t seq)
{
    SimEvent *best = NULL;
    for (uint32_t i = 0; i < q->log_n; i++) {
        const SimEventLog *l = &q->log[i];
        SimEvent *x = l->e;
        /* still there: pending at that time with that sequence (a move
         * takes a new one) */
        if (l->when == when && l->seq > seq && x->bucket && x->seq == l->seq &&
            x->when == when && (!best || l->seq < best->seq))
            best = x;
    }
    return best;
}

void sim_eventq_fill(SimEventQ *q, SimEvent *e, SimTime when)
{
    g_assert(when != SIM_TIME_NEVER && e->reserved && !e->bucket);
    const uint32_t s = sim_eventq_slot(when);
    SimEvent *after = q->log_max_gen[s] == q->log_gen && q->log_max[s] > e->seq
                          ? first_logged_after(q, when, e->seq)
                          : NULL;
    e->when = when;
    if (!after) {
        schedule_at_fill(q, e, when); /* last at @when: where it would be */
    } else { /* just before the first event at @when scheduled since */
        SimEventBucket *b = after->bucket;
        e->bucket = b;
        e->next = after;
        e->prev = after->prev;
        *(after->prev ? &after->prev->next : &b->head) = e;
        after->prev = e;
        q->len++;
    }
    unreserve(q, e);
    if (q->reserved)
        log_event(q, e);
}

SimEvent *sim_eventq_pop(SimEventQ *q)
{
    if (q->nb == 0)
        return NULL;
    SimEvent *e = q->heap[0]->head;
    unlink_event(q, e);
    return e;
}

static bool bucket_check(const SimEventBucket *b, uint32_t *count)
{
    if (!b->head || b->head->prev || b->tail->next)
        return false;
    for (const SimEvent *e = b->head; e; e = e->next) {
        if (e->bucket != b || e->when != b->when ||
            (e->next && (e->next->prev != e || e->next->seq <= e->seq)))
            return false;
        ++*count;
    }
    return true;
}

bool sim_eventq_check(const SimEventQ *q)
{
    uint32_t count = 0;
    bool open_seen = q->open == NULL;
    for (uint32_t i = 0; i < q->nb; i++) {
        const SimEventBucket *b = q->heap[i];
        if (b->index != i || !bucket_check(b, &count))
            return false;
        if (i > 0 && before(b, q->heap[(i - 1) / 2]))
            return false;
        open_seen |= b == q->open;
        if (q->open && b->when == q->open->when && b->seq > q->open->seq)
            return false;
        /* a marked bucket is its slot's and none at its time is newer */
        const SimEventBucket *n = q->newest[sim_eventq_slot(b->when)];
        if ((b->newest && n != b) ||
            (n && n->newest && n->when == b->when && n->seq < b->seq))
            return false;
    }
    for (uint32_t s = 0; s < SIM_EVENTQ_NEWEST_SLOTS; s++) {
        const SimEventBucket *n = q->newest[s];
        if (n && (n->index >= q->nb || q->heap[n->index] != n))
            return false; /* a dropped bucket left in the table */
    }
    return open_seen && count == q->len;
}
