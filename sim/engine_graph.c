/* engine_graph.c -- CUDA graphs: one host call launches a DAG of kernels,
 * copies and memsets on one stream.
 *
 * The graph op goes through its stream and hardware queue like a kernel
 * (engine.c): when it reaches the head of its queue and its stream
 * predecessor is done, graph_start() takes it out of the queue and its
 * root nodes start graph_launch_latency later (graph_wait_latency if the
 * graph was already waiting there for its predecessor: measured apart).
 * From then on the nodes follow their own dependencies, not the stream:
 * a node starts once every node it runs after has ended, plus the
 * device-side spacing of that transition (graph_spacing()), so parallel
 * branches run concurrently.  Nodes made ready at the same instant start
 * graph_branch_stagger apart (the front end launches them one by one).
 * A kernel node takes a resident-grid slot (waiting, FIFO per context, if
 * none is free) and is admitted at once: its launch latency is in the
 * spacing.  A copy or memset node goes to the copy engines.
 *
 * Each node runs as an OpInst of its own (gnode set, not in its stream's
 * order, on the process's live list so faults and teardown treat it like
 * any kernel or copy); the graph op completes -- for its stream, syncs and
 * the host -- when its last node ends.
 *
 * Invariant: a NodeRt is in exactly one of: waiting for dependencies
 * (deps_left > 0), scheduled (ev pending), waiting for a grid slot
 * (on ctx->grid_wait), running (inst != NULL), done.
 */
#include <string.h>

#include "engine_internal.h"

struct NodeRt {
    GraphRt *g;
    uint32_t index;
    uint32_t deps_left;
    SimTime ready;     /* latest dependency end + its spacing */
    SimEvent ev;       /* EV_GNODE */
    NodeRt *wait_next; /* ctx->grid_wait link */
    bool waiting;      /* on ctx->grid_wait */
    bool done;
};

struct GraphRt {
    OpInst *inst; /* the graph op's instance */
    const SimGraph *spec;
    uint32_t left; /* nodes not done */
    NodeRt nodes[];
};

/* Whether @n is a memset the GPU enters and leaves slowly: on an H100 a
 * memset node of up to 4 KiB costs 0.86-0.90 us before it and 2.6-3.2 us
 * after it, one of 6 KiB or more (to 1 MiB) 0.06-0.13 us either side, as
 * kernel nodes do in the same graphs (harness/graph_spacing.py, FINDINGS.md
 * §35): the larger ones presumably run as kernels. */
static bool slow_memset(const GpuModel *m, const SimGraph *g,
                        const SimGraphNode *n)
{
    /* Without the profiler those spacings are not there (FINDINGS §61:
     * resnet50 b1's unprofiled span, predicted within 0.2 us) */
    return !g->unprofiled && n->kind == SIM_NODE_MEMSET &&
           n->op.u.copy.bytes <= m->graph_memset_slow_max_bytes;
}

/* Device-side spacing between node @from ending and node @to starting:
 * the model measures small memsets apart (their entry and exit cost
 * more than a kernel's); kernels, copies and large memsets share the kernel spacing, which
 * is shorter once the GPU has switched between contexts (measured on an
 * H100: a graph's span drops 0.33 us per kernel transition while another
 * context takes turns, and stays down while that one idles; a lone
 * context's does not, queued or not: FINDINGS.md §33).  The front end waits
 * longer on a loaded DRAM (dram_launch_delay, FINDINGS §25: a compute-only
 * node's gap grows near DRAM saturation). */
static SimTime graph_spacing(const Engine *E, const Proc *P, const SimGraph *g,
                             const SimGraphNode *from, const SimGraphNode *to)
{
    const GpuModel *m = E->m;
    SimTime kk =
        E->sliced ? m->graph_node_spacing_sliced_ns : m->graph_node_spacing_ns;
    SimTime t = slow_memset(m, g, from) ? m->graph_from_memset_ns
                : slow_memset(m, g, to) ? m->graph_to_memset_ns
                                        : kk;
    return t + P->cost.node_ns + dram_launch_delay(E, P->ctx);
}

static void schedule_node(Engine *E, NodeRt *n, SimTime when)
{
    sim_eventq_schedule(&E->q, &n->ev, MAX(when, E->now));
}

void graph_start(Engine *E, OpInst *in)
{
    const SimGraph *spec = in->op->u.graph;
    GraphRt *g = g_malloc0(sizeof *g + spec->n_nodes * sizeof(NodeRt));
    g->inst = in;
    g->spec = spec;
    g->left = spec->n_nodes;
    in->graph = g;
    in->state = INST_GRAPH;
    in->start = SIM_TIME_NEVER;
    /* The context has work until the last node ends (engine_ctx.c). */
    Ctx *c = in->proc->ctx;
    c->graphs++;
    ctx_work_arrived(E, c);
    /* Visible at an idle queue head (the queue's event fired at
     * `visible`) or waiting there for its predecessor: measured apart. */
    SimTime lat = E->now > in->visible ? E->m->graph_wait_latency_ns
                                       : E->m->graph_launch_latency_ns;
    uint32_t roots = 0;
    for (uint32_t i = 0; i < spec->n_nodes; i++) {
        NodeRt *n = &g->nodes[i];
        n->g = g;
        n->index = i;
        n->deps_left = spec->nodes[i].n_deps;
        sim_event_init(&n->ev, EV_GNODE, n);
        if (n->deps_left == 0)
            schedule_node(
                E, n, E->now + lat + roots++ * E->m->graph_branch_stagger_ns);
    }
}

/* The node's own instance, recorded as a kernel or copy of the graph op. */
static OpInst *node_inst(Engine *E, NodeRt *n)
{
    OpInst *g = n->g->inst;
    Proc *P = g->proc;
    const SimOp *op = &n->g->spec->nodes[n->index].op;
    OpInst *in = eng_inst_new(E);
    in->op = op;
    in->proc = P;
    in->op_index = g->op_index;
    in->iteration = g->iteration;
    in->issue = g->issue;
    in->visible = E->now;
    in->queue = g->queue;
    in->gnode = n;
    in->node = n->index;
    in->scale = eng_node_scale(E, g, n->index, op);
    if (E->opt.record_ops)
        eng_record_new(E, in,
                       n->g->spec->nodes[n->index].kind == SIM_NODE_MEMSET
                           ? "memset"
                           : NULL);
    eng_live_link(P, in);
    if (g->start == SIM_TIME_NEVER)
        g->start = E->now;
    return in;
}

static void launch_node(Engine *E, NodeRt *n)
{
    OpInst *in = node_inst(E, n);
    if (in->op->kind == SIM_OP_KERNEL)
        eng_launch_kernel(E, in, 0); /* the spacing was its latency */
    else
        copy_submit(E, in);
}

void graph_node_event(Engine *E, NodeRt *n)
{
    Ctx *c = n->g->inst->proc->ctx;
    const SimOp *op = &n->g->spec->nodes[n->index].op;
    if (op->kind == SIM_OP_KERNEL &&
        (c->grid_wait || c->resident >= E->m->max_resident_grids)) {
        n->waiting = true;
        n->wait_next = NULL;
        if (c->grid_wait_tail)
            c->grid_wait_tail->wait_next = n;
        else
            c->grid_wait = n;
        c->grid_wait_tail = n;
        return;
    }
    launch_node(E, n);
}

void graph_grid_freed(Engine *E, Ctx *c)
{
    while (c->grid_wait && c->resident < E->m->max_resident_grids) {
        NodeRt *n = c->grid_wait;
        c->grid_wait = n->wait_next;
        if (!c->grid_wait)
            c->grid_wait_tail = NULL;
        n->waiting = false;
        launch_node(E, n);
    }
}

void graph_node_done(Engine *E, OpInst *node_inst)
{
    NodeRt *n = node_inst->gnode;
    GraphRt *g = n->g;
    const SimGraph *spec = g->spec;
    Proc *P = g->inst->proc;
    n->done = true;
    const SimGraphNode *from = &spec->nodes[n->index];
    uint32_t released = 0;
    for (uint32_t s = spec->succ_off[n->index];
         s < spec->succ_off[n->index + 1]; s++) {
        NodeRt *x = &g->nodes[spec->succ[s]];
        SimTime t =
            E->now + graph_spacing(E, P, spec, from, &spec->nodes[x->index]);
        x->ready = MAX(x->ready, t);
        if (--x->deps_left == 0)
            schedule_node(
                E, x, x->ready + released++ * E->m->graph_branch_stagger_ns);
    }
    if (--g->left > 0)
        return;
    /* The last node: the graph op completes for its stream and host. */
    OpInst *in = g->inst;
    in->graph = NULL;
    g_free(g);
    Ctx *c = P->ctx;
    c->graphs--;
    eng_op_complete(E, in);
    ctx_became_idle(E, c); /* if that was its last work */
}

/* Stop a killed process's graph: pending node starts, grid-slot waits.
 * Its running nodes are killed as kernels and copies of the process. */
void graph_kill(Engine *E, OpInst *in)
{
    graph_rt_free(E, in->graph);
    in->graph = NULL;
}

void graph_rt_free(Engine *E, GraphRt *g)
{
    Ctx *c = g->inst->proc->ctx;
    c->graphs--;
    for (uint32_t i = 0; i < g->spec->n_nodes; i++) {
        NodeRt *n = &g->nodes[i];
        sim_eventq_cancel(&E->q, &n->ev);
        if (!n->waiting)
            continue;
        /* unlink from the context's FIFO */
        NodeRt **pp = &c->grid_wait, *prev = NULL;
        while (*pp && *pp != n) {
            prev = *pp;
            pp = &(*pp)->wait_next;
        }
        if (*pp) {
            *pp = n->wait_next;
            if (c->grid_wait_tail == n)
                c->grid_wait_tail = prev;
        }
    }
    g_free(g);
}
