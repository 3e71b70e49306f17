/* engine_dram.c -- device memory bandwidth as a shared resource.
 *
 * The GPU delivers DRAM bandwidth as a saturating function of the pressure
 * its running blocks put on it: with P the requested pressure in units of
 * the achievable bandwidth B (dram_achievable_gbps),
 *
 *     delivered(P) = B d(P),   d(r) = r / (1 + r^n)^(1/n)
 *
 * (n = dram_curve_exponent): linear while few blocks pull (a few SMs cannot
 * saturate DRAM), approaching B smoothly.  Each block of a kernel puts a
 * fixed pressure on DRAM, found from what the kernel moves when it runs
 * alone: its alone bandwidth A = dram bytes / duration gives its alone
 * pressure r_a = d^-1(A / B), spread over the blocks it keeps resident
 * alone.  Delivered bandwidth is shared in proportion to pressure
 * (measured: triads on disjoint SM sets got bandwidth in proportion to
 * their SMs, FINDINGS.md §16), so every unit of pressure gets d(P)/P; a
 * kernel's DRAM rate is that over what it got alone, d(r_a)/r_a.  It
 * exceeds 1 when fewer blocks pull than when the kernel ran alone (its
 * last partial wave, or blocks held back by another kernel): a
 * memory-bound block is then faster, as on the GPU (a triad with 8 warps
 * per SM moved 2146 GB/s, with 16 warps 2745).  A block's rate is its DRAM
 * rate times its SM rate (engine_sm.c, at most 1).  By construction a
 * kernel alone gets P = r_a and rate 1 in full waves; its per-block work
 * is set so that a partial last wave, faster by its lower pressure, still
 * gives back its duration exactly (dram_work).
 *
 * Pressure is kept per context: contexts never run at the same time
 * (time-slicing), and MPS clients share one server context.  Kernels with
 * no DRAM demand have rate 1 here and never change the pressure.
 *
 * The DRAM clock.  The pressure changes whenever a group of a
 * memory-demanding kernel is placed or completes, and every loose group
 * of such a kernel then changes its rate.  Retiming each (advance at the
 * old rate, a new event at the new) cost O(SMs) per event under MPS.  But
 * a group's rate is its DRAM rate times its SM rate (engine_sm.c's
 * group_rate_at: every branch is linear in the DRAM rate), and the DRAM
 * rate is the context's speed s(t) over the kernel's speed alone.  So with
 * the context's clock V(t) = integral of s dt, a loose DRAM group's work
 * left falls by vrate x dV, vrate = its rate at s = 1 (fixed while its
 * SM's groups do not change), and it completes when V reaches a value
 * known when its SM was last retimed.  Each context keeps its SMs with
 * loose DRAM groups in a heap on that value (the SM's earliest) and one
 * event (EV_DRAM) for the top: a change of speed moves V's origin (vclk,
 * vclk_t) and retimes that one event.  Exact but for rounding: the
 * completion time is ceil'd to the ns once, from V, instead of after every
 * retime from the work left then (an SM's progress and its time are
 * computed as before, rate x time, while the speed has not changed since
 * its last retime: dram_epoch).
 *
 * Two kinds of SM are still retimed at every change of pressure, as
 * before: those holding cohort groups beside DRAM groups (the cohort
 * groups leave their cohorts when a DRAM rate is no longer 1: dram_co),
 * and those whose loose groups have early block ends left (engine_sm.c's
 * early_left: whether one may be taken is asked at every retime, and its
 * time is an offset in ns after a point of work, not a point on the
 * clock: dram_old).
 *
 * Loaded latency.  By Little's law the requests in flight grow as P and
 * leave at d(P), so a DRAM request waits L(P) = P / d(P) = 1 / speed_at(P)
 * = (1 + P^n)^(1/n) times its unloaded latency.  The sharing rule above
 * is that law: a kernel with DRAM demand runs at L(r_a) / L(P) of its
 * alone speed, so a latency-bound kernel with little demand of its own
 * (a pointer chase, r_a ~ 0) takes L(P) times its time alone -- measured
 * 1.13 / 1.46 / 2.81 / 1.34 / 3.08 against L = 1.05 / 1.54 / 2.76 /
 * 1.32 / 4.06 (FINDINGS §25, nothing fitted): the memory-latency part of
 * a kernel is all of a kernel that has DRAM demand, none of one that has
 * none (a compute-only kernel's duration did not change).  What the rule
 * had not covered is the launch path: a compute-only graph node's gap
 * grows near saturation (1.28 -> 3.8-4.1 us).  A kernel launch (graph node
 * spacing, stream launch latency) waits dram_launch_latency more for
 * every unit L(P) - 1 at its context's pressure when it is scheduled
 * (dram_launch_delay: for a graph node when its last dependency ends, for
 * a stream kernel when it leaves its queue; the kernels still running
 * then, not one that has just ended).  Contexts never overlap (time-slicing), so only
 * kernels that run together in one context -- streams of a process, or
 * MPS clients in the server -- delay each other; nothing depends on MPS
 * as such.
 *
 * The per-SM ceiling.  Pressure is shared in proportion, so a kernel on
 * fewer SMs (an MPS thread percentage) gets as much bandwidth from a
 * quarter of its blocks as the curve gives their pressure; but one SM
 * moves no more than its warps keep in flight over the loaded latency.
 * Measured (FINDINGS.md §46, §68): an elementwise triad at ~63 resident
 * warps per SM moved 76 GB/s per SM on 32 SMs, 59 with 32 warps, 25 with
 * one 8-warp block -- saturating in the warps as Little's law with a
 * latency that grows with the bytes in flight, T(W) = Tmax W / (W + W0)
 * (dram_sm_gbps_max, dram_sm_half_warps).  An SM's DRAM groups move, at
 * their rates, sum(count x dram_blk x rate) bytes per ns; above
 * max(T(W), what they move alone) -- a kernel alone keeps its duration --
 * all of them are slowed by one factor (dram_sm_factor).  That factor is
 * not proportional to the context's speed, so an SM that may reach it is
 * timed the old way (dram_sm_capped, engine_sm.c's sm_next).  Off (0) in
 * the shipped models: on, it slowed four accuracy experiments past their
 * measurements and moved no serving row (FINDINGS.md §68).
 */
#include <math.h>

#include "engine_internal.h"

/* Above this share of B a kernel's alone bandwidth is treated as B's
 * (the inverse of d grows without bound as d -> 1). */
#define DRAM_MAX_SHARE 0.98

static double curve(const GpuModel *m, double r)
{
    const double n = m->dram_curve_exponent;
    return r <= 0 ? 0 : r / pow(1 + pow(r, n), 1 / n);
}

static double curve_inverse(const GpuModel *m, double d)
{
    const double n = m->dram_curve_exponent;
    d = MIN(d, DRAM_MAX_SHARE);
    return d <= 0 ? 0 : d / pow(1 - pow(d, n), 1 / n);
}

/* Bandwidth delivered per unit of pressure at total pressure @P (1 as P ->
 * 0: a lone block is never DRAM-limited). */
static double speed_at(const GpuModel *m, double P)
{
    return P > 1e-12 ? curve(m, P) / P : 1.0;
}

bool dram_enabled(const GpuModel *m)
{
    return m->dram_achievable_gbps > 0 && m->dram_curve_exponent > 0;
}

static double rate_at(const GpuModel *m, const KernelRt *k, double P)
{
    return speed_at(m, P) / k->dram_speed_alone;
}

double dram_work(const Engine *E, const KernelRt *k, double duration_ns,
                 uint64_t full_waves, uint64_t last_blocks)
{
    if (k->dram_p <= 0 || last_blocks == 0)
        return duration_ns / (double)(full_waves + (last_blocks > 0));
    /* the last wave's blocks all start together and run at one rate */
    double last = 1.0 / rate_at(E->m, k, (double)last_blocks * k->dram_p);
    return duration_ns / ((double)full_waves + last);
}

void dram_prepare_kernel(const Engine *E, KernelRt *k, double mem_intensity,
                         double alone_ns, uint64_t wave_blocks)
{
    const SimKernelSpec *ks = &k->inst->op->u.kernel;
    const GpuModel *m = E->m;
    k->dram_p = 0;
    k->dram_speed_alone = 1;
    k->dram_alone = 0;
    k->dram_blk = 0;
    if (!dram_enabled(m) || ks->wall_clock || ks->self_timed || alone_ns <= 0 ||
        wave_blocks == 0)
        return;
    /* Its share of B when alone: bytes over its time, else the given
     * intensity, a share of the peak bandwidth (as Nsight Compute's DRAM
     * Throughput). */
    double share =
        ks->dram_bytes > 0
            ? (double)ks->dram_bytes / alone_ns /
                  m->dram_achievable_gbps /* bytes/ns = GB/s */
            : mem_intensity * m->dram_bandwidth_gbps / m->dram_achievable_gbps;
    if (share <= 0)
        return;
    double ra = curve_inverse(m, share);
    k->dram_p = ra / (double)wave_blocks;
    k->dram_speed_alone = speed_at(m, ra);
    k->dram_alone = ra;
    /* bytes per ns of one of its blocks alone (share x B is GB/s) */
    k->dram_blk = m->dram_sm_gbps_max > 0
                      ? share * m->dram_achievable_gbps / (double)wave_blocks
                      : 0;
}

/* The warps of @sm's DRAM groups under the ceiling, the bytes per ns they
 * move alone (D) and per unit of DRAM speed (K: at speed s they move s K). */
static void sm_dram_sums(const SmRt *sm, double *W, double *D, double *K)
{
    *W = *D = *K = 0;
    for (const Group *g = sm->groups; g; g = g->next) {
        const KernelRt *k = g->k;
        if (k->dram_blk <= 0)
            continue;
        *W += (double)g->count * (double)k->needs.warps;
        *D += (double)g->count * k->dram_blk;
        *K += (double)g->count * k->dram_blk / k->dram_speed_alone;
    }
}

/* The most @sm's DRAM groups may move, bytes per ns: T(W), or what they
 * move alone where that is more. */
static double sm_dram_limit(const Ctx *c, double W, double D)
{
    const double T = c->dram_sm_max * W / (W + c->dram_sm_half);
    return MAX(T, D);
}

double dram_sm_factor(const SmRt *sm, double speed)
{
    const Ctx *c = sm->ctx;
    if (c->dram_sm_max <= 0 || sm->dram_groups == 0)
        return 1.0;
    double W, D, K;
    sm_dram_sums(sm, &W, &D, &K);
    const double want = speed * K, limit = sm_dram_limit(c, W, D);
    return want > limit ? limit / want : 1.0;
}

bool dram_sm_capped(const SmRt *sm)
{
    return dram_sm_factor(sm, 1.0) < 1.0; /* speed_at is at most 1 */
}

SimTime dram_launch_delay(const Engine *E, const Ctx *c)
{
    /* the pressure now (c->dram_speed waits for dram_flush): a kernel
     * that has just ended no longer counts for its successor's launch */
    if (!dram_enabled(E->m) || c->dram_pressure <= 0)
        return 0;
    double L = 1.0 / speed_at(E->m, c->dram_pressure);
    return (SimTime)llround((double)E->m->dram_launch_latency_ns * (L - 1.0));
}

double dram_launch_load(const Engine *E, const Ctx *c, const KernelRt *k)
{
    double P = MAX(c->dram_pressure, 0.0) + k->dram_alone;
    if (!dram_enabled(E->m) || P <= 0)
        return 1.0;
    return 1.0 / speed_at(E->m, P);
}

/* Visit, in index order, every SM of @c whose bit is set in WORD(w_), an
 * expression of the word index w_ over @c's bitmaps, as `SmRt *sm` in
 * BODY.  The word is read afresh after each SM, so an SM that gains or
 * loses its bit meanwhile is seen as a scan of all SMs would see it. */
#define FOR_SMS_IN(E, c, WORD, BODY)                                           \
    do {                                                                       \
        const uint32_t words_ = ((E)->m->sm_count + 63) / 64;                  \
        for (uint32_t w_ = 0; w_ < words_; w_++) {                             \
            uint64_t bits_ = (WORD);                                           \
            while (bits_) {                                                    \
                const uint32_t s_ = (uint32_t)__builtin_ctzll(bits_);          \
                SmRt *sm = &(c)->sms[w_ * 64 + s_];                            \
                BODY;                                                          \
                bits_ = (WORD) & ~((2ull << s_) - 1);                          \
            }                                                                  \
        }                                                                      \
    } while (0)

/* The SMs a change of pressure retimes: those timed the old way and those
 * holding cohort groups beside DRAM groups. */
#define RETIMED(c) ((c)->dram_old[w_] | (c)->dram_co[w_])

static void bit_set(uint64_t *map, uint32_t id, bool on)
{
    const uint64_t bit = 1ull << (id % 64);
    map[id / 64] = on ? map[id / 64] | bit : map[id / 64] & ~bit;
}

void dram_cohort_note(SmRt *sm)
{
    bit_set(sm->ctx->dram_co, sm->id,
            sm->dram_groups > 0 && sm->cohort_groups > 0);
}

static void dram_sms_mark(Ctx *c, SmRt *sm, bool on)
{
    bit_set(c->dram_sms, sm->id, on);
    dram_cohort_note(sm);
}

/* ------------------------------------------------------------------------
 * The DRAM clock's heap: SMs with loose DRAM groups, by (v_key, id)
 * ------------------------------------------------------------------------ */

#define NO_SLOT UINT32_MAX

static bool vh_before(const SmRt *a, const SmRt *b)
{
    return a->v_key < b->v_key || (a->v_key == b->v_key && a->id < b->id);
}

static void vh_put(Ctx *c, uint32_t i, SmRt *sm)
{
    c->vheap[i] = sm;
    sm->v_slot = i;
}

static void vh_up(Ctx *c, uint32_t i)
{
    SmRt *sm = c->vheap[i];
    while (i > 0) {
        const uint32_t p = (i - 1) / 2;
        if (!vh_before(sm, c->vheap[p]))
            break;
        vh_put(c, i, c->vheap[p]);
        i = p;
    }
    vh_put(c, i, sm);
}

static void vh_down(Ctx *c, uint32_t i)
{
    SmRt *sm = c->vheap[i];
    const uint32_t n = c->vheap_n;
    for (;;) {
        const uint32_t l = 2 * i + 1, r = l + 1;
        if (l >= n)
            break;
        const uint32_t m = r < n && vh_before(c->vheap[r], c->vheap[l]) ? r : l;
        if (!vh_before(c->vheap[m], sm))
            break;
        vh_put(c, i, c->vheap[m]);
        i = m;
    }
    vh_put(c, i, sm);
}

static void vh_remove(Ctx *c, SmRt *sm)
{
    const uint32_t i = sm->v_slot;
    SmRt *last = c->vheap[--c->vheap_n];
    sm->v_slot = NO_SLOT;
    if (last == sm)
        return;
    vh_put(c, i, last);
    vh_up(c, i);
    vh_down(c, last->v_slot);
}

static void vh_set(Ctx *c, SmRt *sm, double key)
{
    if (sm->v_slot == NO_SLOT) {
        sm->v_key = key;
        vh_put(c, c->vheap_n++, sm);
        vh_up(c, sm->v_slot);
        return;
    }
    const double was = sm->v_key;
    sm->v_key = key;
    if (key < was)
        vh_up(c, sm->v_slot);
    else if (key > was)
        vh_down(c, sm->v_slot);
}

/* @c's EV_DRAM at its heap's top: the time computed with the rates of the
 * moment if the speed has not changed since, else from the clock. */
static void dram_arm(Engine *E, Ctx *c)
{
    if (c->frozen || c->vheap_n == 0) {
        sim_eventq_cancel(&E->q, &c->dram_ev);
        return;
    }
    const SmRt *top = c->vheap[0];
    SimTime t =
        top->v_time_epoch == c->dram_epoch
            ? top->v_time
            : c->vclk_t + ceil_ns((top->v_key - c->vclk) / c->dram_speed);
    t = MAX(t, E->now);
    if (!sim_event_pending(&c->dram_ev) || c->dram_ev.when != t)
        sim_eventq_schedule(&E->q, &c->dram_ev, t);
}

void dram_init_ctx(Engine *E, Ctx *c)
{
    const uint32_t n = E->m->sm_count, words = (n + 63) / 64;
    c->vheap = g_new(SmRt *, n);
    c->dram_old = g_new0(uint64_t, words);
    c->dram_co = g_new0(uint64_t, words);
    sim_event_init(&c->dram_ev, EV_DRAM, c);
    c->dram_sm_max = E->m->dram_sm_gbps_max;
    c->dram_sm_half = E->m->dram_sm_half_warps;
    for (uint32_t i = 0; i < n; i++)
        c->sms[i].v_slot = NO_SLOT;
}

void dram_free_ctx(Engine *E, Ctx *c)
{
    sim_eventq_cancel(&E->q, &c->dram_ev);
    g_free(c->vheap);
    g_free(c->dram_old);
    g_free(c->dram_co);
}

void dram_timed(Engine *E, SmRt *sm, bool old, double vmin, double dmin)
{
    Ctx *c = sm->ctx;
    if (sm->v_old != old) {
        sm->v_old = old;
        bit_set(c->dram_old, sm->id, old);
    }
    if (old || vmin == INFINITY) {
        if (sm->v_slot == NO_SLOT)
            return;
        vh_remove(c, sm);
    } else {
        sm->v_time = E->now + ceil_ns(dmin);
        sm->v_time_epoch = c->dram_epoch;
        vh_set(c, sm, sm->v_last + vmin);
    }
    dram_arm(E, c);
}

void dram_event(Engine *E, Ctx *c)
{
    if (c->vheap_n == 0 || c->frozen)
        return;
    SmRt *sm = c->vheap[0];
    vh_remove(c, sm);
    sm_event(E, sm);
    dram_arm(E, c);
}

void dram_freeze(Engine *E, Ctx *c)
{
    c->vclk = dram_clock(E, c);
    c->vclk_t = E->now;
    sim_eventq_cancel(&E->q, &c->dram_ev);
}

void dram_thaw(Engine *E, Ctx *c)
{
    c->vclk_t = E->now;
}

/* Before the pressure of @c changes, once per instant: advance the SMs a
 * change retimes at the rates in force before it.  An SM already advanced
 * to now and not in steady state is skipped (sm_advance would do
 * nothing).  The others' loose DRAM groups are on the clock. */
static void dram_touch(Engine *E, Ctx *c)
{
    if (c->dram_dirty)
        return;
    c->dram_dirty = true;
    g_ptr_array_add(E->dram_dirty, c);
    FOR_SMS_IN(E, c, RETIMED(c), {
        if (sm->st.on || sm->last != E->now)
            sm_advance(E, sm);
    });
}

void dram_add_pressure(Engine *E, SmRt *sm, const KernelRt *k, int64_t blocks,
                       bool new_group)
{
    Ctx *c = sm->ctx;
    dram_touch(E, c);
    c->dram_pressure += (double)blocks * k->dram_p;
    if (c->dram_pressure < 1e-12)
        c->dram_pressure = 0; /* no drift below zero */
    Proc *P = k->proc;
    P->dram_pressure += (double)blocks * k->dram_p;
    if (P->dram_pressure < 1e-12)
        P->dram_pressure = 0;
    if (new_group && sm->dram_groups++ == 0) {
        dram_sms_mark(c, sm, true);
        dram_sm_synced(E, sm); /* placed now: advanced to now */
    }
}

void dram_remove_pressure(Engine *E, SmRt *sm, const KernelRt *k,
                          uint32_t blocks)
{
    dram_add_pressure(E, sm, k, -(int64_t)blocks, false);
    if (--sm->dram_groups == 0) {
        dram_sms_mark(sm->ctx, sm, false);
        sm->v_capped = false; /* nothing left to hold back */
    }
}

/* Whether @sm holds cohort groups and some group on it runs at a DRAM rate
 * other than 1 (they cannot stay in a cohort, whose time assumes rate 1).
 * Without cohort groups sm_loosen has nothing to do: the rates, a division
 * per group, are not looked at. */
static bool sm_dram_off(const SmRt *sm)
{
    if (sm->cohort_groups == 0)
        return false;
    for (const Group *g = sm->groups; g; g = g->next)
        if (!g->k->fixed_time && fabs(dram_rate(sm->ctx, g->k) - 1) > 1e-9)
            return true;
    return false;
}

/* A new speed moves the clock's origin to now (the clock is continuous)
 * and starts a new epoch; the SMs timed the old way and those whose
 * cohort groups may have to leave are retimed, and the heap's event. */
void dram_flush_dirty(Engine *E)
{
    for (guint i = 0; i < E->dram_dirty->len; i++) {
        Ctx *c = g_ptr_array_index(E->dram_dirty, i);
        c->dram_dirty = false;
        const double speed = speed_at(E->m, c->dram_pressure);
        if (speed != c->dram_speed) {
            c->vclk = dram_clock(E, c);
            c->vclk_t = E->now;
            c->dram_speed = speed;
            c->dram_epoch++;
        }
        FOR_SMS_IN(E, c, RETIMED(c), {
            if (sm->st.on || sm->last != E->now)
                sm_advance(E, sm);
            if (sm_dram_off(sm))
                sm_loosen(E, sm);
            sm_reschedule(E, sm);
        });
        dram_arm(E, c);
    }
    g_ptr_array_set_size(E->dram_dirty, 0);
}
