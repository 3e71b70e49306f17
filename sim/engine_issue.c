/* engine_issue.c -- how co-resident blocks share an SM's issue slots.
 *
 * An SM issues T(L) lone warps' worth of instructions for a total load of L
 * warps (sim_gpu_model_issue_rate).  Who gets them is the warp schedulers'
 * choice, and on an H100 it is greedy-then-oldest (FINDINGS.md §5, §16,
 * §17):
 *
 *  - Older warps first.  In every pair of ILP-1 FMA kernels started at
 *    different times on the same SMs the older one finished first, and the
 *    more the SM is oversubscribed the closer it stays to its speed alone
 *    (8 + 8 warps: the older kernel got 55% of the SM, 12 + 12: 75%,
 *    16 + 16: 94%, 32 + 32: 99%).
 *  - Greedy warps before all others.  A warp that issues more than a
 *    dependent chain would (independent instructions in flight, e.g. FMA
 *    with 4 chains) keeps its scheduler: an ILP-4 FMA kernel ran at its
 *    speed alone beside an older ILP-1 FMA kernel (986 vs 986 us) while
 *    the older one made almost no progress until it ended, and beside a
 *    younger triad or SGEMM likewise.
 *
 * The rule.  The SM's groups are ranked: greedy kernels' groups first, then
 * the others, each by age (placement time; groups placed at one instant in
 * placement order).  Group i, of load L_i with A_i the load ranked ahead of
 * it, gets
 *
 *     R_i = (1 - f) T(L) L_i / L  +  f min(D_i, T(L) - S_i)
 *
 * lone warps' worth: a blend of proportional sharing (every warp at
 * T(L)/L, the model before) and strict priority by rank: a group issues
 * what it would alone, D_i = L_i x its kernel's per-warp speed alone, out
 * of what the groups ranked ahead of it leave (S_i: the sum of their
 * D_j, capped at T(L)).  The strict part never hands a group more than it
 * can use (a kernel with fewer blocks on the SM than alone is not faster
 * than alone), so the SM's T(L) goes to the groups that can use it.  The
 * weight of priority grows with the load beyond saturation Ts
 * (sm_saturation_warps):
 *
 *     f = 1 - exp(-((L - Ts) / lambda)^2)   for L > Ts, else 0,
 *
 * lambda = sm_age_priority_warps (H100: 18, fitted on the ILP-1 pairs
 * ct_i1_w8..w32, already calibration runs of T).  0 turns the rule off
 * (proportional sharing), the default of models not measured.  A group's
 * per-warp speed is R_i / L_i; its rate (engine_sm.c) is that over its
 * kernel's speed alone, at most 1.
 *
 * Greedy first at any load (FINDINGS.md §34 addendum).  With one ILP-4
 * and one ILP-1 (or ILP-2) warp per scheduler the ILP-4 warps ran at
 * 0.97-0.98 of their speed alone and the others at 0.16-0.26 while they
 * overlapped (part M, either launch order), where the blend above
 * (f ~ 0.03 at that load) shared in proportion.  So on a scheduler that
 * holds both, the greedy groups share T(L) by the rule above, the others
 * what the greedy ones leave after their demand alone (the rule above,
 * age first, inside each kind).  With one kind on a scheduler it is the
 * rule above bit for bit; a model with lambda 0 shares in proportion.  A
 * kernel of known ILP (no SM intensity) is greedy by its warps: when one
 * alone takes more than sm_greedy_warp_share of its scheduler's saturated
 * rate (ILP 4 and 8 on the H100; ILP 2 and ILP 4 + ILP 8 warps share as
 * equals, part N).
 *
 * A kernel is greedy when its load alone (from its SM intensity) makes the
 * SM issue more than GREEDY_MARGIN times what dependent-chain (ILP-1)
 * warps of the same number would: Nsight Compute measured ILP-1 FMA at
 * 0.98-1.00 of that, the shared-memory kernel 1.01, the SGEMM 0.90, ILP-2
 * FMA 1.22-1.45 and ILP-4 1.69-2.06 (i_ncu).  A kernel without an SM
 * intensity counts as ILP-1 and is never greedy.
 *
 * Per warp scheduler (FINDINGS.md §34).  An SM's warps sit on its P warp
 * schedulers, the register sub-partitions (engine_sm.c puts each warp on
 * the one with the most registers free), and a block ends with its
 * slowest warps.  On the H100 a 6-warp block (2, 2, 1, 1 per scheduler)
 * took as long as an 8-warp one in every ILP family, two 2-warp kernels
 * on disjoint schedulers lost nothing, and a 1-warp block beside a
 * 32-warp kernel cost it as much as a 4-warp block.  So the rule above
 * runs per scheduler on the warps it holds, each group's load there
 * scaled by P times its share of warps there (the SM's curve at P times
 * the scheduler's load), and a group's speed is the lowest over the
 * schedulers holding its warps.  When every group spreads its warps
 * evenly, every scheduler sees the SM's load and one pass over the SM is
 * exact (and the results those of the per-SM rule, bit for bit).  One
 * warp per scheduler runs at its own speed: the curve's knee is P times
 * the largest per-warp load present (KernelRt.knee), at least
 * sm_full_speed_warps, at most the saturation.  A warp's load is 1 (an
 * ILP-1 warp), its kernel's issue share's (below), or from its ilp
 * (sim_gpu_model_ilp_warp_load, fitted on the ILP families alone).  The
 * free turns and the pipe stay per SM.
 *
 * Kernels bound on a pipe other than the issue slots.  Nsight Compute's
 * Compute (SM) Throughput (the busiest of the SM's units) equals its Issue
 * Slots Busy for the FMA kernels, the SGEMM, the streams and the GEMV
 * (i_ncu), but for the shared-memory kernel it is 78.8% against 57.9%:
 * its warps wait on the shared-memory pipe, not on dependent issue, and
 * two such kernels on the same SMs ran 1.22x the work of one alone in
 * the same time (i_smem_x2), close to the pipe's 1 / 0.788, not 1x as two
 * kernels saturating the issue slots would.  So a kernel whose SM
 * throughput exceeds its issue share by more than PIPE_MARGIN is pipe
 * bound: its issue share counts against the SM's issue ceiling
 * (sm_issue_share_max), not the ILP-1 curve's saturation, and the pipe is
 * shared in proportion: when the pipe-bound blocks on an SM ask together
 * more than the pipe's peak (their shares alone summed, above 1), each runs
 * at most at 1 / that sum.  No parameter is fitted: the peak is Nsight
 * Compute's 100%.
 */
#include <math.h>
#include <string.h>

#include "engine_cost.h"
#include "engine_internal.h"

#define GREEDY_MARGIN 1.1
#define PIPE_MARGIN 1.1
/* issue_share's per-kernel memo packs a group's sub_warps in 32 bits */
_Static_assert(SIM_MAX_SUBPARTITIONS <= 4, "sub_warps key fits 32 bits");

bool issue_pipe_bound(double sm_intensity, double pipe_share)
{
    return sm_intensity > 0 && pipe_share > PIPE_MARGIN * sm_intensity;
}

bool issue_greedy(const GpuModel *m, double alone_load, double warps)
{
    return sim_gpu_model_issue_rate(m, alone_load) >
           GREEDY_MARGIN * sim_gpu_model_issue_rate(m, warps);
}

/* What @g issues alone, in lone warps' worth: its load at its kernel's
 * per-warp speed alone (wall-clock and self-timed blocks: their load at
 * full speed). */
static double demand(const Group *g)
{
    const double Li = g->count * g->k->w;
    return g->k->fixed_time ? Li : Li * g->k->speed_alone;
}

/* The weight of priority at total load @L. */
static double priority_weight(const GpuModel *m, double L)
{
    const double lambda = m->sm_age_priority_warps;
    const double over = L - m->sm_saturation_warps;
    if (lambda <= 0 || over <= 0)
        return 0;
    const double x = over / lambda;
    return 1 - sim_gpu_model_memo_exp(-x * x);
}

/* The share of group @g's warps on scheduler @s, times the schedulers
 * (so 1 on every scheduler when its warps are spread evenly); @s = P: the
 * whole SM, 1.  Warps the engine did not assign to schedulers (no
 * registers) count as spread evenly. */
static double sub_share(const GpuModel *m, const Group *g, uint32_t s)
{
    const uint32_t P = m->reg_subpartitions;
    if (s >= P)
        return 1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < P; i++)
        n += g->sub_warps[i];
    return n ? (double)P * g->sub_warps[s] / n : 1;
}

/* One pass over @sm's groups for the sums issue_share needs (each summed
 * in list order, as separate passes would): the issue slots greedy warps
 * keep busy alone, the demand alone of all groups and of the greedy ones
 * on scheduler @s (P: the SM), and what the pipe-bound blocks ask of their
 * pipe alone, in units of its peak (one pipe per SM: the kernels measured
 * are bound on the shared-memory pipe only), the SM's load as scheduler
 * @s sees it (@s = P: unused) and the knee its lone warps ask for. */
typedef struct {
    double busy, D, Dg, pipe, L, knee;
} IssueSums;

static IssueSums issue_sums(const GpuModel *m, const SmRt *sm, uint32_t s)
{
    IssueSums t = {0, 0, 0, 0, 0, m->sm_full_speed_warps};
    for (const Group *g = sm->groups; g; g = g->next) {
        const KernelRt *k = g->k;
        const double a = sub_share(m, g, s);
        const double d = a * demand(g);
        if (k->greedy)
            t.busy += g->count * k->issue_slots;
        if (!k->fixed_time)
            t.pipe += g->count * k->pipe_slots;
        if (a <= 0)
            continue;
        t.D += d;
        t.L += a * (g->count * k->w);
        t.knee = MAX(t.knee, k->knee);
        if (k->greedy)
            t.Dg += d;
    }
    return t;
}

/* The share of @sm's issue cycles greedy warps leave to the others: what
 * their blocks keep busy alone (@busy: Nsight Compute's issue slots) short
 * of the ceiling a warp that never stalls reaches (sm_issue_share_max); 1
 * without greedy groups or a ceiling. */
static double free_turns(const GpuModel *m, double busy)
{
    const double top = m->sm_issue_share_max;
    if (top <= 0 || busy <= 0)
        return 1;
    return MIN(MAX(1 - busy / top, 1e-9), 1.0);
}

static bool share_groups(const GpuModel *m, SmRt *sm);

/* Most calls find an SM just emptied or holding one kernel's group: the
 * first needs its speed only; the second's result is a function of the
 * SM's load, the group's count and its kernel's fields fixed at its
 * admission, remembered per kernel (the same bits as computed anew). */
bool issue_share(const GpuModel *m, SmRt *sm)
{
    const double L = sm->load;
    Group *g = sm->groups;
    if (!g) {
        COST(COST_SHARE_EMPTY);
        sm->speed = L > 0 ? sim_gpu_model_issue_rate(m, L) / L : 1.0;
        return false;
    }
    if (g->next) {
        COST(COST_SHARE_MORE);
        return share_groups(m, sm);
    }
    COST(COST_SHARE_ONE);
    KernelRt *k = g->k;
    uint64_t bits;
    memcpy(&bits, &L, sizeof bits);
    uint32_t sub = 0; /* its warps' schedulers, one byte each */
    memcpy(&sub, g->sub_warps, MIN(sizeof sub, sizeof g->sub_warps));
    if (k->is_count != g->count || k->is_load != bits || k->is_sub != sub) {
        k->is_slowed = share_groups(m, sm);
        k->is_count = g->count;
        k->is_load = bits;
        k->is_sub = sub;
        k->is_prop = sm->speed;
        k->is_speed = g->speed;
        k->is_turns = g->turns;
        k->is_pipe_over = g->pipe_over;
        return k->is_slowed;
    }
    issue_share_memo_set(sm, g, k);
    return k->is_slowed;
}

/* Whether @g's warps sit evenly on the @P schedulers: the same count on
 * each (none given: 0 on each).  With 4 (the H100's), one comparison of
 * the four bytes read as a word: all equal to the low byte. */
static inline bool group_even(const Group *g, uint32_t P)
{
    if (P == 4) {
        _Static_assert(sizeof g->sub_warps == 4, "four sub_warps bytes");
        uint32_t x;
        memcpy(&x, g->sub_warps, sizeof x);
        return x == (x & 0xffu) * 0x01010101u;
    }
    for (uint32_t s = 1; s < P; s++)
        if (g->sub_warps[s] != g->sub_warps[0])
            return false;
    return true;
}

/* Whether every group on @sm spreads its warps evenly over the
 * schedulers (or was given none): then each scheduler sees the SM's load
 * over P and the SM-level pass is exact. */
static bool spread_evenly(const GpuModel *m, const SmRt *sm)
{
    const uint32_t P = m->reg_subpartitions;
    for (const Group *g = sm->groups; g; g = g->next)
        if (!group_even(g, P))
            return false;
    return true;
}

/* A warp of known ILP holds its scheduler (is greedy) when alone it takes
 * more than sm_greedy_warp_share of what the scheduler issues saturated
 * with ILP-1 warps (P wq / Ts): on the H100 ILP 1 0.506, ILP 2 0.722,
 * ILP 8 0.804, ILP 4 0.877, and the fitted share 0.76 separates them
 * (the model's source says on what; FINDINGS.md §34 addendum). */
bool issue_greedy_warp(const GpuModel *m, double wq)
{
    return m->reg_subpartitions * wq >
           m->sm_greedy_warp_share * m->sm_saturation_warps;
}

/* Whether scheduler @s (P: the SM) holds greedy and other groups: then
 * the greedy ones issue first at any load (share_ranked).  Not for a
 * model without greedy-then-oldest (sm_age_priority_warps 0: proportional
 * sharing). */
static bool greedy_mixed(const GpuModel *m, const SmRt *sm, uint32_t s)
{
    if (m->sm_age_priority_warps <= 0)
        return false;
    bool greedy = false, other = false;
    for (const Group *g = sm->groups; g; g = g->next) {
        if (sub_share(m, g, s) <= 0)
            continue;
        greedy |= g->k->greedy;
        other |= !g->k->greedy;
    }
    return greedy && other;
}

/* share_pass for greedy and other groups on scheduler @s: the greedy
 * groups share T(L) (@T) by the rule of the header, the others what the
 * greedy ones leave after their demand alone, at any load (part M: an
 * ILP-4 warp beside an ILP-1 or ILP-2 warp on one scheduler ran at
 * 0.97-0.98 of its speed alone, the other at 0.16-0.26 while they
 * overlapped).  Age orders the groups of each kind as before (weight
 * @f).  A non-greedy group beside greedy ones holding free turns
 * (@beside_turns; engine_sm.c applies the turns) is shared as before. */
static void share_ranked(const GpuModel *m, SmRt *sm, uint32_t s, double T,
                         double f, double To, bool beside_turns,
                         const IssueSums *sum)
{
    const double L = s < m->reg_subpartitions ? sum->L : sm->load;
    double Yo = 0; /* non-greedy demand younger than g */
    for (Group *g = sm->groups; g; g = g->next) {
        const double a = sub_share(m, g, s);
        if (a <= 0)
            continue;
        const double Li = a * (g->count * g->k->w), Di = a * demand(g);
        if (!g->k->greedy)
            Yo += Di;
        if (Li <= 1e-12) { /* no load: the proportional speed */
            g->speed = MIN(g->speed, T / L);
            continue;
        }
        const bool beside = beside_turns && !g->k->greedy && g->k->dram_p > 0;
        if (beside) { /* the rule before, free turns at To */
            const double S = sum->D - sum->Dg - Yo;
            const double strict = MIN(Di, MAX(To - MAX(S, 0.0), 0.0));
            g->speed = MIN(g->speed, (1 - f) * T / L + f * strict / Li);
            continue;
        }
        /* greedy demand ahead of a non-greedy g; load and older demand of
         * g's kind */
        double H = 0, Lc = 0, O = 0;
        bool older = false;
        for (const Group *j = sm->groups; j; j = j->next) {
            const double aj = sub_share(m, j, s);
            if (j == g)
                older = true;
            if (aj <= 0)
                continue;
            if (j->k->greedy && !g->k->greedy)
                H += aj * demand(j);
            else if (j->k->greedy == g->k->greedy) {
                Lc += aj * (j->count * j->k->w);
                if (older && j != g)
                    O += aj * demand(j);
            }
        }
        const double cap = MAX(T - H, 0.0);
        double speed = cap / Lc;
        if (f > 0) {
            const double strict = MIN(Di, MAX(cap - O, 0.0));
            speed = (1 - f) * speed + f * strict / Li;
        }
        g->speed = MIN(g->speed, speed);
    }
}

/* The speed of each group's warps on scheduler @s (P: the SM as one),
 * the rule of the header applied to the warps that scheduler holds; a
 * group keeps the lowest over its schedulers in g->speed (its blocks end
 * with their slowest warps).  Returns what the pipe-bound blocks ask of
 * their pipe (the SM's, the same on every pass, as the free turns). */
static double share_pass(const GpuModel *m, SmRt *sm, uint32_t s, double *turns)
{
    const IssueSums sum = issue_sums(m, sm, s);
    const double L = s < m->reg_subpartitions ? sum.L : sm->load;
    const double T = sim_gpu_model_issue_rate_knee(m, L, sum.knee);
    const double prop = L > 0 ? T / L : 1.0; /* per-warp, proportional */
    const double f = priority_weight(m, L);
    *turns = free_turns(m, sum.busy);
    /* What the others may issue beside greedy groups that hold turns of
     * their own: the free turns at the SM's full issue rate (lone-warp
     * speeds), at most T(L).  Without free-turn data (turns 1): T(L). */
    const double To = *turns < 1 ? MIN(T, *turns * m->sm_issue_share_max /
                                              m->sm_issue_share_saturated *
                                              m->sm_saturation_warps)
                                 : T;
    /* Demand alone of the greedy groups and of all groups. */
    const double Dg = sum.Dg, D = sum.D;
    if (greedy_mixed(m, sm, s)) {
        share_ranked(m, sm, s, T, f, To, *turns < 1, &sum);
        return sum.pipe;
    }
    /* The list runs youngest first: Yg and Yo are the greedy and other
     * demand younger than g. */
    double Yg = 0, Yo = 0;
    for (Group *g = sm->groups; g; g = g->next) {
        const double a = sub_share(m, g, s);
        if (a <= 0)
            continue;
        const double Li = a * (g->count * g->k->w), Di = a * demand(g);
        double speed = prop;
        if (f > 0 && Li > 1e-12) {
            /* demand ranked ahead of g */
            const bool beside = *turns < 1 && !g->k->greedy && g->k->dram_p > 0;
            const double S = g->k->greedy ? Dg - Yg - Di
                             : beside     ? D - Dg - Yo - Di
                                          : D - Yo - Di;
            const double cap = beside ? To : T;
            const double strict = MIN(Di, MAX(cap - MAX(S, 0.0), 0.0));
            speed = (1 - f) * prop + f * strict / Li;
        }
        g->speed = MIN(g->speed, speed);
        if (g->k->greedy)
            Yg += Di;
        else
            Yo += Di;
    }
    return sum.pipe;
}

/* Tests: share_groups always takes the general path (share_pass per
 * scheduler or for the SM), the reference share_even must match. */
static bool force_general = false;

void issue_force_general(bool on)
{
    force_general = on;
}

/* Whether @sm holds the groups @lm remembers (ShareLastMemo: the same
 * kernels with the same counts, in the same order, each spread evenly, at
 * the same load); then what share_even set for them is set again, and
 * each group's rate with it (engine_sm.c's cache, Group.rate_ok: its
 * retime and advance need it next), computed for the first SM that hits. */
static bool share_last_hit(const GpuModel *m, SmRt *sm, ShareLastMemo *lm)
{
    uint64_t bits;
    memcpy(&bits, &sm->load, sizeof bits);
    /* (n_groups only to turn most misses away early: the walk decides) */
    if (lm->n == 0 || lm->n != sm->n_groups || lm->load != bits)
        return false;
    const uint32_t P = m->reg_subpartitions;
    uint32_t i = 0;
    for (const Group *g = sm->groups; g; g = g->next, i++)
        if (i == lm->n || g->k->admit_seq != lm->seq[i] ||
            g->count != lm->count[i] || !group_even(g, P))
            return false;
    if (i != lm->n)
        return false;
    sm->speed = lm->prop;
    const double dram = sm->ctx->dram_speed;
    i = 0;
    for (Group *g = sm->groups; g; g = g->next, i++) {
        g->speed = lm->speed[i];
        g->turns = lm->turns[i];
        g->pipe_over = lm->pipe_over[i];
        g->vrate_ok = false;
        if (lm->rate_dram[i] != dram) {
            lm->rate[i] = sm_group_rate(sm, g);
            lm->rate_dram[i] = dram;
        }
        g->rate = lm->rate[i];
        g->rate_dram = dram;
        g->rate_ok = true;
    }
    return true;
}

/* @sm as share_even just set it, into @lm (a walk of its own: stores in
 * share_even's loop would make the compiler reload what it keeps in
 * registers there). */
static void share_last_keep(const SmRt *sm, ShareLastMemo *lm, uint64_t bits,
                            bool slowed)
{
    uint32_t n = 0;
    for (const Group *g = sm->groups; g; g = g->next, n++) {
        if (n == SHARE_LAST_GROUPS) {
            lm->n = 0; /* too many to remember */
            return;
        }
        lm->seq[n] = g->k->admit_seq;
        lm->count[n] = g->count;
        lm->speed[n] = g->speed;
        lm->turns[n] = g->turns;
        lm->pipe_over[n] = g->pipe_over;
        lm->rate_dram[n] = NAN;
    }
    lm->n = n;
    lm->load = bits;
    lm->slowed = slowed;
    lm->prop = sm->speed;
}

/* One more lookup of @lm, a hit or not: at the end of a window of
 * SHARE_LAST_WINDOW lookups of which under a quarter hit, @lm is not asked
 * for the next SHARE_LAST_OFF calls (on `hqsim gen` workloads under MPS,
 * 18% hits, asking and keeping cost more instructions than the hits
 * saved). */
static void share_last_count(ShareLastMemo *lm, bool hit)
{
    lm->hits += hit;
    if (++lm->asked < SHARE_LAST_WINDOW)
        return;
    if (lm->hits < SHARE_LAST_WINDOW / 4)
        lm->off = SHARE_LAST_OFF;
    lm->asked = lm->hits = 0;
}

/* share_groups on an SM whose groups all spread their warps evenly over
 * the schedulers and that does not hold both greedy and other groups (the
 * usual case): the one pass of share_pass for the whole SM (sub_share 1
 * for every group, so each product with it is the value itself) fused
 * with share_groups' own passes, the same operations on the same values in
 * the same order, so the same bits.  False, with nothing set, when the SM
 * is not such a case.  What it sets it remembers for the next SM of its
 * context (ShareLastMemo, share_last_hit). */
static bool share_even(const GpuModel *m, SmRt *sm, bool *slowed)
{
    /* the previous SM's configuration again (an SM of no context, in unit
     * tests: never) */
    ShareLastMemo *last = sm->ctx ? &sm->ctx->last_share : NULL;
    if (last && last->off) { /* not worth asking for now */
        last->off--;
        last = NULL;
    } else if (last) {
        const bool hit = share_last_hit(m, sm, last);
        share_last_count(last, hit);
        if (hit) {
            *slowed = last->slowed;
            return true;
        }
    }
    const uint32_t P = m->reg_subpartitions;
    /* issue_sums with s = P, spread_evenly and greedy_mixed in one pass */
    double busy = 0, D = 0, Dg = 0, pipe = 0, knee = m->sm_full_speed_warps;
    bool greedy = false, other = false;
    for (const Group *g = sm->groups; g; g = g->next) {
        if (!group_even(g, P))
            return false;
        const KernelRt *k = g->k;
        const double d = demand(g);
        if (k->greedy)
            busy += g->count * k->issue_slots;
        if (!k->fixed_time)
            pipe += g->count * k->pipe_slots;
        D += d;
        knee = MAX(knee, k->knee);
        if (k->greedy)
            Dg += d;
        greedy |= k->greedy;
        other |= !k->greedy;
    }
    if (m->sm_age_priority_warps > 0 && greedy && other)
        return false; /* share_ranked's case */
    /* T(L) and f(L) through the context's memo: an SM's load takes few
     * values (on `hqsim gen` workloads 16 misses in 935,000 calls) */
    const double L = sm->load;
    uint64_t bits;
    memcpy(&bits, &L, sizeof bits);
    _Static_assert(SHARE_LOAD_MEMO == 64, "slot: the hash's top 6 bits");
    ShareLoadMemo spare = {0}; /* an SM of no context (unit tests) */
    ShareLoadMemo *lm =
        sm->ctx ? &sm->ctx->load_memo[(bits * 0x9e3779b97f4a7c15ull) >> 58]
                : &spare;
    if (!lm->set || lm->key != bits) {
        lm->key = bits;
        lm->rate = L > 0 ? sim_gpu_model_issue_rate(m, L) : 0;
        lm->f = priority_weight(m, L);
        lm->set = true;
    }
    const double rate = lm->rate;
    const double prop0 = L > 0 ? rate / L : 1.0;
    sm->speed = prop0;
    /* the knee at the curve's own (no group asks for more): T(L) is the
     * curve's rate at L (issue_rate_at with the same arguments) */
    const double T = knee == m->sm_full_speed_warps && L > 0
                         ? rate
                         : sim_gpu_model_issue_rate_knee(m, L, knee);
    const double prop = L > 0 ? T / L : 1.0;
    const double f = lm->f;
    const double turns = free_turns(m, busy);
    const double To = turns < 1 ? MIN(T, turns * m->sm_issue_share_max /
                                             m->sm_issue_share_saturated *
                                             m->sm_saturation_warps)
                                : T;
    double Yg = 0, Yo = 0;
    bool slow = false;
    for (Group *g = sm->groups; g; g = g->next) {
        const KernelRt *k = g->k;
        const double Li = g->count * k->w, Di = demand(g);
        double speed = prop;
        if (f > 0 && Li > 1e-12) {
            const bool beside = turns < 1 && !k->greedy && k->dram_p > 0;
            const double S = k->greedy ? Dg - Yg - Di
                             : beside  ? D - Dg - Yo - Di
                                       : D - Yo - Di;
            const double cap = beside ? To : T;
            const double strict = MIN(Di, MAX(cap - MAX(S, 0.0), 0.0));
            speed = (1 - f) * prop + f * strict / Li;
        }
        if (k->greedy)
            Yg += Di;
        else
            Yo += Di;
        /* share_groups' g->speed: MIN(INFINITY, speed) is speed */
        g->speed = MAX(speed, 1e-9 * prop0);
        g->turns = k->greedy ? 1.0 : turns;
        g->pipe_over = k->pipe_slots > 0 && pipe > 1 ? pipe : 0;
        g->rate_ok = false;
        g->vrate_ok = false;
        if (!k->fixed_time && (g->speed < k->speed_alone * (1 - 1e-12) ||
                               g->turns < 1 || g->pipe_over > 1))
            slow = true;
    }
    *slowed = slow;
    if (last)
        share_last_keep(sm, last, bits, slow);
    return true;
}

static bool share_groups(const GpuModel *m, SmRt *sm)
{
    bool slowed_even;
    if (!force_general && share_even(m, sm, &slowed_even))
        return slowed_even;
    const double L = sm->load;
    const double prop = L > 0 ? sim_gpu_model_issue_rate(m, L) / L : 1.0;
    sm->speed = prop; /* sim_gpu_model_warp_speed(m, L), bit for bit */
    const uint32_t P = m->reg_subpartitions;
    double turns = 1;
    for (Group *g = sm->groups; g; g = g->next)
        g->speed = INFINITY;
    double pipe = 0;
    if (spread_evenly(m, sm))
        pipe = share_pass(m, sm, P, &turns);
    else
        for (uint32_t s = 0; s < P; s++)
            pipe = share_pass(m, sm, s, &turns);
    bool slowed = false;
    for (Group *g = sm->groups; g; g = g->next) {
        /* never 0: the group still holds its resources and is timed by a
         * finite (if distant) event */
        g->speed = MAX(g->speed, 1e-9 * prop);
        g->turns = g->k->greedy ? 1.0 : turns;
        g->pipe_over = g->k->pipe_slots > 0 && pipe > 1 ? pipe : 0;
        g->rate_ok = false;
        g->vrate_ok = false;
        if (!g->k->fixed_time && (g->speed < g->k->speed_alone * (1 - 1e-12) ||
                                  g->turns < 1 || g->pipe_over > 1))
            slowed = true;
    }
    return slowed;
}
