/* engine_steady.c -- steady state beside co-runners: an SM whose placements
 * repeat stands for whole periods at once.
 *
 * The case: a huge grid shares SMs with long-running blocks of other
 * kernels (co-runners).  On such an SM its blocks are slowed, so they are
 * a loose group timed by the SM's own event; when the group completes, the
 * kernel -- still heading its context's pending list with blocks to spare
 * -- puts the same number back on the same SM at once.  If nothing else on
 * the SM changed, the SM is then in exactly the state it had one period P
 * earlier, but for the co-runners' work left, which only shrinks by the
 * same amount each period.  So the step-by-step run would repeat the same
 * placement every P ns until a co-runner nears its end, the kernel nears its
 * last blocks, or something else happens in the context.
 *
 * In steady state the SM's group stands for the next E periods: its event
 * is set E periods ahead, the kernel's dispatched and done counts take the
 * E-1 placements and completions in between ahead of time (steady_out),
 * and nothing else changes.  Whenever anything might see the difference,
 * sm_steady_stop rebuilds at the current instant t exactly what a step-by-
 * step run holds before handling t's events: the group placed at the last
 * period boundary before t, the co-runners advanced by as many periods (the
 * same subtraction repeated, so bit for bit), and the counts taken back.
 *
 * What triggers the stop: anything touching the SM (sm_advance,
 * sm_reschedule: a placement, a release, a freeze, a kill, DRAM), its last
 * period's own event, a kernel overtaking the steady one in the pending
 * list, the kernel's undispatched blocks running low (a step-by-step run
 * could need the blocks counted ahead), and events that change which
 * context runs or which MPS clients exist (engine.c).  Events on other SMs
 * do not matter: the SM's state and its group's timing depend only on the
 * groups on it (rates are a function of the SM's own load; DRAM demand,
 * which couples SMs, excludes steady state).
 *
 * The same kernel's blocks on SMs without co-runners form cohorts (rate 1,
 * engine_sm.c); a cohort whose groups each fill their SM alone stands for
 * whole waves the same way (below), so a kernel beside co-runners on some
 * SMs costs a handful of events too.  So does a one-SM cohort on an SM
 * that the kernel fills in two groups of its own (a co-runner's block
 * ended and one more of the kernel's took its room: 7 + 1 blocks ending
 * apart, for the rest of the kernel).  With staggered release
 * (sm_release_staggered) only one-SM cohorts repeat: a wave of several
 * SMs gives them back one per ns, each placed anew alone.
 *
 * Exactness needs more than equal states: how a placement is batched over
 * the SMs released at one instant can change its bits (a group placed in
 * steps may start in a cohort; loads summed in another order).  So an SM
 * enters only if its placement cannot depend on the batching (loads in
 * whole warps, slowed at every count of its blocks), a cohort only when placed
 * (after the whole dispatch), and whenever the kernel dispatches at an
 * instant where an SM or cohort in steady state ends a period, that one
 * stops and takes part (sm_steady_dispatching).  Round-robin placement
 * keeps a cursor across placements, so it never enters.
 *
 * Entering needs two placements in a row that agree: a snapshot of the
 * SM after a placement (count, load before and after, speed, the group's
 * work) equal, bit for bit, to the one a period earlier, with only the
 * group's own release and its replacement in between (sm->mods), the group
 * slowed at every count from its first block (so it never was in a cohort, however the
 * placement was batched), and its event one period ahead.  Checked against
 * the step-by-step run by test_engine_steady_matches_step_by_step.
 */
#include <math.h>
#include <string.h>

#include "engine_internal.h"

static bool force_off = false;

void sm_force_no_steady(bool on)
{
    force_off = on;
}

/* Whether steady state may be entered at all: not in the step-by-step
 * reference, nor when recording a timeline (every placement is drawn).
 * Uneven ends within a wave (sm_block_end_spread) keep periods repeating:
 * the steady kernel heads its context with blocks to spare, so its own
 * groups, cohorts included, end no block early (engine_sm.c,
 * self_refill_only), and a co-runner's early ends bound the periods
 * (steady_periods). */
static bool steady_allowed(const Engine *E)
{
    return !force_off && !E->opt.record_timeline;
}

/* The kernel's group on @sm (the only one: entering requires it). */
static Group *steady_group(SmRt *sm)
{
    for (Group *g = sm->groups; g; g = g->next)
        if (g->k == sm->st.k)
            return g;
    g_assert_not_reached();
}

void sm_steady_stop(Engine *E, SmRt *sm)
{
    SmSteady *st = &sm->st;
    g_assert(st->on);
    st->on = false;
    E->n_steady--;
    KernelRt *k = st->k;
    k->steady_sms--;
    /* Period boundaries before now that a step-by-step run has handled;
     * one exactly at now is handled below when the instant's events are
     * all handled (E->settling), else its event is pending. */
    uint64_t m =
        E->now > st->t1 ? (uint64_t)(E->now - st->t1 - 1) / st->period : 0;
    m = MIN(m, st->periods - 1);
    const SimTime at = st->t1 + (SimTime)m * st->period;
    Group *g = steady_group(sm);
    sm_advance_periods(sm, (double)st->period, m);
    g->remaining = st->rem; /* placed again at the last boundary */
    g->placed = at;
    sm->last = at;
    st->t = at;
    uint64_t back = (st->periods - 1 - m) * g->count;
    k->dispatched -= back;
    k->done -= back;
    k->steady_out -= (st->periods - 1) * g->count;
    const SimTime next = at + st->period;
    if (E->settling && next == E->now) {
        /* A step-by-step run handled this boundary's event before
         * settling the instant: so do we, here. */
        sim_eventq_cancel(&E->q, &sm->ev);
        sm_event(E, sm);
    } else if (sim_event_pending(&sm->ev) && sm->ev.when != next) {
        sim_eventq_schedule(&E->q, &sm->ev, next);
    }
}

/* ------------------------------------------------------------------------
 * Cohorts beside other kernels.  A kernel's cohort whose groups each fill
 * an SM alone (its blocks per empty SM, nothing else there) is put back the
 * same at every wave while the kernel heads its context: it stands for
 * whole waves (ext, as the kernel-alone fast path in engine_sm.c does when
 * nothing else is resident) and is rolled back like an SM above.  Decided
 * after the dispatch that placed it, so that a wave placed together with
 * other SMs is never skipped.
 * ------------------------------------------------------------------------ */

/* Lists in placement order.  A step-by-step run pushes every new group at
 * the head of its SM's list and every new cohort at the head of its
 * context's, so both lists run latest placed first (sm_check checks it).
 * A cohort standing for waves keeps its place in both, as placed when it
 * entered; rolled back, it is placed at its current wave's start, later
 * than groups and cohorts placed meanwhile, where a step-by-step run has
 * it nearer the head: these move it there.  (Ties cannot arise: a kernel's
 * blocks placed at one instant join one group per SM and one cohort.) */

/* Move @g, whose ->placed grew, to its place in its SM's list. */
static void sm_groups_resort(SmRt *sm, Group *g)
{
    Group **pp = &sm->groups;
    while (*pp != g)
        pp = &(*pp)->next;
    *pp = g->next;
    pp = &sm->groups;
    while (*pp && (*pp)->placed > g->placed)
        pp = &(*pp)->next;
    g->next = *pp;
    *pp = g;
}

/* Move @co, whose ->placed grew, to its place in its context's list. */
static void cohorts_resort(Cohort *co)
{
    Ctx *c = co->ctx;
    if (!co->prev || co->prev->placed >= co->placed)
        return; /* already in place */
    co->prev->next = co->next;
    if (co->next)
        co->next->prev = co->prev;
    Cohort *after = NULL, *at = c->cohorts;
    while (at->placed > co->placed) {
        after = at;
        at = at->next;
    }
    co->prev = after;
    co->next = at;
    at->prev = co;
    if (after)
        after->next = co;
    else
        c->cohorts = co;
}

/* Roll @co back to the wave a step-by-step run has now: the one that ends
 * after now, or exactly now (then, while settling, it completes here). */
static void steady_cohort_stop(Engine *E, Cohort *co)
{
    g_assert(co->beside && co->ext);
    KernelRt *k = co->k;
    const SimTime start = co->end - (co->ext + 1) * co->wave_ns;
    uint64_t m = E->now > start ? (E->now - start - 1) / co->wave_ns : 0;
    m = MIN(m, co->ext);
    const uint64_t undo = co->ext - m;
    k->dispatched -= undo * co->wave_blocks;
    k->done -= undo * co->wave_blocks;
    sm_steady_cohort_end(E, co);
    co->ext = 0;
    /* As placed at wave m's start: a step-by-step run placed it then (a
     * later placement of the kernel at that instant joins it, and a
     * group's drain key counts from it). */
    co->placed = start + m * co->wave_ns;
    for (Group *g = co->groups; g; g = g->cnext) {
        g->placed = co->placed;
        sm_groups_resort(g->sm, g);
    }
    cohorts_resort(co);
    co->end = co->placed + co->wave_ns;
    if (E->settling && co->end == E->now) {
        sim_eventq_cancel(&E->q, &co->ev);
        sm_cohort_event(E, co);
    } else if (co->ev.when != co->end) {
        sim_eventq_schedule(&E->q, &co->ev, co->end);
    }
}

void sm_steady_cohort_end(Engine *E, Cohort *co)
{
    co->beside = false;
    if (co->bprev)
        co->bprev->bnext = co->bnext;
    else
        co->k->beside = co->bnext;
    if (co->bnext)
        co->bnext->bprev = co->bprev;
    co->bprev = co->bnext = NULL;
    co->k->steady_out -= co->claim;
    co->claim = 0;
    E->n_steady--;
}

/* Whether every group of @co fills its SM alone. */
static bool cohort_fills_alone(const Cohort *co)
{
    for (const Group *g = co->groups; g; g = g->cnext)
        if (g->count != co->k->occ || g->sm->groups != g || g->next)
            return false;
    return true;
}

/* Whether @h (on the SM of a one-SM cohort of @k placed now, waves of
 * @wave ns) repeats as that one does: @k's, in a cohort of one SM, of
 * waves as long, and placed as the same blocks as the group it replaced
 * (h->rep). */
static bool beside_repeats(const Group *h, const KernelRt *k, SimTime wave)
{
    const Cohort *o = h->cohort;
    return h->k == k && o && o->n == 1 && !h->late && h->rep &&
           (o->ext ? o->wave_ns : o->end - o->placed) == wave;
}

/* A one-SM cohort of @k just placed (group @g) whose SM holds nothing but
 * @k's blocks, as many as fit (k->occ), in @g and at most one other group
 * @h: when either completes, the kernel (heading its context, stuck on a
 * full GPU) puts the same blocks back on the SM at once, so the SM holds
 * the same again.  Bit for bit once each group was placed as the same
 * blocks as the one it replaced (g->rep: the same count and the same warps
 * per register sub-partition, the part of the state a placement does not
 * reset): @g's placement depends only on @h, and @h's next on @g.  With
 * three or more groups, the order of the others in the SM's list (latest
 * placed first, which the issue model can read) may change while @g
 * stands: not entered. */
static bool cohort_sm_repeats(const KernelRt *k, const Cohort *co)
{
    const Group *g = co->groups;
    const SimTime wave = co->end - co->placed;
    uint32_t blocks = 0, groups = 0;
    for (const Group *h = g->sm->groups; h; h = h->next) {
        if (!beside_repeats(h, k, wave) || ++groups > 2)
            return false;
        blocks += h->count;
    }
    return blocks == k->occ;
}

/* Whether @co's one group was placed as the same blocks as the group of
 * its kernel its SM released at this instant. */
static bool placed_as_released(const Engine *E, const Cohort *co)
{
    const Group *g = co->groups;
    const SmRt *sm = g->sm;
    return co->n == 1 && sm->rel_at == E->now && sm->rel_k == g->k &&
           sm->rel_count == g->count &&
           !memcmp(sm->rel_sub, g->sub_warps, sizeof sm->rel_sub);
}

void sm_steady_cohort_try(Engine *E, Ctx *c)
{
    KernelRt *k = c->pend_head;
    if (!k || !k->last_cohort || k->last_cohort->placed != E->now ||
        !steady_allowed(E))
        return;
    Cohort *co = k->last_cohort;
    co->groups->rep = placed_as_released(E, co); /* before any return */
    const uint64_t S = E->m->sm_count, margin = 2 * S * k->occ;
    /* Most kernels are far too small (resnet18's ~1,100 blocks): the test
     * of the list below that fails for them, first (the tests have no side
     * effects, so their order changes nothing but the work). */
    if (k->blocks - k->dispatched < margin + S * k->occ)
        return;
    uint64_t wave = 0;
    for (const Group *g = co->groups; g; g = g->cnext)
        wave += g->count;
    /* With uneven ends within a wave, blocks placed on an SM shortly after
     * a group of their kernel there join it (engine_sm.c, spread_join), but
     * never a group of an extended cohort: two groups of the kernel on one
     * SM (cohort_sm_repeats) may merge step by step and not here. */
    const bool joins = E->m->sm_block_end_spread > 0;
    /* Alone in its context, the kernel-alone fast path takes it.  With
     * staggered release a wave of several SMs gives them back one by one
     * and each is placed anew alone: only a cohort of one SM repeats. */
    if (co->ext || co->wall || co->timed ||
        (E->m->sm_release_staggered && co->n > 1) || k->dram_p > 0 ||
        c->limited || c->frozen || E->m->placement == SIM_PLACE_ROUND_ROBIN ||
        k->w != nearbyint(k->w) || c->resident_blocks == wave ||
        k->blocks - k->dispatched < margin + S * k->occ ||
        !(cohort_fills_alone(co) ||
          (co->n == 1 && !joins && cohort_sm_repeats(k, co))))
        return;
    /* A fair share of the blocks beyond the margin, as for an SM. */
    const uint64_t ext = (k->blocks - k->dispatched - margin) / (S * k->occ);
    const SimTime wave_ns = co->end - co->placed;
    if (ext == 0 || ext > (SIM_TIME_NEVER - co->end) / wave_ns / 2)
        return;
    co->ext = ext;
    co->wave_ns = wave_ns;
    co->wave_blocks = wave;
    co->beside = true;
    co->b_at = co->b_next = 0; /* no boundary known yet */
    /* k's other beside cohorts were placed earlier: latest first, as in
     * c->cohorts */
    co->bprev = NULL;
    co->bnext = k->beside;
    if (k->beside)
        k->beside->bprev = co;
    k->beside = co;
    co->claim = ext * wave;
    k->dispatched += ext * wave;
    k->done += ext * wave;
    k->steady_out += ext * wave;
    E->n_steady++;
    co->end += ext * wave_ns;
    k->steady_next = MIN(k->steady_next, E->now + wave_ns);
    sim_eventq_schedule(&E->q, &co->ev, co->end);
}

/* Stop the cohorts of @c in steady state. */
static void stop_cohorts(Engine *E, Ctx *c)
{
    for (Cohort *co = c->cohorts, *next; co; co = next) {
        next = co->next; /* completing it (settling) releases it */
        if (co->beside)
            steady_cohort_stop(E, co);
    }
}

void sm_steady_stop_kernel(Engine *E, KernelRt *k)
{
    Ctx *c = k->ctx;
    /* k->beside is in c->cohorts' order: the same order of stops */
    for (Cohort *co = k->beside, *next; co; co = next) {
        next = co->bnext; /* stopping takes it off the list */
        steady_cohort_stop(E, co);
    }
    for (uint32_t i = 0; i < E->m->sm_count && k->steady_out; i++)
        if (c->sms[i].st.on && c->sms[i].st.k == k)
            sm_steady_stop(E, &c->sms[i]);
    g_assert(k->steady_out == 0);
}

/* The first period boundary of @sm (in steady state) after now. */
static SimTime sm_next_boundary(const Engine *E, const SmRt *sm)
{
    const SmSteady *st = &sm->st;
    return st->t1 + ((E->now - st->t1) / st->period + 1) * st->period;
}

/* The first wave boundary of @co (beside, extended) after now. */
static SimTime cohort_next_boundary(const Engine *E, const Cohort *co)
{
    const SimTime start = co->end - (co->ext + 1) * co->wave_ns;
    return start + ((E->now - start) / co->wave_ns + 1) * co->wave_ns;
}

void sm_steady_dispatching(Engine *E, KernelRt *k)
{
    /* Blocks counted ahead: a step-by-step run has them still to
     * dispatch, and may need them here.  With uneven ends within a wave,
     * its own groups end no block early only while it has more blocks to
     * place than resident (engine_sm.c, self_refill_only), and the count
     * ahead must not turn that false where a step-by-step run has it true:
     * one dispatch places at most S x occ - resident blocks, and at most
     * S x occ are resident, so 2 x S x occ undispatched before it keeps
     * more to place than resident after it. */
    const uint64_t low = (E->m->sm_block_end_spread > 0 ? 2 : 1) *
                         (uint64_t)E->m->sm_count * k->occ;
    if (k->blocks - k->dispatched < low) {
        sm_steady_stop_kernel(E, k);
        return;
    }
    /* None of its SMs or cohorts ends a period before k->steady_next
     * (the least next boundary found by the last scan, lowered by any that
     * entered since): nothing to stop, and nothing to scan.  The kernel
     * dispatches at many more instants than its periods end at. */
    if (E->now < k->steady_next)
        return;
    /* An SM whose period ends now is released in a step-by-step run and
     * placed together with the others: how a placement is batched over
     * SMs can change its result (a group placed in steps may start in a
     * cohort), so it stops and takes part. */
    Ctx *c = k->ctx;
    SimTime next = SIM_TIME_NEVER;
    k->steady_next = SIM_TIME_NEVER; /* lowered by any entering meanwhile */
    /* In SM order, and the cohorts in c->cohorts' order, as always: a stop
     * at a boundary may release blocks, and releases order SMs. */
    uint32_t left = k->steady_sms;
    for (uint32_t i = 0; i < E->m->sm_count && left; i++) {
        SmRt *sm = &c->sms[i];
        if (!sm->st.on || sm->st.k != k)
            continue;
        left--;
        if (E->now > sm->st.t1 && (E->now - sm->st.t1) % sm->st.period == 0)
            sm_steady_stop(E, sm);
        else
            next = MIN(next, sm_next_boundary(E, sm));
    }
    /* A cohort's boundaries are fixed while it is beside (its end, ext and
     * wave do not change), so the first one after b_at holds until it comes:
     * after b_at and before b_next, now is no boundary and b_next is the next
     * one.  Saves a division and a remainder per cohort per scan (the scans
     * come at each cohort's boundary, so their cost went as cohorts^2). */
    for (Cohort *co = k->beside, *nco; co; co = nco) {
        nco = co->bnext;
        if (E->now > co->b_at && E->now < co->b_next) {
            next = MIN(next, co->b_next);
        } else if (E->now > co->end - (co->ext + 1) * co->wave_ns &&
                   (co->end - E->now) % co->wave_ns == 0) {
            steady_cohort_stop(E, co);
        } else {
            co->b_at = E->now;
            co->b_next = cohort_next_boundary(E, co);
            next = MIN(next, co->b_next);
        }
    }
    k->steady_next = MIN(k->steady_next, next);
}

void sm_steady_stop_all(Engine *E)
{
    for (guint ci = 0; ci < E->ctxs->len && E->n_steady; ci++) {
        Ctx *c = g_ptr_array_index(E->ctxs, ci);
        stop_cohorts(E, c);
        for (uint32_t i = 0; i < E->m->sm_count; i++)
            if (c->sms[i].st.on)
                sm_steady_stop(E, &c->sms[i]);
    }
    g_assert(E->n_steady == 0);
}

/* Whether @sm's head group @g of @k may be snapshotted: fresh at this
 * instant, slowed at every count of its blocks, the kernel's only group there,
 * beside loose groups of kernels without DRAM demand, and the kernel
 * heading its context with more than enough blocks left. */
static bool steady_candidate(const Engine *E, SmRt *sm, Group *g)
{
    const KernelRt *k = g->k;
    const Ctx *c = sm->ctx;
    const uint64_t margin = 2 * (uint64_t)E->m->sm_count * k->occ;
    if (g->placed != E->now || g->cohort || !sm->fresh_slowed ||
        k->fixed_time || k->dram_p > 0 || c->limited || c->frozen ||
        E->m->placement == SIM_PLACE_ROUND_ROBIN || /* a cursor: state */
        c->pend_head != k || k->blocks - k->dispatched < margin + g->count)
        return false;
    for (const Group *h = g->next; h; h = h->next)
        if (h->k == k || h->cohort || h->k->fixed_time || h->k->dram_p > 0)
            return false;
    /* The placement must not depend on how it was batched (which depends
     * on the other SMs placed at the same instant): loads in whole warps
     * (sums exact in any order) and slowed at every count from the very first block (so
     * the group is loose from the start). */
    return k->w == nearbyint(k->w) &&
           sm->load_before == nearbyint(sm->load_before) && sm->load < 1e15 &&
           sm_slowed_throughout(E, sm, g);
}

/* How many periods of @P ns the group @g on @sm may stand for: the kernel
 * keeps 2 x S x occ blocks undispatched (more than any one dispatch can
 * place) and this SM claims at most 1/S of those beyond, and every
 * co-runner keeps at least 3 periods' work left (so the kernel's group
 * stays the first to complete, every period) before its end or its next
 * early block end (sm_block_end_spread), which the steady kernel may take
 * (whether it could depends on the instant: never counted on). */
static uint64_t steady_periods(const Engine *E, const SmRt *sm, const Group *g,
                               SimTime P)
{
    const KernelRt *k = g->k;
    const uint64_t margin = 2 * (uint64_t)E->m->sm_count * k->occ;
    /* Claim no more than a fair share: the blocks beyond the margin as if
     * every SM took as many per period (the first SM must not take them
     * all, or the others never get to stand for a period). */
    uint64_t n = (k->blocks - k->dispatched - margin) /
                     ((uint64_t)E->m->sm_count * g->count) +
                 1;
    for (const Group *h = g->next; h; h = h->next) {
        const double per = (double)P * sm_group_rate(sm, h);
        if (!(per > 0))
            return 0;
        const double early = MAX(sm_group_early_left(E, h), 0);
        const double q = (h->remaining - early) / per - 3;
        n = q < 1 ? 0 : MIN(n, (uint64_t)MIN(q, 1e15));
    }
    return n;
}

static void snapshot(SmRt *sm, const Group *g)
{
    SmSteady *st = &sm->st;
    st->k = g->k;
    st->t = g->placed;
    st->mods = sm->mods;
    st->count = g->count;
    st->load_before = sm->load_before;
    st->load = sm->load;
    st->speed = sm->speed;
    st->rem = g->remaining;
}

/* Whether @sm now is, bit for bit, where its snapshot was one period ago. */
static bool repeats(const Engine *E, const SmRt *sm, const Group *g)
{
    const SmSteady *st = &sm->st;
    return st->k == g->k && st->t < E->now && st->mods + 2 == sm->mods &&
           st->count == g->count && st->load_before == sm->load_before &&
           st->load == sm->load && st->speed == sm->speed &&
           st->rem == g->remaining && sim_event_pending(&sm->ev) &&
           sm->ev.when == E->now + (E->now - st->t);
}

void sm_steady_note(Engine *E, SmRt *sm)
{
    Group *g = sm->groups;
    /* Most kernels are far too small: test that first (every placement
     * comes here). */
    if (!g ||
        g->k->blocks - g->k->dispatched <
            2 * (uint64_t)E->m->sm_count * g->k->occ + g->count ||
        !steady_allowed(E) || !steady_candidate(E, sm, g)) {
        sm->st.k = NULL;
        return;
    }
    if (repeats(E, sm, g)) {
        const SimTime P = E->now - sm->st.t;
        uint64_t n = steady_periods(E, sm, g, P);
        if (n >= 2 && n <= (uint64_t)(SIM_TIME_NEVER - E->now) / P / 2) {
            SmSteady *st = &sm->st;
            KernelRt *k = g->k;
            const uint64_t ahead = (n - 1) * g->count;
            k->dispatched += ahead;
            k->done += ahead;
            k->steady_out += ahead;
            st->on = true;
            st->t1 = E->now;
            st->period = P;
            st->periods = n;
            st->t = E->now;
            st->mods = sm->mods;
            E->n_steady++;
            k->steady_sms++;
            k->steady_next = MIN(k->steady_next, E->now + P);
            sim_eventq_schedule(&E->q, &sm->ev, E->now + (SimTime)n * P);
            return;
        }
    }
    snapshot(sm, g);
}
