/* engine.c -- the event loop, host threads, streams and hardware queues.
 *
 * The loop pops the earliest event, sets `now`, and runs its handler.
 * Handlers only change state and mark work to do; once every event of the
 * current instant has been handled, settle() pumps the marked hardware
 * queues, delivers faults and runs the marked contexts' dispatchers, until
 * nothing is left.  So decisions at one instant see all of that instant's
 * completions, and no handler re-enters another.  Then the SM events that
 * sm_event put off (engine_sm.c, sm_undefer_all; most were retimed by the
 * dispatch meanwhile) go to the places they reserved in the queue.
 *
 * An op's path: the host thread (host_run) spends the op's API time, then
 * issue_op() appends it to its stream's hardware queue.  queue_pump() starts
 * the queue's head once its stream's previous op is complete (and, for an
 * event wait, once the event's record is done): kernels take a resident-grid
 * slot and are admitted to the dispatcher after the launch latency; copies go
 * to the copy engines; event records and waits complete on the spot.  Until
 * the head starts, everything behind it in the queue waits -- even ops of
 * other streams: that is the false dependency that connections and issue
 * order create.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "engine_cost.h"
#include "engine_internal.h"
#include "error.h"
#include "smem_config.h"
#include "jitter.h"

void sim_options_init(SimOptions *o)
{
    memset(o, 0, sizeof *o);
    o->mode = SIM_SHARE_AS_SCENARIO;
    o->record_ops = true;
}

/* ------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------ */

OpInst *eng_inst_new(Engine *E)
{
    OpInst *in = E->inst_free;
    if (in)
        E->inst_free = in->qnext;
    else
        in = g_new(OpInst, 1);
    memset(in, 0, sizeof *in);
    in->scale = 1.0;
    in->record = SIM_NO_INDEX;
    in->node = SIM_NO_INDEX;
    return in;
}

void eng_inst_release(Engine *E, OpInst *in)
{
    in->qnext = E->inst_free;
    E->inst_free = in;
}

void eng_live_link(Proc *P, OpInst *in)
{
    in->pprev = NULL;
    in->pnext = P->live;
    if (P->live)
        P->live->pprev = in;
    P->live = in;
}

static void live_unlink(Proc *P, OpInst *in)
{
    if (in->pprev)
        in->pprev->pnext = in->pnext;
    else if (P->live == in)
        P->live = in->pnext;
    if (in->pnext)
        in->pnext->pprev = in->pprev;
    in->pprev = in->pnext = NULL;
}

SimOpRecord *eng_record(Engine *E, const OpInst *in)
{
    if (in->record == SIM_NO_INDEX)
        return NULL;
    return &g_array_index(E->res->ops, SimOpRecord, in->record);
}

/* Append @in's record (a plain op or a graph node, in->node) to the
 * result's ops, issued at in->issue and starting now.  Its name: @name
 * (static) if not NULL, else a kernel's own, a copy's direction or the op
 * kind's name. */
void eng_record_new(Engine *E, OpInst *in, const char *name)
{
    const SimOp *op = in->op;
    const Proc *P = in->proc;
    SimOpRecord r;
    memset(&r, 0, sizeof r);
    r.proc = P->index;
    r.stream = op->stream;
    r.op_index = in->op_index;
    r.node = in->node;
    r.iteration = in->iteration;
    r.kind = op->kind;
    r.ctx = P->ctx->index;
    r.queue = (int32_t)(in->queue - P->queue_base);
    r.name = name ? name
             : op->kind == SIM_OP_KERNEL
                 ? sim_result_intern(E->res, op->u.kernel.name)
             : op->kind == SIM_OP_COPY ? sim_copy_dir_name(op->u.copy.dir)
                                       : sim_op_kind_name(op->kind);
    r.issue_ns = in->issue;
    r.start_ns = r.end_ns = E->now;
    r.sm_set = SIM_NO_INDEX;
    if (op->kind == SIM_OP_KERNEL)
        r.blocks = sim_kernel_blocks(&op->u.kernel);
    in->record = E->res->ops->len;
    g_array_append_val(E->res->ops, r);
}

bool eng_proc_alive(const Proc *p)
{
    return p->alive;
}

void eng_mark_queue(Engine *E, Queue *q)
{
    if (!q->dirty) {
        q->dirty = true;
        g_queue_push_tail(&E->dirty_queues, q);
    }
}

void eng_mark_ctx(Engine *E, Ctx *c)
{
    if (!c->dirty) { /* append to the intrusive FIFO: no allocation */
        c->dirty = true;
        c->dirty_next = NULL;
        if (E->dirty_tail)
            E->dirty_tail->dirty_next = c;
        else
            E->dirty_head = c;
        E->dirty_tail = c;
    }
}

static void fail(Engine *E, SimErrorCode code, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
static void fail(Engine *E, SimErrorCode code, const char *fmt, ...)
{
    if (E->error)
        return;
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    E->error = g_error_new(SIM_ERROR, code, "%s", msg);
}

/* "FILE:LINE: process 'p' op 3 (kernel 'k')" for messages. */
static char *op_where(const Engine *E, const Proc *P, uint32_t idx)
{
    const SimOp *op = &P->spec->ops[idx];
    g_autofree char *what =
        op->kind == SIM_OP_KERNEL
            ? g_strdup_printf("kernel '%s'", op->u.kernel.name)
            : g_strdup(sim_op_kind_name(op->kind));
    g_autofree char *loc = sim_op_location(E->sc, P->spec, op);
    return g_strdup_printf("%s: process '%s' op %u (%s)", loc, P->spec->name,
                           idx, what);
}

/* ------------------------------------------------------------------------
 * Contexts and process start
 * ------------------------------------------------------------------------ */

Queue *eng_queue_new(Ctx *c)
{
    Queue *q = g_new0(Queue, 1);
    q->ctx = c;
    q->index = c->queues->len;
    sim_event_init(&q->ev, EV_QUEUE, q);
    g_ptr_array_add(c->queues, q);
    return q;
}

/* A context; an MPS server's has per-client SM accounting. */
Ctx *eng_ctx_new(Engine *E, const char *name, bool mps_server, uint64_t mem)
{
    Ctx *c = g_new0(Ctx, 1);
    c->index = E->ctxs->len;
    c->mps_server = mps_server;
    c->name = sim_result_intern(E->res, name);
    c->queues = g_ptr_array_new_with_free_func(g_free);
    c->mem_bytes = mem;
    sm_init_ctx(E, c);
    if (mps_server) {
        uint32_t n = E->m->mps_max_clients + 1;
        c->client_cap = g_new0(uint32_t, n);
        c->client_in_use = g_new0(uint32_t, n);
        c->client_sms = g_new0(uint64_t *, n);
    }
    g_ptr_array_add(E->ctxs, c);
    return c;
}

static void ctx_free(Engine *E, Ctx *c)
{
    for (guint i = 0; i < c->queues->len; i++)
        sim_eventq_cancel(&E->q,
                          &((Queue *)g_ptr_array_index(c->queues, i))->ev);
    sm_free_ctx(E, c);
    g_ptr_array_free(c->queues, TRUE);
    g_free(c->client_cap);
    g_free(c->client_in_use);
    if (c->client_sms)
        for (uint32_t i = 0; i <= E->m->mps_max_clients; i++)
            g_free(c->client_sms[i]);
    g_free(c->client_sms);
    g_free(c);
}

void eng_refuse(Engine *E, Proc *P, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    SimProcResult *r = &E->res->procs[P->index];
    r->status = SIM_PROC_NOT_STARTED;
    r->status_reason = sim_result_intern(E->res, why);
    r->start_ns = r->end_ns = E->now;
    P->host = HOST_DONE;
    sim_result_note(E->res, "process '%s' did not start: %s", P->spec->name,
                    why);
}

static uint32_t proc_connections(const Engine *E, const Proc *P)
{
    uint32_t c = E->opt.connections ? E->opt.connections : P->spec->connections;
    if (!c)
        c = P->share->default_connections(E->m);
    return MIN(c, E->m->connections_max);
}

static void start_next_iteration(Engine *E, Proc *P);

static void proc_start(Engine *E, Proc *P)
{
    const GpuModel *m = E->m;
    SimProcResult *r = &E->res->procs[P->index];
    P->share = share_ops_for(E, P);
    P->connections = proc_connections(E, P);
    uint64_t need = P->spec->device_mem_bytes;
    if (!P->share->admit(E, P, &need))
        return;
    if (E->mem_used + need > m->device_mem_bytes) {
        /* Say why: its allocations, the overhead its context brings, and
         * what the processes already started hold. */
        uint64_t alloc = P->spec->device_mem_bytes;
        uint32_t holding = 0;
        for (uint32_t i = 0; i < E->n_procs; i++)
            holding += E->procs[i].mem_bytes > 0;
        eng_refuse(E, P,
                   "out of device memory: it needs %.0f MiB (%.0f MiB "
                   "allocations + %.0f MiB %s), %.0f MiB of %.0f MiB are free "
                   "(%.0f MiB in use by the %u processes started before it and "
                   "their contexts)",
                   need / 1048576.0, alloc / 1048576.0,
                   (need - alloc) / 1048576.0, P->share->overhead(E),
                   (m->device_mem_bytes - E->mem_used) / 1048576.0,
                   m->device_mem_bytes / 1048576.0, E->mem_used / 1048576.0,
                   holding);
        return;
    }
    E->mem_used += need;
    E->res->device_mem_used_bytes =
        MAX(E->res->device_mem_used_bytes, E->mem_used);
    P->mem_bytes = need;
    r->mem_bytes = need;
    r->mem_alloc_bytes = P->spec->device_mem_bytes;
    P->share->attach(E, P, r);
    P->share->costs(m, &P->cost);
    P->ctx->live_procs++;
    r->mps = P->share->mps;
    r->ctx = P->ctx->index;
    r->connections = P->connections;
    r->start_ns = E->now;
    /* Streams map onto queues when they issue their first op (round-robin
     * in order of first use, measured on an H100: FINDINGS.md §1). */
    for (uint32_t s = 0; s < P->spec->n_streams; s++) {
        P->streams[s].queue = SIM_NO_INDEX;
        int prio = P->spec->streams[s].priority;
        int lowest = -(int)(m->stream_priority_levels - 1);
        P->streams[s].priority = CLAMP(prio, lowest, 0);
    }
    P->started = P->alive = true;
    start_next_iteration(E, P);
}

/* Release a finished or killed process's memory. */
static void proc_release(Engine *E, Proc *P)
{
    E->mem_used -= P->mem_bytes;
    P->mem_bytes = 0;
    if (P->ctx)
        P->ctx->live_procs--;
}

/* ------------------------------------------------------------------------
 * Host threads
 * ------------------------------------------------------------------------ */

/* The host time of an op's API call: its own, or the model's default for
 * its kind; how the process shares the GPU adds its cost per call or
 * sync on top (an MPS client's: a recorded time was recorded outside MPS,
 * or includes it: see the README, MPS clients). */
static SimTime api_base(const Engine *E, const SimOp *op);
static SimTime api_time(const Engine *E, const Proc *P, const SimOp *op)
{
    SimTime t = api_base(E, op);
    if (op->kind == SIM_OP_HOST_GAP)
        return t;
    bool sync = op->kind == SIM_OP_STREAM_SYNC ||
                op->kind == SIM_OP_DEVICE_SYNC || op->kind == SIM_OP_EVENT_SYNC;
    return t + (sync ? P->cost.sync_ns : P->cost.api_ns);
}

static SimTime api_base(const Engine *E, const SimOp *op)
{
    if (op->api_ns != SIM_TIME_NEVER)
        return op->api_ns;
    switch (op->kind) {
    case SIM_OP_GRAPH:
        return E->m->graph_launch_api_ns +
               op->u.graph->n_nodes * E->m->graph_node_api_ns;
    case SIM_OP_KERNEL: return E->m->launch_api_ns;
    case SIM_OP_EVENT_RECORD:
    case SIM_OP_EVENT_WAIT: return E->m->event_api_ns;
    case SIM_OP_COPY: return E->m->copy_api_ns;
    case SIM_OP_STREAM_SYNC:
    case SIM_OP_DEVICE_SYNC:
    case SIM_OP_EVENT_SYNC: return E->m->sync_api_ns;
    default: return 0;
    }
}

static bool event_done(const Proc *P, uint32_t event, uint32_t seq)
{
    const EventRt *ev = &P->events[event];
    return seq >= 1 && seq <= ev->done->len &&
           g_array_index(ev->done, uint8_t, seq - 1);
}

static bool wait_satisfied(const Proc *P)
{
    switch (P->wait) {
    case WAIT_STREAM: {
        const StreamRt *s = &P->streams[P->wait_arg];
        return s->completed == s->issued;
    }
    case WAIT_DEVICE:
    case WAIT_ITERATION: return P->outstanding == 0;
    case WAIT_EVENT: return event_done(P, P->wait_arg, P->wait_seq);
    case WAIT_OP: return P->wait_inst == NULL;
    default: return true;
    }
}

/* Wake a waiting host thread whose condition now holds (at this instant,
 * through the event queue, so hosts never run inside another handler). */
static void host_poke(Engine *E, Proc *P)
{
    if (P->host == HOST_WAIT && wait_satisfied(P)) {
        P->host = HOST_BUSY;
        sim_eventq_schedule(&E->q, &P->ev_host, E->now);
    }
}

/* The host thread waits @d without using a core (a recorded call time). */
static void host_busy(Engine *E, Proc *P, SimTime d)
{
    P->host = HOST_BUSY;
    sim_eventq_schedule(&E->q, &P->ev_host, E->now + d);
}

/* The jitter factor of class @c for ops[pc] in this iteration: exactly 1
 * without a jitter (or with --no-jitter). */
static double jitter_factor(const Engine *E, const Proc *P, SimJitClass c)
{
    const SimJitter *j = P->spec->jitter;
    if (!E->jitter || !j)
        return 1.0;
    return sim_jitter_factor(j, P->jit_row, E->seed, P->index, P->iteration,
                             P->pc, c);
}

double eng_node_scale(const Engine *E, const OpInst *g, uint32_t node,
                      const SimOp *op)
{
    const Proc *P = g->proc;
    const SimJitter *j = P->spec->jitter;
    if (!E->jitter || !j)
        return 1.0;
    /* its own request's row: the host may be past that request */
    const double *row = sim_jitter_row(j, E->seed, P->index, g->iteration);
    return sim_jitter_factor_node(j, row, E->seed, P->index, g->iteration,
                                  g->op_index, node,
                                  sim_jitter_class_of(op->kind));
}

/* The host thread works @d ns of CPU time (scaled by its host jitter) on
 * the machine's shared cores (engine_host.c). */
static void host_work(Engine *E, Proc *P, SimTime d)
{
    host_cpu_work(E, P, sim_jitter_scale(d, jitter_factor(E, P, SIM_JIT_HOST)));
}

static void issue_op(Engine *E, Proc *P, const SimOp *op)
{
    OpInst *in = eng_inst_new(E);
    in->op = op;
    in->proc = P;
    in->op_index = P->pc;
    in->iteration = P->iteration;
    in->issue = E->now;
    in->scale = jitter_factor(E, P, sim_jitter_class_of(op->kind));
    StreamRt *s = &P->streams[op->stream];
    if (s->queue == SIM_NO_INDEX) {
        /* First use: the next queue round-robin (engine_share.c). */
        s->queue = P->share->map_stream(P);
        E->res->procs[P->index].streams[op->stream].queue =
            s->queue - P->queue_base;
    }
    in->stream_seq = s->issued++;
    in->queue = s->queue;
    in->visible = E->now + E->m->submit_latency_ns;
    P->outstanding++;
    if (op->kind == SIM_OP_EVENT_RECORD) {
        EventRt *ev = &P->events[op->event];
        in->event_seq = ++ev->records;
        uint8_t zero = 0;
        g_array_append_val(ev->done, zero);
    } else if (op->kind == SIM_OP_EVENT_WAIT) {
        /* The most recent record issued before the wait; none yet: the
         * next one (stricter than CUDA, which ignores such a wait, because
         * in a scenario it is almost always a mistake). */
        const EventRt *ev = &P->events[op->event];
        in->event_seq = ev->records ? ev->records : 1;
    }
    if (E->opt.record_ops && op->kind != SIM_OP_GRAPH)
        /* (a graph's nodes are recorded, each as it starts) */
        eng_record_new(E, in, NULL);
    eng_live_link(P, in);
    Queue *q = g_ptr_array_index(P->ctx->queues, in->queue);
    in->state = INST_QUEUED;
    if (q->tail)
        q->tail->qnext = in;
    else
        q->head = in;
    q->tail = in;
    eng_mark_queue(E, q);
    if (op->kind == SIM_OP_COPY && !op->u.copy.pinned &&
        op->u.copy.dir != SIM_COPY_D2D) {
        /* A pageable copy returns only once the data has moved. */
        P->wait = WAIT_OP;
        P->wait_inst = in;
        P->host = HOST_WAIT;
    }
}

static void proc_finish(Engine *E, Proc *P)
{
    P->host = HOST_DONE;
    P->alive = false;
    E->res->procs[P->index].end_ns = E->now;
    proc_release(E, P);
}

static void start_next_iteration(Engine *E, Proc *P)
{
    const SimProcessSpec *sp = P->spec;
    P->pc = 0;
    /* this request's jitter row (open loop: also while it waits) */
    if (E->jitter)
        P->jit_row =
            sim_jitter_row(sp->jitter, E->seed, P->index, P->iteration);
    if (sp->arrivals.kind != SIM_ARRIVALS_NONE) {
        if (P->next_arrival >= P->n_arrivals) {
            proc_finish(E, P);
            return;
        }
        SimTime t = P->arrivals[P->next_arrival++];
        P->iter_t0 = t;
        if (t > E->now) {
            /* Idle from the previous request's end until t: that request
             * pays the host's wake cost (FINDINGS §59); not the first,
             * whose process was building up to it, not idling. */
            P->wake_ns =
                P->iteration ? sim_gpu_model_host_wake(E->m, t - E->now) : 0;
            P->host = HOST_ARRIVAL;
            sim_eventq_schedule(&E->q, &P->ev_host, t);
            return;
        }
    } else {
        if (P->iteration >= sp->iterations) {
            proc_finish(E, P);
            return;
        }
        P->iter_t0 = E->now;
    }
    P->host = HOST_BUSY;
    sim_eventq_schedule(&E->q, &P->ev_host, E->now);
}

static void host_run(Engine *E, Proc *P)
{
    const SimProcessSpec *sp = P->spec;
    P->host = HOST_READY;
    while (P->host == HOST_READY) {
        if (P->pc == sp->n_ops) {
            if (P->outstanding > 0) {
                P->wait = WAIT_ITERATION;
                P->host = HOST_WAIT;
                return;
            }
            SimProcResult *r = &E->res->procs[P->index];
            SimTime lat = E->now - P->iter_t0;
            g_array_append_val(r->latency_ns, lat);
            r->iterations_done++;
            P->iteration++;
            start_next_iteration(E, P);
            return;
        }
        const SimOp *op = &sp->ops[P->pc];
        if (P->issue_pending) {
            P->issue_pending = false;
            issue_op(E, P, op);
            P->pc++;
            continue; /* issue_op may have set HOST_WAIT (pageable) */
        }
        if (P->after_wait) {
            P->after_wait = false;
            P->pc++;
            continue;
        }
        if (op->at_ns && E->now < P->spec->start_ns + op->at_ns) {
            /* A recorded call time: the host makes this call no earlier. */
            host_busy(E, P, P->spec->start_ns + op->at_ns - E->now);
            break;
        }
        switch (op->kind) {
        case SIM_OP_HOST_GAP:
            if (op->u.gap_ns)
                host_work(E, P, op->u.gap_ns); /* jitter keyed by pc */
            P->pc++;
            break;
        case SIM_OP_KERNEL:
        case SIM_OP_COPY:
        case SIM_OP_GRAPH:
        case SIM_OP_EVENT_RECORD:
        case SIM_OP_EVENT_WAIT: {
            SimTime a = api_time(E, P, op);
            P->issue_pending = true;
            if (a)
                host_work(E, P, a);
            break;
        }
        case SIM_OP_STREAM_SYNC:
        case SIM_OP_DEVICE_SYNC:
        case SIM_OP_EVENT_SYNC: {
            P->wait = op->kind == SIM_OP_STREAM_SYNC   ? WAIT_STREAM
                      : op->kind == SIM_OP_DEVICE_SYNC ? WAIT_DEVICE
                                                       : WAIT_EVENT;
            P->wait_arg =
                op->kind == SIM_OP_STREAM_SYNC ? op->stream : op->event;
            if (op->kind == SIM_OP_EVENT_SYNC) {
                const EventRt *ev = &P->events[op->event];
                P->wait_seq = ev->records ? ev->records : 1;
            }
            P->after_wait = true; /* once satisfied: the call returns */
            if (!wait_satisfied(P)) {
                P->host = HOST_WAIT;
                return;
            }
            P->wait = WAIT_NONE;
            SimTime a = api_time(E, P, op);
            if (a)
                host_work(E, P, a);
            break;
        }
        default: g_assert_not_reached();
        }
    }
}

static void host_event(Engine *E, Proc *P)
{
    if (!P->alive)
        return;
    host_cpu_done(E, P); /* its host work, if any, is over */
    if (P->host == HOST_ARRIVAL && P->wake_ns) {
        /* An open-loop request after an idle gap: its first host calls
         * run slower (host_wake_us); CPU work, so it takes a core. */
        SimTime w = P->wake_ns;
        P->wake_ns = 0;
        host_cpu_work(E, P, w);
        return;
    }
    if (P->wait != WAIT_NONE && P->host == HOST_BUSY && P->after_wait &&
        wait_satisfied(P)) {
        /* Woken from a sync: the API call returns sync_api later. */
        P->wait = WAIT_NONE;
        SimTime a = api_time(E, P, &P->spec->ops[P->pc]);
        if (a) {
            host_work(E, P, a);
            return;
        }
    }
    P->wait = WAIT_NONE;
    host_run(E, P);
}

/* ------------------------------------------------------------------------
 * Hardware queues, kernels, completion
 * ------------------------------------------------------------------------ */

/* A kernel leaves its queue (or a graph node is ready): it takes a
 * resident-grid slot and reaches the dispatcher @latency later, plus what
 * its process pays per kernel for sharing the GPU (engine_share.c). */
void eng_launch_kernel(Engine *E, OpInst *in, SimTime latency)
{
    Proc *P = in->proc;
    KernelRt *k = g_new0(KernelRt, 1);
    k->inst = in;
    k->ctx = P->ctx;
    k->proc = P;
    in->k = k;
    in->state = INST_LAUNCHING;
    GError *err = NULL;
    if (!sm_prepare_kernel(E, k, &err)) {
        /* Checked before the run, so this is unreachable for valid
         * scenarios; keep the message if it happens. */
        E->error = err;
        in->k = NULL;
        g_free(k);
        return;
    }
    k->work *= in->scale; /* its jitter: this instance's work varies */
    latency += eng_share_kernel_cost(E, k);
    k->priority = P->streams[in->op->stream].priority;
    P->ctx->resident++;
    sim_event_init(&k->ev, EV_ADMIT, k);
    sim_eventq_schedule(&E->q, &k->ev, E->now + latency);
}

static void admit_kernel(Engine *E, KernelRt *k)
{
    Ctx *c = k->ctx;
    k->admit_seq = E->admit_seq++;
    k->inst->state = INST_PENDING;
    sm_pending_insert(E, c, k);
    c->active++;
    ctx_work_arrived(E, c);
    eng_mark_ctx(E, c);
}

static void queue_pop(Queue *q)
{
    OpInst *in = q->head;
    q->head = in->qnext;
    if (!q->head)
        q->tail = NULL;
    in->qnext = NULL;
}

static void queue_pump(Engine *E, Queue *q)
{
    OpInst *in;
    while ((in = q->head)) {
        if (in->dead) {
            queue_pop(q);
            eng_inst_release(E, in);
            continue;
        }
        Proc *P = in->proc;
        const SimOp *op = in->op;
        if (in->visible > E->now) {
            /* Still on its way from the host: look again then. */
            if (!sim_event_pending(&q->ev) || q->ev.when > in->visible)
                sim_eventq_schedule(&E->q, &q->ev, in->visible);
            return;
        }
        if (P->streams[op->stream].completed != in->stream_seq)
            break; /* its stream's previous op is still running */
        switch (op->kind) {
        case SIM_OP_EVENT_WAIT:
            if (!event_done(P, op->event, in->event_seq))
                return;
            queue_pop(q);
            eng_op_complete(E, in);
            break;
        case SIM_OP_EVENT_RECORD:
            queue_pop(q);
            g_array_index(P->events[op->event].done, uint8_t,
                          in->event_seq - 1) = 1;
            eng_op_complete(E, in);
            P->share->mark_queues(E, P);
            break;
        case SIM_OP_KERNEL:
            if (q->ctx->resident >= E->m->max_resident_grids) {
                q->ctx->blocked_grids = true;
                return;
            }
            queue_pop(q);
            /* the launch path waits longer on a loaded DRAM */
            eng_launch_kernel(E, in,
                              E->m->kernel_launch_latency_ns +
                                  dram_launch_delay(E, P->ctx) +
                                  P->cost.launch_ns);
            break;
        case SIM_OP_GRAPH:
            queue_pop(q);
            graph_start(E, in);
            break;
        case SIM_OP_COPY: {
            SimTime w = copy_handoff_wait(E, in);
            if (w) {
                in->visible = E->now + w; /* looked at again then */
                continue;
            }
            queue_pop(q);
            copy_submit(E, in);
            break;
        }
        default: g_assert_not_reached();
        }
    }
}

static void stream_stats(Engine *E, const OpInst *in, SimTime start)
{
    SimStreamResult *s =
        &E->res->procs[in->proc->index].streams[in->op->stream];
    if (in->op->kind != SIM_OP_KERNEL && in->op->kind != SIM_OP_COPY)
        return;
    s->ops++;
    if (start < s->first_start_ns)
        s->first_start_ns = start;
    s->last_end_ns = MAX(s->last_end_ns, E->now);
    s->busy_ns += E->now - start;
    SimTime lat = E->now - in->issue;
    g_array_append_val(s->latency_ns, lat);
}

/* An op's own end: its record, the kernel's slot and SM state, the copy
 * and stream statistics. */
static void op_finished(Engine *E, OpInst *in)
{
    Proc *P = in->proc;
    const SimOp *op = in->op;
    E->ops_done++;
    SimTime start = E->now;
    SimOpRecord *r = eng_record(E, in);
    if (r) {
        if (op->kind == SIM_OP_EVENT_RECORD || op->kind == SIM_OP_EVENT_WAIT)
            r->start_ns = E->now;
        r->end_ns = E->now;
        start = r->start_ns;
    }
    SimProcResult *pr = &E->res->procs[P->index];
    if (op->kind == SIM_OP_KERNEL) {
        KernelRt *k = in->k;
        Ctx *c = k->ctx;
        start = k->start;
        pr->kernels++;
        if (r) {
            r->sms_used = k->sms_used;
            r->sm_set = E->res->sm_sets->len / E->sm_words;
            g_array_append_vals(E->res->sm_sets, k->smset, E->sm_words);
        }
        c->resident--;
        c->active--;
        if (k->start != SIM_TIME_NEVER)
            k->proc->kernels_running--;
        met_kernel_ended(E);
        if (c->blocked_grids) {
            c->blocked_grids = false;
            for (guint i = 0; i < c->queues->len; i++)
                eng_mark_queue(E, g_ptr_array_index(c->queues, i));
        }
        if (c->grid_wait)
            graph_grid_freed(E, c);
        ctx_became_idle(E, c); /* if that was its last started kernel */
        sm_kernel_free(k);
        in->k = NULL;
    } else if (op->kind == SIM_OP_COPY) {
        pr->copies++;
        start = in->start;
    }
    stream_stats(E, in, start);
    pr->end_ns = MAX(pr->end_ns, E->now);
}

void eng_op_complete(Engine *E, OpInst *in)
{
    if (in->dead) {
        eng_inst_release(E, in);
        return;
    }
    Proc *P = in->proc;
    if (in->gnode) {
        /* A graph node: not in its stream's order; its graph is. */
        op_finished(E, in);
        live_unlink(P, in);
        graph_node_done(E, in);
        eng_inst_release(E, in);
        return;
    }
    StreamRt *s = &P->streams[in->op->stream];
    g_assert(s->completed == in->stream_seq);
    s->completed++;
    P->outstanding--;
    op_finished(E, in);
    eng_mark_queue(E, g_ptr_array_index(P->ctx->queues, s->queue));
    if (P->wait_inst == in)
        P->wait_inst = NULL;
    live_unlink(P, in);
    eng_inst_release(E, in);
    host_poke(E, P);
}

/* ------------------------------------------------------------------------
 * Faults
 * ------------------------------------------------------------------------ */

void eng_kill_proc(Engine *E, Proc *P, const char *why)
{
    if (!P->alive)
        return;
    P->alive = false;
    P->host = HOST_DEAD;
    host_cpu_done(E, P);
    sim_eventq_cancel(&E->q, &P->ev_host);
    SimProcResult *pr = &E->res->procs[P->index];
    pr->status = SIM_PROC_KILLED;
    pr->status_reason = sim_result_intern(E->res, why);
    pr->end_ns = E->now;
    Ctx *c = P->ctx;
    while (P->live) {
        OpInst *in = P->live;
        live_unlink(P, in);
        SimOpRecord *r = eng_record(E, in);
        if (r) {
            r->aborted = true;
            r->end_ns = E->now;
        }
        in->dead = true;
        switch (in->state) {
        case INST_QUEUED:
        case INST_COPY_WAIT:
        case INST_COPY_RUN:
            break; /* released by the queue or copy engine that holds it */
        case INST_LAUNCHING:
            sim_eventq_cancel(&E->q, &in->k->ev);
            c->resident--;
            sm_kernel_free(in->k);
            eng_inst_release(E, in);
            break;
        case INST_GRAPH:
            graph_kill(E, in);
            eng_inst_release(E, in);
            break;
        case INST_PENDING:
        case INST_RUNNING: {
            KernelRt *k = in->k;
            /* A fault of its own not yet delivered (an MPS peer's fault
             * killed it first) goes with it: E->faults must not hold a
             * freed kernel. */
            if (k->faulted)
                g_ptr_array_remove(E->faults, k);
            sm_kill_kernel(E, k);
            if (k->start != SIM_TIME_NEVER) {
                met_kernel_ended(E);
                P->kernels_running--;
            }
            c->resident--;
            c->active--;
            sm_kernel_free(k);
            eng_inst_release(E, in);
            break;
        }
        }
    }
    P->outstanding = 0;
    for (guint i = 0; i < c->queues->len; i++)
        eng_mark_queue(E, g_ptr_array_index(c->queues, i));
    eng_mark_ctx(E, c);
    if (c->active == 0)
        ctx_became_idle(E, c);
    if (c->draining && c->resident_blocks == 0)
        ctx_drained(E, c);
    proc_release(E, P);
}

static void deliver_fault(Engine *E, KernelRt *k)
{
    Proc *P = k->proc;
    if (!P->alive)
        return;
    const char *kname = k->inst->op->u.kernel.name;
    g_autofree char *own =
        g_strdup_printf("fatal GPU fault in its kernel '%s'", kname);
    P->share->fault(E, P, kname, own);
}

/* Work marked during this instant: pump queues, deliver faults, dispatch. */
static void settle(Engine *E)
{
    for (;;) {
        if (E->error)
            return;
        if (E->dirty_queues.length) { /* (no call: every instant asks) */
            Queue *q = g_queue_pop_head(&E->dirty_queues);
            q->dirty = false;
            queue_pump(E, q);
            continue;
        }
        if (E->faults->len) {
            KernelRt *k = g_ptr_array_steal_index(E->faults, 0);
            deliver_fault(E, k);
            continue;
        }
        if (E->dirty_head) {
            Ctx *c = E->dirty_head;
            E->dirty_head = c->dirty_next;
            if (!E->dirty_head)
                E->dirty_tail = NULL;
            c->dirty = false;
            sm_dispatch(E, c);
            continue;
        }
        return;
    }
}

/* ------------------------------------------------------------------------
 * Setup, loop, results
 * ------------------------------------------------------------------------ */

/* Whether one kernel fits on an empty SM; the error names op @j. */
static bool check_kernel(Engine *E, Proc *P, uint32_t j, const SimOp *op,
                         GError **error)
{
    /* a timer kernel may start late (engine_sm.c, late_split), and placing
     * one reads its SMs' events: sm_event then schedules them at once */
    if ((op->u.kernel.wall_clock || op->u.kernel.self_timed) &&
        E->m->sm_late_start_warps > 0)
        E->sm_defer_ok = false;
    SimOccupancy occ;
    GError *err = NULL;
    bool ok = sim_occupancy(E->m, &op->u.kernel, &occ, &err);
    if (ok && occ.blocks_per_sm == 0)
        err = g_error_new(SIM_ERROR, SIM_ERROR_NOFIT,
                          "fits on no SM of %s (limited by %s)", E->m->name,
                          sim_occ_limit_name(occ.limiter));
    SimSmemWindow win;
    bool bad_config =
        !err && !sim_smem_window(E->m, &op->u.kernel, occ.blocks_per_sm,
                                 occ.needs.smem_bytes, &win, &err);
    if (!err)
        return true;
    g_autofree char *where = op_where(E, P, j);
    g_set_error(error, SIM_ERROR,
                bad_config ? SIM_ERROR_INVALID : SIM_ERROR_NOFIT, "%s: %s%s",
                where, op != &P->spec->ops[j] ? "graph node: " : "",
                err->message);
    g_error_free(err);
    return false;
}

/* Every kernel (graph nodes included) must fit on an empty SM; say which
 * one does not, and where it is, before simulating anything. */
static bool check_kernels(Engine *E, GError **error)
{
    for (uint32_t i = 0; i < E->n_procs; i++) {
        Proc *P = &E->procs[i];
        for (uint32_t j = 0; j < P->spec->n_ops; j++) {
            const SimOp *op = &P->spec->ops[j];
            if (op->kind == SIM_OP_KERNEL && !check_kernel(E, P, j, op, error))
                return false;
            if (op->kind != SIM_OP_GRAPH)
                continue;
            const SimGraph *g = op->u.graph;
            for (uint32_t x = 0; x < g->n_nodes; x++)
                if (g->nodes[x].op.kind == SIM_OP_KERNEL &&
                    !check_kernel(E, P, j, &g->nodes[x].op, error))
                    return false;
        }
    }
    return true;
}

static void gen_arrivals(Engine *E, Proc *P, uint64_t seed)
{
    const SimArrivals *a = &P->spec->arrivals;
    SimTime t0 = P->spec->start_ns;
    switch (a->kind) {
    case SIM_ARRIVALS_NONE: return;
    case SIM_ARRIVALS_LIST:
        P->n_arrivals = a->n_times;
        P->arrivals = g_new(SimTime, a->n_times);
        for (uint32_t i = 0; i < a->n_times; i++)
            P->arrivals[i] = t0 + a->times_ns[i];
        return;
    case SIM_ARRIVALS_UNIFORM:
    case SIM_ARRIVALS_POISSON: {
        P->n_arrivals = a->count;
        P->arrivals = g_new(SimTime, a->count);
        double gap = 1e9 / a->rate_per_s;
        /* One generator per process, seeded from the run's seed and the
         * process index: adding a process does not change the others. */
        GRand *rng = g_rand_new_with_seed(
            (guint32)(seed * 2654435761u + P->index * 40503u + 1));
        double t = 0;
        for (uint32_t i = 0; i < a->count; i++) {
            if (a->kind == SIM_ARRIVALS_UNIFORM) {
                t = i * gap;
            } else {
                double u = g_rand_double(rng); /* [0, 1) */
                t += -log1p(-u) * gap;
            }
            P->arrivals[i] = t0 + (SimTime)llround(t);
        }
        g_rand_free(rng);
        (void)E;
        return;
    }
    }
}

static void describe_deadlock(Engine *E, GString *msg)
{
    for (uint32_t i = 0; i < E->n_procs; i++) {
        Proc *P = &E->procs[i];
        if (!P->alive)
            continue;
        if (P->host == HOST_WAIT && P->spec->n_ops > 0) {
            g_autofree char *where =
                op_where(E, P, MIN(P->pc, P->spec->n_ops - 1));
            g_string_append_printf(
                msg, "\n  host of '%s' waits at %s", P->spec->name,
                P->pc < P->spec->n_ops ? where : "end of iteration");
        }
    }
    for (guint c = 0; c < E->ctxs->len; c++) {
        Ctx *ctx = g_ptr_array_index(E->ctxs, c);
        for (guint i = 0; i < ctx->queues->len; i++) {
            Queue *q = g_ptr_array_index(ctx->queues, i);
            OpInst *in = q->head;
            while (in && in->dead)
                in = in->qnext;
            if (!in)
                continue;
            g_autofree char *where = op_where(E, in->proc, in->op_index);
            const char *why = "";
            if (in->op->kind == SIM_OP_EVENT_WAIT)
                why = ": its event's record is behind it in a blocked queue "
                      "or stream";
            g_string_append_printf(msg,
                                   "\n  hardware queue %u of context '%s' is "
                                   "blocked at %s%s",
                                   i, ctx->name, where, why);
        }
    }
}

#ifdef HQSIM_COST_COUNTERS
uint64_t sim_cost[COST_N];

void sim_cost_report(void)
{
    static const char *const names[COST_N] = {
        [EV_PROC_START] = "event proc_start",
        [EV_HOST] = "event host",
        [EV_ADMIT] = "event admit",
        [EV_SM] = "event sm",
        [EV_COPY] = "event copy",
        [EV_SLICE] = "event slice",
        [EV_SWITCH] = "event switch",
        [EV_YIELD] = "event yield",
        [EV_COHORT] = "event cohort",
        [EV_EARLY] = "event early",
        [EV_QUEUE] = "event queue",
        [EV_GNODE] = "event gnode",
        [EV_DRAM] = "event dram",
        [COST_INSTANT] = "instants",
        [COST_PLACE] = "placements",
        [COST_PLACE_BLOCKS] = "placed blocks",
        [COST_PLACE_EMPTY] = "placements on an empty SM",
        [COST_PLACE_COHORT] = "placements joining a cohort",
        [COST_COHORT_DONE] = "cohorts completed",
        [COST_COHORT_GROUPS] = "groups completed by cohorts",
        [COST_STAGGER] = "staggered releases",
        [COST_SM_GROUPS] = "groups completed by SM events",
        [COST_SHARE_EMPTY] = "issue_share, emptied SM",
        [COST_SHARE_ONE] = "issue_share, one group",
        [COST_SHARE_MORE] = "issue_share, several groups",
        [COST_PLACE_COPIED] = "placements copied (equal SM)",
        [COST_SM_EQUAL] = "SM events, SM equal to one before",
    };
    for (int i = 0; i < COST_N; i++)
        if (names[i] && sim_cost[i])
            fprintf(stderr, "cost %-30s %llu\n", names[i],
                    (unsigned long long)sim_cost[i]);
    memset(sim_cost, 0, sizeof sim_cost);
}
#endif

static void handle(Engine *E, SimEvent *ev)
{
    COST(COST_EVENT + ev->kind);
    /* Which contexts run and which MPS clients exist: SMs in steady state
     * assume neither changes (engine_steady.c). */
    if (E->n_steady && (ev->kind == EV_PROC_START || ev->kind == EV_SLICE ||
                        ev->kind == EV_SWITCH || ev->kind == EV_YIELD))
        sm_steady_stop_all(E);
    switch (ev->kind) {
    case EV_PROC_START: proc_start(E, ev->obj); break;
    case EV_HOST: host_event(E, ev->obj); break;
    case EV_ADMIT: admit_kernel(E, ev->obj); break;
    case EV_SM: sm_event(E, ev->obj); break;
    case EV_COPY: copy_event(E, ev->obj); break;
    case EV_SLICE:
    case EV_SWITCH:
    case EV_YIELD: ctx_event(E, ev); break;
    case EV_COHORT: sm_cohort_event(E, ev->obj); break;
    case EV_EARLY: sm_cohort_early(E, ev->obj); break;
    case EV_QUEUE: eng_mark_queue(E, ev->obj); break;
    case EV_GNODE: graph_node_event(E, ev->obj); break;
    case EV_DRAM: dram_event(E, ev->obj); break;
    default: g_assert_not_reached();
    }
}

static void result_init(Engine *E)
{
    SimResult *r = E->res;
    const GpuModel *m = E->m;
    r->gpu_name = g_strdup(m->name);
    r->mode = g_strdup(sim_share_mode_name(E->opt.mode));
    r->sm_count = m->sm_count;
    r->max_warps_per_sm = m->max_warps_per_sm;
    r->nvml_period_ns = m->nvml_sample_period_ns;
    r->device_mem_bytes = m->device_mem_bytes;
    r->sm_words = E->sm_words;
    r->n_procs = E->n_procs;
    r->procs = g_new0(SimProcResult, E->n_procs);
    for (uint32_t i = 0; i < E->n_procs; i++) {
        const SimProcessSpec *sp = E->procs[i].spec;
        SimProcResult *p = &r->procs[i];
        p->name = sim_result_intern(r, sp->name);
        p->latency_ns = g_array_new(FALSE, FALSE, sizeof(SimTime));
        p->n_streams = sp->n_streams;
        p->streams = g_new0(SimStreamResult, sp->n_streams);
        p->sm_limit = m->sm_count;
        p->active_thread_pct = sp->active_thread_pct;
        for (uint32_t s = 0; s < sp->n_streams; s++) {
            p->streams[s].name = sim_result_intern(r, sp->streams[s].name);
            p->streams[s].priority = sp->streams[s].priority;
            p->streams[s].first_start_ns = SIM_TIME_NEVER;
            p->streams[s].latency_ns =
                g_array_new(FALSE, FALSE, sizeof(SimTime));
        }
    }
}

static void result_finish(Engine *E)
{
    SimResult *r = E->res;
    SimTime end = 0;
    for (uint32_t i = 0; i < r->n_procs; i++) {
        end = MAX(end, r->procs[i].end_ns);
        for (uint32_t s = 0; s < r->procs[i].n_streams; s++)
            if (r->procs[i].streams[s].first_start_ns == SIM_TIME_NEVER)
                r->procs[i].streams[s].first_start_ns = 0;
    }
    r->makespan_ns = end;
    r->events = E->n_events;
    if (E->m != E->full)
        sim_result_note(
            r,
            "approximate (--sm-sample %u): %u of the %u SMs simulated, each "
            "kernel with its blocks scaled alike; %llu of %llu kernel "
            "launches had a block count that does not scale to a whole "
            "number (rounded at random: the error of this mode, README "
            "\"Sampled SMs\")",
            E->opt.sm_sample, E->m->sm_count, E->full->sm_count,
            (unsigned long long)E->sampled_rounded,
            (unsigned long long)E->sampled_kernels);
    r->n_contexts = E->ctxs->len;
    r->contexts = g_new0(SimContextResult, E->ctxs->len);
    for (guint i = 0; i < E->ctxs->len; i++) {
        Ctx *c = g_ptr_array_index(E->ctxs, i);
        r->contexts[i].name = c->name;
        r->contexts[i].mps_server = c->mps_server;
        r->contexts[i].mem_bytes = c->mem_bytes;
    }
    ctx_finish(E);
    met_finish(E);
}

static void engine_free(Engine *E)
{
    for (uint32_t i = 0; i < E->n_procs; i++) {
        Proc *P = &E->procs[i];
        sim_eventq_cancel(&E->q, &P->ev_start);
        sim_eventq_cancel(&E->q, &P->ev_host);
        /* Ops in a queue or at a copy engine are freed with it below;
         * kernels past their queue belong to nobody else. */
        while (P->live) {
            OpInst *in = P->live;
            live_unlink(P, in);
            if (in->k) {
                sim_eventq_cancel(&E->q, &in->k->ev);
                sm_kernel_free(in->k);
                in->k = NULL;
            }
            if (in->graph)
                graph_rt_free(E, in->graph);
            in->dead = true;
            if (in->state != INST_QUEUED && in->state != INST_COPY_WAIT &&
                in->state != INST_COPY_RUN)
                g_free(in);
        }
        for (uint32_t e = 0; e < P->spec->n_events; e++)
            g_array_free(P->events[e].done, TRUE);
        g_free(P->events);
        g_free(P->streams);
        g_free(P->arrivals);
    }
    /* Ops still queued belong to the queues' lists: free them there. */
    for (guint c = 0; c < E->ctxs->len; c++) {
        Ctx *ctx = g_ptr_array_index(E->ctxs, c);
        for (guint i = 0; i < ctx->queues->len; i++) {
            Queue *q = g_ptr_array_index(ctx->queues, i);
            while (q->head) {
                OpInst *in = q->head;
                q->head = in->qnext;
                g_free(in);
            }
        }
    }
    for (int d = 0; d < SIM_COPY_N_DIRS; d++) {
        OpInst *in;
        while ((in = g_queue_pop_head(&E->copy[d].wait)))
            g_free(in);
        for (guint i = 0; i < E->copy[d].active->len; i++)
            g_free(g_ptr_array_index(E->copy[d].active, i));
    }
    copy_free(E);
    host_cpu_free(E);
    for (guint i = 0; i < E->ctxs->len; i++)
        ctx_free(E, g_ptr_array_index(E->ctxs, i));
    g_ptr_array_free(E->ctxs, TRUE);
    while (E->inst_free) {
        OpInst *in = E->inst_free;
        E->inst_free = in->qnext;
        g_free(in);
    }
    while (E->group_free) {
        Group *g = E->group_free;
        E->group_free = g->next;
        g_free(g);
    }
    while (E->cohort_free) {
        Cohort *co = E->cohort_free;
        E->cohort_free = co->next;
        g_free(co);
    }
    g_queue_clear(&E->dirty_queues);
    g_ptr_array_free(E->faults, TRUE);
    g_free(E->resched);
    g_free(E->deferred);
    g_ptr_array_free(E->dram_dirty, TRUE);
    g_free(E->cand);
    met_free(E);
    sim_eventq_destroy(&E->q);
    g_free(E->procs);
    if (E->m != E->full)
        sim_gpu_model_free((GpuModel *)E->m); /* sample_model's */
}

/* GPU ops the workload will issue: per process, its GPU ops per iteration
 * times its iterations or requests.  O(ops). */
static uint64_t count_gpu_ops(const Engine *E)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < E->n_procs; i++) {
        const Proc *P = &E->procs[i];
        uint64_t per = 0;
        for (uint32_t k = 0; k < P->spec->n_ops; k++) {
            SimOpKind kind = P->spec->ops[k].kind;
            per += kind == SIM_OP_KERNEL || kind == SIM_OP_COPY ||
                   kind == SIM_OP_EVENT_RECORD || kind == SIM_OP_EVENT_WAIT;
            if (kind == SIM_OP_GRAPH) /* its nodes and itself */
                per += P->spec->ops[k].u.graph->n_nodes + 1;
        }
        uint64_t times = P->spec->arrivals.kind == SIM_ARRIVALS_NONE
                             ? P->spec->iterations
                             : P->n_arrivals;
        total += per * times;
    }
    return total;
}

/* Tell the progress hook where the run stands; it may stop the run. */
static void report_progress(Engine *E, bool finished)
{
    SimProgress p = {E->now, E->n_events, E->ops_done, finished, E->ops_total};
    if (!E->opt.progress(E->opt.progress_data, &p))
        fail(E, SIM_ERROR_CANCELLED,
             "stopped by the progress callback at %.3f ms of simulated time",
             sim_time_to_ms(E->now));
}

/* The limits one run stops at (bounds.h). */
typedef struct {
    SimTime max_ns;      /* simulated time, unless --time-limit-ms */
    uint64_t max_events; /* this run's events limit */
    uint64_t taken;      /* events taken from opt.event_budget so far */
} RunLimits;

/* Whether the run must stop before @ev: the user's time limit, the
 * simulated-time and events limits, or a shared events budget (a sweep's)
 * that the other runs have used up.  Sets E->error when so. */
static bool over_limits(Engine *E, const SimScenario *sc, const SimEvent *ev,
                        RunLimits *lim)
{
    if (E->opt.time_limit_ns && ev->when > E->opt.time_limit_ns) {
        fail(E, SIM_ERROR_INVALID,
             "stopped at the time limit of %.3f ms of simulated time with "
             "work left",
             sim_time_to_ms(E->opt.time_limit_ns));
        return true;
    }
    SimEventBudget *b = E->opt.event_budget;
    if (b && E->n_events >= lim->taken) {
        uint64_t n = sim_event_budget_take(b);
        lim->taken += n;
        if (n == 0) {
            fail(E, SIM_ERROR_LIMIT,
                 "%s: stopped after %llu events with work left: the runs "
                 "sharing this limit used up its %llu events (limit "
                 "'events' for them all; raise it with --limit events=N)",
                 sc->source, (unsigned long long)E->n_events,
                 (unsigned long long)b->limit);
            return true;
        }
    }
    bool time_over = !E->opt.time_limit_ns && ev->when > lim->max_ns;
    if (!time_over && E->n_events < lim->max_events)
        return false;
    g_autofree char *hint =
        !time_over ? g_strdup_printf("(limit 'events' = %llu for this run; "
                                     "raise it with --limit events=N)",
                                     (unsigned long long)lim->max_events)
                   : sim_limit_hint(SIM_BOUND_SIM_TIME_S);
    fail(E, SIM_ERROR_LIMIT,
         "%s: stopped after %llu events with work left, the next at %.3f s "
         "of simulated time %s",
         sc->source, (unsigned long long)E->n_events,
         sim_time_to_ms(ev->when) / 1e3, hint);
    return true;
}

/* ------------------------------------------------------------------------
 * Sampled SMs (SimOptions.sm_sample = M > 1): an approximate model of a
 * busy GPU.  The engine pays per SM-wave (README, Performance), so it
 * simulates S' = round(S / M) of the S SMs, and every kernel with its
 * blocks scaled by S'/S (rounded at random, unbiased, at least one): its
 * blocks per SM, and so its waves, its load on each SM and its time, stay
 * what they are on the whole GPU, and so do the shares of the GPU that
 * kernels of several processes take.  DRAM pressure is per resident block
 * over a full wave (engine_dram.c), so it scales with the wave.  MPS SM
 * limits are the whole GPU's scaled (eng_sampled_sms), a context's state
 * bytes are scaled back up for its switch time (engine_ctx.c).  What it
 * approximates: block counts rounded to a multiple of S/S' (a kernel of
 * fewer blocks than SMs takes a share of the GPU rounded to one SM in S';
 * a kernel's last, partial wave rounded likewise), and the SM-level
 * outputs (SMs used, per-SM timelines) are the sampled GPU's.
 * ------------------------------------------------------------------------ */

static GpuModel *sample_model(const GpuModel *m, uint32_t M)
{
    GpuModel *s = sim_gpu_model_copy(m);
    const uint32_t S = MAX(1u, (m->sm_count + M / 2) / M);
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->sm_count; i++)
        if (m->dispatch_order[i] < S) /* the same order, among S SMs */
            s->dispatch_order[n++] = m->dispatch_order[i];
    s->sm_count = S;
    return s;
}

uint32_t eng_sampled_sms(const Engine *E, uint32_t sms)
{
    if (E->m == E->full)
        return sms;
    const double x = (double)sms * E->m->sm_count / E->full->sm_count;
    return MIN(E->m->sm_count, MAX(1u, (uint32_t)llround(x)));
}

uint64_t eng_sampled_blocks(Engine *E, const OpInst *in, uint64_t n)
{
    if (E->m == E->full)
        return n;
    const uint64_t num = n * E->m->sm_count, S = E->full->sm_count;
    E->sampled_kernels++;
    if (num % S == 0 && num >= S)
        return num / S; /* a whole number: as on the whole GPU */
    E->sampled_rounded++;
    const double x = (double)num / (double)S, lo = floor(x);
    uint64_t h = E->seed ^ ((uint64_t)in->proc->index << 40) ^
                 ((uint64_t)in->op_index << 12) ^ (uint64_t)in->node ^
                 ((uint64_t)in->iteration * 0xd6e8feb86659fd93ull);
    h = sim_mix64(h);
    const double u = (double)(h >> 11) * 0x1p-53;
    return MAX(1u, (uint64_t)lo + (u < x - lo));
}

SimResult *sim_engine_run(const GpuModel *m, const SimScenario *sc,
                          const SimOptions *opt, GError **error)
{
    if (!sim_scenario_validate(sc, error))
        return NULL;
    /* Before any time is spent: the engine's cost floor (bounds.h). */
    uint64_t placements = sim_scenario_placements(sc, m->sm_count);
    if (placements > sim_limit(SIM_BOUND_PLACEMENTS)) {
        sim_limit_fail(error, SIM_BOUND_PLACEMENTS,
                       "%s: the run would place kernels on SMs %s%llu "
                       "times (each launch on min(blocks, %u SMs), x "
                       "iterations or arrivals, all processes)",
                       sc->source, placements == UINT64_MAX ? "over " : "",
                       (unsigned long long)placements, m->sm_count);
        return NULL;
    }
    Engine E;
    memset(&E, 0, sizeof E);
    E.m = E.full = m;
    E.sc = sc;
    if (opt)
        E.opt = *opt;
    else
        sim_options_init(&E.opt);
    if (E.opt.sm_sample > 1)
        E.m = sample_model(m, E.opt.sm_sample);
    uint64_t seed = E.opt.seed ? E.opt.seed : sc->seed;
    E.seed = seed;
    E.jitter = !E.opt.no_jitter;
    E.sm_words = (m->sm_count + 63) / 64;
    sim_eventq_init(&E.q);
    E.ctxs = g_ptr_array_new();
    g_queue_init(&E.dirty_queues);
    E.faults = g_ptr_array_new();
    E.resched = g_new(SmRt *, m->sm_count);
    E.dram_dirty = g_ptr_array_new();
    E.res = sim_result_new();
    E.n_procs = sc->processes->len;
    E.procs = g_new0(Proc, E.n_procs);
    sim_event_init(&E.ev_slice, EV_SLICE, &E);
    sim_event_init(&E.ev_switch, EV_SWITCH, &E);
    sim_event_init(&E.ev_yield, EV_YIELD, &E);
    met_init(&E);
    copy_init(&E);
    host_cpu_init(&E, E.opt.host_cores ? E.opt.host_cores
                      : sc->host_cores ? sc->host_cores
                                       : m->host_cores);
    for (uint32_t i = 0; i < E.n_procs; i++) {
        Proc *P = &E.procs[i];
        P->spec = g_ptr_array_index(sc->processes, i);
        P->index = i;
        P->streams = g_new0(StreamRt, MAX(P->spec->n_streams, 1));
        P->events = g_new0(EventRt, MAX(P->spec->n_events, 1));
        for (uint32_t e = 0; e < P->spec->n_events; e++)
            P->events[e].done = g_array_new(FALSE, FALSE, sizeof(uint8_t));
        sim_event_init(&P->ev_start, EV_PROC_START, P);
        sim_event_init(&P->ev_host, EV_HOST, P);
        gen_arrivals(&E, P, seed);
    }
    result_init(&E);
    E.sm_defer_ok = sm_defer_allowed(m); /* check_kernels: timer kernels */
    if (!check_kernels(&E, error)) {
        SimResult *r = E.res;
        engine_free(&E);
        sim_result_free(r);
        return NULL;
    }
    for (uint32_t i = 0; i < E.n_procs; i++)
        sim_eventq_schedule(&E.q, &E.procs[i].ev_start,
                            E.procs[i].spec->start_ns);
    if (E.opt.progress)
        E.ops_total = count_gpu_ops(&E);

    /* Stated limits (bounds.h): simulated time and events, so that no
     * workload runs without end; --time-limit-ms, when given, is the
     * user's own (tighter or looser) time limit. */
    RunLimits lim = {
        (SimTime)MIN(sim_limit(SIM_BOUND_SIM_TIME_S), (uint64_t)1 << 33) *
            (SimTime)1000000000,
        sim_limit_events_for(sim_scenario_work(sc)), 0};
    SimEvent *ev;
    while ((ev = sim_eventq_peek(&E.q))) {
        if (over_limits(&E, sc, ev, &lim))
            break;
        g_assert(ev->when >= E.now); /* time never goes backwards */
        E.now = ev->when;
        sim_eventq_pop(&E.q);
        E.n_events++;
        if (E.opt.progress && E.n_events % SIM_PROGRESS_EVENTS == 0) {
            report_progress(&E, false);
            if (E.error)
                break;
        }
        handle(&E, ev);
        if (E.error)
            break;
        SimEvent *nx = sim_eventq_peek(&E.q);
        if (nx && nx->when == E.now)
            continue; /* finish this instant before deciding anything */
        COST(COST_INSTANT);
        E.settling = true; /* SMs in steady state ask (engine_steady.c) */
        settle(&E);
        E.settling = false;
        if (E.n_deferred) /* SM events put off this instant */
            sm_undefer_all(&E);
        if (E.error)
            break;
        if (E.opt.check_invariants) {
            sm_check(&E);
            g_assert(sim_eventq_check(&E.q));
        }
    }
    sim_cost_report();
    if (E.opt.event_budget && lim.taken > E.n_events)
        sim_event_budget_give(E.opt.event_budget, lim.taken - E.n_events);
    if (!E.error) {
        bool stuck = false;
        for (uint32_t i = 0; i < E.n_procs; i++)
            stuck |= E.procs[i].alive;
        if (stuck) {
            g_autoptr(GString) msg = g_string_new(NULL);
            g_string_printf(msg,
                            "%s: deadlock at %.3f ms of simulated time: work "
                            "is left but nothing can run",
                            sc->source, sim_time_to_ms(E.now));
            describe_deadlock(&E, msg);
            E.error =
                g_error_new(SIM_ERROR, SIM_ERROR_DEADLOCK, "%s", msg->str);
        }
    }
    if (!E.error && E.opt.progress)
        report_progress(&E, true);
    SimResult *r = E.res;
    if (E.error) {
        g_propagate_error(error, E.error);
        engine_free(&E);
        sim_result_free(r);
        return NULL;
    }
    result_finish(&E);
    engine_free(&E);
    return r;
}
