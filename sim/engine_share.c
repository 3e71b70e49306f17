/* engine_share.c -- how a process shares the GPU: the sharing modes' names
 * and the three sharing mechanisms as ops tables.
 *
 * A run's mode (SimShareMode: as the scenario says, time-slicing for
 * every process, MPS for every process) has one name table below, used to
 * parse it, to list it in messages and to write it in outputs.
 *
 * Each started process then shares the GPU through one of three
 * mechanisms (ShareOps), picked once from its mode and the model:
 *   own context       its own CUDA context, time-sliced with the others
 *                     (engine_ctx.c), its own queues;
 *   MPS (Volta+)      a client of the one MPS server context: its own
 *                     queues in the server, an SM limit from its active
 *                     thread percentage;
 *   MPS (pre-Volta)   a client of the server whose queues are one pool
 *                     shared by every client, without SM limits.
 * The engine asks the process's ops, never the mode or the architecture:
 * adding a mechanism is one more table here.
 */
#include <math.h>
#include <string.h>

#include "engine_internal.h"
#include "error.h"

/* ------------------------------------------------------------------------
 * Mode names: the one place they are spelled
 * ------------------------------------------------------------------------ */

typedef struct {
    SimShareMode mode;
    const char *name;   /* in outputs, and what parsing accepts */
    const char *alias;  /* also accepted, or NULL */
    const char *what;   /* in --help */
    const char *phrase; /* a sentence's start, in answers */
    int mps;            /* 1: every process an MPS client, 0: none, -1:
                           as each process says */
    bool thread_pct;    /* an active thread percentage applies (a sweep
                           sweeps it) */
} ShareModeName;

/* In the order messages and --help list them. */
static const ShareModeName mode_names[] = {
    {SIM_SHARE_TIMESLICE, "timeslice", "time-slicing", "own contexts",
     "Without MPS (time-sliced)", 0, false},
    {SIM_SHARE_MPS, "mps", NULL, "MPS clients", "Under MPS", 1, true},
    {SIM_SHARE_AS_SCENARIO, "scenario", NULL, "as each process says",
     "As the scenario shares it", -1, true},
};

static const ShareModeName *mode_entry(SimShareMode m)
{
    for (size_t i = 0; i < G_N_ELEMENTS(mode_names); i++)
        if (mode_names[i].mode == m)
            return &mode_names[i];
    return &mode_names[G_N_ELEMENTS(mode_names) - 1]; /* scenario */
}

const char *sim_share_mode_name(SimShareMode m)
{
    return mode_entry(m)->name;
}

const char *sim_share_mode_phrase(SimShareMode m)
{
    return mode_entry(m)->phrase;
}

bool sim_share_mode_mps(SimShareMode m, bool process_mps)
{
    int v = mode_entry(m)->mps;
    return v < 0 ? process_mps : v == 1;
}

bool sim_share_mode_takes_pct(SimShareMode m)
{
    return mode_entry(m)->thread_pct;
}

/* "timeslice, mps or scenario"; with @what, each name's meaning in
 * parentheses. */
static char *mode_list(bool what)
{
    GString *s = g_string_new(NULL);
    size_t n = G_N_ELEMENTS(mode_names);
    for (size_t i = 0; i < n; i++) {
        g_string_append(s, i == 0 ? "" : i + 1 < n ? ", " : " or ");
        g_string_append(s, mode_names[i].name);
        if (what)
            g_string_append_printf(s, " (%s)", mode_names[i].what);
    }
    return g_string_free(s, FALSE);
}

char *sim_share_mode_help(void)
{
    return mode_list(true);
}

bool sim_share_mode_parse(const char *s, SimShareMode *out, GError **error)
{
    for (size_t i = 0; i < G_N_ELEMENTS(mode_names); i++) {
        const ShareModeName *n = &mode_names[i];
        if (!strcmp(s, n->name) || (n->alias && !strcmp(s, n->alias))) {
            *out = n->mode;
            return true;
        }
    }
    g_autofree char *list = mode_list(false);
    g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "unknown mode '%s' (use %s)",
                s, list);
    return false;
}

/* ------------------------------------------------------------------------
 * Own context
 * ------------------------------------------------------------------------ */

static uint32_t own_connections(const GpuModel *m)
{
    return m->connections_default;
}

static bool own_admit(Engine *E, Proc *P, uint64_t *need)
{
    (void)P;
    *need += E->m->context_mem_bytes;
    return true;
}

static const char *own_overhead(const Engine *E)
{
    (void)E;
    return "for its own context";
}

static void own_attach(Engine *E, Proc *P, SimProcResult *r)
{
    P->ctx = eng_ctx_new(E, P->spec->name, false, E->m->context_mem_bytes);
    P->queue_base = 0;
    for (uint32_t i = 0; i < P->connections; i++)
        eng_queue_new(P->ctx);
    r->sm_limit = E->m->sm_count;
    r->active_thread_pct = 100;
}

/* Streams take the process's queues round-robin in order of first use. */
static uint32_t own_map_stream(Proc *P)
{
    return P->queue_base + P->streams_used++ % P->connections;
}

static void own_mark_queues(Engine *E, Proc *P)
{
    for (uint32_t i = 0; i < P->connections; i++)
        eng_mark_queue(E, g_ptr_array_index(P->ctx->queues, P->queue_base + i));
}

/* A fault kills the process alone. */
static void own_fault(Engine *E, Proc *P, const char *kname, const char *own)
{
    (void)kname;
    sim_result_note(E->res,
                    "process '%s': %s (only this process dies: it has "
                    "its own context)",
                    P->spec->name, own);
    eng_kill_proc(E, P, own);
}

/* Nothing on top of the model's own times. */
static void own_costs(const GpuModel *m, ShareCosts *out)
{
    (void)m;
    *out = (ShareCosts){0};
}

/* ------------------------------------------------------------------------
 * MPS clients (both kinds)
 * ------------------------------------------------------------------------ */

/* The model's measured client costs (README, MPS clients): each call
 * crosses into the server, each kernel runs through it. */
static void mps_costs(const GpuModel *m, ShareCosts *out)
{
    *out = (ShareCosts){
        .api_ns = m->mps_client_api_ns,
        .sync_ns = m->mps_client_sync_ns,
        .launch_ns = m->mps_client_launch_ns,
        .node_ns = m->mps_client_node_ns,
        .kernel_ns = m->mps_client_kernel_ns,
        .fetch_ns = m->mps_func_fetch_ns,
        .xreload_ns = m->mps_func_xreload_ns,
        .busy_ns = m->mps_func_busy_ns,
        .fend_ns = m->mps_fend_hold_ns,
        .memload_ns = m->mps_mem_load_ns,
        .memload_half = m->mps_mem_load_half,
        .memload_trip = m->mps_mem_trip_share,
        .l2_evict_bytes = m->l2_evict_mb * 1e6,
        .l2_evict_shape = m->l2_evict_shape,
        .l2_miss_ratio = m->l2_miss_ratio,
        .l2_reuse_share = m->l2_reuse_share,
        .l2_served_default = m->l2_served_default,
        .handoff_ns = m->mps_copy_handoff_ns,
        .evict_ns = m->mps_func_evict_ns,
        .evict_lru = m->mps_func_evict_lru,
    };
}

static bool mps_admit(Engine *E, Proc *P, uint64_t *need)
{
    const GpuModel *m = E->m;
    uint32_t limit = sim_gpu_model_mps_client_limit(m, P->connections);
    if (E->mps_clients >= limit) {
        eng_refuse(E, P,
                   "the MPS server already has %u clients, its limit with "
                   "%u connections per client",
                   E->mps_clients, P->connections);
        return false;
    }
    if (P->spec->mps_mem_limit_bytes && *need > P->spec->mps_mem_limit_bytes) {
        eng_refuse(E, P,
                   "it allocates %.0f MiB, over its MPS memory limit of "
                   "%.0f MiB",
                   *need / 1048576.0, P->spec->mps_mem_limit_bytes / 1048576.0);
        return false;
    }
    *need += m->mps_client_mem_bytes;
    if (!E->mps)
        *need += m->mps_server_mem_bytes;
    return true;
}

static const char *mps_overhead(const Engine *E)
{
    return E->mps ? "for its MPS client"
                  : "for its MPS client and the MPS server";
}

/* The server context, created with its first client: per-client SM
 * accounting, and @pool queues shared by all clients (pre-Volta; 0:
 * each client brings its own). */
static Ctx *mps_server(Engine *E, uint32_t pool)
{
    if (E->mps)
        return E->mps;
    Ctx *c = eng_ctx_new(E, "MPS server", true, E->m->mps_server_mem_bytes);
    for (uint32_t i = 0; i < pool; i++)
        eng_queue_new(c);
    return E->mps = c;
}

/* @P joins the server as its next client. */
static Ctx *mps_join(Engine *E, Proc *P, uint32_t pool)
{
    Ctx *c = mps_server(E, pool);
    P->ctx = c;
    P->client = c->n_clients++;
    E->mps_clients++;
    return c;
}

static double mps_pct(const Engine *E, const Proc *P)
{
    return E->opt.active_thread_pct > 0 ? E->opt.active_thread_pct
                                        : P->spec->active_thread_pct;
}

/* Client @P may hold blocks on at most @cap SMs. */
static void mps_limit(Engine *E, Proc *P, SimProcResult *r, uint32_t cap,
                      double pct)
{
    const GpuModel *m = E->m;
    Ctx *c = P->ctx;
    c->client_cap[P->client] = cap;
    c->limited |= cap < m->sm_count;
    if (cap < m->sm_count && m->mps_sm_assign == SIM_MPS_SMS_STATIC) {
        /* A fixed window of cap SMs in dispatch order; successive
         * clients take successive windows, wrapping around. */
        uint64_t *set = g_new0(uint64_t, E->sm_words);
        for (uint32_t i = 0; i < cap; i++) {
            uint32_t sm = m->dispatch_order[(c->static_next + i) % m->sm_count];
            set[sm / 64] |= 1ull << (sm % 64);
        }
        c->static_next = (c->static_next + cap) % m->sm_count;
        c->client_sms[P->client] = set;
    }
    r->sm_limit = cap;
    r->active_thread_pct = pct;
}

/* A fault in one client is delivered to every client of the server. */
static void mps_fault(Engine *E, Proc *P, const char *kname, const char *own)
{
    g_autofree char *peer = g_strdup_printf(
        "fatal GPU fault in MPS client '%s' (kernel '%s'): the MPS "
        "server delivers it to every client",
        P->spec->name, kname);
    sim_result_note(E->res, "%s", peer);
    for (uint32_t i = 0; i < E->n_procs; i++) {
        Proc *Q = &E->procs[i];
        if (Q->ctx == P->ctx && Q->alive)
            eng_kill_proc(E, Q, Q == P ? own : peer);
    }
}

/* ------------------------------------------------------------------------
 * MPS on Volta and later: own queues, SM limits
 * ------------------------------------------------------------------------ */

static uint32_t volta_connections(const GpuModel *m)
{
    return m->mps_connections_default;
}

static void volta_attach(Engine *E, Proc *P, SimProcResult *r)
{
    const GpuModel *m = E->m;
    Ctx *c = mps_join(E, P, 0);
    double pct = mps_pct(E, P);
    uint32_t cap = m->sm_count;
    if (pct < 100) {
        const GpuModel *full = E->full; /* the whole GPU's limit */
        const uint32_t sms = sim_gpu_model_mps_sm_limit(full, pct);
        cap = eng_sampled_sms(E, sms);
        sim_result_note(E->res,
                        "MPS client '%s': active thread percentage %g%% "
                        "-> %u of %u SMs (rounded %s to whole TPCs of %u)",
                        P->spec->name, pct, sms, full->sm_count,
                        sim_gpu_model_rounding_phrase(full), full->sms_per_tpc);
    }
    mps_limit(E, P, r, cap, pct);
    P->queue_base = c->queues->len;
    for (uint32_t i = 0; i < P->connections; i++)
        eng_queue_new(c);
}

/* ------------------------------------------------------------------------
 * MPS before Volta: one pool of queues for all clients, no SM limits
 * ------------------------------------------------------------------------ */

static void prevolta_attach(Engine *E, Proc *P, SimProcResult *r)
{
    const GpuModel *m = E->m;
    Ctx *c = mps_join(E, P, m->connections_default);
    double pct = mps_pct(E, P);
    if (pct < 100)
        sim_result_note(E->res,
                        "%s: pre-Volta MPS has no active thread "
                        "percentage; '%s' may use every SM",
                        m->name, P->spec->name);
    mps_limit(E, P, r, m->sm_count, pct);
    P->connections = c->queues->len;
    P->queue_base = 0;
}

/* The pool's queues round-robin over all clients' streams, in order of
 * first use: a client continues the server's count. */
static uint32_t prevolta_map_stream(Proc *P)
{
    Ctx *c = P->ctx;
    return c->streams_mapped++ % c->queues->len;
}

static void prevolta_mark_queues(Engine *E, Proc *P)
{
    Ctx *c = P->ctx;
    for (guint i = 0; i < c->queues->len; i++)
        eng_mark_queue(E, g_ptr_array_index(c->queues, i));
}

/* ------------------------------------------------------------------------
 * The tables
 * ------------------------------------------------------------------------ */

const ShareOps share_own = {
    .name = "own context",
    .mps = false,
    .default_connections = own_connections,
    .admit = own_admit,
    .overhead = own_overhead,
    .attach = own_attach,
    .map_stream = own_map_stream,
    .mark_queues = own_mark_queues,
    .fault = own_fault,
    .costs = own_costs,
};

const ShareOps share_mps_volta = {
    .name = "MPS (Volta+)",
    .mps = true,
    .default_connections = volta_connections,
    .admit = mps_admit,
    .overhead = mps_overhead,
    .attach = volta_attach,
    .map_stream = own_map_stream,
    .mark_queues = own_mark_queues,
    .fault = mps_fault,
    .costs = mps_costs,
};

const ShareOps share_mps_prevolta = {
    .name = "MPS (pre-Volta)",
    .mps = true,
    .default_connections = own_connections,
    .admit = mps_admit,
    .overhead = mps_overhead,
    .attach = prevolta_attach,
    .map_stream = prevolta_map_stream,
    .mark_queues = prevolta_mark_queues,
    .fault = mps_fault,
    .costs = mps_costs,
};

const ShareOps *share_ops_for(Engine *E, const Proc *P)
{
    const GpuModel *m = E->m;
    if (!sim_share_mode_mps(E->opt.mode, P->spec->mps))
        return &share_own;
    if (!m->mps_supported) {
        sim_result_note(E->res,
                        "%s does not support MPS: '%s' runs in its "
                        "own context",
                        m->name, P->spec->name);
        return &share_own;
    }
    return m->mps_volta ? &share_mps_volta : &share_mps_prevolta;
}

/* ------------------------------------------------------------------------
 * A client's cost per kernel, and the function fetch
 * ------------------------------------------------------------------------
 *
 * Measured on the H100 (FINDINGS §31 and its addendum, mpspct/var/
 * funcmem*): a lone MPS client's 1-block kernels cost what they cost in a
 * context of their own; a kernel of >= 2 blocks pays mps_client_kernel.
 * A graph-launched kernel of >= 2 blocks right after the client's 1-block
 * kernel pays more when its function is more than ~4 distinct functions
 * old in that client, none after a wide kernel, most of it gone with
 * stream launches; it grows with the memory system's load.  Read as a
 * fetch of the function's state that the narrow kernel's idle SMs must
 * make through the memory system: mps_func_fetch x w(d) x L(P), w a table
 * of the model by LRU distance d, L the loaded DRAM latency at the
 * kernel's own pressure alone plus its context's now (engine_dram.c).
 * Function identity is the kernel's name, as traces give it.
 *
 * PyTorch's own kernels (FINDINGS §55, mpspct/lone/: graphs of 1-block
 * elementwise kernels cycling through 1 / 8 / 16 distinct functions) pay
 * nothing at d = 7, where the probe kernels pay the whole fetch, and
 * ~0.2 us each at d = 15, 1-block kernels too: mps_func_evict, charged on
 * every graph kernel node at d >= mps_func_evict_lru.  Read as per-function
 * state the client keeps for a limited number of functions (the probes'
 * larger functions exhausting it sooner: a capacity in bytes, not
 * measured); the two terms are kept apart because hqsim knows no code
 * sizes.
 */

uint32_t eng_func_lru_touch(FuncLru *lru, const char *name)
{
    uint32_t d = 0;
    while (d < lru->n && lru->names[d] != name &&
           !(name && lru->names[d] && strcmp(lru->names[d], name) == 0))
        d++;
    uint32_t dist = d < lru->n ? d : SIM_MAX_FUNC_LRU;
    if (d == lru->n && lru->n < SIM_MAX_FUNC_LRU)
        lru->n++;
    if (d == lru->n) /* full and not found: the oldest drops out */
        d--;
    memmove(&lru->names[1], &lru->names[0], d * sizeof lru->names[0]);
    lru->names[0] = name;
    return dist;
}

double eng_func_weight(const GpuModel *m, uint32_t d)
{
    uint32_t n = m->n_mps_func_lru_weight;
    return n ? m->mps_func_lru_weight[MIN(d, n - 1)] : 0.0;
}

/* A fetch of weight @x (w(d) x L(P)) by @P marks every other client of
 * its server: their next kernel pays mps_func_xreload x the largest mark
 * (FINDINGS §37: a 1-block neighbour's graph nodes lose
 * ~0.85 us per reload of a streaming client on 8 functions, burst2
 * b8F8; the same client on one function costs only the DRAM term).  A
 * largest, not a sum: the neighbours' reloads in one gap cost once. */
static void xreload_mark(const Engine *E, const Proc *P, double x)
{
    for (uint32_t i = 0; i < E->n_procs; i++) {
        Proc *Q = &E->procs[i];
        if (Q != P && Q->ctx == P->ctx && Q->cost.xreload_ns)
            Q->xreload = MAX(Q->xreload, x);
    }
}

/* What the other clients' fetches since @P's last kernel cost it now. */
static SimTime xreload_take(Proc *P)
{
    SimTime t = (SimTime)llround((double)P->cost.xreload_ns * P->xreload);
    P->xreload = 0;
    return t;
}

/* The LRU distance of (@owner, @name) among the server's pairs, which
 * then becomes the most recent (as eng_func_lru_touch). */
static uint32_t srv_lru_touch(SrvFuncLru *lru, const void *owner,
                              const char *name)
{
    uint32_t d = 0;
    while (d < lru->n &&
           !(lru->owners[d] == owner &&
             (lru->names[d] == name ||
              (name && lru->names[d] && strcmp(lru->names[d], name) == 0))))
        d++;
    uint32_t dist = d < lru->n ? d : SIM_MAX_FUNC_LRU;
    if (d == lru->n && lru->n < SIM_MAX_FUNC_LRU)
        lru->n++;
    if (d == lru->n)
        d--;
    memmove(&lru->names[1], &lru->names[0], d * sizeof lru->names[0]);
    memmove(&lru->owners[1], &lru->owners[0], d * sizeof lru->owners[0]);
    lru->names[0] = name;
    lru->owners[0] = owner;
    return dist;
}

/* Whether a kernel of another client of @P's server is running now (a
 * block placed, not complete).  Not "work issued": a neighbour between
 * requests, in its copies or between its graph nodes holds no SM and
 * costs nothing (FINDINGS §52: the decoders' and resnet50's neighbours
 * spend part of each request so; issued work charged them all). */
static bool others_running(const Engine *E, const Proc *P)
{
    for (uint32_t i = 0; i < E->n_procs; i++) {
        const Proc *Q = &E->procs[i];
        if (Q != P && Q->ctx == P->ctx && Q->kernels_running)
            return true;
    }
    return false;
}

/* A graph node's own reload beside busy clients (FINDINGS §43,
 * mpspct/var/funcn): any width pays, by its function's distance @ds among
 * the server's (client, function) pairs; an idle neighbour costs nothing,
 * stream launches nothing (their funcn rows: F8 = F1). */
static SimTime busy_reload(const Engine *E, const KernelRt *k, uint32_t ds)
{
    const Proc *P = k->proc;
    double w = eng_func_weight(E->m, ds);
    if (!k->inst->gnode || w <= 0 || !others_running(E, P))
        return 0;
    return (SimTime)llround((double)P->cost.busy_ns * w);
}

/* What of one round trip of @k's block is lost to the other clients'
 * DRAM stream (FINDINGS §67, §69), as a share of the trip's mean time
 * alone.  A line survives in L2 until the bytes brought in after its last
 * use reach the cache's effective size: H200 pointer chases (16 and 132
 * blocks, 2-16 MiB walked, beside 109-1015 GB/s) lost the share 1 -
 * exp(-(X / C)^s) of their hits, X = the neighbour's bytes per second x
 * the interval between two uses of a line, whatever the buffer and the
 * rate.  A kernel's interval is taken as l2_reuse_share of its block's
 * time alone (@T ns); R_bytes are the others' bytes per second; a lost
 * hit waits the miss latency instead (l2_miss_ratio hits' worth).
 * Known defect, off in every model: the caller passes the others' summed
 * DRAM pressure x the achievable bandwidth as R_bytes, which exceeds their
 * bytes per second once pressure passes the curve's knee (by 5% at the
 * chase's heaviest neighbour, 2.6x at 0.9), while l2_evict_mb was fitted
 * on measured bytes: convert before turning this on (review rev22b). */
static double l2_trip_loss(const ShareCosts *c, const SimKernelSpec *ks,
                           double T, double R_bytes)
{
    double h = ks->has_l2_served ? ks->l2_served : c->l2_served_default;
    double X = R_bytes * c->l2_reuse_share * T * 1e-9;
    double loss = 1.0 - exp(-pow(X / c->l2_evict_bytes, c->l2_evict_shape));
    double m = c->l2_miss_ratio;
    return h * loss * (m - 1.0) / (h + (1.0 - h) * m);
}

/* The other clients' load on the memory path when @P's kernel is launched
 * (FINDINGS §54, §60: beside a second decoder or a neighbour graph at a
 * decoder's launch rate every decoder kernel, 1-block or wide, grew by
 * about the same microseconds).  Two parts:
 * - the launch front end: the rest of the fend hold that the other
 *   clients' last kernel launch keeps it (a spinning neighbour at ~250k
 *   kernels/s costs, one at 535/s nothing).  Not a queue: the victim's
 *   own launch holds nobody, so N clients' waits saturate at the hold;
 * - the memory path: memload x R / (R + half), R the DRAM pressure of the
 *   other clients' resident blocks: present far below saturation (111
 *   GB/s of reads gives most of what 357 GB/s does) and the same for a
 *   few long kernels as for many short ones at equal bytes.  Above that
 *   the loaded latency of engine_dram.c takes over.  Paid by the kernel's
 *   own memory accesses: a fixed-time kernel (wall_clock, self_timed: a
 *   timer spin, which engine_dram.c leaves unslowed too) pays none
 *   (FINDINGS §62: VT's spin nodes beside §32's streaming clients grow
 *   +0.22 / +0.25 us measured, which hqsim gives without the term and
 *   doubles with it).  And paid per dependent memory round trip (FINDINGS
 *   §65: encoder b1's 16-block attention kernel grew 1.54x, its short
 *   kernels as the decoder's): memload_trip more of the share of its
 *   block's time that waits.  Paid inside the kernel, by the blocks it
 *   first places on each SM (k->first), resident: as a start delay the
 *   kernel placed its blocks after the neighbours' had drained and spread
 *   wider (encoder b1 4 x 50% came out faster with the wait than without).
 * The launch part is the start delay returned; the memory part goes into
 * @k. */
static SimTime memload_wait(const Engine *E, Proc *P, KernelRt *k)
{
    const SimKernelSpec *ks = &k->inst->op->u.kernel;
    const ShareCosts *c = &P->cost;
    SimTime held = 0;
    double R = 0;
    for (uint32_t i = 0; i < E->n_procs; i++) {
        const Proc *Q = &E->procs[i];
        if (Q == P || Q->ctx != P->ctx)
            continue;
        if (Q->last_blocks && Q->last_launch + c->fend_ns > held)
            held = Q->last_launch + c->fend_ns;
        R += Q->dram_pressure;
    }
    P->last_launch = E->now;
    bool fixed = ks->wall_clock || ks->self_timed;
    /* one round trip per kernel, and the block's chain of them: k->work
     * is its block's time alone (per wave), of which the share its SM
     * does not issue (its measured issue share below the ceiling; all of
     * it without one) waits on them, each that much longer (FINDINGS §65) */
    double busy = ks->sm_intensity > 0 && E->m->sm_issue_share_max > 0
                      ? ks->sm_intensity / E->m->sm_issue_share_max
                      : 0.0;
    /* in the L2 form, an SM whose busiest pipe (a tensor-core kernel's
     * matrix pipe) is busier than its issue slots waits only the rest of
     * the time: part L's convolution, issue share 0.235 and pipe 0.738,
     * does not wait 76% of its block's time (FINDINGS §65, §69) */
    if (c->l2_evict_bytes > 0)
        busy = MAX(busy, ks->sm_pipe_share);
    double waiting = ks->sm_intensity > 0 && E->m->sm_issue_share_max > 0
                         ? MAX(0.0, 1.0 - busy)
                         : 1.0;
    double per_trip = c->memload_trip;
    if (c->l2_evict_bytes > 0 && R > 0)
        per_trip *=
            l2_trip_loss(c, ks, k->work, R * E->m->dram_achievable_gbps * 1e9);
    double trips = (double)c->memload_ns + per_trip * waiting * k->work;
    double mem = R > 0 && !fixed ? trips * R / (R + c->memload_half) : 0;
    /* inside the kernel: its first blocks on each SM wait, resident */
    k->first += (double)llround(mem);
    return held > E->now ? held - E->now : 0;
}

SimTime eng_share_kernel_cost(const Engine *E, KernelRt *k)
{
    Proc *P = k->proc;
    const ShareCosts *c = &P->cost;
    if (!c->kernel_ns && !c->fetch_ns && !c->xreload_ns && !c->busy_ns &&
        !c->fend_ns && !c->memload_ns && !c->memload_trip && !c->evict_ns)
        return 0; /* a context of its own: nothing to track */
    const char *name = k->inst->op->u.kernel.name;
    bool lru_full = P->funcs.n == SIM_MAX_FUNC_LRU;
    uint32_t d = eng_func_lru_touch(&P->funcs, name);
    /* not found with room left: run for the first time, nothing evicted;
     * not found in a full LRU: at least SIM_MAX_FUNC_LRU back (or a first
     * run, which the LRU cannot tell apart: it pays too) */
    bool evicted = d < SIM_MAX_FUNC_LRU ? d >= c->evict_lru : lru_full;
    bool after_narrow = P->last_blocks == 1;
    P->last_blocks = k->blocks;
    SimTime t = xreload_take(P);
    if (c->busy_ns)
        t += busy_reload(E, k, srv_lru_touch(&P->ctx->funcs, P, name));
    if (c->evict_ns && k->inst->gnode && evicted)
        t += c->evict_ns;
    if (c->fend_ns || c->memload_ns || c->memload_trip > 0)
        t += memload_wait(E, P, k);
    if (k->blocks < 2)
        return t;
    t += c->kernel_ns;
    double w = eng_func_weight(E->m, d);
    if (after_narrow && k->inst->gnode && c->fetch_ns && w > 0) {
        double L = dram_launch_load(E, P->ctx, k);
        t += (SimTime)llround((double)c->fetch_ns * w * L);
        xreload_mark(E, P, w * L);
    }
    return t;
}
