/* engine_sm.c -- SMs: resource accounting, block dispatch, contention.
 *
 * Dispatch (gpu-scheduling-rules.md S5-S8).  Each context keeps its admitted
 * kernels in one list ordered by (stream priority, admission order).  The
 * dispatcher walks it from the front and places blocks of a kernel while some
 * SM it may use can hold one more; a kernel that still has blocks left stops
 * the walk (the leftover policy: later kernels get SMs only once every
 * earlier kernel is fully dispatched) -- unless what stops it is its own MPS
 * SM limit, which holds back only that client.  Which SM gets the next block
 * is the placement policy, a small ops table chosen by the model.
 *
 * Contention.  A block asks for a share `demand` of its SM's issue capacity:
 * the kernel's SM intensity (given, or its resident warps over the model's
 * sm_saturation_warps) divided by the number of its blocks that share an SM
 * when it runs alone.  An SM whose resident blocks together ask for more
 * than 1 serves all of them at rate 1/load; otherwise every block runs at
 * full speed.  By construction a kernel alone never overloads an SM, so it
 * reproduces its given duration exactly: duration = waves x block work.
 * Co-resident latency-bound blocks (small demand) overlap for free; busy
 * ones slow each other down in proportion.
 *
 * Cost: blocks placed together on one SM are one Group; an SM has one
 * pending event (its earliest group completion), so a wave of a kernel
 * costs one event per SM, not per block.
 */
#include <math.h>
#include <string.h>

#include "engine_internal.h"
#include "error.h"

#define WORK_EPS 1e-3 /* ns of work: a group with less left is done */

/* ------------------------------------------------------------------------
 * Per-SM resources
 * ------------------------------------------------------------------------ */

static uint32_t reg_warp_slots(const Engine *E, const SmRt *sm, uint32_t rpw)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < E->m->reg_subpartitions; s++)
        n += rpw ? sm->free_regs[s] / rpw : 64;
    return n;
}

/* How many more blocks with @nd fit on @sm right now. */
static uint32_t sm_fit(const Engine *E, const SmRt *sm, const SimBlockNeeds *nd)
{
    uint32_t fit = sm->free_blocks;
    fit = MIN(fit, sm->free_warps / nd->warps);
    if (nd->smem_bytes)
        fit = MIN(fit, sm->free_smem / nd->smem_bytes);
    if (fit == 0)
        return 0;
    return MIN(fit, reg_warp_slots(E, sm, nd->regs_per_warp) / nd->warps);
}

static double sm_rate(const SmRt *sm)
{
    return sm->load > 1.0 ? 1.0 / sm->load : 1.0;
}

/* Account progress of every resident group up to now. */
static void sm_advance(Engine *E, SmRt *sm)
{
    if (sm->last >= E->now) {
        sm->last = E->now;
        return;
    }
    if (!sm->ctx->frozen && sm->groups) {
        double d = (double)(E->now - sm->last) * sm_rate(sm);
        for (Group *g = sm->groups; g; g = g->next)
            g->remaining -= d;
    }
    sm->last = E->now;
}

static void sm_reschedule(Engine *E, SmRt *sm)
{
    if (sm->ctx->frozen || !sm->groups) {
        sim_eventq_cancel(&E->q, &sm->ev);
        return;
    }
    double min = INFINITY;
    for (Group *g = sm->groups; g; g = g->next)
        min = MIN(min, g->remaining);
    double dt = min > 0 ? ceil(min / sm_rate(sm)) : 0;
    sim_eventq_schedule(&E->q, &sm->ev, E->now + (SimTime)dt);
}

static bool sm_visible(const Engine *E, const SmRt *sm)
{
    return E->phase == GPU_RUN || E->phase == GPU_DRAIN
               ? E->cur == sm->ctx
               : false;
}

static void sm_set_warps(Engine *E, SmRt *sm, uint32_t warps)
{
    sm->warps = warps;
    if (sm_visible(E, sm))
        met_sm_warps(E, sm->id, warps);
}

static Group *group_new(Engine *E)
{
    Group *g = E->group_free;
    if (g)
        E->group_free = g->next;
    else
        g = g_new(Group, 1);
    memset(g, 0, sizeof *g);
    return g;
}

static void group_release(Engine *E, Group *g)
{
    g->next = E->group_free;
    E->group_free = g;
}

/* Take the resources of @n blocks of @k on @sm and add them as a group. */
static void sm_place(Engine *E, SmRt *sm, KernelRt *k, uint32_t n)
{
    const SimBlockNeeds *nd = &k->needs;
    sm_advance(E, sm);
    Group *g = NULL;
    /* Blocks of the same kernel placed on this SM at this instant merge. */
    for (Group *h = sm->groups; h; h = h->next)
        if (h->k == k && h->placed == E->now) {
            g = h;
            break;
        }
    if (!g) {
        g = group_new(E);
        g->k = k;
        g->remaining = k->work;
        g->placed = E->now;
        g->next = sm->groups;
        sm->groups = g;
    }
    g->count += n;
    sm->free_blocks -= n;
    sm->free_warps -= n * nd->warps;
    sm->free_smem -= n * nd->smem_bytes;
    /* Warps go one by one to the register sub-partition with the most
     * registers free (as the hardware spreads warps over schedulers). */
    uint32_t P = E->m->reg_subpartitions;
    for (uint32_t w = 0; w < n * nd->warps; w++) {
        uint32_t best = 0;
        for (uint32_t s = 1; s < P; s++)
            if (sm->free_regs[s] > sm->free_regs[best])
                best = s;
        g_assert(sm->free_regs[best] >= nd->regs_per_warp);
        sm->free_regs[best] -= nd->regs_per_warp;
        g->sub_warps[best]++;
    }
    sm->load += n * k->demand;
    sm->ctx->resident_blocks += n;
    if (sm->client_blocks) {
        uint32_t c = k->proc->client;
        if (sm->client_blocks[c] == 0)
            sm->ctx->client_in_use[c]++;
        sm->client_blocks[c] += n;
    }
    sm_set_warps(E, sm, sm->warps + n * nd->warps);
    if (!(k->smset[sm->id / 64] & (1ull << (sm->id % 64)))) {
        k->smset[sm->id / 64] |= 1ull << (sm->id % 64);
        k->sms_used++;
    }
    k->dispatched += n;
    if (k->start == SIM_TIME_NEVER) {
        k->start = E->now;
        SimOpRecord *r = eng_record(E, k->inst);
        if (r)
            r->start_ns = E->now;
        met_kernel_started(E);
        if (k->inst->op->u.kernel.faults && !k->faulted) {
            k->faulted = true;
            g_ptr_array_add(E->faults, k);
        }
    }
    sm_reschedule(E, sm);
}

/* Give back a group's resources (it completed or was killed). */
static void sm_unplace(Engine *E, SmRt *sm, Group *g)
{
    KernelRt *k = g->k;
    const SimBlockNeeds *nd = &k->needs;
    sm->free_blocks += g->count;
    sm->free_warps += g->count * nd->warps;
    sm->free_smem += g->count * nd->smem_bytes;
    for (uint32_t s = 0; s < E->m->reg_subpartitions; s++)
        sm->free_regs[s] += g->sub_warps[s] * nd->regs_per_warp;
    sm->load -= g->count * k->demand;
    if (sm->load < 1e-9)
        sm->load = 0; /* no drift below zero from repeated float sums */
    sm->ctx->resident_blocks -= g->count;
    if (sm->client_blocks) {
        uint32_t c = k->proc->client;
        sm->client_blocks[c] -= g->count;
        if (sm->client_blocks[c] == 0)
            sm->ctx->client_in_use[c]--;
    }
    sm_set_warps(E, sm, sm->warps - g->count * nd->warps);
}

void sm_init_ctx(Engine *E, Ctx *c)
{
    const GpuModel *m = E->m;
    c->sms = g_new0(SmRt, m->sm_count);
    for (uint32_t i = 0; i < m->sm_count; i++) {
        SmRt *sm = &c->sms[i];
        sm->ctx = c;
        sm->id = i;
        sm->free_warps = m->max_warps_per_sm;
        sm->free_blocks = m->max_blocks_per_sm;
        sm->free_smem = m->smem_per_sm_bytes;
        for (uint32_t s = 0; s < m->reg_subpartitions; s++)
            sm->free_regs[s] = m->regs_per_sm / m->reg_subpartitions;
        sim_event_init(&sm->ev, EV_SM, sm);
        if (c->mps_server)
            sm->client_blocks = g_new0(uint16_t, m->mps_max_clients + 1);
    }
}

void sm_free_ctx(Engine *E, Ctx *c)
{
    for (uint32_t i = 0; i < E->m->sm_count; i++) {
        SmRt *sm = &c->sms[i];
        sim_eventq_cancel(&E->q, &sm->ev);
        while (sm->groups) {
            Group *g = sm->groups;
            sm->groups = g->next;
            g_free(g);
        }
        g_free(sm->client_blocks);
    }
    g_free(c->sms);
}

/* ------------------------------------------------------------------------
 * Kernels
 * ------------------------------------------------------------------------ */

bool sm_prepare_kernel(Engine *E, KernelRt *k, GError **error)
{
    const GpuModel *m = E->m;
    const SimKernelSpec *ks = &k->inst->op->u.kernel;
    SimOccupancy occ;
    if (!sim_occupancy(m, ks, &occ, error))
        return false;
    if (occ.blocks_per_sm == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_NOFIT,
                    "kernel '%s' fits on no SM of %s (limited by %s)",
                    ks->name, m->name, sim_occ_limit_name(occ.limiter));
        return false;
    }
    k->needs = occ.needs;
    k->blocks = sim_kernel_blocks(ks);
    uint64_t o = occ.blocks_per_sm;
    uint64_t S = m->sm_count;
    /* Blocks of this kernel that share one SM when it runs alone. */
    uint64_t per_sm = m->placement == SIM_PLACE_FILL_FIRST
                          ? MIN(o, k->blocks)
                          : MIN(o, (k->blocks + S - 1) / S);
    uint64_t waves = (k->blocks + S * o - 1) / (S * o);
    k->work = ks->duration_ns ? (double)ks->duration_ns / (double)waves
                              : (double)ks->block_time_ns;
    double intensity = ks->sm_intensity > 0
                           ? ks->sm_intensity
                           : MIN(1.0, (double)(per_sm * occ.needs.warps) /
                                          m->sm_saturation_warps);
    k->demand = intensity / (double)per_sm;
    k->start = SIM_TIME_NEVER;
    k->smset = g_new0(uint64_t, E->sm_words);
    return true;
}

void sm_kernel_free(KernelRt *k)
{
    g_free(k->smset);
    g_free(k);
}

static bool pend_before(const KernelRt *a, const KernelRt *b)
{
    return a->priority < b->priority ||
           (a->priority == b->priority && a->admit_seq < b->admit_seq);
}

void sm_pending_insert(Ctx *c, KernelRt *k)
{
    /* Admission order is increasing, so scan from the tail: O(1) unless a
     * higher-priority kernel overtakes lower-priority ones. */
    KernelRt *after = c->pend_tail;
    while (after && pend_before(k, after))
        after = after->prev;
    k->prev = after;
    k->next = after ? after->next : c->pend_head;
    if (k->next)
        k->next->prev = k;
    else
        c->pend_tail = k;
    if (after)
        after->next = k;
    else
        c->pend_head = k;
    k->in_pending = true;
}

void sm_pending_remove(Ctx *c, KernelRt *k)
{
    if (!k->in_pending)
        return;
    if (k->prev)
        k->prev->next = k->next;
    else
        c->pend_head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        c->pend_tail = k->prev;
    k->prev = k->next = NULL;
    k->in_pending = false;
}

/* ------------------------------------------------------------------------
 * Placement policies
 * ------------------------------------------------------------------------ */

/* Which SMs a kernel may use: all, or under an MPS SM limit those already
 * holding its client's blocks plus new ones while under the cap. */
static bool sm_allowed(const Ctx *c, const KernelRt *k, const SmRt *sm)
{
    if (!sm->client_blocks)
        return true;
    uint32_t cl = k->proc->client;
    return sm->client_blocks[cl] > 0 ||
           c->client_in_use[cl] < c->client_cap[cl];
}

/* A candidate SM in the most-free heap: more free warps first, then the
 * earlier SM in the model's dispatch order. */
typedef struct {
    SmRt *sm;
    uint32_t rank;
} Cand;

static bool cand_before(const Cand *a, const Cand *b)
{
    return a->sm->free_warps > b->sm->free_warps ||
           (a->sm->free_warps == b->sm->free_warps && a->rank < b->rank);
}

static void cand_sift_down(Cand *h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, best = i;
        if (l < n && cand_before(&h[l], &h[best]))
            best = l;
        if (l + 1 < n && cand_before(&h[l + 1], &h[best]))
            best = l + 1;
        if (best == i)
            return;
        Cand t = h[i];
        h[i] = h[best];
        h[best] = t;
        i = best;
    }
}

/* Place up to @want blocks of @k; returns how many were placed. */
typedef uint64_t (*PlaceFn)(Engine *E, Ctx *c, KernelRt *k, uint64_t want);

/* Most free first (default, after Gilman et al.): each block goes to the
 * allowed SM with the most free warps; equal SMs in dispatch order, so an
 * empty GPU gets one block per SM, in that order, before any SM gets two. */
static uint64_t place_most_free(Engine *E, Ctx *c, KernelRt *k, uint64_t want)
{
    const GpuModel *m = E->m;
    Cand *h = g_new(Cand, m->sm_count);
    uint32_t n = 0;
    for (uint32_t r = 0; r < m->sm_count; r++) {
        SmRt *sm = &c->sms[m->dispatch_order[r]];
        if (sm_allowed(c, k, sm) && sm_fit(E, sm, &k->needs) > 0)
            h[n++] = (Cand){sm, r};
    }
    for (uint32_t i = n / 2; i-- > 0;)
        cand_sift_down(h, n, i);
    /* Each placement is applied at once (sm_place merges the blocks of one
     * instant into one group), so the heap always sees true free warps. */
    uint64_t placed = 0;
    while (placed < want && n > 0) {
        SmRt *sm = h[0].sm;
        if (!sm_allowed(c, k, sm) || sm_fit(E, sm, &k->needs) == 0) {
            h[0] = h[--n];
            cand_sift_down(h, n, 0);
            continue;
        }
        /* Place as many as keep this SM ahead of the runner-up; that is one
         * block at a time except on an SM far emptier than the rest. */
        uint32_t batch = 1;
        if (n > 1) {
            uint32_t second = h[1].sm->free_warps;
            if (n > 2 && h[2].sm->free_warps > second)
                second = h[2].sm->free_warps;
            if (sm->free_warps > second)
                batch = MAX(1u, (sm->free_warps - second) / k->needs.warps);
        } else {
            batch = sm_fit(E, sm, &k->needs);
        }
        batch = (uint32_t)MIN((uint64_t)batch, want - placed);
        batch = MIN(batch, sm_fit(E, sm, &k->needs));
        sm_place(E, sm, k, batch);
        placed += batch;
        cand_sift_down(h, n, 0);
    }
    g_free(h);
    return placed;
}

/* Fill first: the earliest SM in dispatch order that fits takes blocks until
 * full (for sensitivity studies). */
static uint64_t place_fill_first(Engine *E, Ctx *c, KernelRt *k,
                                 uint64_t want)
{
    uint64_t placed = 0;
    for (uint32_t r = 0; r < E->m->sm_count && placed < want; r++) {
        SmRt *sm = &c->sms[E->m->dispatch_order[r]];
        if (!sm_allowed(c, k, sm))
            continue;
        uint32_t n = (uint32_t)MIN((uint64_t)sm_fit(E, sm, &k->needs),
                                   want - placed);
        if (n) {
            sm_place(E, sm, k, n);
            placed += n;
        }
    }
    return placed;
}

/* Round robin: one block per SM in dispatch order, continuing where the
 * last placement stopped. */
static uint64_t place_round_robin(Engine *E, Ctx *c, KernelRt *k,
                                  uint64_t want)
{
    const uint32_t S = E->m->sm_count;
    uint64_t placed = 0;
    uint32_t misses = 0;
    while (placed < want && misses < S) {
        SmRt *sm = &c->sms[E->m->dispatch_order[c->rr_cursor]];
        c->rr_cursor = (c->rr_cursor + 1) % S;
        if (sm_allowed(c, k, sm) && sm_fit(E, sm, &k->needs) > 0) {
            sm_place(E, sm, k, 1);
            placed++;
            misses = 0;
        } else {
            misses++;
        }
    }
    return placed;
}

typedef struct {
    const char *name;
    PlaceFn place;
} PlacementOps;

/* Indexed by SimPlacement. */
static const PlacementOps placements[] = {
    {"most-free", place_most_free},
    {"fill-first", place_fill_first},
    {"round-robin", place_round_robin},
};

/* Whether @k is held back only by its own MPS SM limit: some SM it may not
 * use could take one of its blocks. */
static bool held_by_cap(const Engine *E, const Ctx *c, const KernelRt *k)
{
    if (!c->client_cap)
        return false;
    for (uint32_t i = 0; i < E->m->sm_count; i++) {
        const SmRt *sm = &c->sms[i];
        if (!sm_allowed(c, k, sm) && sm_fit(E, sm, &k->needs) > 0)
            return true;
    }
    return false;
}

void sm_dispatch(Engine *E, Ctx *c)
{
    if (!ctx_can_dispatch(E, c))
        return;
    KernelRt *k = c->pend_head;
    while (k) {
        KernelRt *next = k->next;
        placements[E->m->placement].place(E, c, k, k->blocks - k->dispatched);
        if (k->dispatched == k->blocks) {
            sm_pending_remove(c, k);
            k->inst->state = INST_RUNNING;
        } else if (!held_by_cap(E, c, k)) {
            break; /* the leftover policy: nothing behind it may start */
        }
        k = next;
    }
}

/* ------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------ */

void sm_event(Engine *E, SmRt *sm)
{
    sm_advance(E, sm);
    Group **pp = &sm->groups;
    while (*pp) {
        Group *g = *pp;
        if (g->remaining > WORK_EPS) {
            pp = &g->next;
            continue;
        }
        *pp = g->next;
        sm_unplace(E, sm, g);
        KernelRt *k = g->k;
        k->done += g->count;
        group_release(E, g);
        if (k->done == k->blocks)
            eng_op_complete(E, k->inst);
    }
    sm_reschedule(E, sm);
    eng_mark_ctx(E, sm->ctx);
    if (sm->ctx->draining && sm->ctx->resident_blocks == 0)
        ctx_drained(E, sm->ctx);
}

void sm_freeze(Engine *E, Ctx *c)
{
    for (uint32_t i = 0; i < E->m->sm_count; i++) {
        SmRt *sm = &c->sms[i];
        sm_advance(E, sm);
    }
    c->frozen = true;
    for (uint32_t i = 0; i < E->m->sm_count; i++)
        sim_eventq_cancel(&E->q, &c->sms[i].ev);
}

void sm_thaw(Engine *E, Ctx *c)
{
    c->frozen = false;
    for (uint32_t i = 0; i < E->m->sm_count; i++) {
        SmRt *sm = &c->sms[i];
        sm->last = E->now;
        met_sm_warps(E, i, sm->warps);
        sm_reschedule(E, sm);
    }
}

/* Remove every resident block of @k (a fault killed its process). */
void sm_kill_kernel(Engine *E, KernelRt *k)
{
    Ctx *c = k->ctx;
    sm_pending_remove(c, k);
    for (uint32_t i = 0; i < E->m->sm_count; i++) {
        SmRt *sm = &c->sms[i];
        bool changed = false;
        Group **pp = &sm->groups;
        sm_advance(E, sm);
        while (*pp) {
            Group *g = *pp;
            if (g->k != k) {
                pp = &g->next;
                continue;
            }
            *pp = g->next;
            sm_unplace(E, sm, g);
            k->done += g->count;
            group_release(E, g);
            changed = true;
        }
        if (changed)
            sm_reschedule(E, sm);
    }
    eng_mark_ctx(E, c);
}
