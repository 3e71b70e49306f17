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
 * Contention.  An SM issues instructions at a rate that grows with its
 * resident warps, linearly while their latency is hidden, then saturating
 * (sim_gpu_model_issue_rate: T(L) warps' worth for a load of L warps).  A
 * block's load is its warps, or, for a kernel with a given SM intensity,
 * the warps at which the SM would issue that share of its saturated rate,
 * spread over the blocks the kernel puts on one SM when it runs alone.
 * The SM's T(L), L its total load, is shared among its groups by age
 * (engine_issue.c: proportional, T(L)/L per warp, blended with priority to
 * older warps as the SM is oversubscribed); a kernel's work is measured at
 * the speed it had alone, T(La)/La with La its own load, so a group's rate
 * is the ratio of its warps' speed to that, never above 1.  By construction a kernel alone runs at rate 1 and
 * reproduces its given duration exactly: duration = waves x block work.
 * Co-resident blocks whose total load the SM hides (T(L) = L) overlap for
 * free; beyond that they slow each other down, the lighter kernel (whose
 * warps were fastest alone) the most.  An SM on which some group runs
 * below rate 1 is "slowed": its groups are timed by its own event.
 *
 * Cost: blocks placed together on one SM are one Group; an SM has one
 * pending event (its earliest group completion), so a wave of a kernel
 * costs one event per SM, not per block.
 */
#include <math.h>
#include <string.h>

#include "engine_cost.h"
#include "engine_internal.h"
#include "error.h"
#include "jitter.h"
#include "smem_config.h"

#define WORK_EPS 1e-3 /* ns of work: a group with less left is done */

/* ------------------------------------------------------------------------
 * Per-SM resources
 * ------------------------------------------------------------------------ */

/* The register sub-partition loops below are always-inline helpers that
 * take the count P of sub-partitions as an argument; their callers pass
 * the constant SIM_MAX_SUBPARTITIONS when the model has that many (every
 * bundled model but p100), so the compiler unrolls them and divides by a
 * power of two: the same arithmetic in the same order, fewer instructions
 * per placement (the per-group cost of the placement path). */
#define SUBP_MAX SIM_MAX_SUBPARTITIONS

G_ALWAYS_INLINE static inline uint32_t reg_warp_slots(const SmRt *sm,
                                                      uint32_t rpw, uint32_t P)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < P; s++)
        n += rpw ? sm->free_regs[s] / rpw : 64;
    return n;
}

/* Whether @sm's shared-memory configuration lets blocks of @k join: an
 * idle SM takes any kernel's; a busy one keeps its own, which must lie in
 * the kernel's window (smem_config.c; measured on an H100: a 64-thread
 * kernel, configured for 64 KiB, never joins SMs that 1024-thread blocks
 * configured for 8 KiB, FINDINGS.md §3; windows with a preferred carveout,
 * §28). */
static bool in_window(const SmRt *sm, const KernelRt *k)
{
    return !sm->carveout ||
           (sm->carveout >= k->win_lo && sm->carveout <= k->win_hi);
}

/* sm_fit with @P register sub-partitions. */
G_ALWAYS_INLINE static inline uint32_t sm_fit_p(const SmRt *sm,
                                                const KernelRt *k, uint32_t P)
{
    const SimBlockNeeds *nd = &k->needs;
    uint32_t fit = sm->free_blocks;
    fit = MIN(fit, sm->free_warps / nd->warps);
    if (fit == 0 || !in_window(sm, k))
        return 0;
    const uint32_t cap = sm->carveout ? sm->carveout : k->carveout;
    if (nd->smem_bytes)
        fit = MIN(fit, (cap - sm->used_smem) / nd->smem_bytes);
    if (fit == 0)
        return 0;
    /* Registers bind only if some sub-partition holds fewer than its even
     * share of fit blocks' warps: when every one holds that many, the
     * register slots are at least fit x warps (no division needed). */
    const uint32_t rpw = nd->regs_per_warp;
    uint32_t least = UINT32_MAX;
    for (uint32_t s = 0; s < P; s++)
        least = MIN(least, sm->free_regs[s]);
    const uint64_t share = ((uint64_t)fit * nd->warps + P - 1) / P;
    if (rpw > 0 && (uint64_t)least >= share * rpw)
        return fit;
    return MIN(fit, reg_warp_slots(sm, rpw, P) / nd->warps);
}

/* How many more blocks of @k fit on @sm right now: its window, block
 * slots, warps, shared memory (the SM's configuration, or the kernel's own
 * on an idle SM) and registers. */
static uint32_t sm_fit(const Engine *E, const SmRt *sm, const KernelRt *k)
{
    const uint32_t P = E->m->reg_subpartitions;
    return P == SUBP_MAX ? sm_fit_p(sm, k, SUBP_MAX) : sm_fit_p(sm, k, P);
}

/* What a whole SM holds free (sm_whole), read once per scan. */
typedef struct {
    uint32_t blocks, warps;
    uint32_t regs[SIM_MAX_SUBPARTITIONS]; /* unused sub-partitions: 0 */
} SmWhole;

static SmWhole sm_whole_of(const GpuModel *m)
{
    SmWhole w = {m->max_blocks_per_sm, m->max_warps_per_sm, {0}};
    for (uint32_t s = 0; s < m->reg_subpartitions; s++)
        w.regs[s] = m->regs_per_sm / m->reg_subpartitions;
    return w;
}

/* Whether @sm is whole (@w): every block slot, warp, register and byte of
 * shared memory free and no configuration (as sm_init_ctx made it, and
 * as the last block leaving gives it back: integer counts).  sm_fit
 * reads nothing else of an SM, so it is the same on every whole SM. */
static bool sm_whole(const SmRt *sm, const SmWhole *w)
{
    return sm->free_blocks == w->blocks && sm->free_warps == w->warps &&
           !sm->used_smem && !sm->carveout &&
           memcmp(sm->free_regs, w->regs, sizeof w->regs) == 0;
}

/* sm_fit of @k on whole @sm, computed once per kernel (k->fit_whole):
 * an empty GPU's scan over its SMs asks it of every SM. */
static uint32_t sm_fit_whole(const Engine *E, const SmRt *sm, KernelRt *k)
{
    if (!k->fit_whole)
        k->fit_whole = sm_fit(E, sm, k) + 1;
    if (E->opt.check_invariants)
        g_assert(k->fit_whole - 1 == sm_fit(E, sm, k));
    return k->fit_whole - 1;
}

/* @sm's fit for @k after @kk blocks of it were placed there on a fit of
 * @fit (kk <= fit; nothing else changed the SM meanwhile): fit - kk, as
 * sm_fit would find.  Every term of sm_fit's minimum loses exactly kk:
 * free blocks; free warps / w and free shared memory / s (the SM's
 * configuration is now the kernel's own if it was idle); and the register
 * slots sum_s floor(free_regs[s] / rpw) over w, since each placed warp
 * went to a sub-partition holding at least rpw (regs_take's assertion).
 * Not so without registers per warp (that term stays 64 P / w) or out of
 * the window (0): sm_fit then.  check_invariants compares the two. */
G_ALWAYS_INLINE static inline uint32_t sm_fit_after(const Engine *E,
                                                    const SmRt *sm,
                                                    const KernelRt *k,
                                                    uint32_t fit, uint32_t kk)
{
    if (k->needs.regs_per_warp == 0 || !in_window(sm, k))
        return sm_fit(E, sm, k);
    g_assert(kk <= fit);
    if (E->opt.check_invariants)
        g_assert(fit - kk == sm_fit(E, sm, k));
    return fit - kk;
}

/* The rate of @g's blocks on @sm: its warps' speed there over their speed
 * alone (at most 1) on the share of its time they issue (issue_frac: a
 * memory-bound warp waiting on DRAM is not slowed by a busy SM), times its
 * DRAM rate @r (engine_dram.c).  Wall-clock and self-timed blocks are
 * never slowed (group_rate_calc). */
/* (out of line: group_rate's cache answers most calls) */
G_GNUC_NO_INLINE static double group_rate_at(const Group *g, double r)
{
    const KernelRt *k = g->k;
    /* bound on a shared pipe that is over-asked: at most its share */
    const double cap = g->pipe_over > 1 ? r / g->pipe_over : r;
    if (g->speed >= k->speed_alone && g->turns >= 1)
        return cap;
    /* the issuing part of its time stretches by speed_alone / speed */
    double u = k->issue_frac;
    if (g->turns >= 1)
        return MIN(cap, r / ((1 - u) + u * k->speed_alone / g->speed));
    /* Beside greedy warps (engine_issue.c) each of its instructions
     * waits for a cycle they leave free, and all of them together issue
     * no more than those cycles hold (speed / speed_alone of its need). */
    double wait = r / ((1 - u) + u / g->turns);
    return MIN(cap, MIN(wait, r * MIN(g->speed / k->speed_alone, 1.0)));
}

/* Every branch above is r times a factor that does not depend on r: a
 * group's rate is its DRAM rate times its SM rate, so a DRAM group's rate
 * is its context's dram_speed times group_vrate (engine_dram.c's DRAM
 * clock rests on that) -- except on an SM the per-SM DRAM ceiling may hold
 * back, which sm_next keeps off the clock. */
static double group_rate_calc(const SmRt *sm, const Group *g)
{
    if (g->k->fixed_time)
        return 1.0;
    double r = dram_rate(sm->ctx, g->k); /* 1 without DRAM demand */
    if (g->k->dram_blk > 0) /* under the per-SM ceiling (engine_dram.c) */
        r *= dram_sm_factor(sm, sm->ctx->dram_speed);
    return group_rate_at(g, r);
}

/* A DRAM group's rate per unit of its context's DRAM clock (Group.vrate). */
static double group_vrate(Group *g)
{
    if (!g->vrate_ok) {
        g->vrate = group_rate_at(g, 1.0 / g->k->dram_speed_alone);
        g->vrate_ok = true;
    }
    return g->vrate;
}

/* group_rate_calc through @g's cache (Group.rate_ok). */
G_ALWAYS_INLINE static inline double group_rate(const SmRt *sm, Group *g)
{
    const double dram = sm->ctx->dram_speed;
    if (g->rate_ok && g->rate_dram == dram)
        return g->rate;
    g->rate = group_rate_calc(sm, g);
    g->rate_dram = dram;
    g->rate_ok = true;
    return g->rate;
}

double sm_group_rate(const SmRt *sm, const Group *g)
{
    return group_rate_calc(sm, g);
}

/* Whether some group on @sm runs below rate 1 at its current speed. */
static bool sm_slows(const SmRt *sm)
{
    for (const Group *g = sm->groups; g; g = g->next)
        if (!g->k->fixed_time && (g->speed < g->k->speed_alone * (1 - 1e-12) ||
                                  g->turns < 1 || g->pipe_over > 1))
            return true;
    return false;
}

bool sm_slowed_throughout(const Engine *E, SmRt *sm, Group *g)
{
    /* issue_share is a function of the SM's groups, their counts, their
     * order and its load only: share as things were with each count of
     * g's blocks from its first one on, then again as they are (the same
     * bits as before).  Every count, not the first alone: under
     * greedy-then-oldest a group may slow the SM at 7 blocks, not at 8 and
     * again at 9 (the co-runner's rate crosses 1 - 1e-12), and a group
     * placed a block at a time then passes through a cohort, loosened
     * with its work rounded up to whole ns. */
    const uint32_t count = g->count;
    const double load = sm->load;
    bool slowed = true;
    for (uint32_t c = 1; c <= count && slowed; c++) {
        g->count = c;
        sm->load = sm->load_before + c * g->k->w;
        slowed = issue_share(E->m, sm);
    }
    g->count = count;
    sm->load = load;
    issue_share(E->m, sm);
    return slowed;
}

/* Whether @sm holds loose groups (timed by its own event): more groups
 * than cohort groups.  Both counts change with the list and the cohorts
 * (a group leaves the list and its cohort before the SM is shared anew),
 * and sm_check counts them, so no walk of the groups is needed. */
static bool sm_has_loose(const SmRt *sm)
{
    return sm->n_groups > sm->cohort_groups;
}

/* What sm_event puts off to the instant's end (SmRt.defer; sm_event):
 * SHARE, groups left and its issue shares are stale; EVENT, its event is
 * reserved and the SM is as sm_event left it. */
#define SM_DEFER_SHARE 1u
#define SM_DEFER_EVENT 2u

/* @sm's groups changed (its progress is accounted up to now): share its
 * issue rate anew (engine_issue.c); if that slows a group, its cohort
 * groups become loose.  True if it holds loose groups, whose event must
 * then be recomputed.  Whether some group is slowed (sm_slows, which
 * loosening does not change) into @slowed, if not NULL. */
static bool sm_reshare(Engine *E, SmRt *sm, bool *slowed)
{
    const bool slows = issue_share(E->m, sm); /* sets sm->speed too */
    if (slows)
        sm_loosen(E, sm);
    if (slowed)
        *slowed = slows;
    return sm_has_loose(sm);
}

/* The seeded rank of @g in its wave's drain order: splitmix64 of the run's
 * seed, the SM, the kernel's op (process, op and graph node: not its
 * iteration) and the placement time relative to the kernel's first.
 * Reproducible, independent of the order events happen to be handled in,
 * and free of absolute time and of how many kernels came before, so a
 * closed loop whose state repeats a period later drains in the same order
 * again (the loop is periodic in events, not in time alone). */
static uint64_t drain_key(const Engine *E, const Group *g)
{
    const KernelRt *k = g->k;
    const OpInst *in = k->inst;
    uint64_t op = ((uint64_t)k->proc->index << 40) ^
                  ((uint64_t)in->op_index << 12) ^ (uint64_t)in->node;
    SimTime since = k->start == SIM_TIME_NEVER ? 0 : g->placed - k->start;
    uint64_t x = E->seed ^ ((uint64_t)g->sm->id << 40) ^
                 (op * 0x9e3779b97f4a7c15ull) ^ (uint64_t)since;
    return sim_mix64(x);
}

/* @g's drain_key, computed once, when a staggered release of its cohort
 * first asks: most cohorts end without one (one group, or nothing waits;
 * resnet18 x 8 MPS: 1.07 groups per cohort), and it was computed at every
 * cohort_join.  The same value as at its join: the seed, its SM and its
 * kernel's op are fixed, and so is its placement time for every group a
 * staggered release ranks (engine_steady.c moves it only for an SM's
 * steady group, which is loose, and for the groups of a cohort standing
 * beside others, which under staggered release is one SM's, never
 * ranked); the kernel's start is its first placement, so the offset is 0
 * for the group placed first whether taken before that start is set (at
 * its join) or after. */
static uint64_t group_drain(const Engine *E, Group *g)
{
    if (!g->drain_ok) {
        g->drain = drain_key(E, g);
        g->drain_ok = true;
    }
    return g->drain;
}

/* Identical SMs reach an early end at one instant; with
 * sm_release_staggered they take it in their seeded drain order, 1 ns
 * apart (as cohort_release_one), so that a waiting kernel fills the first
 * SM freed before the next frees (FINDINGS.md §17). */
static SimTime early_offset(const Engine *E, const Group *g)
{
    return E->m->sm_release_staggered ? drain_key(E, g) % E->m->sm_count : 0;
}

/* A kernel whose DRAM requests alone are served at less than this share of
 * an unloaded DRAM's speed (engine_dram.c's dram_speed_alone) is DRAM
 * bound: DRAM serves requests without regard to warp age, and the
 * triad, copy and reduce (0.33, 0.32, 0.14) end their blocks together, where the
 * SGEMM (1.0) and the FMA kernels (no DRAM) spread them.  A separator,
 * not fitted. */
#define DRAM_BOUND_SPEED 0.5

/* Uneven ends within a wave (FINDINGS.md §23).  Blocks of one kernel
 * placed together on an SM do not end together: the warp schedulers favour
 * the older warps, and on an H100 the first-wave blocks of the SGEMM (5 per
 * SM) end at 0.59, 0.59, 0.68, 0.88 and 1.0 of the last one's time
 * (i_p_sgemm); a kernel waiting behind them takes the first slots freed.
 * Modelled with s = sm_block_end_spread: block j of a group of c >= 2
 * blocks ends (c - 1 - j) / (c - 1) x s of the group's time before the
 * group does (linear, the last at the group's end), while another kernel
 * waits in its context and the SM's issue is saturated (load above
 * sm_saturation_warps: the DRAM- and pipe-bound kernels' blocks end
 * together).  The group's end stays the calibrated block time, so a kernel
 * alone keeps its measured duration: only who gets the freed slots, and
 * when, changes.  When the early end of block j comes and nothing waits,
 * it ends with its group.
 *
 * Block j ends early when its group has (c - 1 - j) / (c - 1) x s of a
 * block's work left: a time in a cohort (rate 1), an SM event for a loose
 * group.  The work left at which block @g->early of @g ends early; -1:
 * none left to end early. */
/* Whether an early end @left ns of work before its group's end is
 * simulated (FINDINGS.md §23): only from one kernel launch latency
 * (kernel_launch_latency_us, 2 us on the H100: the gap from one kernel's
 * end to the next one's start in a stream) on.  A block that takes the
 * room starts at most @left earlier than it would at the group's end, and
 * hqsim places the launch path's start times no finer than that latency;
 * below it the spread would cost an engine event per block and wave of
 * every short kernel while something waits (resnet18 in 4 MPS processes:
 * blocks of 1.8-4.7 us, 10th-90th percentile, against the SGEMM's 346 us
 * of i_p_sgemm, on which s was fitted), for head starts of under a
 * microsecond.  The early ends of a group come in order of decreasing
 * @left, so once one is below, so are the rest of the group's.
 *
 * Steady state (engine_steady.c) stays exact: the
 * steady kernel itself heads the pending list with blocks to spare, so
 * its own groups have no early ends (self_refill_only); a co-runner group
 * on the SM with early ends still due that the steady kernel could take
 * puts the SM's event before the period's end, and such an SM does not
 * enter (slower, not different); one whose next early end is further
 * ahead bounds the periods the SM stands for (steady_periods), as its
 * completion does. */
bool early_resolved(const GpuModel *m, double left)
{
    return left >= (double)m->kernel_launch_latency_ns;
}

static double early_left(const Engine *E, const Group *g)
{
    const uint32_t c0 = g->count + g->early_out;
    const KernelRt *k = g->k;
    if (E->m->sm_block_end_spread <= 0 || k->fixed_time || c0 < 2 ||
        g->early + 1 >= c0 || k->dram_speed_alone < DRAM_BOUND_SPEED ||
        c0 * k->w <= E->m->sm_saturation_warps + 1e-9)
        return -1;
    const double left = E->m->sm_block_end_spread * k->work *
                        (double)(c0 - 1 - g->early) / (double)(c0 - 1);
    return early_resolved(E->m, left) ? left : -1;
}

double sm_group_early_left(const Engine *E, const Group *g)
{
    return early_left(E, g);
}

static bool sm_allowed(const Ctx *c, const KernelRt *k, const SmRt *sm);

/* Whether a kernel other than @k's remaining blocks waits in @c. */
static bool other_waits(const Ctx *c, const KernelRt *k)
{
    return c->pend_head && (c->pend_head != k || c->pend_head->next);
}

/* Whether the kernel at the head of @sm's pending list (the one the
 * leftover policy lets place next) could take the room one block of @k
 * frees on @sm: its carveout, warps, shared memory and registers.  Where
 * it could not (e.g. 256-thread blocks behind 1024-thread ones that
 * configured the SM, FINDINGS.md §3; or an MPS client that may not use
 * the SM, at its SM cap or outside its window) an early end changes nothing for
 * others, and the kernel's own time is its measured one. */
static bool head_could_join(const SmRt *sm, const KernelRt *k)
{
    const KernelRt *h = sm->ctx->pend_head;
    const SimBlockNeeds *a = &h->needs, *b = &k->needs;
    if (!sm_allowed(sm->ctx, h, sm))
        return false; /* its MPS client may not use this SM */
    if (!in_window(sm, h))
        return false;
    uint64_t regs = (uint64_t)b->warps * b->regs_per_warp;
    for (uint32_t s = 0; s < SIM_MAX_SUBPARTITIONS; s++)
        regs += sm->free_regs[s]; /* unused sub-partitions hold 0 */
    const uint32_t cap = sm->carveout ? sm->carveout : h->carveout;
    return sm->free_warps + b->warps >= a->warps &&
           (uint64_t)cap + b->smem_bytes >=
               (uint64_t)sm->used_smem + a->smem_bytes &&
           regs >= (uint64_t)a->warps * a->regs_per_warp;
}

/* Whether @k heads its pending list with more of its own blocks still to
 * place than it has resident: the room its blocks' early ends free then
 * goes to its own next blocks, which only changes the order of its own
 * blocks (the SM's work is unchanged: an early-ended block's rest goes to
 * the group's others) and nothing another kernel sees, until its last
 * blocks are placed.  Only from then on do its waves' early ends decide
 * when a kernel behind it starts.  Skipping the earlier ones saves an event
 * per block and wave of every multi-wave kernel (FINDINGS.md §23). */
static bool self_refill_only(const SmRt *sm, const KernelRt *k)
{
    return sm->ctx->pend_head == k &&
           k->blocks - k->dispatched > k->dispatched - k->done;
}

/* Whether block @g->early of @g on @sm may end early now: another kernel
 * waits for room and could take it. */
static bool early_may(const SmRt *sm, const Group *g)
{
    return other_waits(sm->ctx, g->k) && !self_refill_only(sm, g->k) &&
           head_could_join(sm, g->k);
}

/* Account progress of the SM's loose groups up to now (cohort groups are
 * timed by their cohort).  A DRAM group's progress since sm->last is its
 * rate times the time when its context's DRAM speed has not changed since
 * (the same bits as ever), else its vrate times the DRAM clock's advance
 * (engine_dram.c): the rate changed meanwhile without a retime. */
static void sm_undefer(Engine *E, SmRt *sm);

/* sm_advance without sm_event's put-off work (SmRt.defer). */
static void advance(Engine *E, SmRt *sm)
{
    if (sm->st.on)
        sm_steady_stop(E, sm); /* back to step by step first */
    if (sm->last >= E->now) {
        sm->last = E->now;
        if (sm->dram_groups)
            dram_sm_synced(E, sm);
        return;
    }
    /* (only loose groups progress here: an SM of cohort groups alone,
     * every SM a lone kernel spreads over, has nothing to walk) */
    const bool loose = sm_has_loose(sm);
    if (!sm->ctx->frozen && loose && !sm->dram_groups) {
        /* the common case, no DRAM groups: the loop without the clock */
        const double d = (double)(E->now - sm->last);
        for (Group *g = sm->groups; g; g = g->next)
            if (!g->cohort)
                g->remaining -= d * group_rate(sm, g);
    } else if (!sm->ctx->frozen && loose) {
        const double d = (double)(E->now - sm->last);
        const Ctx *c = sm->ctx;
        /* an SM here holds DRAM groups (the branch above takes the
         * others): the clock is read unless it has not moved */
        const bool same = sm->v_epoch == c->dram_epoch;
        const double dv = same ? 0 : dram_clock(E, c) - sm->v_last;
        for (Group *g = sm->groups; g; g = g->next) {
            if (g->cohort)
                continue;
            /* (a capped SM is advanced before every change of speed:
             * the rate of the moment held since its last advance) */
            if (same || g->k->dram_p <= 0 || sm->v_capped)
                g->remaining -= d * group_rate(sm, g);
            else
                g->remaining -= dv * group_vrate(g);
        }
    }
    sm->last = E->now;
    if (sm->dram_groups)
        dram_sm_synced(E, sm);
}

/* Every change of an SM, and every look at its shares or its event, comes
 * through here first (or through sm_reschedule, or sm_place_as, which
 * shares anew): so what sm_event put off is done before anything sees the
 * difference, with the SM as sm_event left it. */
void sm_advance(Engine *E, SmRt *sm)
{
    if (G_UNLIKELY(sm->defer))
        sm_undefer(E, sm);
    advance(E, sm);
}

/* The subtraction of sm_advance @times times (one per period of an SM in
 * steady state, engine_steady.c), so the result is bit for bit that of
 * @times sm_advance calls over @d ns each: keep the two alike. */
void sm_advance_periods(SmRt *sm, double d, uint64_t times)
{
    for (Group *g = sm->groups; g; g = g->next) {
        if (g->cohort)
            continue;
        const double x = d * group_rate(sm, g);
        double rem = g->remaining;
        for (uint64_t i = 0; i < times; i++)
            rem -= x;
        g->remaining = rem;
    }
}

/* The SM's next event from its loose groups, all timed by the SM's own
 * event (an SM off the DRAM clock): sm_next with @all, without its
 * out-parameters, which the compiler must store at every group as they may
 * alias the groups' fields. */
G_ALWAYS_INLINE static inline double sm_next_plain(const Engine *E, SmRt *sm)
{
    double min = INFINITY;
    /* without a block-end spread no group ends blocks early (early_left) */
    const bool spread = E->m->sm_block_end_spread > 0;
    for (Group *g = sm->groups; g; g = g->next) {
        if (g->cohort)
            continue;
        const double r = group_rate(sm, g);
        const double left = spread ? early_left(E, g) : -1;
        min = MIN(min, MAX(g->remaining, 0) / r);
        if (left >= 0 && early_may(sm, g))
            min = MIN(min, MAX(g->remaining - left, 0) / r +
                               (double)early_offset(E, g));
    }
    return min;
}

/* The SM's next event from its loose groups without DRAM demand and every
 * group's early ends; their DRAM groups' completions, on the clock and in
 * ns, into @vmin and @dmin, and whether some group has early ends left
 * into @old (accumulated in locals: stores through the pointers could
 * alias the groups' fields). */
static double sm_next(const Engine *E, SmRt *sm, double *vmin, double *dmin,
                      bool *old)
{
    double min = INFINITY, vm = INFINITY, dm = INFINITY;
    bool anyleft = false;
    /* without a block-end spread no group ends blocks early (early_left) */
    const bool spread = E->m->sm_block_end_spread > 0;
    for (Group *g = sm->groups; g; g = g->next) {
        if (g->cohort)
            continue;
        const double r = group_rate(sm, g);
        const double left = spread ? early_left(E, g) : -1;
        const double end = MAX(g->remaining, 0) / r;
        if (g->k->dram_p > 0) {
            dm = MIN(dm, end);
            vm = MIN(vm, MAX(g->remaining, 0) / group_vrate(g));
        } else {
            min = MIN(min, end);
        }
        /* whether its early end may be taken (early_may) changes with
         * the pending kernels: the old way asks at every retime */
        anyleft = anyleft || left >= 0;
        if (left >= 0 && early_may(sm, g))
            min = MIN(min, MAX(g->remaining - left, 0) / r +
                               (double)early_offset(E, g));
    }
    *vmin = vm;
    *dmin = dm;
    /* groups the per-SM DRAM ceiling may hold back are not on the clock */
    sm->v_capped = sm->ctx->dram_sm_max > 0 && dram_sm_capped(sm);
    *old = anyleft || sm->v_capped;
    return min;
}

/* The SM's next event.  Loose groups without DRAM demand, and the early
 * block ends of any group, are timed by the SM's own event at the rates of
 * the moment; the completions of loose DRAM groups go on the context's
 * DRAM clock (engine_dram.c, dram_timed), so that a change of DRAM speed
 * retimes one event, not every SM.  An SM with early ends left is timed
 * the old way, all of it by its own event, retimed at every change of
 * pressure (whether an early end may be taken is asked at every retime,
 * and its time is an offset in ns after a point of work, not a point on
 * the clock). */
void sm_reschedule(Engine *E, SmRt *sm)
{
    if (G_UNLIKELY(sm->defer)) { /* its reservation goes below */
        if (sm->defer & SM_DEFER_SHARE)
            sm_reshare(E, sm, NULL);
        sm->defer = 0;
    }
    if (sm->st.on) {
        sm_steady_stop(E, sm);
        sm_advance(E, sm);
    }
    double min = INFINITY; /* time until the first loose group is done */
    double vmin = INFINITY, dmin = INFINITY;
    bool old = false;
    const bool dram = sm->dram_groups || sm->v_slot != UINT32_MAX || sm->v_old;
    if (!sm->ctx->frozen && !dram) {
        min = sm_next_plain(E, sm);
    } else if (!sm->ctx->frozen) {
        min = sm_next(E, sm, &vmin, &dmin, &old);
        if (old) /* the old way after all: everything by its event */
            min = MIN(min, dmin);
    }
    if (dram)
        dram_timed(E, sm, old, vmin, dmin);
    if (min == INFINITY) {
        sim_eventq_cancel(&E->q, &sm->ev);
        return;
    }
    sim_eventq_schedule(&E->q, &sm->ev, E->now + ceil_ns(min));
}

/* ------------------------------------------------------------------------
 * Cohorts
 * ------------------------------------------------------------------------ */

/* Zero @n bytes at @p with the C library's memset.  A memset of a
 * constant size of this order (a Group's 152 bytes, a Cohort's 304) GCC
 * expands inline as `rep stosq`, which took 35-43 ns a Group on the
 * development machine's AMD EPYC against 11 ns for glibc's vector memset
 * (/tmp microbenchmark, 2 x 10^7 each); every placement zeroes a Group
 * and most zero a Cohort.  Kept out of line and out of interprocedural
 * constant propagation, so @n stays a variable. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noipa))
#endif
G_GNUC_NO_INLINE static void
zero_bytes(void *p, size_t n)
{
    memset(p, 0, n);
}

/* When block @g->early of cohort group @g ends early (SIM_TIME_NEVER:
 * none left). */
static SimTime early_at(const Engine *E, const Cohort *co, const Group *g)
{
    const double left = early_left(E, g);
    return left < 0 ? SIM_TIME_NEVER
                    : co->end - (SimTime)floor(left) + early_offset(E, g);
}

/* Whether @co's blocks may end early at all: not for wall-clock and
 * self-timed kernels, extended cohorts or a frozen context, nor while
 * nothing is pending, not even the kernel's own blocks (a kernel that
 * comes later finds the slots freed at the group's end: an approximation
 * that saves an event per cohort). */
static bool cohort_early_on(const Engine *E, const Cohort *co)
{
    return E->m->sm_block_end_spread > 0 && !co->wall && !co->timed &&
           !co->ext && !co->ctx->frozen && co->ctx->pend_head;
}

/* Schedule @co's next early block end that a waiting kernel could take
 * now (early_may), if any.  A group whose early ends could not be taken
 * keeps them due: when the pending kernels change (cohorts_early_rearm)
 * and one could take them, they end then, those whose time has passed at
 * once (those blocks did end; the room was of no use before).  So an
 * early end costs an event only when it can change who runs. */
static void cohort_early_schedule(Engine *E, Cohort *co)
{
    sim_eventq_cancel(&E->q, &co->early_ev);
    if (!cohort_early_on(E, co))
        return;
    SimTime t = SIM_TIME_NEVER;
    for (const Group *g = co->groups; g; g = g->cnext)
        if (early_may(g->sm, g))
            t = MIN(t, early_at(E, co, g));
    if (t != SIM_TIME_NEVER && t < co->end)
        sim_eventq_schedule(&E->q, &co->early_ev, MAX(t, E->now));
}

static Cohort *cohort_new(Engine *E, KernelRt *k)
{
    Cohort *co = E->cohort_free;
    if (co)
        E->cohort_free = co->next;
    else
        co = g_new(Cohort, 1);
    zero_bytes(co, sizeof *co);
    co->k = k;
    co->ctx = k->ctx;
    co->placed = E->now;
    co->end = E->now + (SimTime)ceil(k->work);
    co->wall = k->inst->op->u.kernel.wall_clock;
    co->timed = k->inst->op->u.kernel.self_timed;
    co->abs_end = co->end;
    sim_event_init(&co->ev, EV_COHORT, co);
    sim_event_init(&co->early_ev, EV_EARLY, co);
    co->next = co->ctx->cohorts;
    if (co->next)
        co->next->prev = co;
    co->ctx->cohorts = co;
    sim_eventq_schedule(&E->q, &co->ev, co->end);
    /* without a block-end spread no cohort ends blocks early
     * (cohort_early_on), and a new cohort's early event is not pending */
    if (E->m->sm_block_end_spread > 0)
        cohort_early_schedule(E, co);
    return co;
}

static void cohort_release(Engine *E, Cohort *co)
{
    sim_eventq_cancel(&E->q, &co->ev);
    sim_eventq_cancel(&E->q, &co->early_ev);
    if (co->prev)
        co->prev->next = co->next;
    else
        co->ctx->cohorts = co->next;
    if (co->next)
        co->next->prev = co->prev;
    if (co->k->last_cohort == co)
        co->k->last_cohort = NULL;
    if (co->k->late_cohort == co)
        co->k->late_cohort = NULL;
    if (co->k->first_cohort == co)
        co->k->first_cohort = NULL;
    if (co->early_listed) {
        if (co->eprev)
            co->eprev->enext = co->enext;
        else
            co->ctx->early_cohorts = co->enext;
        if (co->enext)
            co->enext->eprev = co->eprev;
    }
    co->next = E->cohort_free;
    E->cohort_free = co;
}

/* @g of @co has just gained blocks: if it has early ends left, @co joins
 * its context's list of cohorts that may end blocks early.  Whether a
 * group has any (early_left) is settled when it is placed: its count only
 * grows then, and c0 and the model do not change after, so a cohort never
 * listed has nothing to reschedule when the pending kernels change. */
static void cohort_early_list(const Engine *E, Cohort *co, const Group *g)
{
    if (co->early_listed || early_left(E, g) < 0)
        return;
    Ctx *c = co->ctx;
    co->early_listed = true;
    co->eprev = NULL;
    co->enext = c->early_cohorts;
    if (co->enext)
        co->enext->eprev = co;
    c->early_cohorts = co;
}

/* @g of @co has just gained blocks (placed now): its first early end,
 * if it has one now, may come before the one @co has scheduled.  O(1) per
 * placement, where rescheduling from all groups would be O(SMs); a
 * group's block 0 ends at the same time whatever its count (>= 2), and
 * counts only grow while a cohort is being placed, so no scheduled time
 * moves later. */
static void cohort_early_arm(Engine *E, Cohort *co, const Group *g)
{
    if (!cohort_early_on(E, co) || !early_may(g->sm, g))
        return;
    const SimTime t = early_at(E, co, g);
    if (t == SIM_TIME_NEVER || t >= co->end)
        return;
    if (!sim_event_pending(&co->early_ev) || t < co->early_ev.when)
        sim_eventq_schedule(&E->q, &co->early_ev, MAX(t, E->now));
}

static void cohort_add(Cohort *co, Group *g)
{
    g->cohort = co;
    if (g->sm->cohort_groups++ == 0 && g->sm->dram_groups)
        dram_cohort_note(g->sm);
    g->cprev = NULL;
    g->cnext = co->groups;
    if (co->groups)
        co->groups->cprev = g;
    co->groups = g;
    co->n++;
}

/* Take @g out of its cohort; frees the cohort when it empties. */
static void cohort_remove(Engine *E, Group *g)
{
    Cohort *co = g->cohort;
    if (g->cprev)
        g->cprev->cnext = g->cnext;
    else
        co->groups = g->cnext;
    if (g->cnext)
        g->cnext->cprev = g->cprev;
    g->cohort = NULL;
    if (--g->sm->cohort_groups == 0 && g->sm->dram_groups)
        dram_cohort_note(g->sm);
    g->cprev = g->cnext = NULL;
    if (--co->n == 0)
        cohort_release(E, co);
}

/* The SM is about to be slowed: its cohort groups become loose, with
 * the work their cohort had left (time left at full rate). */
void sm_loosen(Engine *E, SmRt *sm)
{
    if (sm->cohort_groups == 0)
        return; /* nothing to loosen: the usual case on a slowed SM */
    for (Group *g = sm->groups; g; g = g->next)
        if (g->cohort && !g->cohort->wall && !g->cohort->timed) {
            g->remaining = (double)(g->cohort->end - E->now);
            cohort_remove(E, g);
            sm->mods++;
        }
}

static bool sm_visible(const Engine *E, const SmRt *sm)
{
    return E->phase == GPU_RUN || E->phase == GPU_DRAIN ? E->cur == sm->ctx
                                                        : false;
}

static void sm_set_warps(Engine *E, SmRt *sm, uint32_t warps)
{
    sm->warps = warps;
    if (sm_visible(E, sm))
        met_sm_warps(E, sm->id, warps);
}

/* Bytes of architectural state one resident block holds: its warps'
 * registers (4 bytes each) and its shared memory. */
static uint64_t block_state_bytes(const SimBlockNeeds *nd)
{
    return (uint64_t)nd->warps * nd->regs_per_warp * 4 + nd->smem_bytes;
}

static Group *group_new(Engine *E)
{
    Group *g = E->group_free;
    if (g)
        E->group_free = g->next;
    else
        g = g_new(Group, 1);
    zero_bytes(g, sizeof *g);
    g->turns = 1; /* every issue cycle, until issue_share says otherwise */
    return g;
}

/* A fresh group of @k on @sm, placed now, at the head of its list (new
 * groups go to the head: sm_place_as merges only into the head); its
 * work the kernel's, with the fixed part on the kernel's @first blocks
 * on the SM.  Its count, 0, is the caller's to raise. */
G_ALWAYS_INLINE static inline Group *
group_push_fresh(Engine *E, SmRt *sm, KernelRt *k, bool first, bool late)
{
    Group *g = group_new(E);
    g->k = k;
    g->sm = sm;
    g->remaining = k->work + (first ? k->first : 0);
    g->placed = E->now;
    g->late = late;
    g->next = sm->groups;
    sm->groups = g;
    sm->n_groups++;
    return g;
}

/* What a placement's share came to (note_placed). */
typedef struct {
    bool fresh;    /* a new group (not the head group growing) */
    double before; /* the SM's load before the placement */
    bool slowed;   /* the share slowed a group */
    bool loose;    /* the SM holds loose groups */
} Placed;

/* After a placement's share @p: what a steady state compares, for a fresh
 * group (engine_steady.c); and an SM holding loose groups goes on the
 * retime list (only one dispatch's context places at a time: one entry
 * per SM). */
G_ALWAYS_INLINE static inline void note_placed(Engine *E, SmRt *sm, Placed p)
{
    if (p.fresh) {
        sm->mods++;
        sm->load_before = p.before;
        sm->fresh_slowed = p.slowed;
    }
    if (p.loose && !sm->resched) {
        sm->resched = true;
        g_assert(E->n_resched < E->m->sm_count);
        E->resched[E->n_resched++] = sm;
    }
}

static void group_release(Engine *E, Group *g)
{
    g->next = E->group_free;
    E->group_free = g;
}

/* Late starts (FINDINGS.md §29).  On an H100 an SM starts the blocks
 * placed on it at once while it holds fewer than ~36 resident warps; a
 * block placed beyond that starts at a tick of 2^15 SM cycles (16.5 us), a
 * uniform 0.5-1 tick after its placement (the phase differs from SM to SM),
 * and its other warps one tick later.  A timer block's end is its start
 * plus its time, so it ends that much later; it holds its resources from
 * its placement.  Where blocks leave the SM before that tick (blocks that
 * refill SMs as others leave, FINDINGS.md §42), the late blocks start then
 * (late_release).  Blocks of work kernels are left alone: beyond ~36 warps
 * the SM's issue is saturated (sm_saturation_warps, 7.9 on the H100) by
 * the warps already running, so warps that join later do not change the
 * SM's rate of work (the FMA variant of the same kernel takes its
 * proportional-share time, FINDINGS.md §14).
 *
 * Of @n blocks of @k about to be placed on @sm, those that start at once:
 * block i does if the SM then holds fewer than sm_late_start_warps
 * warps, counting the i blocks before it. */
static uint32_t late_split(const Engine *E, const SmRt *sm, const KernelRt *k,
                           uint32_t n)
{
    const double T = E->m->sm_late_start_warps;
    if (T <= 0 || !k->fixed_time)
        return n;
    if ((double)sm->warps >= T)
        return 0;
    const double now = ceil((T - sm->warps) / (double)k->needs.warps);
    return now >= n ? n : (uint32_t)now;
}

/* A late cohort's blocks end when the latest of its @sms SMs' ticks has
 * come: their phases are uniform on [p, 1] tick, whose expected maximum
 * over m SMs is p + (1 - p) m / (m + 1); then one more tick for the
 * blocks' other warps. */
static SimTime late_delay(const GpuModel *m, uint32_t sms)
{
    const double p = m->sm_late_start_phase_min;
    const double phase = p + (1 - p) * sms / (sms + 1.0);
    return (SimTime)llround((double)m->sm_late_start_tick_ns * (1 + phase));
}

/* When blocks other than @g's next leave @sm: the earliest end of a
 * cohort group there (of an extended cohort, its current wave's end) or
 * the SM's own event (its first loose group's end, as last computed);
 * SIM_TIME_NEVER if none is due. */
static SimTime sm_next_leave(const Engine *E, const SmRt *sm, const Group *g)
{
    SimTime t = sim_event_pending(&sm->ev) ? sm->ev.when : SIM_TIME_NEVER;
    for (const Group *o = sm->groups; o; o = o->next) {
        const Cohort *co = o->cohort;
        if (o == g || !co || co->ctx->frozen)
            continue;
        SimTime end = co->end;
        if (co->ext && co->wave_ns && end > E->now)
            end -= (end - E->now - 1) / co->wave_ns * co->wave_ns;
        t = MIN(t, end);
    }
    return t;
}

/* Where @g's late blocks start (FINDINGS.md §42): when blocks next leave
 * its SM, if that comes before the SM's tick would (the expected delay of
 * one SM's tick, late_delay(m, 1)), else at the tick.  Counted in @g's
 * late cohort @co. */
static void late_release(const Engine *E, Cohort *co, const Group *g)
{
    const SimTime t = sm_next_leave(E, g->sm, g);
    const SimTime d = t == SIM_TIME_NEVER ? SIM_TIME_NEVER
                      : t > E->now        ? t - E->now
                                          : 0;
    if (d < late_delay(E->m, 1))
        co->late_leave = MAX(co->late_leave, d);
    else
        co->late_ticks++;
}

/* A late cohort's delay beyond its blocks' time: the latest of its SMs'
 * releases, by ticks (late_delay over the SMs that wait for theirs) or by
 * blocks leaving. */
static SimTime late_wait(const GpuModel *m, const Cohort *co)
{
    const SimTime tick = co->late_ticks ? late_delay(m, co->late_ticks) : 0;
    return MAX(tick, co->late_leave);
}

/* The cohort of @k's blocks placed now, those that start at once or
 * (@late) those that start late; a late cohort's end moves with its count
 * of SMs (one reschedule per SM, no event of its own per block). */
G_ALWAYS_INLINE static inline void cohort_join(Engine *E, KernelRt *k, Group *g,
                                               bool late, bool first)
{
    Cohort **slot = late    ? &k->late_cohort
                    : first ? &k->first_cohort
                            : &k->last_cohort;
    const bool made = !*slot || (*slot)->placed != E->now;
    if (made)
        *slot = cohort_new(E, k);
    Cohort *co = *slot;
    cohort_add(co, g);
    if (first && made) { /* its blocks carry the fixed part too */
        co->end = co->placed + (SimTime)ceil(k->work + k->first);
        co->abs_end = co->end;
        sim_eventq_schedule(&E->q, &co->ev, co->end);
        cohort_early_schedule(E, co);
    }
    if (!late)
        return;
    late_release(E, co, g);
    co->end = co->placed + (SimTime)ceil(k->work) + late_wait(E->m, co);
    co->abs_end = co->end;
    sim_eventq_schedule(&E->q, &co->ev, co->end);
}

#define SPREAD_JOIN_WINDOW 0.3
static bool no_join; /* sm_force_no_join */

void sm_force_no_join(bool on)
{
    no_join = on;
}

/* Joining a younger placement to an older group (uneven waves only).
 * With the spread on, blocks of one kernel reach an SM at many instants:
 * each early block end another kernel's block takes splits that kernel's
 * placement on the SM, and every kernel placed there later inherits the
 * split (FINDINGS.md §23), an event and a group per instant.  So blocks of
 * @k placed on @sm within w = SPREAD_JOIN_WINDOW x s of its block time
 * (s = sm_block_end_spread) after its latest group there join that group
 * instead: the group's blocks then share its work left evenly (each at
 * the count-weighted mean of the old blocks' work left and the new ones'
 * whole work), so the SM's work is unchanged and only when, within the
 * window, each block ends moves: the approximation.  Not for groups that
 * have begun their early ends, wall-clock or self-timed kernels, nor
 * groups in a cohort with other SMs (the cohort's one end time) or an
 * extended one.  0.3 is a choice, not a fit: validate's predicted end
 * times within 10% are the same (1147 of 1268 at s = 0.32) from 0.15 to
 * 0.48; from 0.5 on, the step between the early ends of the SGEMM's 5
 * blocks (2 s / 4), blocks that took successive early slots of one group
 * join and i_quad_mix goes from +6.6% to +44.9%.  The group of @k to join
 * on @sm, or NULL. */
static Group *spread_join(const Engine *E, const SmRt *sm, const KernelRt *k)
{
    const double s = E->m->sm_block_end_spread * SPREAD_JOIN_WINDOW;
    if (s <= 0 || k->fixed_time || no_join)
        return NULL;
    Group *g = sm->groups;
    while (g && g->k != k)
        g = g->next;
    if (!g || g->early || g->early_out ||
        (double)(E->now - g->placed) > s * k->work)
        return NULL;
    const Cohort *co = g->cohort;
    if (co && (co->n != 1 || co->ext || co->wall || co->timed))
        return NULL;
    return g;
}

/* @n new blocks join @g (spread_join): its work left per block becomes
 * the mean over old and new blocks; a cohort of @g alone moves its end. */
static void spread_join_blocks(Engine *E, SmRt *sm, Group *g, uint32_t n)
{
    sm->mods++; /* a change that breaks a period (engine_steady.c) */
    const double w = g->k->work;
    Cohort *co = g->cohort;
    const double rem = co ? (double)(co->end - E->now) : MAX(g->remaining, 0);
    const double mean = (rem * g->count + w * n) / (double)(g->count + n);
    if (!co) {
        g->remaining = mean;
        return;
    }
    co->end = E->now + (SimTime)ceil(mean);
    co->abs_end = co->end;
    sim_eventq_schedule(&E->q, &co->ev, co->end);
}

/* @n blocks of @k take their resources on @sm: its slots, warps, shared
 * memory and carveout (the first kernel's, kept while blocks stay), its
 * context's and client's counts, @k's SM set; sm_place_as and
 * sm_place_clone both place through it, in this order. */
G_ALWAYS_INLINE static inline void sm_take(Engine *E, SmRt *sm, KernelRt *k,
                                           uint32_t n)
{
    const SimBlockNeeds *nd = &k->needs;
    sm->free_blocks -= n;
    sm->free_warps -= n * nd->warps;
    if (!sm->carveout)
        sm->carveout = k->carveout;
    sm->used_smem += n * nd->smem_bytes;
    sm->ctx->resident_blocks += n;
    sm->ctx->state_bytes += (uint64_t)n * block_state_bytes(nd);
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
}

/* @left warps of @g's new blocks (@rpw registers each) go to @sm's @P
 * register sub-partitions (sm_place_as).  Warps go one by one to the
 * sub-partition with the most registers free, the lowest index on ties
 * (as the hardware spreads warps over schedulers).  Done in rounds: the t
 * sub-partitions tied at the top each take one warp per round, for as
 * many rounds as keep them at or above the next level; the remainder goes
 * to the lowest indices.  Same result as warp by warp, in O(P) steps.
 * When all are level (an empty SM, most placements on a busy GPU) that is
 * one pass: q = left / P each, one more for the first left % P. */
G_ALWAYS_INLINE static inline void regs_take(SmRt *sm, Group *g, uint32_t P,
                                             uint32_t rpw, uint32_t left)
{
    bool level = rpw > 0;
    for (uint32_t s = 1; s < P && level; s++)
        level = sm->free_regs[s] == sm->free_regs[0];
    if (level && left > 0) {
        const uint32_t q = left / P, r = left % P;
        g_assert((uint64_t)(q + (r > 0)) * rpw <= sm->free_regs[0]);
        for (uint32_t s = 0; s < P; s++) {
            const uint32_t take = q + (s < r);
            sm->free_regs[s] -= take * rpw;
            g->sub_warps[s] += (uint8_t)take;
        }
        left = 0;
    }
    while (left > 0 && rpw > 0) {
        uint32_t F = 0, next = 0, t = 0;
        for (uint32_t s = 0; s < P; s++)
            F = MAX(F, sm->free_regs[s]);
        for (uint32_t s = 0; s < P; s++) {
            if (sm->free_regs[s] == F)
                t++;
            else
                next = MAX(next, sm->free_regs[s]);
        }
        uint32_t rounds = t < P ? MAX(1u, (F - next) / rpw) : left / t;
        rounds = MIN(rounds, left / t);
        for (uint32_t s = 0; s < P && left > 0; s++) {
            if (sm->free_regs[s] != F)
                continue;
            uint32_t take = rounds ? rounds : 1;
            g_assert((uint64_t)take * rpw <= sm->free_regs[s]);
            sm->free_regs[s] -= take * rpw;
            g->sub_warps[s] += (uint8_t)take;
            left -= take;
        }
    }
}

static void sm_place_as(Engine *E, SmRt *sm, KernelRt *k, uint32_t n,
                        bool late);

/* Take the resources of @n blocks of @k on @sm and add them as a group
 * (two where some start late). */
static void sm_place(Engine *E, SmRt *sm, KernelRt *k, uint32_t n)
{
    const uint32_t now = late_split(E, sm, k, n);
    if (now > 0)
        sm_place_as(E, sm, k, now, false);
    if (now < n)
        sm_place_as(E, sm, k, n - now, true);
}

static void sm_place_as(Engine *E, SmRt *sm, KernelRt *k, uint32_t n, bool late)
{
    const SimBlockNeeds *nd = &k->needs;
    COST(COST_PLACE);
    COST_ADD(COST_PLACE_BLOCKS, n);
    if (!sm->groups)
        COST(COST_PLACE_EMPTY);
    /* Put off by sm_event: the SM holds loose groups, so the share below
     * puts it on E->resched and this dispatch's flush_resched retimes it,
     * taking its reservation (as it took the place of the event sm_event
     * would have scheduled); the shares sm_event left stale are done anew
     * below with the new blocks.  (No timer kernel reads its event
     * meanwhile: sm_defer_ok.) */
    const bool was_deferred = sm->defer != 0;
    sm->defer = 0;
    advance(E, sm);
    /* Blocks of the same kernel placed on this SM at this instant merge;
     * new groups go to the head, so only the head can match. */
    Group *g = sm->groups;
    bool fresh = !g || g->k != k || g->placed != E->now || g->late != late,
         joined = false;
    if (fresh && !late && (g = spread_join(E, sm, k)) != NULL) {
        spread_join_blocks(E, sm, g, n);
        fresh = false;
        joined = true;
    } else if (fresh) {
        g = sm->groups;
    }
    dram_add(E, sm, k, n, fresh);
    /* the kernel's first blocks on this SM carry its fixed part */
    const bool first = fresh && k->first > 0 &&
                       !(k->smset[sm->id / 64] & (1ull << (sm->id % 64)));
    if (fresh)
        g = group_push_fresh(E, sm, k, first, late);
    const double before = sm->load;
    g->count += n;
    sm->load = before + n * k->w;
    /* (before the share: each scheduler's warps count, engine_issue.c) */
    const uint32_t P = E->m->reg_subpartitions, rpw = nd->regs_per_warp;
    if (P == SUBP_MAX)
        regs_take(sm, g, SUBP_MAX, rpw, n * nd->warps);
    else
        regs_take(sm, g, P, rpw, n * nd->warps);
    /* With the new blocks (g, in the list, included) the SM's issue rate
     * is shared anew; a slowed SM's cohort groups become loose. */
    bool slowed;
    const bool loose = sm_reshare(E, sm, &slowed);
    g_assert(loose || !was_deferred);
    note_placed(E, sm,
                (Placed){.fresh = fresh,
                         .before = before,
                         .slowed = slowed,
                         .loose = loose});
    if (!g->cohort && !joined && (k->fixed_time || !slowed)) {
        cohort_join(E, k, g, late, first);
        COST(COST_PLACE_COHORT);
    }
    sm_take(E, sm, k, n);
    if (k->start == SIM_TIME_NEVER) {
        k->start = E->now;
        SimOpRecord *r = eng_record(E, k->inst);
        if (r)
            r->start_ns = E->now;
        met_kernel_started(E);
        k->proc->kernels_running++;
        ctx_kernel_started(E, k->ctx);
        if (k->inst->op->u.kernel.faults && !k->faulted) {
            k->faulted = true;
            g_ptr_array_add(E->faults, k);
        }
    }
    if (g->cohort)
        cohort_early_list(E, g->cohort, g);
    if (g->cohort && joined) /* its end moved later */
        cohort_early_schedule(E, g->cohort);
    else if (g->cohort) /* with the SM's resources as they now are */
        cohort_early_arm(E, g->cohort, g);
}

/* A tier's SMs as one class (place_most_free).  SMs in the same state
 * evolve alike: an empty SM's placement of @n blocks of @k is a function of
 * its state (the whole SM's resources, load 0, nothing put off), @k and
 * now, but for the SM's id (its bit in k->smset, its client's counts, its
 * metrics).  So the first bare SM of a tier is placed by sm_place (the
 * template) and the others copy what it computed: the group's
 * sub-partition warps (regs_take on level registers), the share
 * (issue_share's memo per kernel answers every copy: the same load bits,
 * count and sub-partitions), the cohort (made at this instant, so joined),
 * instead of computing it again.  Invariant (test_engine_clone_placement
 * compares with sm_force_no_clone; check_invariants compares each copy
 * with the template): a copy leaves the SM, the group and every list it
 * joins as sm_place_as would, in the same order. */
static bool no_clone;                 /* sm_force_no_clone */
static _Thread_local uint64_t clones; /* sm_clone_count */

void sm_force_no_clone(bool on)
{
    no_clone = on;
}

uint64_t sm_clone_count(void)
{
    return clones;
}

/* Whether @sm is bare: no groups (so no resident blocks: every resource
 * given back, integer counts exactly, the carveout reset), load exactly
 * 0, nothing put off, not on the retime list, in steady state or on the
 * DRAM clock.  Two bare SMs of one context are in the same state. */
static bool sm_bare(const Engine *E, const SmRt *sm)
{
    return !sm->groups && sm->free_blocks == E->m->max_blocks_per_sm &&
           sm->load == 0 && !sm->defer && !sm->resched && !sm->st.on &&
           !sm->dram_groups && sm->v_slot == UINT32_MAX && !sm->v_old;
}

/* Whether @k's placements on bare SMs can be copied: one group each that
 * starts at once (not fixed_time: no late starts) and moves no DRAM
 * pressure. */
static bool clone_kernel_ok(const KernelRt *k)
{
    return !no_clone && !k->fixed_time && k->dram_p <= 0;
}

/* Whether @k's blocks placed now on bare @sm carry the fixed part (first
 * on their SM), as sm_place_as decides for a fresh group. */
static bool clone_first(const SmRt *sm, const KernelRt *k)
{
    return k->first > 0 && !(k->smset[sm->id / 64] & (1ull << (sm->id % 64)));
}

/* Whether template @t (bare before sm_place of @n blocks of @k placed it
 * now) came out as a copy needs: one fresh group of @n blocks, starting at
 * once, in a cohort, on an SM its share did not slow. */
static bool clone_template_ok(const Engine *E, const SmRt *t, const KernelRt *k,
                              uint32_t n)
{
    const Group *g = t->groups;
    return g && !g->next && g->k == k && g->count == n && !g->late &&
           g->cohort && g->placed == E->now && !t->fresh_slowed && t->resched &&
           t->n_groups == 1 && t->cohort_groups == 1 &&
           g->speed == k->is_speed && g->turns == k->is_turns &&
           g->pipe_over == k->is_pipe_over && t->speed == k->is_prop &&
           !k->is_slowed;
}

/* sm_place_as of @n blocks of @k on bare @sm, copied from template @t
 * (clone_template_ok; @sm's clone_first as @t's was): each step below is
 * sm_place_as's for a fresh group on a bare SM, in its order, with the
 * values it would compute read from @t. */
static void sm_place_clone(Engine *E, SmRt *sm, KernelRt *k, uint32_t n,
                           const SmRt *t, bool first)
{
    const Group *tg = t->groups;
    clones++;
    COST(COST_PLACE);
    COST(COST_PLACE_COPIED);
    COST_ADD(COST_PLACE_BLOCKS, n);
    COST(COST_PLACE_EMPTY);
    /* bare (place_tier: sm_bare): no groups, not on the retime list, so
     * the pushed group is its only one and note_placed lists it */
    g_assert(!sm->groups && !sm->resched && sm->n_groups == 0);
    sm->last = E->now; /* advance of an SM without groups */
    Group *g = group_push_fresh(E, sm, k, first, false);
    g->count = n;
    sm->load = sm->load + n * k->w; /* 0 + n w, as @t's */
    for (uint32_t s = 0; s < SIM_MAX_SUBPARTITIONS; s++) {
        sm->free_regs[s] = t->free_regs[s];
        g->sub_warps[s] = tg->sub_warps[s];
    }
    /* issue_share's memo hit (clone_template_ok: it holds @t's share) */
    COST(COST_SHARE_ONE);
    issue_share_memo_set(sm, g, k);
    /* loose until it joins its cohort, as @t (bare: not on the list) */
    note_placed(
        E, sm,
        (Placed){.fresh = true, .before = 0, .slowed = false, .loose = true});
    /* @t's cohort: made now (clone_template_ok), so the one to join */
    Cohort *co = tg->cohort;
    cohort_add(co, g);
    COST(COST_PLACE_COHORT);
    sm_take(E, sm, k, n); /* (a bare SM: no carveout yet) */
    /* cohort_early_list: @t's group, the same count in the same cohort,
     * listed it if it has early ends left (early_left), so nothing to do */
    cohort_early_arm(E, co, g);
    if (E->opt.check_invariants) {
        g_assert(sm->warps == t->warps && sm->free_warps == t->free_warps &&
                 sm->used_smem == t->used_smem && sm->carveout == t->carveout &&
                 sm->free_blocks == t->free_blocks);
        g_assert(memcmp(g->sub_warps, tg->sub_warps, sizeof g->sub_warps) == 0);
        g_assert(co->early_listed || early_left(E, g) < 0);
        g_assert(co == (first ? k->first_cohort : k->last_cohort));
        g_assert(k->start != SIM_TIME_NEVER); /* @t started it */
    }
}

/* A tier's SMs that hold groups, as classes (place_tier).  On a busy GPU a
 * tier's SMs (all at the same fit and free warps) are mostly in a few
 * states: a kernel's blocks were placed, and their neighbours' ended, SM
 * after SM alike (`run -q --as-recorded` of bench/big_trace.py's 4-stream
 * trace of 10^4 kernels: 1.02 M of its 1.14 M placements are copies).
 * sm_place_as of @n blocks of @k (not fixed-time, no DRAM pressure, no
 * block-end spread: one fresh group that starts at once, or the head
 * group, placed now, growing) on such an SM is a function of what it
 * reads there: its resources, load and last update, and per group (in
 * list order) the kernel, count, sub-partition warps, placement, cohort,
 * work left and the share it progressed at; not of the SM's id, what
 * sm_event put off (its shares are done anew, and an SM put off was
 * advanced to now), or its steady-state snapshot.  So the state an SM had
 * before sm_place (SmSnap) is kept for the latest SM of the tier so placed
 * whose next one may be alike (the template), and an SM found equal to it
 * copies what its placement computed: the work its loose groups have left
 * (advance), the group's sub-partition warps and the registers left
 * (regs_take), every group's share and cached rate (issue_share: a
 * function of the groups' kernels, counts and sub-partition warps in list
 * order and the load), and whether that slowed the SM; everything that
 * touches other objects (loosening cohort groups, the cohort join, the
 * kernel's and context's counts, the metrics, the retime list) is done
 * for the SM itself, in sm_place_as's order.  Its retime at the end of
 * the dispatch then reads what the template's did, and takes its time
 * (flush_resched, twin_ok).  Invariant
 * (test_engine_copy_placement_matches_computed compares with
 * sm_force_no_copy; check_invariants shares each copy anew and compares,
 * and computes each copied retime's time): a copy leaves the SM, its
 * groups, its event and every list it joins as sm_place_as and
 * sm_reschedule would. */
#define SNAP_GROUPS 8 /* the groups an SM may hold to be a template */

typedef struct {
    const KernelRt *k;
    const Cohort *cohort;
    SimTime placed;
    uint32_t count, sub, early, early_out;
    bool late;
    uint64_t remaining, speed, turns, pipe_over; /* bits (loose groups) */
} SnapGroup;

typedef struct {
    const SmRt *t; /* the template, placed; NULL: none */
    bool merge;    /* its head group was the kernel's, placed now: the
                      blocks joined it (no new group) */
    bool first;    /* else its new group carries its kernel's fixed part */
    bool slowed;   /* its share slowed a group (sm_slows after it) */
    uint32_t n_groups, cohort_groups, free_warps, free_blocks, carveout,
        used_smem, warps;
    uint32_t free_regs[SIM_MAX_SUBPARTITIONS];
    uint64_t load; /* bits */
    SimTime last;
    SnapGroup g[SNAP_GROUPS];
} SmSnap;

static bool no_copy;                  /* sm_force_no_copy */
static _Thread_local uint64_t copies; /* sm_copy_count */
static _Thread_local uint64_t twins;  /* sm_twin_count */

void sm_force_no_copy(bool on)
{
    no_copy = on;
}

uint64_t sm_copy_count(void)
{
    return copies;
}

uint64_t sm_twin_count(void)
{
    return twins;
}

static inline uint64_t dbits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline uint32_t sub_bits(const Group *g)
{
    uint32_t s = 0;
    memcpy(&s, g->sub_warps, MIN(sizeof s, sizeof g->sub_warps));
    return s;
}

/* Whether placements of @k on SMs holding groups may be copied, and @sm
 * may be a template or a copy: a few groups, none of them or the SM on
 * the DRAM clock or in steady state (their advance and share read more
 * than SmSnap holds). */
static bool copy_ok(const Engine *E, const SmRt *sm)
{
    return !no_copy && E->m->sm_block_end_spread <= 0 && sm->n_groups > 0 &&
           sm->n_groups <= SNAP_GROUPS && !sm->st.on && !sm->dram_groups &&
           sm->v_slot == UINT32_MAX && !sm->v_old;
}

/* @sm's state as sm_place_as of blocks of @k reads it, into @s
 * (copy_ok(@sm)). */
static void snap_take(const Engine *E, const SmRt *sm, const KernelRt *k,
                      SmSnap *s)
{
    const Group *h = sm->groups;
    s->t = NULL;
    s->merge = h->k == k && h->placed == E->now && !h->late;
    s->first = clone_first(sm, k);
    s->n_groups = sm->n_groups;
    s->cohort_groups = sm->cohort_groups;
    s->free_warps = sm->free_warps;
    s->free_blocks = sm->free_blocks;
    s->carveout = sm->carveout;
    s->used_smem = sm->used_smem;
    s->warps = sm->warps;
    memcpy(s->free_regs, sm->free_regs, sizeof s->free_regs);
    s->load = dbits(sm->load);
    s->last = sm->last;
    uint32_t i = 0;
    for (const Group *g = sm->groups; g; g = g->next, i++) {
        const bool loose = !g->cohort;
        s->g[i] = (SnapGroup){
            .k = g->k,
            .cohort = g->cohort,
            .placed = g->placed,
            .count = g->count,
            .sub = sub_bits(g),
            .early = g->early,
            .early_out = g->early_out,
            .late = g->late,
            /* a cohort group's work left and share are not read: it is
             * timed by its cohort, and loosened from the cohort's end */
            .remaining = loose ? dbits(g->remaining) : 0,
            .speed = loose ? dbits(g->speed) : 0,
            .turns = loose ? dbits(g->turns) : 0,
            .pipe_over = loose ? dbits(g->pipe_over) : 0,
        };
    }
}

/* Whether @b may be in @a's state (snap_same decides). */
static inline bool snap_likely(const SmRt *a, const SmRt *b)
{
    return a->n_groups == b->n_groups && a->last == b->last &&
           dbits(a->load) == dbits(b->load);
}

/* Whether @sm (copy_ok) is in the state @s holds. */
static bool snap_same(const SmRt *sm, const SmSnap *s)
{
    if (sm->n_groups != s->n_groups || dbits(sm->load) != s->load ||
        sm->last != s->last || sm->cohort_groups != s->cohort_groups ||
        sm->free_warps != s->free_warps || sm->free_blocks != s->free_blocks ||
        sm->carveout != s->carveout || sm->used_smem != s->used_smem ||
        sm->warps != s->warps)
        return false;
    for (uint32_t p = 0; p < SIM_MAX_SUBPARTITIONS; p++)
        if (sm->free_regs[p] != s->free_regs[p])
            return false;
    uint32_t i = 0;
    for (const Group *g = sm->groups; g; g = g->next, i++) {
        const SnapGroup *x = &s->g[i];
        if (g->k != x->k || g->cohort != x->cohort || g->count != x->count ||
            g->placed != x->placed || sub_bits(g) != x->sub ||
            g->late != x->late || g->early != x->early ||
            g->early_out != x->early_out)
            return false;
        if (!g->cohort &&
            (dbits(g->remaining) != x->remaining ||
             dbits(g->speed) != x->speed || dbits(g->turns) != x->turns ||
             dbits(g->pipe_over) != x->pipe_over))
            return false;
    }
    return true;
}

/* Whether template @t (in state @s before sm_place of @n blocks of @k
 * placed it now) came out as a copy needs: one fresh group of @n blocks at
 * the head, starting at once, before the groups it held; or (merge) its
 * head group grown by @n. */
static bool snap_template_ok(const Engine *E, const SmRt *t, const SmSnap *s,
                             const KernelRt *k, uint32_t n)
{
    const Group *g = t->groups;
    const uint32_t added = s->merge ? 0 : 1;
    const uint32_t count = s->merge ? s->g[0].count + n : n;
    return t->n_groups == s->n_groups + added && g->k == k &&
           g->count == count && g->placed == E->now && !g->late &&
           t->last == E->now;
}

/* check_invariants: copy @sm of template @t (sm_place_copy) holds the
 * resources @t does, and its share computed anew gives the bits copied
 * (and its cached rates the bits computed anew). */
static void copy_check(Engine *E, SmRt *sm, const SmRt *t, bool slowed)
{
    g_assert(sm->warps == t->warps && sm->free_warps == t->free_warps &&
             sm->used_smem == t->used_smem && sm->carveout == t->carveout &&
             sm->free_blocks == t->free_blocks &&
             dbits(sm->load) == dbits(t->load) &&
             memcmp(sm->free_regs, t->free_regs, sizeof sm->free_regs) == 0);
    uint64_t was[SNAP_GROUPS + 1][4];
    bool rated[SNAP_GROUPS + 1];
    uint32_t i = 0;
    for (const Group *g = sm->groups; g; g = g->next, i++) {
        g_assert(i <= SNAP_GROUPS);
        was[i][0] = dbits(g->speed);
        was[i][1] = dbits(g->turns);
        was[i][2] = dbits(g->pipe_over);
        was[i][3] = dbits(g->rate);
        rated[i] = g->rate_ok;
    }
    const uint64_t prop = dbits(sm->speed);
    g_assert(issue_share(E->m, sm) == slowed);
    g_assert(dbits(sm->speed) == prop);
    i = 0;
    for (const Group *g = sm->groups; g; g = g->next, i++) {
        g_assert(dbits(g->speed) == was[i][0] && dbits(g->turns) == was[i][1] &&
                 dbits(g->pipe_over) == was[i][2]);
        g_assert(!rated[i] || dbits(sm_group_rate(sm, g)) == was[i][3]);
    }
}

/* @t, placed by sm_place from the state @s holds (snap_template_ok), is
 * the template; whether its share slowed a group is kept (issue_share's
 * answer: sm_slows of the shares it set), and its loose groups' rates are
 * computed now (its retime would, in flush_resched), so that the copies
 * take them cached. */
static void snap_keep(const Engine *E, SmRt *t, SmSnap *s)
{
    s->t = t;
    t->tmpl_flush = E->flushes + 1; /* this dispatch's (sm_dispatch) */
    s->slowed = sm_slows(t);        /* what its share returned */
    for (Group *g = t->groups; g; g = g->next)
        if (!g->cohort)
            (void)group_rate(t, g);
}

/* sm_place_as of @n blocks of @k on @sm, in the state template @s->t was
 * in before its own (snap_same, snap_template_ok): each step below is
 * sm_place_as's, for a fresh group or (@s->merge) for the head group
 * growing, in its order, with the values it would compute read from the
 * template. */
static void sm_place_copy(Engine *E, SmRt *sm, KernelRt *k, uint32_t n,
                          const SmSnap *s)
{
    const SmRt *t = s->t;
    copies++;
    COST(COST_PLACE);
    COST(COST_PLACE_COPIED);
    COST_ADD(COST_PLACE_BLOCKS, n);
    const bool was_deferred = sm->defer != 0;
    sm->defer = 0;
    /* advance: the loose groups' work left as the template's came out
     * (the same work, share and time since the last update) */
    const Group *tg = s->merge ? t->groups : t->groups->next;
    for (Group *g = sm->groups; g; g = g->next, tg = tg->next)
        if (!g->cohort)
            g->remaining = tg->remaining;
    sm->last = E->now;
    const bool fresh = !s->merge;
    const bool first = fresh && k->first > 0 &&
                       !(k->smset[sm->id / 64] & (1ull << (sm->id % 64)));
    Group *g = fresh ? group_push_fresh(E, sm, k, first, false) : sm->groups;
    const double before = sm->load;
    g->count += n;
    sm->load = before + n * k->w;
    memcpy(sm->free_regs, t->free_regs, sizeof sm->free_regs);
    memcpy(g->sub_warps, t->groups->sub_warps, sizeof g->sub_warps);
    /* the share, each group's as the template's in the same place */
    sm->speed = t->speed;
    tg = t->groups;
    for (Group *x = sm->groups; x; x = x->next, tg = tg->next) {
        x->speed = tg->speed;
        x->turns = tg->turns;
        x->pipe_over = tg->pipe_over;
        x->rate_ok = tg->rate_ok;
        x->rate = tg->rate;
        x->rate_dram = tg->rate_dram;
        x->vrate_ok = tg->vrate_ok;
        x->vrate = tg->vrate;
    }
    const bool slowed = s->slowed;
    if (slowed)
        sm_loosen(E, sm);
    const bool loose = sm_has_loose(sm);
    g_assert(loose || !was_deferred);
    note_placed(E, sm,
                (Placed){.fresh = fresh,
                         .before = before,
                         .slowed = slowed,
                         .loose = loose});
    if (!g->cohort && !slowed) {
        cohort_join(E, k, g, false, first);
        COST(COST_PLACE_COHORT);
    }
    sm_take(E, sm, k, n);
    g_assert(k->start != SIM_TIME_NEVER); /* the template started it */
    if (g->cohort) {
        cohort_early_list(E, g->cohort, g);
        cohort_early_arm(E, g->cohort, g);
    }
    /* its retime may be the template's (flush_resched, twin_ok): the same
     * groups then, the new one's fixed part included */
    sm->twin = s->merge || first == s->first ? t : NULL;
    sm->twin_flush = E->flushes + 1; /* this dispatch's (sm_dispatch) */
    sm->twin_mods = sm->mods;
    sm->twin_tmods = t->mods;
    sm->twin_count = sm->twin_tcount = g->count; /* both heads alike */
    if (E->opt.check_invariants)
        copy_check(E, sm, t, slowed);
}

/* Whether sm_reschedule of @sm would only cancel an event that is not
 * there: it holds no loose group (so its next event is none), none is
 * pending or reserved, nothing is put off, and it is neither in steady
 * state nor on the DRAM clock.  So it is for an SM whose placements all
 * joined cohorts: sm_place_as puts it on E->resched when its share finds
 * the new group loose, before the group joins its cohort (every SM a lone
 * kernel spreads over). */
static bool sm_nothing_to_reschedule(const SmRt *sm)
{
    return !sm_has_loose(sm) && !sim_event_pending(&sm->ev) &&
           !sim_event_reserved(&sm->ev) && !sm->defer && !sm->st.on &&
           !sm->dram_groups && sm->v_slot == UINT32_MAX && !sm->v_old;
}

/* Whether copy @sm's retime is its template's (sm_place_copy), in the
 * flush of the dispatch that made the copy: neither SM
 * changed since the copy (mods counts every group placed, removed or
 * loosened, and only the head group grows, by a placement merging into
 * it; nothing advances within the instant), and the template was retimed
 * in this flush, before any such change.  Its retime reads what the
 * template's did (its loose groups' work and rates, now; no DRAM, steady
 * state or put-off work: copy_ok, and a copy is not put off), so it
 * computes the same time. */
static bool twin_ok(const Engine *E, const SmRt *sm)
{
    const SmRt *t = sm->twin; /* (stale unless twin_flush is this one) */
    return sm->twin_flush == E->flushes && t && t->flush_seen == E->flushes &&
           sm->mods == sm->twin_mods && t->mods == sm->twin_tmods &&
           sm->groups && sm->groups->count == sm->twin_count && t->groups &&
           t->groups->count == sm->twin_tcount && !sm->defer && !sm->st.on;
}

/* Recompute the events of the SMs that placements changed. */
static void flush_resched(Engine *E)
{
    E->flushes++;
    for (uint32_t i = 0; i < E->n_resched; i++) {
        SmRt *sm = E->resched[i];
        sm->resched = false;
        if (sm_nothing_to_reschedule(sm)) {
            /* its head group, if any, is a cohort group: never a steady
             * candidate (sm_steady_note would clear the snapshot too) */
            sm->st.k = NULL;
            continue;
        }
        if (!no_copy && twin_ok(E, sm)) { /* sm_reschedule's two ends */
            twins++;
            const SimTime when = sm->twin->flush_when;
            if (when == SIM_TIME_NEVER)
                sim_eventq_cancel(&E->q, &sm->ev);
            else
                sim_eventq_schedule(&E->q, &sm->ev, when);
            if (E->opt.check_invariants) { /* sm_reschedule's time */
                const double min = sm_next_plain(E, sm);
                g_assert(min == INFINITY ? when == SIM_TIME_NEVER
                                         : when == E->now + ceil_ns(min));
            }
        } else {
            sm_reschedule(E, sm);
        }
        if (sm->tmpl_flush == E->flushes) { /* its copies may follow */
            sm->flush_seen = E->flushes;
            sm->flush_when =
                sim_event_pending(&sm->ev) ? sm->ev.when : SIM_TIME_NEVER;
        }
        /* most kernels are far too small for a steady state */
        const Group *g = sm->groups;
        if (g && g->k->blocks - g->k->dispatched >=
                     2 * (uint64_t)E->m->sm_count * g->k->occ + g->count)
            sm_steady_note(E, sm);
        else
            sm->st.k = NULL;
    }
    E->n_resched = 0;
}

/* @sm releases blocks: a new release epoch, and @sm moves to the front of
 * its context's release list, which so stays ordered by ->released, latest
 * first.  A kernel that stopped short at epoch e needs only look at the
 * SMs before the first one released at or before e (sm_cands). */
static void note_release(SmRt *sm)
{
    Ctx *c = sm->ctx;
    sm->released = ++c->release_epoch;
    if (c->rel_head == sm)
        return;
    if (sm->rel_prev) /* in the list: unlink */
        sm->rel_prev->rel_next = sm->rel_next;
    if (sm->rel_next)
        sm->rel_next->rel_prev = sm->rel_prev;
    sm->rel_prev = NULL;
    sm->rel_next = c->rel_head;
    if (c->rel_head)
        c->rel_head->rel_prev = sm;
    c->rel_head = sm;
}

/* Give back the resources of @n blocks of @k on @sm whose warps sit
 * @sub_warps per register sub-partition (DRAM pressure and the group
 * itself are the caller's); shares the SM anew: true if it then holds
 * loose groups (sm_reshare). */
static bool sm_unplace_blocks(Engine *E, SmRt *sm, const KernelRt *k,
                              uint32_t n, const uint8_t *sub_warps, bool share)
{
    const SimBlockNeeds *nd = &k->needs;
    sm->mods++;
    sm->free_blocks += n;
    sm->free_warps += n * nd->warps;
    sm->used_smem -= n * nd->smem_bytes;
    /* unused sub-partitions: sub_warps 0, free_regs 0 (a loop the
     * compiler unrolls) */
    for (uint32_t s = 0; s < SUBP_MAX; s++)
        sm->free_regs[s] += sub_warps[s] * nd->regs_per_warp;
    sm->load -= n * k->w;
    if (sm->load < 1e-9)
        sm->load = 0; /* no drift below zero from repeated float sums */
    sm->ctx->resident_blocks -= n;
    note_release(sm);
    if (sm->free_blocks == E->m->max_blocks_per_sm)
        sm->carveout = 0; /* idle: the next kernel configures it */
    sm->ctx->state_bytes -= (uint64_t)n * block_state_bytes(nd);
    if (sm->client_blocks) {
        uint32_t c = k->proc->client;
        sm->client_blocks[c] -= n;
        if (sm->client_blocks[c] == 0)
            sm->ctx->client_in_use[c]--;
    }
    sm_set_warps(E, sm, sm->warps - n * nd->warps);
    if (!share) { /* put off (sm_event): the shares are stale */
        sm->defer |= SM_DEFER_SHARE;
        return false;
    }
    return sm_reshare(E, sm, NULL);
}

/* Give back a group's resources (it completed or was killed; the caller
 * has taken it out of the SM's list and accounted progress up to now).
 * True if the SM holds loose groups, whose event must be recomputed;
 * without @share the SM's shares are left stale (sm_event) and false. */
static bool sm_unplace_as(Engine *E, SmRt *sm, Group *g, bool share)
{
    sm->rel_at = E->now;
    sm->rel_k = g->k;
    sm->rel_count = g->count;
    memcpy(sm->rel_sub, g->sub_warps, sizeof sm->rel_sub);
    if (g->cohort)
        cohort_remove(E, g);
    dram_remove_group(E, sm, g->k, g->count);
    return sm_unplace_blocks(E, sm, g->k, g->count, g->sub_warps, share);
}

static bool sm_unplace(Engine *E, SmRt *sm, Group *g)
{
    return sm_unplace_as(E, sm, g, true);
}

void sm_init_ctx(Engine *E, Ctx *c)
{
    const GpuModel *m = E->m;
    c->sms = g_new0(SmRt, m->sm_count);
    c->dram_sms = g_new0(uint64_t, (m->sm_count + 63) / 64);
    c->dram_speed = 1.0; /* no pressure */
    dram_init_ctx(E, c);
    for (uint32_t i = 0; i < m->sm_count; i++) {
        SmRt *sm = &c->sms[i];
        sm->ctx = c;
        sm->id = i;
        sm->free_warps = m->max_warps_per_sm;
        sm->free_blocks = m->max_blocks_per_sm;
        sm->speed = 1.0; /* no load: a lone warp's speed */
        sm->dram_groups = 0;
        sm->carveout = 0;
        sm->used_smem = 0;
        for (uint32_t s = 0; s < m->reg_subpartitions; s++)
            sm->free_regs[s] = m->regs_per_sm / m->reg_subpartitions;
        sim_event_init(&sm->ev, EV_SM, sm);
        if (c->mps_server)
            sm->client_blocks = g_new0(uint16_t, m->mps_max_clients + 1);
    }
    for (uint32_t r = 0; r < m->sm_count; r++)
        c->sms[m->dispatch_order[r]].rank = r;
}

void sm_free_ctx(Engine *E, Ctx *c)
{
    uint32_t j = 0; /* its SMs leave the put-off list: events go below */
    for (uint32_t i = 0; i < E->n_deferred; i++)
        if (E->deferred[i]->ctx != c)
            E->deferred[j++] = E->deferred[i];
    E->n_deferred = j;
    while (c->cohorts) {
        Cohort *co = c->cohorts;
        c->cohorts = co->next;
        sim_eventq_cancel(&E->q, &co->ev);
        g_free(co);
    }
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
    dram_free_ctx(E, c);
    g_free(c->sms);
    g_free(c->dram_sms);
}

/* ------------------------------------------------------------------------
 * Kernels
 * ------------------------------------------------------------------------ */

/* A bare trace kernel's issue share and DRAM throughput (0..1, as Nsight
 * Compute's Issue Slots Busy and DRAM Throughput: of the whole GPU's peak)
 * from its class's rate per resident warp (GpuModel.bare_*_pct_per_warp)
 * times its warps resident per SM in its first wave averaged over all SMs:
 * @W on each of min(@blocks, S) SMs.  A kernel with anything of its own
 * (an intensity, DRAM bytes, an ILP, fixed-time blocks), a model without
 * the table, or a class whose issue rate is 0 (kept as FMA chains) keeps
 * what it has (FINDINGS.md §56). */
static void bare_intensities(const GpuModel *m, const SimKernelSpec *ks,
                             uint64_t W, uint64_t blocks, double *si,
                             double *mi)
{
    *si = ks->sm_intensity;
    *mi = ks->mem_intensity;
    if (!ks->bare_class || ks->bare_class >= SIM_KCLASS_N ||
        !m->has_bare_classes ||
        !(m->bare_issue_pct_per_warp[ks->bare_class] > 0) ||
        ks->sm_intensity > 0 || ks->mem_intensity > 0 || ks->dram_bytes ||
        ks->ilp || ks->wall_clock || ks->self_timed)
        return;
    const double S = (double)m->sm_count;
    const double warps = (double)W * MIN((double)blocks, S) / S;
    *si = MIN(1.0, m->bare_issue_pct_per_warp[ks->bare_class] * warps / 100.0);
    *mi = MIN(1.0, m->bare_dram_pct_per_warp[ks->bare_class] * warps / 100.0);
    if (*si > 0 && *si < 1e-6)
        *si = 1e-6; /* the floor of a measured one (ncu.c) */
}

bool sm_prepare_kernel(Engine *E, KernelRt *k, GError **error)
{
    const GpuModel *m = E->m;
    const SimKernelSpec *ks = &k->inst->op->u.kernel;
    SimOccupancy occ;
    if (!sim_occupancy(m, ks, &occ, error))
        return false;
    if (occ.blocks_per_sm == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_NOFIT,
                    "kernel '%s' fits on no SM of %s (limited by %s)", ks->name,
                    m->name, sim_occ_limit_name(occ.limiter));
        return false;
    }
    SimSmemWindow win;
    if (!sim_smem_window(m, ks, occ.blocks_per_sm, occ.needs.smem_bytes, &win,
                         error))
        return false;
    /* A measured configuration smaller than the blocks per SM need holds
     * fewer (the rule's never does). */
    if (occ.needs.smem_bytes)
        occ.blocks_per_sm =
            MIN(occ.blocks_per_sm, win.own / occ.needs.smem_bytes);
    k->needs = occ.needs;
    k->occ = occ.blocks_per_sm;
    k->carveout = win.own;
    k->win_lo = win.lo;
    k->win_hi = win.hi;
    k->blocks = eng_sampled_blocks(E, k->inst, sim_kernel_blocks(ks));
    uint64_t o = occ.blocks_per_sm;
    uint64_t S = m->sm_count;
    /* Blocks of this kernel that share one SM when it runs alone. */
    uint64_t per_sm = m->placement == SIM_PLACE_FILL_FIRST
                          ? MIN(o, k->blocks)
                          : MIN(o, (k->blocks + S - 1) / S);
    uint64_t waves = (k->blocks + S * o - 1) / (S * o);
    /* A recorded duration holds a part that does not grow with the
     * kernel's waves (kernel_fixed_us; measured: resnet50's kernels at
     * 25/50/100% of the SMs, FINDINGS.md §36): the first blocks it places
     * on each SM carry it besides their block work, and only the rest of
     * the duration is divided among its waves (at most half of a short
     * kernel's duration is fixed: how short ones split is not measured).
     * Alone on all SMs it still takes its duration; one wave is as
     * before. */
    k->first = ks->duration_ns && !ks->wall_clock && !ks->self_timed
                   ? (double)MIN(m->kernel_fixed_ns, ks->duration_ns / 2)
                   : 0;
    const double busy = (double)ks->duration_ns - k->first;
    k->work =
        ks->duration_ns ? busy / (double)waves : (double)ks->block_time_ns;
    /* Its load on one SM when it runs alone: its warps, or the warps at
     * which the SM issues its given share of the saturated rate (its
     * issue-slot share over the share a saturated SM keeps busy).  A
     * kernel bound on another pipe does not wait on dependent issue as
     * the curve's FMA chains do: its share is of the SM's issue ceiling
     * (engine_issue.c), where the model gives one. */
    const uint64_t W = per_sm * occ.needs.warps;
    double si, mi;
    bare_intensities(m, ks, W, k->blocks, &si, &mi);
    const bool pipe = issue_pipe_bound(si, ks->sm_pipe_share);
    const double ceiling = pipe && m->sm_issue_share_max > 0
                               ? m->sm_issue_share_max
                               : m->sm_issue_share_saturated;
    /* Without an intensity, a warp of ILP k counts as the ILP-1 warps
     * that saturate a scheduler as it does (1 at ILP 1 or unknown). */
    double alone =
        si > 0 ? sim_gpu_model_load_for_share(m, si / MAX(ceiling, 1e-6))
               : (double)W * sim_gpu_model_ilp_warp_load(m, ks->ilp);
    k->w = alone / (double)per_sm;
    k->wq = alone / (double)W;
    /* One warp per scheduler at full speed: the knee of its ILP family's
     * curve, P warps of wq each.  Not for a load from an issue share: the
     * ILP-1 curve's map overstates such warps (ILP 2 at 2 warps, 25.2%:
     * 1.72 ILP-1 warps, its family 1.44), and their knee with it (the
     * openloop MPS rows came out slower, FINDINGS.md §34). */
    const uint32_t P = m->reg_subpartitions;
    k->knee = si > 0 ? m->sm_full_speed_warps
                     : MAX(m->sm_full_speed_warps, P * k->wq);
    /* lone-warp speeds it issues at over the warps it has: below 1 for a
     * kernel whose warps mostly wait (e.g. on DRAM) */
    k->issue_frac = MIN(1.0, alone / (double)W);
    /* Alone its warps spread over the P schedulers as evenly as they go;
     * its blocks end with the busiest scheduler's (engine_issue.c). */
    const double busiest =
        W % P ? (double)(P * ((W + P - 1) / P)) * k->wq : alone;
    k->speed_alone =
        busiest > 0
            ? sim_gpu_model_issue_rate_knee(m, busiest, k->knee) / busiest
            : 1.0;
    /* greedy: from its issue share, or, known by its ilp, per warp */
    k->greedy = si > 0 || ks->ilp <= 1 ? issue_greedy(m, alone, (double)W)
                                       : issue_greedy_warp(m, k->wq);
    k->issue_slots = si / (double)per_sm;
    k->pipe_slots = pipe ? ks->sm_pipe_share / (double)per_sm : 0;
    dram_prepare_kernel(E, k, mi, k->work * (double)waves + k->first,
                        MIN(k->blocks, S * o));
    if (ks->duration_ns) /* a faster partial last wave (engine_dram.c) */
        k->work =
            dram_work(E, k, busy, k->blocks / (S * o), k->blocks % (S * o));
    k->fixed_time = ks->wall_clock || ks->self_timed;
    k->start = SIM_TIME_NEVER;
    k->stuck_epoch = UINT64_MAX;
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

/* Undo the kernel-alone fast path of @co at this instant: it goes back to
 * standing for the wave now running, and the waves it had counted ahead are
 * dispatched again as usual. */
static void cohort_unextend(Engine *E, Cohort *co)
{
    if (co->ext == 0)
        return;
    SimTime rem = co->ctx->frozen ? co->left : co->end - E->now;
    uint64_t r = (rem + co->wave_ns - 1) / co->wave_ns; /* incl. current */
    uint64_t undo = r > 0 ? MIN(r - 1, co->ext) : 0;
    co->k->dispatched -= undo * co->wave_blocks;
    co->k->done -= undo * co->wave_blocks;
    co->ext = 0;
    if (co->ctx->frozen) {
        co->left -= undo * co->wave_ns;
    } else {
        co->end -= undo * co->wave_ns;
        sim_eventq_schedule(&E->q, &co->ev, co->end);
    }
}

void sm_pending_insert(Engine *E, Ctx *c, KernelRt *k)
{
    /* A kernel that will be served before an extended one needs the SMs
     * it frees at each wave: undo the extension. */
    for (Cohort *co = c->cohorts; co; co = co->next)
        if (co->ext && !co->beside && k->priority < co->k->priority)
            cohort_unextend(E, co);
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
    c->pend_gen++;
    /* Only the head can be in steady state; it no longer is. */
    if (!after && k->next && k->next->steady_out)
        sm_steady_stop_kernel(E, k->next);
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
    c->pend_gen++;
}

/* ------------------------------------------------------------------------
 * Placement policies
 * ------------------------------------------------------------------------ */

/* Which SMs a kernel may use: all; or under an MPS SM limit, with the
 * model's dynamic assignment, any SM already holding its client's blocks
 * plus new ones while the client is under its cap; with the static one, the
 * client's fixed window. */
static bool sm_allowed(const Ctx *c, const KernelRt *k, const SmRt *sm)
{
    if (!c->limited)
        return true;
    uint32_t cl = k->proc->client;
    if (c->client_sms[cl])
        return (c->client_sms[cl][sm->id / 64] >> (sm->id % 64)) & 1;
    return sm->client_blocks[cl] > 0 ||
           c->client_in_use[cl] < c->client_cap[cl];
}

/* A candidate SM in the most-free order: more free warps first, then the
 * earlier SM in the model's dispatch order.  The most-room policy puts
 * first the SMs where more blocks of the kernel being placed still fit,
 * by whichever resource binds (FINDINGS.md §30): an SM a 48-register
 * SGEMM block freed holds four 16-register FMA blocks where its
 * neighbours hold one, though all have free warps for three, and the
 * H100 filled it first (j_sgemm_fma1, j_behind_sgemm); then free warps.
 * Where warps bind on every candidate the two orders agree. */
typedef struct {
    SmRt *sm;
    uint32_t rank;
    uint32_t fit; /* blocks of the kernel being placed that still fit */
} Cand;

static bool cand_before(const Cand *a, const Cand *b, bool room)
{
    if (room && a->fit != b->fit)
        return a->fit > b->fit;
    return a->sm->free_warps > b->sm->free_warps ||
           (a->sm->free_warps == b->sm->free_warps && a->rank < b->rank);
}

/* How many blocks (each @w warps) the SM of @a takes before it falls
 * behind @b: the most k with @a's key after k blocks still at or above
 * @b's, at least 1.  By free warps: (free warps - b's) / w.  By room:
 * placing a block lowers an SM's fit by one (every resource loses one
 * block's need), so with fits equal one block puts it behind. */
static uint32_t cand_lead(const Cand *a, const Cand *b, uint32_t w, bool room)
{
    const uint32_t fa = a->fit, fb = b->fit;
    const uint32_t wa = a->sm->free_warps, wb = b->sm->free_warps;
    if (!room)
        return wa > wb ? MAX(1u, (wa - wb) / w) : 1;
    if (fa <= fb)
        return 1;
    return MAX(1u, fa - fb - 1 + (wa >= wb + (fa - fb) * w ? 1u : 0u));
}

static void cand_sift_down(Cand *h, uint32_t n, uint32_t i, bool room)
{
    for (;;) {
        uint32_t l = 2 * i + 1, best = i;
        if (l < n && cand_before(&h[l], &h[best], room))
            best = l;
        if (l + 1 < n && cand_before(&h[l + 1], &h[best], room))
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
 * empty GPU gets one block per SM, in that order, before any SM gets two.
 *
 * This version places one block at a time through a heap: O(blocks log S).
 * It is exact under any MPS SM limit, whose allowed set changes as blocks
 * land; place_most_free() below uses it only then. */
static uint64_t place_most_free_exact(Engine *E, Ctx *c, KernelRt *k,
                                      uint64_t want)
{
    const GpuModel *m = E->m;
    const bool room = m->placement == SIM_PLACE_MOST_ROOM;
    Cand *h = g_new(Cand, m->sm_count);
    uint32_t n = 0;
    for (uint32_t r = 0; r < m->sm_count; r++) {
        SmRt *sm = &c->sms[m->dispatch_order[r]];
        uint32_t fit = sm_allowed(c, k, sm) ? sm_fit(E, sm, k) : 0;
        if (fit > 0)
            h[n++] = (Cand){sm, r, fit};
    }
    for (uint32_t i = n / 2; i-- > 0;)
        cand_sift_down(h, n, i, room);
    /* Each placement is applied at once (sm_place merges the blocks of one
     * instant into one group), so the heap always sees true free warps. */
    uint64_t placed = 0;
    while (placed < want && n > 0) {
        SmRt *sm = h[0].sm;
        if (!sm_allowed(c, k, sm) || sm_fit(E, sm, k) == 0) {
            h[0] = h[--n];
            cand_sift_down(h, n, 0, room);
            continue;
        }
        /* Place as many as keep this SM ahead of the runner-up; that is one
         * block at a time except on an SM far emptier than the rest. */
        uint32_t batch = h[0].fit;
        if (n > 1) {
            const Cand *second = &h[1];
            if (n > 2 && cand_before(&h[2], second, room))
                second = &h[2];
            batch = cand_lead(&h[0], second, k->needs.warps, room);
        }
        batch = (uint32_t)MIN((uint64_t)batch, want - placed);
        batch = MIN(batch, h[0].fit);
        sm_place(E, sm, k, batch);
        placed += batch;
        h[0].fit = sm_fit(E, sm, k);
        cand_sift_down(h, n, 0, room);
    }
    g_free(h);
    return placed;
}

static bool force_exact = false;
static bool force_full_scan = false;

void sm_force_exact_placement(bool on)
{
    force_exact = on;
}

void sm_force_full_scan(bool on)
{
    force_full_scan = on;
}

/* Candidates for @k: the SMs that can take a block of it now, with how
 * many, into @r in dispatch-rank order (.rank: the index in @r); returns
 * how many.
 *
 * Incremental dispatch.  A kernel that stopped short (stuck_epoch e) left
 * no SM with room for one more of its blocks (every policy stops only when
 * no SM it may use fits one; an MPS-limited context, whose allowed SMs
 * change as other SMs release, never comes here).  Room only shrinks until
 * an SM releases blocks, so now only the SMs released after e can fit it:
 * the front of the release list.  Checked against the full scan by
 * test_engine_incremental_dispatch_matches_full_scan and, with
 * check_invariants, by sm_check.  When many SMs released (a wave ended),
 * the plain scan in rank order is as cheap. */
static uint32_t sm_cands(Engine *E, Ctx *c, KernelRt *k, Cand *r)
{
    const GpuModel *m = E->m;
    uint32_t n = 0;
    if (!force_full_scan && k->stuck_epoch != UINT64_MAX) {
        uint32_t seen = 0;
        const SmRt *sm = c->rel_head;
        for (; sm && sm->released > k->stuck_epoch; sm = sm->rel_next) {
            if (++seen > MAX(8u, m->sm_count / 8))
                break;
            uint32_t fit = sm_fit(E, sm, k);
            if (fit == 0)
                continue;
            uint32_t i = n++; /* insertion by dispatch rank */
            for (; i > 0 && r[i - 1].sm->rank > sm->rank; i--)
                r[i] = r[i - 1];
            r[i] = (Cand){(SmRt *)sm, 0, fit};
        }
        if (!sm || sm->released <= k->stuck_epoch) {
            for (uint32_t i = 0; i < n; i++)
                r[i].rank = i;
            return n;
        }
        n = 0; /* too many: scan them all */
    }
    const SmWhole w = sm_whole_of(m);
    for (uint32_t rank = 0; rank < m->sm_count; rank++) {
        SmRt *sm = &c->sms[m->dispatch_order[rank]];
        uint32_t fit =
            sm_whole(sm, &w) ? sm_fit_whole(E, sm, k) : sm_fit(E, sm, k);
        if (fit > 0) {
            r[n] = (Cand){sm, n, fit};
            n++;
        }
    }
    return n;
}

/* Sort @n candidates of @r (in dispatch-rank order) in cand_before order
 * (fit desc, free warps desc, rank asc): two stable counting sorts, on
 * free warps (0..max_warps) and then on fit (0..max_blocks), so equal keys
 * keep rank order.  O(n + max_warps + max_blocks); a few candidates (the
 * usual case once the GPU is busy) by insertion, the same order.  Returns
 * the sorted view: @r itself when it already is in that order (no
 * candidate goes before the one ahead of it: cand_before is a strict
 * total order, ranks being distinct), as every candidate of a kernel that
 * finds the GPU empty is (all at the same fit and free warps); else @v,
 * filled.  @tmp holds n. */
static const Cand *cand_sort(const Cand *r, Cand *v, Cand *tmp, uint32_t n,
                             uint32_t max_warps, uint32_t max_blocks, bool room)
{
    uint32_t in_order = 1;
    while (in_order < n && !cand_before(&r[in_order], &r[in_order - 1], room))
        in_order++;
    if (in_order >= n)
        return r;
    if (n <= 8) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t j = i;
            for (; j > 0 && cand_before(&r[i], &v[j - 1], room); j--)
                v[j] = v[j - 1];
            v[j] = r[i];
        }
        return v;
    }
    uint32_t count[130] = {0};
    g_assert(max_warps < G_N_ELEMENTS(count) - 1 &&
             max_blocks < G_N_ELEMENTS(count) - 1);
    for (uint32_t i = 0; i < n; i++)
        count[max_warps - r[i].sm->free_warps + 1]++;
    for (uint32_t b = 1; b <= max_warps + 1; b++)
        count[b] += count[b - 1];
    Cand *w = room ? tmp : v; /* by room: a second pass */
    for (uint32_t i = 0; i < n; i++)
        w[count[max_warps - r[i].sm->free_warps]++] = r[i];
    if (!room)
        return v;
    memset(count, 0, sizeof count);
    for (uint32_t i = 0; i < n; i++)
        count[max_blocks - tmp[i].fit + 1]++;
    for (uint32_t b = 1; b <= max_blocks + 1; b++)
        count[b] += count[b - 1];
    for (uint32_t i = 0; i < n; i++)
        v[count[max_blocks - tmp[i].fit]++] = tmp[i];
    return v;
}

/* place_tier's step for v[@i], an SM holding groups: a copy of the
 * template's placement if it is in the template's state before (@s), else
 * sm_place, and it becomes the template where the next SM may be a copy
 * (at first sight: most tiers under MPS hold SMs all different).  True if
 * it was placed by sm_place.  Out of line: the loop over bare SMs stays
 * as lean as it was. */
G_GNUC_NO_INLINE static bool place_held(Engine *E, KernelRt *k, const Cand *v,
                                        uint32_t t, uint32_t i, uint32_t n,
                                        SmSnap *s)
{
    SmRt *sm = v[i].sm;
    const bool held = copy_ok(E, sm);
    if (held && s->t && snap_same(sm, s)) {
        sm_place_copy(E, sm, k, n, s); /* (no issue_share memo) */
        return false;
    }
    const bool keep = held && i + 1 < t && snap_likely(sm, v[i + 1].sm);
    if (keep)
        snap_take(E, sm, k, s);
    sm_place(E, sm, k, n);
    if (keep && snap_template_ok(E, sm, s, k, n))
        snap_keep(E, sm, s);
    return true;
}

/* One tier's placement of @n blocks of @k on each of @t SMs (@v, in rank
 * order): sm_place on each, but bare SMs after the first (the template)
 * copy it (sm_place_clone).  For t >= 2 and clone_kernel_ok(k) only (out
 * of line: most tiers under MPS are one SM, placed by the caller's loop). */
G_GNUC_NO_INLINE static void place_tier(Engine *E, KernelRt *k, const Cand *v,
                                        uint32_t t, uint32_t n)
{
    const SmRt *tmpl = NULL;
    bool tfirst = false;
    SmSnap snap; /* the template of SMs holding groups (not zeroed: 700
                  * bytes, and most tiers have none) */
    snap.t = NULL;
    for (uint32_t i = 0; i < t; i++) {
        SmRt *sm = v[i].sm;
        const bool bare = sm_bare(E, sm);
        if (bare && tmpl && clone_first(sm, k) == tfirst) {
            sm_place_clone(E, sm, k, n, tmpl, tfirst);
            continue;
        }
        /* groups there, and not a lone group of @k (growing or gaining
         * one beside it, its share is issue_share's memo per kernel: as
         * cheap as a copy) */
        if (sm->groups && (sm->groups->next || sm->groups->k != k) &&
            !no_copy) {
            /* (a copy shares nothing anew: the memo and tmpl stay) */
            if (place_held(E, k, v, t, i, n, &snap))
                tmpl = NULL;
            continue;
        }
        const bool first = bare && clone_first(sm, k);
        sm_place(E, sm, k, n);
        /* a placement on another SM may have left issue_share's memo
         * holding another configuration: the next bare SM is the template */
        tmpl = NULL;
        if (bare && clone_template_ok(E, sm, k, n)) {
            tmpl = sm;
            tfirst = first;
        }
    }
}

/* The same placement, a tier at a time.  Candidates sorted in cand_before
 * order: the greedy rule gives every SM of the top tier (all at the same
 * fit and free warps) one block in rank order before any gets two, until
 * the tier comes down to the next tier's level (cand_lead), or an SM of it
 * is full, or the blocks run out.  So the tier takes min(lead, fit,
 * left / t) blocks per SM at once; then the candidates are sorted again.
 * An empty GPU taking a whole wave costs O(S), not O(blocks log S). */
static uint64_t place_most_free(Engine *E, Ctx *c, KernelRt *k, uint64_t want)
{
    if (force_exact || c->limited)
        return place_most_free_exact(E, c, k, want);
    const GpuModel *m = E->m;
    const bool room = m->placement == SIM_PLACE_MOST_ROOM;
    if (!E->cand)
        E->cand = g_new(Cand, 3 * m->sm_count);
    /* rank order; room for the sorted view; scratch */
    Cand *r = E->cand, *sorted = r + m->sm_count, *tmp = sorted + m->sm_count;
    uint32_t n = sm_cands(E, c, k, r);
    uint64_t placed = 0;
    while (placed < want && n > 0) {
        /* v may be r: the loops below read v[i] before writing r[]; one
         * candidate (the SM just released, most calls) is in order */
        const Cand *v = n < 2
                            ? r
                            : cand_sort(r, sorted, tmp, n, m->max_warps_per_sm,
                                        m->max_blocks_per_sm, room);
        uint32_t t = 1;
        while (t < n && (!room || v[t].fit == v[0].fit) &&
               v[t].sm->free_warps == v[0].sm->free_warps)
            t++;
        uint64_t left = want - placed;
        if (left < t) {
            if (left >= 2 && clone_kernel_ok(k))
                place_tier(E, k, v, (uint32_t)left, 1);
            else
                for (uint32_t i = 0; i < left; i++)
                    sm_place(E, v[i].sm, k, 1);
            placed += left;
            break;
        }
        uint64_t kk = left / t;
        for (uint32_t i = 0; i < t; i++)
            kk = MIN(kk, v[i].fit);
        if (t < n)
            kk = MIN(kk, cand_lead(&v[0], &v[t], k->needs.warps, room));
        if (t >= 2 && clone_kernel_ok(k)) {
            place_tier(E, k, v, t, (uint32_t)kk);
            for (uint32_t i = 0; i < t; i++)
                r[v[i].rank].fit =
                    sm_fit_after(E, v[i].sm, k, v[i].fit, (uint32_t)kk);
        } else {
            for (uint32_t i = 0; i < t; i++) {
                sm_place(E, v[i].sm, k, (uint32_t)kk);
                r[v[i].rank].fit =
                    sm_fit_after(E, v[i].sm, k, v[i].fit, (uint32_t)kk);
            }
        }
        placed += kk * t;
        uint32_t j = 0; /* drop full SMs, keep rank order */
        for (uint32_t i = 0; i < n; i++)
            if (r[i].fit > 0) {
                r[j] = r[i];
                r[j].rank = j;
                j++;
            }
        n = j;
    }
    return placed;
}

/* Fill first: the earliest SM in dispatch order that fits takes blocks until
 * full (for sensitivity studies). */
static uint64_t place_fill_first(Engine *E, Ctx *c, KernelRt *k, uint64_t want)
{
    uint64_t placed = 0;
    for (uint32_t r = 0; r < E->m->sm_count && placed < want; r++) {
        SmRt *sm = &c->sms[E->m->dispatch_order[r]];
        if (!sm_allowed(c, k, sm))
            continue;
        uint32_t n = (uint32_t)MIN((uint64_t)sm_fit(E, sm, k), want - placed);
        if (n) {
            sm_place(E, sm, k, n);
            placed += n;
        }
    }
    return placed;
}

/* Round robin: one block per SM in dispatch order, continuing where the
 * last placement stopped. */
static uint64_t place_round_robin(Engine *E, Ctx *c, KernelRt *k, uint64_t want)
{
    const uint32_t S = E->m->sm_count;
    uint64_t placed = 0;
    uint32_t misses = 0;
    while (placed < want && misses < S) {
        SmRt *sm = &c->sms[E->m->dispatch_order[c->rr_cursor]];
        c->rr_cursor = (c->rr_cursor + 1) % S;
        if (sm_allowed(c, k, sm) && sm_fit(E, sm, k) > 0) {
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
    PlaceFn place;
} PlacementOps;

/* Indexed by SimPlacement; the policies' names are the model file's
 * (gpu_model.c, placement_names), the one place they are spelled. */
static const PlacementOps placements[] = {
    [SIM_PLACE_MOST_FREE] = {place_most_free},
    [SIM_PLACE_MOST_ROOM] = {place_most_free},
    [SIM_PLACE_FILL_FIRST] = {place_fill_first},
    [SIM_PLACE_ROUND_ROBIN] = {place_round_robin},
};

/* The pending kernels changed (one came or was all placed): which early
 * block ends a waiting kernel could take changes with them, so reschedule
 * those of every cohort that may have any (cohort_early_list; the others
 * have nothing to schedule).  O(groups in such cohorts) per change of the
 * pending list, not per dispatch. */
static void cohorts_early_rearm(Engine *E, Ctx *c)
{
    if (E->m->sm_block_end_spread <= 0 || c->early_gen == c->pend_gen)
        return;
    c->early_gen = c->pend_gen;
    for (Cohort *co = c->early_cohorts; co; co = co->enext)
        cohort_early_schedule(E, co);
}

/* Whether @k is held back only by its own MPS SM limit: some SM it may not
 * use could take one of its blocks. */
static bool held_by_cap(const Engine *E, const Ctx *c, const KernelRt *k)
{
    if (!c->limited)
        return false;
    for (uint32_t i = 0; i < E->m->sm_count; i++) {
        const SmRt *sm = &c->sms[i];
        if (!sm_allowed(c, k, sm) && sm_fit(E, sm, k) > 0)
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
        if (k->start == SIM_TIME_NEVER && !ctx_may_start(c))
            break; /* yielding at this kernel boundary */
        /* Blocks counted ahead by SMs in steady state: a step-by-step run
         * has them still to dispatch, and may need them here. */
        if (k->steady_out)
            sm_steady_dispatching(E, k);
        /* Nothing was released since it last stopped short: it still
         * cannot place a block, so skip the scan over the SMs. */
        if (k->stuck_epoch != c->release_epoch)
            placements[E->m->placement].place(E, c, k,
                                              k->blocks - k->dispatched);
        if (k->dispatched == k->blocks) {
            sm_pending_remove(c, k);
            k->inst->state = INST_RUNNING;
        } else {
            k->stuck_epoch = c->release_epoch;
            if (!held_by_cap(E, c, k))
                break; /* the leftover policy: nothing behind it starts */
        }
        k = next;
    }
    cohorts_early_rearm(E, c);
    sm_steady_cohort_try(E, c);
    flush_resched(E);
    dram_flush(E);
}

/* End @n blocks of group @g on @sm early, each with @left of its work
 * undone: the group's other blocks take that work over (the SM's work
 * stays the same; their ends move later), so it leaves its cohort.  Its
 * warps leave each register sub-partition in proportion (the rest of a
 * block's warps from those holding the most). */
static void group_end_early(Engine *E, SmRt *sm, Group *g, uint32_t n,
                            double left)
{
    const uint32_t P = E->m->reg_subpartitions, w = n * g->k->needs.warps;
    uint8_t part[SIM_MAX_SUBPARTITIONS] = {0};
    uint32_t took = 0;
    for (uint32_t s = 0; s < P; s++) {
        part[s] = (uint8_t)(g->sub_warps[s] * n / g->count);
        took += part[s];
    }
    while (took < w) {
        uint32_t best = 0;
        for (uint32_t s = 1; s < P; s++)
            if (g->sub_warps[s] - part[s] > g->sub_warps[best] - part[best])
                best = s;
        part[best]++;
        took++;
    }
    if (g->cohort) {
        cohort_remove(E, g);
        sm->mods++;
    }
    for (uint32_t s = 0; s < P; s++)
        g->sub_warps[s] -= part[s];
    g->count -= n;
    g->early_out += n;
    g->remaining = left + left * n / g->count;
    dram_add(E, sm, g->k, -(int64_t)n, false);
    sm_unplace_blocks(E, sm, g->k, n, part, true);
    sm_reschedule(E, sm);
    g->k->done += n;
}

void sm_cohort_early(Engine *E, Cohort *co)
{
    Ctx *c = co->ctx;
    if (c->frozen || co->ext)
        return;
    bool ended = false;
    for (Group *g = co->groups, *next; g; g = next) {
        next = g->cnext; /* g leaves the cohort if its blocks end early */
        if (!early_may(g->sm, g))
            continue; /* its due ends wait for a kernel that can use them */
        uint32_t n = 0;
        for (; early_at(E, co, g) <= E->now; g->early++)
            n++;
        if (n == 0)
            continue;
        sm_advance(E, g->sm);
        group_end_early(E, g->sm, g, n, (double)(co->end - E->now));
        ended = true;
    }
    /* The cohort is freed once its last group has left it (early ends,
     * or DRAM rates that change): then nothing is left to end early. */
    const bool live = co->n > 0;
    if (live)
        cohort_early_schedule(E, co);
    if (ended) {
        dram_flush(E);
        eng_mark_ctx(E, c);
    }
}

/* Loose groups on @sm whose early block ends have come (engine event). */
static void sm_early(Engine *E, SmRt *sm)
{
    if (E->m->sm_block_end_spread <= 0)
        return; /* no early ends (early_left) */
    for (Group *g = sm->groups; g; g = g->next) {
        if (g->cohort)
            continue;
        uint32_t n = 0;
        for (double left;
             (left = early_left(E, g)) >= 0 && g->remaining <= left + WORK_EPS;
             g->early++)
            n++;
        if (n > 0 && early_may(sm, g))
            group_end_early(E, sm, g, n, MAX(g->remaining, 0));
    }
}

/* ------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------ */

/* Whether sm_event may put off @sm's share and event to the instant's end
 * (sm_undefer): under MPS most SMs whose blocks complete take new blocks
 * in the same instant, and their dispatch shares and retimes them again.
 * Only where that is the same as doing it at once: no cohort groups (the
 * share then loosens nothing, and which of its groups are loose stays
 * known), off the DRAM clock (no pressure changes its groups' rates), not
 * frozen or in steady state, no early block ends (its event then comes
 * after now: loose groups with work left at rate <= 1), no timer kernels
 * that read SMs' events as they start late (sm_defer_ok, set once per run
 * from sm_defer_allowed and the workload's kernels).  And only while
 * a kernel waits in its context (one that could take the room): else the
 * SM is rarely placed on in the same instant (time-sliced 10,000 kernels:
 * 12 k of 412 k), and putting off costs more than it saves. */
static bool no_defer; /* tests: sm_force_no_defer */

void sm_force_no_defer(bool on)
{
    no_defer = on;
}

bool sm_defer_allowed(const GpuModel *m)
{
    return !no_defer && m->sm_block_end_spread <= 0;
}

static bool sm_may_defer(const Engine *E, const SmRt *sm)
{
    return sm->ctx->pend_head && E->sm_defer_ok && !sm->ctx->frozen &&
           !sm->st.on && sm->cohort_groups == 0 && !sm->dram_groups &&
           sm->v_slot == UINT32_MAX && !sm->v_old;
}

/* Do what sm_event put off on @sm, as it would have then: nothing changed
 * on it since (sm_advance).  Its event goes to the place it reserved. */
static void sm_undefer(Engine *E, SmRt *sm)
{
    const uint8_t d = sm->defer;
    sm->defer = 0;
    if (d & SM_DEFER_SHARE)
        sm_reshare(E, sm, NULL);
    if (!(d & SM_DEFER_EVENT))
        return;
    const double min = sm_next_plain(E, sm); /* sm_reschedule's */
    if (min == INFINITY)
        sim_eventq_cancel(&E->q, &sm->ev);
    else
        sim_eventq_fill(&E->q, &sm->ev, E->now + ceil_ns(min));
}

void sm_undefer_all(Engine *E)
{
    for (uint32_t i = 0; i < E->n_deferred; i++) {
        SmRt *sm = E->deferred[i];
        if (sm->defer)
            sm_undefer(E, sm);
        /* the others' reservations went to this instant's retimes */
        g_assert(!sim_event_reserved(&sm->ev));
    }
    E->n_deferred = 0;
}

#ifdef HQSIM_COST_COUNTERS
static uint64_t cost_mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* What SMs as classes would save (README Performance): count an SM event
 * whose SM is in the state (what snap_same compares, and the context) of
 * the SM of an earlier event of the same instant.  States are compared by
 * a 64-bit hash (a collision counts one event too many: odds about
 * n^2 / 2^65 for n SMs an instant); up to 1024 states an instant. */
static void cost_sm_equal(const Engine *E, const SmRt *sm)
{
    static _Thread_local SimTime at = SIM_TIME_NEVER;
    static _Thread_local uint64_t seen[1024];
    static _Thread_local uint32_t n;
    if (at != E->now) {
        at = E->now;
        n = 0;
    }
    uint64_t h = cost_mix((uintptr_t)sm->ctx, sm->free_warps);
    const uint64_t f[] = {sm->free_blocks,  sm->carveout,    sm->used_smem,
                          sm->warps,        dbits(sm->load), (uint64_t)sm->last,
                          sm->cohort_groups};
    for (size_t i = 0; i < G_N_ELEMENTS(f); i++)
        h = cost_mix(h, f[i]);
    for (uint32_t p = 0; p < SIM_MAX_SUBPARTITIONS; p++)
        h = cost_mix(h, sm->free_regs[p]);
    for (const Group *g = sm->groups; g; g = g->next) {
        const uint64_t x[] = {(uintptr_t)g->k,
                              g->count,
                              (uintptr_t)g->cohort,
                              (uint64_t)g->placed,
                              sub_bits(g),
                              g->late,
                              g->early,
                              g->early_out,
                              g->cohort ? 0 : dbits(g->remaining),
                              g->cohort ? 0 : dbits(g->speed),
                              g->cohort ? 0 : dbits(g->turns),
                              g->cohort ? 0 : dbits(g->pipe_over)};
        for (size_t i = 0; i < G_N_ELEMENTS(x); i++)
            h = cost_mix(h, x[i]);
    }
    for (uint32_t i = 0; i < n; i++)
        if (seen[i] == h) {
            COST(COST_SM_EQUAL);
            return;
        }
    if (n < G_N_ELEMENTS(seen))
        seen[n++] = h;
}
#endif

void sm_event(Engine *E, SmRt *sm)
{
#ifdef HQSIM_COST_COUNTERS
    cost_sm_equal(E, sm);
#endif
    sm_advance(E, sm);
    sm_early(E, sm);
    const bool defer = sm_may_defer(E, sm);
    Group **pp = &sm->groups;
    while (*pp) {
        Group *g = *pp;
        if (g->cohort || g->remaining > WORK_EPS) {
            pp = &g->next;
            continue;
        }
        *pp = g->next;
        sm->n_groups--;
        COST(COST_SM_GROUPS);
        sm_unplace_as(E, sm, g, !defer);
        KernelRt *k = g->k;
        k->done += g->count;
        group_release(E, g);
        if (k->done == k->blocks)
            eng_op_complete(E, k->inst);
    }
    dram_flush(E);
    if (defer && sm_has_loose(sm) && !sim_event_pending(&sm->ev)) {
        /* its event's place now, its time at the instant's end */
        sim_eventq_reserve(&E->q, &sm->ev);
        sm->defer |= SM_DEFER_EVENT;
        if (E->n_deferred == E->cap_deferred) {
            E->cap_deferred = E->cap_deferred ? 2 * E->cap_deferred : 64;
            E->deferred = g_renew(SmRt *, E->deferred, E->cap_deferred);
        }
        E->deferred[E->n_deferred++] = sm;
    } else {
        sm_reschedule(E, sm); /* does a put-off share first */
    }
    eng_mark_ctx(E, sm->ctx);
    if (sm->ctx->draining && sm->ctx->resident_blocks == 0)
        ctx_drained(E, sm->ctx);
}

/* The kernel-alone fast path.  When a cohort holding a full wave of its
 * kernel -- o blocks on every SM, o its blocks per empty SM -- is all that
 * is resident in its context, and its kernel heads the pending list with at
 * least one more full wave to place, then dispatching the next wave would
 * put back exactly the same blocks on the same SMs: nothing else can get
 * in (the leftover policy holds everything behind it; no MPS limits).  So
 * the cohort stays and stands for the next E full waves at once: O(1)
 * instead of O(S) per wave.  The last wave is always dispatched normally,
 * so the kernel stays pending until then.  A higher-priority kernel
 * arriving meanwhile undoes it (cohort_unextend). */
static bool cohort_extend(Engine *E, Cohort *co)
{
    KernelRt *k = co->k;
    Ctx *c = co->ctx;
    const uint64_t S = E->m->sm_count, wave = S * k->occ;
    if (co->wall || co->timed || co->n != S || c->resident_blocks != wave ||
        c->limited || c->pend_head != k || k->dispatched >= k->blocks)
        return false;
    for (Group *g = co->groups; g; g = g->cnext)
        if (g->count != k->occ)
            return false;
    uint64_t rem = k->blocks - k->dispatched;
    uint64_t ext = rem / wave - (rem % wave == 0);
    if (ext == 0)
        return false;
    SimTime wave_ns = (SimTime)ceil(k->work);
    k->done += wave + (ext - 1) * wave; /* this wave, and those ahead of
                                           the last one it stands for */
    k->dispatched += ext * wave;
    co->ext = ext;
    co->wave_ns = wave_ns;
    co->wave_blocks = wave;
    co->placed = E->now;
    co->end = E->now + ext * wave_ns;
    sim_eventq_schedule(&E->q, &co->ev, co->end);
    return true;
}

/* A wave does not free its SMs at one instant: on an H100 a kernel queued
 * behind it lands on the first SMs that free and fills them (FINDINGS.md
 * §16, §17).  With sm_release_staggered, while another kernel waits to be
 * placed, a cohort gives its SMs back one per nanosecond in a seeded order
 * (drain_key), the dispatcher running in between; the time spread of real
 * drains (3-15% of a block's time) is not modelled, only their order.
 * Returns true if it gave one back and the rest follow later. */
static bool cohort_release_one(Engine *E, Cohort *co)
{
    Ctx *c = co->ctx;
    if (!E->m->sm_release_staggered || co->n < 2 || co->wall || co->timed ||
        !c->pend_head)
        return false;
    Group *g = co->groups;
    uint64_t least = group_drain(E, g);
    for (Group *h = g->cnext; h; h = h->cnext) {
        const uint64_t d = group_drain(E, h);
        if (d < least) {
            g = h;
            least = d;
        }
    }
    SmRt *sm = g->sm;
    sm_advance(E, sm);
    Group **pp = &sm->groups;
    while (*pp != g)
        pp = &(*pp)->next;
    *pp = g->next;
    sm->n_groups--;
    if (sm_unplace(E, sm, g)) /* leaves the cohort (n >= 1 remain) */
        sm_reschedule(E, sm);
    co->k->done += g->count;
    group_release(E, g);
    co->end = E->now + 1;
    COST(COST_STAGGER);
    sim_eventq_schedule(&E->q, &co->ev, co->end);
    dram_flush(E);
    eng_mark_ctx(E, c);
    return true;
}

/* Every block of cohort @co completes now (or, staggered, the next SM's). */
void sm_cohort_event(Engine *E, Cohort *co)
{
    if (co->ext) {
        if (co->beside)
            sm_steady_cohort_end(E, co);
        co->ext = 0; /* its last wave ends now: complete it below */
    } else if (cohort_extend(E, co)) {
        return;
    }
    if (cohort_release_one(E, co))
        return;
    sm_cohort_complete(E, co);
}

void sm_cohort_complete(Engine *E, Cohort *co)
{
    KernelRt *k = co->k;
    Ctx *c = co->ctx;
    Group *g = co->groups;
    COST(COST_COHORT_DONE);
    COST_ADD(COST_COHORT_GROUPS, co->n);
    co->groups = NULL;
    co->n = 0;
    cohort_release(E, co);
    while (g) {
        Group *next = g->cnext;
        SmRt *sm = g->sm;
        /* The SM's loose groups' progress up to now, while g is still a
         * cohort group, which advance skips: g completes, so its own
         * progress would be computed for nothing (its rate, divisions and
         * all, as the share made it stale).  Nothing on the SM is put off
         * (sm_event puts off only SMs without cohort groups, and only a
         * placement adds one, which does the put-off work), and advance
         * reads no cohort count. */
        sm_advance(E, sm);
        g->cohort = NULL;
        if (--sm->cohort_groups == 0 && sm->dram_groups)
            dram_cohort_note(sm);
        /* Removing the group changes the shares of the others: a slowed
         * SM's loose groups are retimed (one holds a cohort group only if
         * nothing on it is slowed, or the group is wall-clock). */
        Group **pp = &sm->groups;
        while (*pp != g)
            pp = &(*pp)->next;
        *pp = g->next;
        sm->n_groups--;
        if (sm_unplace(E, sm, g))
            sm_reschedule(E, sm);
        k->done += g->count;
        group_release(E, g);
        g = next;
    }
    dram_flush(E);
    eng_mark_ctx(E, c);
    if (k->done == k->blocks)
        eng_op_complete(E, k->inst);
    if (c->draining && c->resident_blocks == 0)
        ctx_drained(E, c);
}

void sm_freeze(Engine *E, Ctx *c)
{
    for (uint32_t i = 0; i < E->m->sm_count; i++) {
        SmRt *sm = &c->sms[i];
        sm_advance(E, sm);
        sm->mods++;
    }
    dram_freeze(E, c);
    c->frozen = true;
    for (uint32_t i = 0; i < E->m->sm_count; i++)
        sim_eventq_cancel(&E->q, &c->sms[i].ev);
    for (Cohort *co = c->cohorts; co; co = co->next) {
        co->left = co->end > E->now ? co->end - E->now : 0;
        sim_eventq_cancel(&E->q, &co->ev);
        sim_eventq_cancel(&E->q, &co->early_ev);
    }
}

void sm_thaw(Engine *E, Ctx *c)
{
    /* Blocks preempted mid-flight lose some progress when they resume
     * (measured on an H100: ~190 us per resume, FINDINGS.md §8). */
    const SimTime pen = c->resident_blocks ? E->m->context_resume_ns : 0;
    c->frozen = false;
    dram_thaw(E, c);
    for (Cohort *co = c->cohorts; co; co = co->next) {
        /* A wall-clock block ends at its own time, or at its first
         * instruction after the resume if that time has passed. */
        co->end = co->wall    ? MAX(co->abs_end, E->now)
                  : co->timed ? E->now + co->left
                              : E->now + co->left + pen;
        sim_eventq_schedule(&E->q, &co->ev, co->end);
        cohort_early_schedule(E, co);
    }
    if (pen)
        for (uint32_t i = 0; i < E->m->sm_count; i++)
            for (Group *g = c->sms[i].groups; g; g = g->next)
                if (!g->cohort)
                    g->remaining += (double)pen;
    for (uint32_t i = 0; i < E->m->sm_count; i++) {
        SmRt *sm = &c->sms[i];
        sm->last = E->now;
        if (sm->dram_groups)
            dram_sm_synced(E, sm);
        sm->mods++;
        met_sm_warps(E, i, sm->warps);
        sm_reschedule(E, sm);
    }
}

/* Remove every resident block of @k (a fault killed its process). */
void sm_kill_kernel(Engine *E, KernelRt *k)
{
    Ctx *c = k->ctx;
    if (k->steady_out)
        sm_steady_stop_kernel(E, k);
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
            sm->n_groups--;
            sm_unplace(E, sm, g);
            k->done += g->count;
            group_release(E, g);
            changed = true;
        }
        if (changed)
            sm_reschedule(E, sm);
    }
    dram_flush(E);
    eng_mark_ctx(E, c);
}

/* ------------------------------------------------------------------------
 * Invariants
 * ------------------------------------------------------------------------ */

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond))                                                           \
            g_error("engine invariant: " __VA_ARGS__);                         \
    } while (0)

/* The release list is ordered by release, latest first, and what
 * incremental dispatch relies on holds: a kernel that stopped short fits
 * only on SMs released since (not checked under MPS SM limits, where a
 * kernel stops short at its cap while other SMs have room). */
static void check_release_list(const Engine *E, const Ctx *c)
{
    uint64_t prev = UINT64_MAX;
    for (const SmRt *sm = c->rel_head; sm; sm = sm->rel_next) {
        CHECK(sm->released < prev && sm->released > 0 &&
                  (sm->rel_next == NULL || sm->rel_next->rel_prev == sm),
              "context %u: release list out of order at SM %u", c->index,
              sm->id);
        prev = sm->released;
    }
    if (c->limited)
        return;
    for (const KernelRt *k = c->pend_head; k; k = k->next) {
        if (k->stuck_epoch == UINT64_MAX)
            continue;
        for (uint32_t i = 0; i < E->m->sm_count; i++) {
            const SmRt *sm = &c->sms[i];
            CHECK(sm->released > k->stuck_epoch || sm_fit(E, sm, k) == 0,
                  "context %u: a kernel stuck at epoch %llu fits on SM %u, "
                  "last released at %llu",
                  c->index, (unsigned long long)k->stuck_epoch, i,
                  (unsigned long long)sm->released);
        }
    }
}

void sm_check(const Engine *E)
{
    const GpuModel *m = E->m;
    for (guint ci = 0; ci < E->ctxs->len; ci++) {
        const Ctx *c = g_ptr_array_index(E->ctxs, ci);
        uint64_t blocks = 0;
        for (uint32_t i = 0; i < m->sm_count; i++) {
            const SmRt *sm = &c->sms[i];
            uint32_t warps = 0, nblocks = 0, smem = 0;
            uint32_t regs[SIM_MAX_SUBPARTITIONS] = {0};
            double load = 0;
            for (const Group *g = sm->groups; g; g = g->next) {
                const SimBlockNeeds *nd = &g->k->needs;
                CHECK(g->sm == sm, "group on SM %u points elsewhere", i);
                CHECK(g->count > 0, "empty group on SM %u", i);
                warps += g->count * nd->warps;
                nblocks += g->count;
                smem += g->count * nd->smem_bytes;
                load += g->count * g->k->w;
                uint32_t gw = 0;
                for (uint32_t s = 0; s < m->reg_subpartitions; s++) {
                    regs[s] += g->sub_warps[s] * nd->regs_per_warp;
                    gw += g->sub_warps[s];
                }
                CHECK(gw == g->count * nd->warps,
                      "SM %u: group warps %u over sub-partitions, %u blocks "
                      "of %u",
                      i, gw, g->count, nd->warps);
                if (g->cohort)
                    CHECK(g->cohort->ctx == c && g->cohort->k == g->k,
                          "SM %u: group in a foreign cohort", i);
            }
            blocks += nblocks;
            CHECK(sm->free_warps + warps == m->max_warps_per_sm,
                  "SM %u: free warps %u + resident %u != %u", i, sm->free_warps,
                  warps, m->max_warps_per_sm);
            CHECK(sm->warps == warps, "SM %u: warps %u != %u", i, sm->warps,
                  warps);
            CHECK(sm->free_blocks + nblocks == m->max_blocks_per_sm,
                  "SM %u: block slots", i);
            CHECK(sm->used_smem == smem && smem <= sm->carveout,
                  "SM %u: shared memory %u of %u", i, smem, sm->carveout);
            CHECK((nblocks == 0) == (sm->carveout == 0),
                  "SM %u: carveout %u with %u blocks", i, sm->carveout,
                  nblocks);
            for (uint32_t s = 0; s < m->reg_subpartitions; s++)
                CHECK(sm->free_regs[s] + regs[s] ==
                          m->regs_per_sm / m->reg_subpartitions,
                      "SM %u: registers of sub-partition %u", i, s);
            CHECK(fabs(sm->load - load) < 1e-6, "SM %u: load %g != %g", i,
                  sm->load, load);
            CHECK(fabs(sm->speed - sim_gpu_model_warp_speed(m, load)) < 1e-9,
                  "SM %u: speed %g for load %g", i, sm->speed, load);
            uint32_t co = 0, dg = 0, ng = 0;
            bool loose_dram = false;
            for (const Group *g = sm->groups; g; g = g->next) {
                ng++;
                co += g->cohort != NULL;
                dg += g->k->dram_p > 0;
                loose_dram = loose_dram || (!g->cohort && g->k->dram_p > 0);
            }
            CHECK(co == sm->cohort_groups,
                  "SM %u: %u cohort groups, counted %u", i, co,
                  sm->cohort_groups);
            CHECK(ng == sm->n_groups, "SM %u: %u groups, counted %u", i, ng,
                  sm->n_groups);
            CHECK(dg == sm->dram_groups, "SM %u: %u DRAM groups, counted %u", i,
                  dg, sm->dram_groups);
            CHECK(!!(c->dram_co[i / 64] & (1ull << (i % 64))) ==
                      (dg > 0 && co > 0),
                  "SM %u: DRAM-and-cohort bit", i);
            CHECK(!!(c->dram_old[i / 64] & (1ull << (i % 64))) == sm->v_old,
                  "SM %u: old-timing bit", i);
            CHECK(c->frozen || !loose_dram || sm->v_old ||
                      sm->v_slot != UINT32_MAX,
                  "SM %u: loose DRAM groups off the DRAM clock", i);
            if (sm->v_slot != UINT32_MAX) {
                CHECK(sm->v_slot < c->vheap_n && c->vheap[sm->v_slot] == sm,
                      "SM %u: heap slot", i);
                const SmRt *p =
                    sm->v_slot ? c->vheap[(sm->v_slot - 1) / 2] : NULL;
                CHECK(!p || p->v_key < sm->v_key ||
                          (p->v_key == sm->v_key && p->id < sm->id),
                      "SM %u: heap order", i);
            }
            if (sm_slows(sm))
                for (const Group *g = sm->groups; g; g = g->next)
                    CHECK(!g->cohort || g->cohort->wall || g->cohort->timed,
                          "SM %u: slowed (load %g) yet holds a cohort group", i,
                          sm->load);
        }
        CHECK(c->frozen || c->vheap_n == 0 || sim_event_pending(&c->dram_ev),
              "context %u: DRAM clock without an event", ci);
        CHECK(blocks == c->resident_blocks, "context %u: %llu blocks != %llu",
              ci, (unsigned long long)blocks,
              (unsigned long long)c->resident_blocks);
        check_release_list(E, c);
        /* Latest placed first, as a step-by-step run keeps them (a
         * rolled-back steady state moves its cohort back in place,
         * engine_steady.c) */
        for (uint32_t i = 0; i < m->sm_count; i++)
            for (const Group *g = c->sms[i].groups; g && g->next; g = g->next)
                CHECK(g->placed >= g->next->placed,
                      "SM %u: groups out of placement order", i);
        for (const Cohort *co = c->cohorts; co && co->next; co = co->next)
            CHECK(co->placed >= co->next->placed,
                  "context %u: cohorts out of placement order", ci);
        for (const Cohort *co = c->cohorts; co; co = co->next) {
            uint32_t n = 0;
            for (const Group *g = co->groups; g; g = g->cnext) {
                CHECK(g->cohort == co, "cohort member points elsewhere");
                n++;
            }
            CHECK(n == co->n && n > 0, "cohort of %u groups counts %u", n,
                  co->n);
            CHECK(c->frozen || sim_event_pending(&co->ev),
                  "running cohort without an event");
        }
    }
}
