/* engine_copy.c -- copy engines (gpu-scheduling-rules.md §7).
 *
 * Each direction (host-to-device, device-to-host, device-to-device) has the
 * model's number of copy engines.  A copy that reaches the head of its
 * hardware queue (its stream's earlier work done) waits in one FIFO per
 * direction, shared by every context, and runs on the first free engine of
 * its direction for its recorded duration, or latency + bytes / bandwidth,
 * pageable copies at a reduced bandwidth.  Copies overlap kernels and copies
 * of the other directions; copy engines are not time-sliced.
 */
#include "engine_internal.h"

void copy_init(Engine *E)
{
    const GpuModel *m = E->m;
    E->n_copy[SIM_COPY_H2D] = m->copy_engines_h2d;
    E->n_copy[SIM_COPY_D2H] = m->copy_engines_d2h;
    E->n_copy[SIM_COPY_D2D] = 1;
    for (int d = 0; d < SIM_COPY_N_DIRS; d++) {
        E->copy[d] = g_new0(CopyEngine, E->n_copy[d]);
        for (uint32_t i = 0; i < E->n_copy[d]; i++) {
            CopyEngine *ce = &E->copy[d][i];
            ce->E = E;
            ce->dir = (SimCopyDir)d;
            sim_event_init(&ce->ev, EV_COPY, ce);
        }
        g_queue_init(&E->copy_wait[d]);
    }
}

void copy_free(Engine *E)
{
    for (int d = 0; d < SIM_COPY_N_DIRS; d++) {
        for (uint32_t i = 0; i < E->n_copy[d]; i++)
            sim_eventq_cancel(&E->q, &E->copy[d][i].ev);
        g_free(E->copy[d]);
        g_queue_clear(&E->copy_wait[d]);
    }
}

static SimTime copy_duration(const Engine *E, const SimCopySpec *c)
{
    if (c->duration_ns)
        return c->duration_ns;
    const GpuModel *m = E->m;
    double gbps = c->dir == SIM_COPY_H2D   ? m->h2d_bandwidth_gbps
                  : c->dir == SIM_COPY_D2H ? m->d2h_bandwidth_gbps
                                           : m->d2d_bandwidth_gbps;
    if (!c->pinned && c->dir != SIM_COPY_D2D)
        gbps *= m->pageable_bandwidth_factor;
    /* GB/s = bytes per ns. */
    return m->copy_latency_ns + (SimTime)((double)c->bytes / gbps + 0.5);
}

static void copy_start_waiting(Engine *E, SimCopyDir d)
{
    for (uint32_t i = 0; i < E->n_copy[d]; i++) {
        CopyEngine *ce = &E->copy[d][i];
        if (ce->cur)
            continue;
        OpInst *in = NULL;
        while ((in = g_queue_pop_head(&E->copy_wait[d])) && in->dead)
            eng_op_complete(E, in); /* releases a killed op */
        if (!in)
            return;
        ce->cur = in;
        ce->busy_since = E->now;
        in->state = INST_COPY_RUN;
        in->start = E->now;
        SimOpRecord *r = eng_record(E, in);
        if (r)
            r->start_ns = E->now;
        sim_eventq_schedule(&E->q, &ce->ev,
                            E->now + copy_duration(E, &in->op->u.copy));
    }
}

void copy_submit(Engine *E, OpInst *in)
{
    SimCopyDir d = in->op->u.copy.dir;
    in->state = INST_COPY_WAIT;
    g_queue_push_tail(&E->copy_wait[d], in);
    copy_start_waiting(E, d);
}

void copy_event(Engine *E, CopyEngine *ce)
{
    OpInst *in = ce->cur;
    ce->cur = NULL;
    E->res->copy_busy_ns[ce->dir] += E->now - ce->busy_since;
    eng_op_complete(E, in);
    copy_start_waiting(E, ce->dir);
}
