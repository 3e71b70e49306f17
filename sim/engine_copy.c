/* engine_copy.c -- copies (gpu-scheduling-rules.md §7; measured on an H100,
 * traces/measured/h100/FINDINGS.md §7).
 *
 * A copy that reaches the head of its hardware queue (its stream's earlier
 * work done) waits in one FIFO per direction (host-to-device,
 * device-to-host, device-to-device).  A process has the model's number of
 * copy engines per direction, so its copies in one direction run one after
 * another (in FIFO order); copies of different processes run at the same
 * time and share the direction's bandwidth equally (processor sharing);
 * while both H2D and D2H copies run, each direction moves at the model's
 * copy_duplex_factor of its bandwidth (PCIe is not perfectly duplex).  A
 * copy's work is its recorded duration, or latency + bytes / bandwidth,
 * pageable copies at a reduced bandwidth (they also hold the host: see
 * issue_op).  Copies overlap kernels and copies of the other directions;
 * they are not time-sliced with contexts.
 */
#include <math.h>

#include "engine_internal.h"

static uint32_t engines_per_process(const Engine *E, SimCopyDir d)
{
    return d == SIM_COPY_H2D   ? E->m->copy_engines_h2d
           : d == SIM_COPY_D2H ? E->m->copy_engines_d2h
                               : 1;
}

void copy_init(Engine *E)
{
    for (int d = 0; d < SIM_COPY_N_DIRS; d++) {
        CopyDir *cd = &E->copy[d];
        cd->dir = (SimCopyDir)d;
        cd->active = g_ptr_array_new();
        g_queue_init(&cd->wait);
        sim_event_init(&cd->ev, EV_COPY, cd);
    }
}

void copy_free(Engine *E)
{
    for (int d = 0; d < SIM_COPY_N_DIRS; d++) {
        CopyDir *cd = &E->copy[d];
        sim_eventq_cancel(&E->q, &cd->ev);
        g_ptr_array_free(cd->active, TRUE);
        g_queue_clear(&cd->wait);
    }
}

static double copy_work(const Engine *E, const SimCopySpec *c)
{
    if (c->duration_ns)
        return (double)c->duration_ns;
    const GpuModel *m = E->m;
    double gbps = c->dir == SIM_COPY_H2D   ? m->h2d_bandwidth_gbps
                  : c->dir == SIM_COPY_D2H ? m->d2h_bandwidth_gbps
                                           : m->d2d_bandwidth_gbps;
    if (!c->pinned && c->dir != SIM_COPY_D2D)
        gbps *= m->pageable_bandwidth_factor;
    /* GB/s = bytes per ns. */
    return (double)m->copy_latency_ns + ceil((double)c->bytes / gbps);
}

/* H2D and D2H slow each other; D2D copies are on the device alone. */
static CopyDir *opposite(Engine *E, const CopyDir *cd)
{
    switch (cd->dir) {
    case SIM_COPY_H2D: return &E->copy[SIM_COPY_D2H];
    case SIM_COPY_D2H: return &E->copy[SIM_COPY_H2D];
    default: return NULL;
    }
}

/* Progress per ns of each active copy of @cd. */
static double copy_rate(Engine *E, const CopyDir *cd)
{
    guint n = cd->active->len;
    if (!n)
        return 0;
    const CopyDir *o = opposite(E, cd);
    double duplex = o && o->active->len ? E->m->copy_duplex_factor : 1.0;
    return duplex / n;
}

/* Account the progress of the active copies of @cd up to now. */
static void copy_advance(Engine *E, CopyDir *cd)
{
    guint n = cd->active->len;
    if (n && E->now > cd->last) {
        double d = (double)(E->now - cd->last) * copy_rate(E, cd);
        for (guint i = 0; i < n; i++)
            ((OpInst *)g_ptr_array_index(cd->active, i))->copy_left -= d;
    }
    cd->last = E->now;
}

static void copy_reschedule(Engine *E, CopyDir *cd)
{
    guint n = cd->active->len;
    if (!n) {
        sim_eventq_cancel(&E->q, &cd->ev);
        return;
    }
    double min = INFINITY;
    for (guint i = 0; i < n; i++)
        min = MIN(min, ((OpInst *)g_ptr_array_index(cd->active, i))->copy_left);
    double dt = min > 0 ? ceil(min / copy_rate(E, cd)) : 0;
    sim_eventq_schedule(&E->q, &cd->ev, E->now + (SimTime)dt);
}

/* Before the active set of @cd changes: account both coupled directions. */
static void copy_before_change(Engine *E, CopyDir *cd)
{
    copy_advance(E, cd);
    CopyDir *o = opposite(E, cd);
    if (o)
        copy_advance(E, o);
}

/* After it changed: new completion times for both. */
static void copy_after_change(Engine *E, CopyDir *cd)
{
    copy_reschedule(E, cd);
    CopyDir *o = opposite(E, cd);
    if (o)
        copy_reschedule(E, o);
}

/* Start every waiting copy whose process has a free engine, in FIFO order
 * (a copy stays behind an earlier one of its own process). */
static void copy_start_waiting(Engine *E, CopyDir *cd)
{
    const uint32_t per = engines_per_process(E, cd->dir);
    bool started = false;
    GList *l = cd->wait.head;
    while (l) {
        GList *next = l->next;
        OpInst *in = l->data;
        if (in->dead) {
            g_queue_delete_link(&cd->wait, l);
            eng_op_complete(E, in); /* releases a killed op */
        } else if (in->proc->copy_active[cd->dir] < per) {
            if (!started)
                copy_before_change(E, cd);
            started = true;
            g_queue_delete_link(&cd->wait, l);
            in->proc->copy_active[cd->dir]++;
            in->state = INST_COPY_RUN;
            in->start = E->now;
            in->copy_left = copy_work(E, &in->op->u.copy) * in->scale;
            if (cd->active->len == 0)
                cd->busy_since = E->now;
            g_ptr_array_add(cd->active, in);
            SimOpRecord *r = eng_record(E, in);
            if (r)
                r->start_ns = E->now;
        }
        l = next;
    }
    if (started)
        copy_after_change(E, cd);
}

/* A device-to-host copy whose stream's earlier work is done waits, once,
 * the process's handoff_ns for each other client of its context (the
 * MPS server) with device work in flight: measured as the hand-off to the
 * copy engine growing beside busy MPS neighbours, ~0.5 us each, and not
 * beside idle ones (FINDINGS.md §44).  0 for a process in its own
 * context, for other directions and once charged. */
SimTime copy_handoff_wait(const Engine *E, OpInst *in)
{
    const Proc *P = in->proc;
    if (in->waited || !P->cost.handoff_ns || in->op->u.copy.dir != SIM_COPY_D2H)
        return 0;
    in->waited = true;
    SimTime busy = 0;
    for (uint32_t i = 0; i < E->n_procs; i++) {
        const Proc *o = &E->procs[i];
        busy += o != P && o->ctx == P->ctx && o->outstanding > 0;
    }
    return busy * P->cost.handoff_ns;
}

void copy_submit(Engine *E, OpInst *in)
{
    CopyDir *cd = &E->copy[in->op->u.copy.dir];
    in->state = INST_COPY_WAIT;
    g_queue_push_tail(&cd->wait, in);
    copy_start_waiting(E, cd);
}

void copy_event(Engine *E, CopyDir *cd)
{
    copy_before_change(E, cd);
    GPtrArray *done = g_ptr_array_new();
    for (guint i = 0; i < cd->active->len;) {
        OpInst *in = g_ptr_array_index(cd->active, i);
        if (in->copy_left <= 1e-3) {
            g_ptr_array_remove_index(cd->active, i); /* keeps order */
            g_ptr_array_add(done, in);
        } else {
            i++;
        }
    }
    if (cd->active->len == 0)
        E->res->copy_busy_ns[cd->dir] += E->now - cd->busy_since;
    for (guint i = 0; i < done->len; i++) {
        OpInst *in = g_ptr_array_index(done, i);
        in->proc->copy_active[cd->dir]--;
        eng_op_complete(E, in);
    }
    g_ptr_array_free(done, TRUE);
    copy_after_change(E, cd);
    copy_start_waiting(E, cd);
}
