/* engine_ctx.c -- time-slicing between contexts (gpu-scheduling-rules.md
 * §5).
 *
 * Kernels of different contexts never run at the same time.  The GPU holds
 * one context (E->cur); while another context has work, the holder keeps the
 * GPU for one timeslice, then the next context with work in round-robin
 * (creation) order gets it after a context switch, during which nothing
 * runs: context_switch_ns when the outgoing context's resident blocks are
 * preempted, context_switch_idle_ns when it has none (it ran out of work).
 * A context whose work runs out gives the GPU up idle_yield_ns later if
 * someone else is waiting.  So does one whose channel runs dry while
 * someone waits (every op it was given has started): it starts no further
 * kernel, even one that arrives meanwhile, and yields when its started
 * kernels end -- at a kernel boundary, not at the end of its slice
 * (measured on an H100, FINDINGS.md §19).  Preemption granularity is
 * the model's: SIM_PREEMPT_INSTRUCTION freezes resident blocks mid-flight
 * (they resume where they stopped); SIM_PREEMPT_BLOCK stops dispatching and
 * waits for resident blocks to finish before switching (GPU_DRAIN).
 *
 * "Work" is a kernel admitted to the context and not complete, or a CUDA
 * graph started and not complete; copies outside graphs run on copy engines
 * independently of which context holds the SMs.
 */
#include "engine_internal.h"

/* A context keeps the GPU while a CUDA graph of it runs, also while only
 * its copy or memset nodes or the spacing between nodes are in flight: the
 * graph's remaining nodes are pending in its channel.  Measured on an H100
 * (traces/measured/h100/openloop/): two processes serving a graph with
 * memset nodes (the encoder) take turns once per request, like resnet50's
 * graph without memsets, not once per memset. */
static bool has_work(const Ctx *c)
{
    return c->active > 0 || c->graphs > 0;
}

/* Kernels admitted to @c whose first block has not been dispatched. */
static uint32_t unstarted(const Ctx *c)
{
    uint32_t n = 0;
    for (const KernelRt *k = c->pend_head; k; k = k->next)
        n += k->start == SIM_TIME_NEVER;
    return n;
}

/* Whether the GPU has taken everything @c's channel holds: no kernel
 * launching or admitted and unstarted, no op visible in a queue, no graph
 * in flight (a graph's remaining nodes are pending in its channel). */
static bool channel_dry(const Engine *E, const Ctx *c)
{
    if (c->graphs > 0 || c->resident > c->active || unstarted(c) > 0)
        return false;
    for (guint i = 0; i < c->queues->len; i++) {
        const Queue *q = g_ptr_array_index(c->queues, i);
        if (q->head && q->head->visible <= E->now)
            return false;
    }
    return true;
}

/* Whether @c holds the GPU for work: a closing holder only for the kernels
 * it has started (it closed with no graph in flight, so a graph it has now
 * arrived since, and waits like its unstarted kernels). */
static bool keeps_gpu(const Ctx *c)
{
    if (!c->closing)
        return has_work(c);
    return c->active > unstarted(c);
}

/* The next context after @from (in creation order, wrapping) with work, or
 * NULL. */
static Ctx *next_with_work(Engine *E, const Ctx *from)
{
    guint n = E->ctxs->len;
    guint start = from ? from->index + 1 : 0;
    for (guint i = 0; i < n; i++) {
        Ctx *c = g_ptr_array_index(E->ctxs, (start + i) % n);
        if (c != from && has_work(c))
            return c;
    }
    return NULL;
}

static void slice_close(Engine *E)
{
    if (!E->cur)
        return;
    SimSlice s = {E->cur->index, E->slice_start, E->now};
    if (s.end_ns > s.start_ns)
        g_array_append_val(E->res->slices, s);
}

static void activate(Engine *E, Ctx *c)
{
    E->cur = c;
    E->last = c;
    E->phase = GPU_RUN;
    c->closing = false;
    E->slice_start = E->now;
    sm_thaw(E, c);
    if (next_with_work(E, c))
        sim_eventq_schedule(&E->q, &E->ev_slice, E->now + E->m->timeslice_ns);
    eng_mark_ctx(E, c);
    if (!has_work(c))
        ctx_became_idle(E, c);
}

/* Hide the outgoing context's SMs from the metrics. */
static void hide(Engine *E)
{
    for (uint32_t i = 0; i < E->m->sm_count; i++)
        met_sm_warps(E, i, 0);
}

/* A switch costs the model's fixed part plus moving the resident state: the
 * outgoing context's registers and shared memory are saved (@saved bytes;
 * zero after a block-boundary drain) and the incoming one's restored, both
 * at the model's context_state_gbps.  A context holding one small block
 * switches almost for free; one filling every SM pays tens of microseconds.
 * The fixed part is context_switch_ns when the outgoing context had blocks
 * resident (@preempted: they are stopped mid-flight first) and
 * context_switch_idle_ns when it had none (measured on an H100: 152 us out
 * of a spinning block, 143.6 us from an idle context's last kernel end to
 * the other's resume, idle_yield_ns included; FINDINGS.md §8). */
static void start_switch(Engine *E, Ctx *next, uint64_t saved, bool preempted)
{
    E->phase = GPU_SWITCH;
    E->next = next;
    E->sliced = true;
    E->res->context_switches++;
    /* sampled SMs (engine.c): the whole GPU's state */
    double bytes = ((double)saved + (double)next->state_bytes) *
                   E->full->sm_count / E->m->sm_count;
    SimTime move = (SimTime)(bytes / E->m->context_state_gbps + 0.5);
    SimTime fixed =
        preempted ? E->m->context_switch_ns : E->m->context_switch_idle_ns;
    sim_eventq_schedule(&E->q, &E->ev_switch, E->now + fixed + move);
}

/* Preemption granularity, an ops table like the placement policies. */
typedef struct {
    /* Whether the outgoing context @c must first finish its resident
     * blocks (dispatching none) before the switch starts. */
    bool (*must_drain)(const Ctx *c);
} PreemptOps;

/* Pascal and later: resident blocks are frozen mid-flight. */
static bool instruction_drain(const Ctx *c)
{
    (void)c;
    return false;
}

/* Kepler, Maxwell: no new blocks; the switch starts when the last resident
 * block finishes (ctx_drained). */
static bool block_drain(const Ctx *c)
{
    return c->resident_blocks > 0;
}

/* Indexed by SimPreemption; the names are the model file's (gpu_model.c,
 * preemption_names). */
static const PreemptOps preemptions[] = {
    [SIM_PREEMPT_INSTRUCTION] = {instruction_drain},
    [SIM_PREEMPT_BLOCK] = {block_drain},
};

/* Take the GPU away from E->cur (if any) and give it to @next. */
static void begin_switch(Engine *E, Ctx *next)
{
    sim_eventq_cancel(&E->q, &E->ev_slice);
    sim_eventq_cancel(&E->q, &E->ev_yield);
    Ctx *c = E->cur;
    if (c && preemptions[E->m->preemption].must_drain(c)) {
        c->draining = true;
        E->phase = GPU_DRAIN;
        E->next = next;
        return;
    }
    uint64_t saved = 0;
    bool preempted = c && c->resident_blocks > 0;
    if (c) {
        c->closing = false;
        slice_close(E);
        sm_freeze(E, c);
        hide(E);
        E->cur = NULL;
        saved = c->state_bytes;
    }
    start_switch(E, next, saved, preempted);
}

void ctx_drained(Engine *E, Ctx *c)
{
    if (E->phase != GPU_DRAIN || E->cur != c)
        return;
    c->draining = false;
    slice_close(E);
    sm_freeze(E, c);
    hide(E);
    E->cur = NULL;
    start_switch(E, E->next, 0, false); /* nothing resident is left */
}

bool ctx_may_start(const Ctx *c)
{
    return !c->closing;
}

/* The holder @c runs dry while another context waits: it closes. */
static void check_dry(Engine *E, Ctx *c)
{
    if (E->phase == GPU_RUN && E->cur == c && !c->closing && c->active > 0 &&
        next_with_work(E, c) && channel_dry(E, c))
        c->closing = true;
}

void ctx_kernel_started(Engine *E, Ctx *c)
{
    check_dry(E, c);
}

bool ctx_can_dispatch(const Engine *E, const Ctx *c)
{
    return E->phase == GPU_RUN && E->cur == c && !c->draining;
}

void ctx_work_arrived(Engine *E, Ctx *c)
{
    switch (E->phase) {
    case GPU_IDLE:
        /* The GPU serves the context whose work it sees first (a memset
         * counts: FINDINGS.md §19, addendum) and still holds the last
         * context's state: resuming it costs nothing; another context pays
         * a switch.  On an H100 this picked the first process served in
         * 27 of 27 iterations of the 2- and 4-process no-MPS runs; round
         * robin after the last holder 12 of 20 (harness/ts_first_served.py). */
        if (!E->last || E->last == c)
            activate(E, c);
        else
            /* E->last was saved when it went idle, with nothing
             * resident to preempt. */
            start_switch(E, c, 0, false);
        break;
    case GPU_RUN:
        if (E->cur == c) {
            if (!c->closing) /* a closing holder yields all the same */
                sim_eventq_cancel(&E->q, &E->ev_yield);
            eng_mark_ctx(E, c);
        } else if (!has_work(E->cur) && !sim_event_pending(&E->ev_yield)) {
            /* The holder is idle and its yield delay already passed. */
            begin_switch(E, c);
        } else if (!sim_event_pending(&E->ev_slice)) {
            /* The slice timer only runs while someone competes.  The slice
             * counts from when the holder got the GPU: a holder already
             * past it is preempted at once (measured on an H100: within
             * ~24 us, FINDINGS.md §8). */
            SimTime end = E->slice_start + E->m->timeslice_ns;
            sim_eventq_schedule(&E->q, &E->ev_slice, MAX(end, E->now));
        }
        check_dry(E, E->cur);
        break;
    case GPU_DRAIN:
    case GPU_SWITCH: break; /* reconsidered when the switch completes */
    }
}

void ctx_became_idle(Engine *E, Ctx *c)
{
    if (E->phase != GPU_RUN || E->cur != c || keeps_gpu(c))
        return;
    sim_eventq_schedule(&E->q, &E->ev_yield, E->now + E->m->idle_yield_ns);
}

void ctx_event(Engine *E, SimEvent *ev)
{
    switch (ev->kind) {
    case EV_SLICE: {
        if (E->phase != GPU_RUN)
            return;
        /* The slice is over: whoever waits gets the GPU, whether or not
         * the holder has work at this instant.  With nobody waiting the
         * timer stops until someone arrives (ctx_work_arrived). */
        Ctx *next = next_with_work(E, E->cur);
        if (next)
            begin_switch(E, next);
        break;
    }
    case EV_YIELD: {
        if (E->phase != GPU_RUN || keeps_gpu(E->cur))
            return;
        Ctx *next = next_with_work(E, E->cur);
        if (next) {
            begin_switch(E, next);
        } else if (has_work(E->cur)) {
            /* Whoever waited is gone (a fault): carry on. */
            E->cur->closing = false;
            eng_mark_ctx(E, E->cur);
        } else {
            /* Nobody waits: the GPU goes idle, keeping cur's state. */
            sim_eventq_cancel(&E->q, &E->ev_slice);
            slice_close(E);
            sm_freeze(E, E->cur);
            hide(E);
            E->cur = NULL;
            E->phase = GPU_IDLE;
        }
        break;
    }
    case EV_SWITCH: {
        Ctx *next = E->next;
        E->next = NULL;
        /* If the target lost its work meanwhile (a fault), pick another. */
        if (!has_work(next)) {
            Ctx *other = next_with_work(E, next);
            if (other)
                next = other;
        }
        activate(E, next);
        break;
    }
    default: g_assert_not_reached();
    }
}

void ctx_finish(Engine *E)
{
    slice_close(E);
}
