/* engine_internal.h -- the engine's runtime state, shared by engine*.c only.
 *
 * The engine is split by concern:
 *   engine.c         the loop, host threads, streams, hardware queues,
 *                    process start/stop, faults, deadlock detection, results
 *   engine_sm.c      SM resource accounting, block dispatch (leftover
 *                    policy, placement ops, MPS SM limits), contention
 *   engine_ctx.c     time-slicing between contexts
 *   engine_copy.c    copy engines
 *   engine_metrics.c GPU-Util, SM-active, occupancy accumulators
 *   engine_graph.c   CUDA graphs: node dependencies, device-side spacing
 *   engine_host.c    the host CPU's cores, shared by the host threads
 *
 * Ownership: one Engine owns everything below; runtime objects point at the
 * (const) scenario and model, never the other way round.  OpInst and Group
 * objects come from free lists so the steady state allocates nothing.
 */
#ifndef SIM_ENGINE_INTERNAL_H
#define SIM_ENGINE_INTERNAL_H

#include <math.h>

#include "engine.h"
#include "eventq.h"
#include "occupancy.h"

/* Event kinds (SimEvent.kind). */
enum {
    EV_PROC_START, /* obj = Proc */
    EV_HOST,       /* obj = Proc: the host thread's API call or gap ended */
    EV_ADMIT,      /* obj = KernelRt: launch latency over */
    EV_SM,         /* obj = SmRt: its earliest block group completes */
    EV_COPY,       /* obj = CopyDir: its earliest active copy completes */
    EV_SLICE,      /* obj = Engine: the running context's timeslice ended */
    EV_SWITCH,     /* obj = Engine: a context switch completed */
    EV_YIELD,      /* obj = Engine: an idle context gives the GPU up */
    EV_COHORT,     /* obj = Cohort: its blocks complete */
    EV_EARLY,      /* obj = Cohort: some of its blocks end before it */
    EV_QUEUE,      /* obj = Queue: its head op has become visible */
    EV_GNODE,      /* obj = NodeRt: a graph node may start */
    EV_DRAM,       /* obj = Ctx: the earliest loose DRAM group on its DRAM
                      clock completes (engine_dram.c) */
};

typedef struct Engine Engine;
typedef struct Proc Proc;
typedef struct Ctx Ctx;
typedef struct KernelRt KernelRt;
typedef struct Cohort Cohort;
typedef struct SmRt SmRt;
typedef struct GraphRt GraphRt;
typedef struct NodeRt NodeRt;

/* Where an issued op is in its life. */
typedef enum {
    INST_QUEUED,    /* in a hardware queue */
    INST_LAUNCHING, /* kernel: left the queue, launch latency running */
    INST_PENDING,   /* kernel: admitted, blocks left to dispatch */
    INST_RUNNING,   /* kernel: all blocks dispatched */
    INST_COPY_WAIT, /* copy: waiting for a copy engine */
    INST_COPY_RUN,  /* copy: on a copy engine */
    INST_GRAPH,     /* graph op: left its queue, its nodes are running */
} InstState;

/* One issued GPU op (kernel, copy, event record, event wait). */
typedef struct OpInst {
    const SimOp *op;
    Proc *proc;
    uint32_t op_index;
    uint32_t iteration;
    uint64_t stream_seq; /* position in its stream: it may start once
                                 stream->completed == stream_seq */
    uint32_t event_seq;  /* record: its 1-based record number;
                                 wait: the record number it waits for */
    uint32_t record;     /* index into result ops, or SIM_NO_INDEX */
    uint32_t queue;      /* queue index within the context */
    InstState state;
    bool dead;   /* killed by a fault: skip, never complete */
    bool waited; /* copies: copy_handoff_wait has been charged */
    SimTime issue;
    SimTime visible;              /* issue + submit latency: when the GPU's
                                 front end can see it in its queue */
    SimTime start;                /* copies: when it started moving data */
    double copy_left;             /* copies: ns of transfer left at full
                                 bandwidth */
    double scale;                 /* kernels and copies: their jitter factor
                                 (1: as specified; sim/jitter.h) */
    KernelRt *k;                  /* kernels */
    GraphRt *graph;               /* graph op: its nodes' state (INST_GRAPH) */
    NodeRt *gnode;                /* a graph node's own instance: its node
                                 (it is not in its stream's order) */
    uint32_t node;                /* graph node index, or SIM_NO_INDEX */
    struct OpInst *qnext;         /* hardware queue / copy queue link */
    struct OpInst *pprev, *pnext; /* the process's live list */
} OpInst;

/* A kernel in flight. */
struct KernelRt {
    OpInst *inst;
    Ctx *ctx;
    Proc *proc;
    SimBlockNeeds needs;
    uint64_t blocks, dispatched, done;
    double work;             /* per block, in ns at full rate */
    double w;                /* load per block, in warps (engine_sm.c) */
    double wq;               /* load per warp, in ILP-1 warps (w over its
                             block's warps) */
    double knee;             /* the SM curve's knee its lone warps ask for:
                             one warp per scheduler at full speed,
                             max(sm_full_speed_warps, P wq); the former for a
                             load from an issue share (engine_issue.c) */
    double speed_alone;      /* per-warp speed on an SM when it runs alone,
                             at which its work is measured */
    double issue_frac;       /* share of its time alone its warps spend
                             issuing (1 without an SM intensity): only that
                             part is slowed by a busier SM */
    bool fixed_time;         /* wall_clock or self_timed: never slowed */
    bool greedy;             /* its warps issue more than dependent chains
                             would: they hold the SM's schedulers
                             (engine_issue.c) */
    double issue_slots;      /* share of an SM's issue slots one block keeps
                             busy alone (its SM intensity over its blocks
                             per SM; 0: unknown) */
    double pipe_slots;       /* share of an SM's busiest pipe other than
                             the issue slots one block keeps busy alone; 0:
                             bound on issue, not on such a pipe
                             (engine_issue.c) */
    double dram_p;           /* DRAM pressure per resident block, in units of
                             the achievable bandwidth; 0: none (engine_dram.c) */
    double dram_speed_alone; /* bandwidth per unit pressure when alone */
    double dram_alone;       /* its whole pressure when alone (r_a) */
    double dram_blk;         /* bytes per ns one block moves alone, where
                             the model has a per-SM ceiling; 0: none
                             (engine_dram.c's dram_sm_factor) */
    uint32_t occ;            /* its blocks per SM on an empty SM */
    uint32_t carveout;       /* shared-memory configuration it gives an
                             idle SM (bytes; smem_config.c) */
    uint32_t win_lo, win_hi; /* SM configurations its blocks may join
                             (bytes; smem_config.c) */
    int priority;
    uint64_t admit_seq;
    SimTime start;   /* first block placed (SIM_TIME_NEVER before) */
    uint64_t *smset; /* bitmap of SMs that ran a block */
    uint32_t sms_used;
    SimEvent ev;           /* EV_ADMIT */
    double first;          /* its fixed part (kernel_fixed_us), work the
                              first blocks it places on an SM carry besides
                              their block work (engine_sm.c), and an MPS
                              client's memory-path wait, added after
                              dram_prepare_kernel has sized its DRAM work
                              (engine_share.c memload_wait: the wait is
                              resident time at the kernel's DRAM rate) */
    KernelRt *prev, *next; /* ctx pending list, ordered (priority, seq) */
    bool in_pending;
    bool faulted;
    Cohort *last_cohort;  /* the cohort of its latest placement instant */
    Cohort *first_cohort; /* the same for its blocks that carry the fixed
                             part (first on their SM) */
    Cohort *late_cohort;  /* the same for its blocks that start late
                             (engine_sm.c, late_split) */
    uint64_t steady_out;  /* blocks its SMs in steady state counted ahead
                             (dispatched and done) when they entered it,
                             used or not (engine_steady.c): 0 when none */
    SimTime steady_next;  /* no SM or cohort of it in steady state ends a
                             period before this instant, but those already
                             checked (sm_steady_dispatching): a lower bound */
    uint32_t steady_sms;  /* its SMs in steady state (st.on, st.k == it) */
    Cohort *beside;       /* its cohorts in steady state beside others,
                             latest first (as in ctx->cohorts) */
    uint32_t fit_whole;   /* sm_fit on a whole SM (engine_sm.c,
                             sm_whole), plus 1; 0: not asked yet */
    uint64_t stuck_epoch; /* ctx->release_epoch when it last could not
                             place all its blocks (UINT64_MAX: never
                             tried): then no SM could take one more, so
                             until an SM releases blocks it cannot place
                             more, and after, only such SMs can take one */

    /* issue_share on an SM holding one group of it and nothing else
     * (engine_issue.c): the SM's load (its bits), the group's count and
     * its warps per scheduler it last computed for, and what it set then
     * (a function of those and of the kernel's fields fixed at its
     * admission); is_count 0: none yet */
    uint64_t is_load;
    uint32_t is_count;
    uint32_t is_sub; /* the group's sub_warps, bytes packed */
    bool is_slowed;
    double is_prop, is_speed, is_turns, is_pipe_over;
};

/* Blocks of one kernel placed on one SM at one instant: they started
 * together and progress together, so they are one object and complete in
 * one event. */
typedef struct Group {
    KernelRt *k;
    SmRt *sm;
    uint32_t count;
    double remaining; /* work per block left (loose groups only) */
    double speed;     /* per-warp speed of its warps on its SM, in
                             lone-warp speeds (engine_issue.c) */
    double turns;     /* share of the SM's issue cycles its warps may take
                         at all: those greedy warps leave (engine_issue.c) */
    double pipe_over; /* demand on the pipe it is bound on over the pipe's
                         capacity, when above 1 (its rate is at most 1 /
                         pipe_over); 0 or 1: the pipe has room */
    SimTime placed;
    uint8_t sub_warps[SIM_MAX_SUBPARTITIONS]; /* warps per register
                                                 sub-partition, all blocks */
    struct Group *next;                       /* the SM's groups */
    Cohort *cohort; /* NULL: a loose group, timed by its SM's event */
    struct Group *cprev, *cnext; /* the cohort's groups */
    /* its rank in a staggered drain (engine_sm.c's drain_key), computed
     * the first time a staggered release of its cohort asks (drain_ok): a
     * function of fields fixed once it joined its cohort */
    uint64_t drain;
    /* uneven ends within a wave (engine_sm.c's cohort_early): blocks of
     * the group whose early end has come (ended early or not) and those
     * that ended early; count + early_out is the count it was placed with */
    uint32_t early, early_out;
    bool late; /* its blocks start late (engine_sm.c, late_split) */
    bool rep;  /* placed as the same blocks (count and sub-partitions) as
                  the group of its kernel its SM released at that instant
                  (engine_steady.c) */
    /* drain holds its drain_key (engine_sm.c, group_drain) */
    bool drain_ok;
    /* engine_sm.c's group_rate as last computed (rate_ok), from its speed,
     * turns and pipe_over (engine_issue.c clears rate_ok whenever it sets
     * them) and its context's DRAM speed then (rate_dram): the same bits
     * as computed anew, without its divisions on every retime.  A DRAM
     * group's rate on its context's DRAM clock (engine_dram.c), cached
     * alike (vrate_ok): group_rate_at with the DRAM rate 1 /
     * dram_speed_alone, so that rate = dram_speed x vrate. */
    bool rate_ok, vrate_ok;
    double rate, rate_dram, vrate;
} Group;

/* Blocks of one kernel placed at one instant on SMs that are not
 * overloaded.  On such an SM every block runs at full rate, so they all
 * finish at the same, already known time: one event for the lot instead of
 * one per SM.  A group leaves its cohort (becomes loose) when its SM is
 * overloaded.  Invariant: an SM with load > 1 holds no cohort groups. */
struct Cohort {
    KernelRt *k;
    Ctx *ctx;
    SimTime placed;
    SimTime end;          /* completion time while its context runs */
    SimTime left;         /* time left when its context was frozen */
    bool wall;            /* wall-clock kernel: ends at abs_end (or at its
                             resume, if later) whatever shares its SMs */
    bool timed;           /* self-timed kernel: never slowed by sharing,
                             paused by preemption without penalty */
    SimTime abs_end;      /* wall: placed + its block time */
    uint64_t ext;         /* extra full waves it stands for (kernel-alone
                             fast path, sm_cohort_event) */
    SimTime wave_ns;      /* one wave's time, when ext > 0 */
    uint64_t wave_blocks; /* blocks of one wave, when ext > 0 */
    bool beside;          /* ext > 0 beside other kernels' blocks: one of
                             E->n_steady (engine_steady.c) */
    uint64_t claim;       /* beside: the blocks it counted ahead */
    /* beside: its kernel's list (k->beside) */
    Cohort *bprev, *bnext;
    /* beside: its first wave boundary after b_at (engine_steady.c,
     * sm_steady_dispatching); b_next 0 until a scan sets it */
    SimTime b_at, b_next;
    Group *groups;
    uint32_t n;
    /* a late cohort (engine_sm.c, late_release): its SMs whose late blocks
     * wait for their tick, and the latest delay after placement at which
     * blocks leave one of its other SMs (there its late blocks start) */
    uint32_t late_ticks;
    SimTime late_leave;
    SimEvent ev;         /* EV_COHORT */
    SimEvent early_ev;   /* EV_EARLY: its groups' next early block end */
    Cohort *prev, *next; /* the context's cohorts */
    /* In the context's list of cohorts that may end blocks early (a group
     * had early ends left when placed, engine_sm.c's early_left): those
     * cohorts_early_rearm looks at. */
    bool early_listed;
    Cohort *eprev, *enext;
};

/* An SM's steady state beside co-runners (engine_steady.c): the snapshot
 * of its latest placement of a kernel's group and, while on, the periods it
 * stands for. */
typedef struct {
    KernelRt *k;        /* kernel of the snapshot (NULL: none) */
    SimTime t;          /* when that group was placed */
    uint64_t mods;      /* the SM's mods just after */
    uint32_t count;     /* its blocks */
    double load_before; /* the SM's load before the placement, after */
    double load, speed;
    double rem;         /* the group's work per block left when placed */
    bool on;            /* standing for whole periods ahead */
    SimTime t1, period; /* on: placed at t1, repeats every period ns */
    uint64_t periods;   /* on: how many periods its event stands for */
} SmSteady;

/* One SM as seen by one context.  Contexts never run at the same time, so
 * each has its own view; under time-slicing the inactive ones are frozen. */
struct SmRt {
    Ctx *ctx;
    uint32_t id;
    uint32_t rank; /* its position in the model's dispatch order */
    uint32_t free_warps, free_blocks;
    uint32_t carveout;  /* bytes of shared memory the SM is configured
                             for: set by the first block placed on it when
                             idle, 0 while idle */
    uint32_t used_smem; /* allocated by resident blocks */
    uint32_t free_regs[SIM_MAX_SUBPARTITIONS];
    uint32_t warps; /* resident warps */
    double load;    /* sum of resident blocks' load (warps) */
    double speed;   /* per-warp speed at that load (1: lone warp) */
    SimTime last;   /* progress accounted up to here */
    Group *groups;
    /* Read by every sm_advance and sm_reschedule, so kept on the line of
     * last and groups (after ev they cost a cache miss per SM event): */
    uint32_t dram_groups;    /* groups of kernels with DRAM pressure */
    uint32_t v_slot;         /* slot in the DRAM-clock heap (v_last below) */
    bool v_old;              /* in ctx->dram_old */
    bool v_capped;           /* timed the old way because the per-SM DRAM
                                ceiling may hold its groups back: their
                                rates are not proportional to the clock
                                (engine_dram.c) */
    SimEvent ev;             /* EV_SM */
    bool resched;            /* on E->resched: its event needs recomputing */
    uint8_t defer;           /* SM_DEFER_* bits (engine_sm.c, sm_event) */
    uint32_t cohort_groups;  /* groups in a cohort */
    uint32_t n_groups;       /* groups in its list: it holds loose groups
                                iff n_groups > cohort_groups */
    uint16_t *client_blocks; /* MPS server: resident blocks per client */
    /* Its loose DRAM groups on its context's DRAM clock (engine_dram.c):
     * the clock at sm->last and the context's speed epoch then; when the
     * earliest of them completes, on the clock (v_key) and as a time
     * computed at speed epoch v_time_epoch (v_time); its slot in the
     * context's heap (UINT32_MAX: not in it). */
    double v_last, v_key;
    uint64_t v_epoch, v_time_epoch;
    SimTime v_time;
    uint64_t released; /* ctx->release_epoch of its latest release (0:
                             never released) */
    struct SmRt *rel_prev, *rel_next; /* the context's release list */
    uint64_t mods;      /* groups added or removed, loosened, frozen or
                             thawed: any change that breaks a period */
    double load_before; /* load before the head group's first placement */
    bool fresh_slowed;  /* the head group was slowed from its first block
                             (so never in a cohort, however it was batched) */
    SmSteady st;
    /* its latest group released (engine_steady.c compares the next
     * placement with it): when, whose, how many, where */
    SimTime rel_at;
    const KernelRt *rel_k;
    uint32_t rel_count;
    uint8_t rel_sub[SIM_MAX_SUBPARTITIONS];
    /* engine_sm.c's copies of equal SMs' placements (sm_place_copy): the
     * template whose placement it copied (NULL: none), the flush that
     * ends that dispatch (Engine.flushes then; twin is stale in any
     * other), and both SMs' mods and head group's count then, so that
     * flush_resched may take the event time it computed for the template
     * (twin_ok); and, for a template, the flush that ends the dispatch
     * that made it one (tmpl_flush), and the flush (flush_seen) and event
     * time (flush_when, SIM_TIME_NEVER: none) of its latest retime there. */
    const struct SmRt *twin;
    uint64_t twin_flush, twin_mods, twin_tmods, tmpl_flush, flush_seen;
    uint32_t twin_count, twin_tcount;
    SimTime flush_when;
};

typedef struct Queue {
    OpInst *head, *tail;
    Ctx *ctx;
    uint32_t index; /* within its context */
    bool dirty;     /* on the engine's pump worklist */
    SimEvent ev;    /* EV_QUEUE: wake when the head becomes visible */
} Queue;

/* engine_issue.c's memo of the issue curve T(L) and the priority weight
 * f(L) at an SM load L, keyed by L's bits (set: filled): functions of the
 * load and the model alone, so a hit gives the bits computed anew. */
#define SHARE_LOAD_MEMO 64 /* a power of two */
typedef struct {
    uint64_t key;
    double rate, f;
    bool set;
} ShareLoadMemo;

/* engine_issue.c's memo of the last SM share_even shared in its context:
 * its load's bits, and per group in list order its kernel (admit_seq,
 * unique in a run) and count, and what share_even set (each group's speed,
 * turns and pipe_over, the SM's speed, whether a group is slowed).  Those
 * are functions of these keys and of the kernels' fields fixed at their
 * admission, so a hit gives the bits computed anew.  One
 * entry: a kernel's blocks are placed, and end, SM after SM, and
 * successive SMs often hold the same groups (`run --as-recorded` of
 * bench/big_trace.py's 4-stream trace of 10^4 kernels: 1,360,330 hits in
 * 1,413,476 calls), where a table of 1024 missed the cache (README, "The
 * memo removed").  n 0: empty, or more than SHARE_LAST_GROUPS groups. */
#define SHARE_LAST_GROUPS 8
#define SHARE_LAST_WINDOW 256u /* lookups; if under a quarter hit, */
#define SHARE_LAST_OFF 4096u   /* calls without the memo */
typedef struct {
    uint64_t load;
    uint32_t n;
    bool slowed;
    double prop;
    uint64_t seq[SHARE_LAST_GROUPS];
    uint32_t count[SHARE_LAST_GROUPS];
    double speed[SHARE_LAST_GROUPS], turns[SHARE_LAST_GROUPS],
        pipe_over[SHARE_LAST_GROUPS];
    /* each group's rate (engine_sm.c's group_rate: a function of what
     * share_even sets, its kernel and its context's DRAM speed), computed
     * at the first hit, and the DRAM speed it was computed at (NaN: not
     * yet) */
    double rate[SHARE_LAST_GROUPS], rate_dram[SHARE_LAST_GROUPS];
    /* where few calls hit (MPS clients' mixes), asking costs more than the
     * hits save: lookups and hits in the current window of
     * SHARE_LAST_WINDOW lookups, and calls left with the memo unused
     * (engine_issue.c, share_last_count) */
    uint32_t asked, hits, off;
} ShareLastMemo;

/* The distinct (client, function) pairs an MPS server's clients ran last,
 * most recent first: the same name in two clients is two functions. */
typedef struct {
    const char *names[SIM_MAX_FUNC_LRU];
    const void *owners[SIM_MAX_FUNC_LRU];
    uint32_t n;
} SrvFuncLru;

/* A CUDA context: one per non-MPS process, one shared by all MPS clients. */
struct Ctx {
    uint32_t index;
    bool mps_server;
    const char *name;
    SmRt *sms;         /* sm_count, indexed by SM id */
    GPtrArray *queues; /* Queue* */
    KernelRt *pend_head, *pend_tail;
    Cohort *cohorts;       /* live cohorts of this context */
    Cohort *early_cohorts; /* those early_listed, latest listed first */
    /* Changes of the pending list, and the count for which the cohorts'
     * early block ends were last scheduled (engine_sm.c,
     * cohorts_early_rearm). */
    uint64_t pend_gen, early_gen;
    uint32_t resident; /* kernels holding a resident-grid slot */
    uint32_t active;   /* kernels admitted and not complete ("work") */
    uint32_t graphs;   /* graphs started and not complete: work too,
                             between and beside their kernel nodes */
    uint64_t resident_blocks;
    uint64_t state_bytes;    /* registers + shared memory of resident blocks:
                             what a mid-block preemption saves */
    uint32_t n_clients;      /* MPS clients attached so far */
    uint32_t *client_cap;    /* SMs each client may use */
    uint32_t *client_in_use; /* SMs holding a block of each client */
    uint64_t **client_sms;   /* static assignment: each client's SM set
                                (bitmap), NULL for dynamic */
    uint32_t static_next;    /* static assignment: next window start, as a
                                position in dispatch order */
    uint32_t rr_cursor;      /* round-robin placement */
    uint64_t release_epoch;  /* bumped whenever blocks release resources */
    SmRt *rel_head;          /* SMs that ever released blocks, latest release
                             first: those released after epoch e are a
                             prefix (incremental dispatch, engine_sm.c) */
    bool frozen;             /* preempted (time-slicing) */
    bool draining;           /* block-boundary preemption in progress */
    bool closing;            /* ran dry while another context waited: starts
                             no new kernel (engine_ctx.c) */
    bool limited;            /* some MPS client has an SM limit */
    bool dirty;              /* dispatcher should run: on E's dirty FIFO */
    Ctx *dirty_next;         /* next on that FIFO */
    bool blocked_grids;      /* a queue waits for a resident-grid slot */
    NodeRt *grid_wait, *grid_wait_tail; /* graph kernel nodes waiting for a
                                          resident-grid slot, FIFO */
    uint32_t live_procs;
    uint32_t streams_mapped; /* pre-Volta MPS: streams of all clients */
    uint64_t mem_bytes;
    double dram_pressure; /* sum of resident blocks' DRAM pressure */
    double dram_speed;    /* bandwidth per unit pressure at that pressure */
    bool dram_dirty;      /* pressure changed this instant: on
                             E->dram_dirty, retimed by dram_flush */
    uint64_t *dram_sms;   /* bitmap: SMs whose dram_groups > 0, so the
                             retimes visit them in index order without a
                             scan of all SMs (engine_dram.c) */
    /* The DRAM clock (engine_dram.c): V, the integral of dram_speed over
     * the time the context runs, is vclk at vclk_t; dram_epoch counts the
     * changes of dram_speed. */
    double vclk;
    SimTime vclk_t;
    uint64_t dram_epoch;
    SmRt **vheap; /* SMs with loose DRAM groups, a min-heap on
                           (v_key, id) */
    uint32_t vheap_n;
    SimEvent dram_ev;   /* EV_DRAM: the heap's top completes */
    uint64_t *dram_old; /* bitmap: SMs timed by their own event at the
                           rates of the moment, retimed at every change
                           of pressure (a DRAM group's early block end
                           due) */
    uint64_t *dram_co;  /* bitmap: SMs holding DRAM and cohort groups (a
                           change of pressure may loosen them) */
    /* the model's per-SM DRAM ceiling (dram_sm_gbps_max, 0: none;
     * dram_sm_half_warps), where an SM's groups can reach it */
    double dram_sm_max, dram_sm_half;
    /* Cold and large, so last: ahead of the fields above they put the hot
     * ones (frozen, pend_head, cohorts, resident_blocks, rel_head, ...,
     * read by every placement) on lines of their own, frozen 2.5 KB in. */
    SrvFuncLru funcs; /* its clients' functions (engine_share.c; 264 B) */
    ShareLoadMemo load_memo[SHARE_LOAD_MEMO]; /* engine_issue.c (2 KB) */
    ShareLastMemo last_share;                 /* engine_issue.c (440 B) */
};

typedef struct {
    uint64_t issued, completed;
    uint32_t queue; /* queue index within the process's context;
                             SIM_NO_INDEX until the stream's first op */
    int priority;
} StreamRt;

typedef struct {
    uint32_t records; /* record ops issued so far */
    GArray *done;     /* uint8 per record number-1 */
} EventRt;

typedef enum {
    HOST_NOT_STARTED,
    HOST_READY,   /* about to execute ops[pc] */
    HOST_BUSY,    /* in an API call or gap until its EV_HOST */
    HOST_WAIT,    /* blocked on a condition */
    HOST_ARRIVAL, /* open loop: waiting for the next request */
    HOST_DONE,
    HOST_DEAD,
} HostState;

typedef enum {
    WAIT_NONE,
    WAIT_STREAM,    /* wait_arg = stream */
    WAIT_DEVICE,    /* all the process's GPU work */
    WAIT_EVENT,     /* wait_arg = event, wait_seq = record number */
    WAIT_OP,        /* wait_inst = a pageable copy */
    WAIT_ITERATION, /* the iteration's GPU work */
} WaitKind;

/* What a process pays on top of the model's times for how it shares the
 * GPU (ShareOps.costs): per API call (launch, copy, event, graph), per
 * synchronize, per kernel launch (latency after its queue), per graph
 * node (spacing), per kernel of >= 2 blocks (stream or graph node),
 * scaled by eng_share_kernel_cost's rule, a function fetch, per kernel
 * the other clients' memory load, and per busy neighbour a device-to-host
 * copy's hand-off (copy_handoff_wait).  An MPS client pays the model's
 * mps_client_*, mps_func_*, mps_mem_load and mps_copy_handoff times; a
 * process in its own context nothing. */
typedef struct {
    SimTime api_ns, sync_ns, launch_ns, node_ns, kernel_ns, fetch_ns,
        xreload_ns, busy_ns, fend_ns, memload_ns, handoff_ns, evict_ns;
    double memload_half; /* R at which memload_ns is half paid */
    double memload_trip; /* share of a block's time added at full R */
    /* the L2 form of memload_trip (gpu_model.h l2_*; 0 bytes: off) */
    double l2_evict_bytes, l2_evict_shape, l2_miss_ratio, l2_reuse_share,
        l2_served_default;
    uint32_t evict_lru; /* the LRU distance from which evict_ns is paid */
} ShareCosts;

/* The distinct kernel functions a process ran last, most recent first
 * (names compared as strings; NULL is one anonymous function). */
typedef struct {
    const char *names[SIM_MAX_FUNC_LRU];
    uint32_t n;
} FuncLru;

struct Proc {
    const SimProcessSpec *spec;
    uint32_t index;
    const struct ShareOps *share; /* how it shares the GPU, from its start */
    ShareCosts cost;              /* share->costs, from its start */
    Ctx *ctx;
    uint32_t client; /* MPS client number within the server */
    uint32_t connections;
    uint32_t queue_base;   /* first of its queues in ctx->queues */
    uint32_t streams_used; /* streams that have issued an op: the next
                                 one maps to queue streams_used % conns */
    uint32_t copy_active[SIM_COPY_N_DIRS]; /* its copies moving data */
    StreamRt *streams;
    EventRt *events;
    HostState host;
    FuncLru funcs;        /* for the function-fetch rule (engine_share.c) */
    uint64_t last_blocks; /* blocks of its last launched kernel; 0: none */
    SimTime last_launch;  /* when that kernel was launched (engine_share.c) */
    double dram_pressure; /* its resident blocks' share of its context's
                             dram_pressure (engine_dram.c) */
    double xreload;       /* largest w(d) x L(P) of the other clients'
                             function fetches since its last kernel */
    bool after_wait;      /* ops[pc] is a sync whose wait is over */
    bool issue_pending;   /* ops[pc]'s API call is over: issue it */
    uint32_t pc;
    uint32_t iteration;
    SimTime iter_t0; /* when the current iteration's clock began */
    SimTime wake_ns; /* host wake cost the next arrival pays first (open
                        loop, after an idle gap: sim_gpu_model_host_wake) */
    WaitKind wait;
    uint32_t wait_arg, wait_seq;
    OpInst *wait_inst;
    uint64_t outstanding;     /* issued GPU ops not complete */
    uint32_t kernels_running; /* its kernels with a block placed and not
                                 complete (engine_sm.c, engine.c) */
    OpInst *live;             /* list of its issued, unfinished ops */
    SimTime *arrivals;        /* open loop request times */
    uint32_t n_arrivals, next_arrival;
    SimEvent ev_start, ev_host;
    const double *jit_row; /* this iteration's request jitter row, or
                                 NULL (sim/jitter.h) */
    double cpu_left;       /* engine_host.c: ns of CPU work left at a
                                 whole core's speed */
    uint32_t cpu_slot;     /* its index in HostCpu.busy while on_cpu */
    bool on_cpu;           /* doing host work on a shared core */
    bool started, alive;
    uint64_t mem_bytes;
};

/* One copy direction: its waiting copies (FIFO) and those moving data,
 * which share the direction's bandwidth equally. */
typedef struct CopyDir {
    SimCopyDir dir;
    GQueue wait;        /* OpInst*, FIFO */
    GPtrArray *active;  /* OpInst* moving data */
    SimTime last;       /* progress accounted up to here */
    SimTime busy_since; /* start of the current busy period */
    SimEvent ev;        /* EV_COPY: the earliest active copy finishes */
} CopyDir;

typedef enum {
    GPU_IDLE,   /* no context holds the GPU */
    GPU_RUN,    /* cur holds it */
    GPU_DRAIN,  /* cur finishes its resident blocks before a switch */
    GPU_SWITCH, /* switching to next */
} GpuPhase;

/* The host CPU (engine_host.c): host threads doing host work share
 * `cores` by processor sharing.  cores == 0: not shared (as many cores as
 * processes or more), host work takes its own time. */
typedef struct {
    uint32_t cores;
    GPtrArray *busy; /* Proc* with on_cpu */
    SimTime last;    /* progress accounted up to here */
    uint32_t share;  /* max(busy threads, cores): each busy
                                 thread runs at cores / share of a core */
} HostCpu;

/* Running metric integrals (engine_metrics.c). */
typedef struct {
    uint32_t *phys_warps; /* per SM: warps of the context on the GPU */
    SimTime *since;       /* per SM: last change */
    double warp_time;     /* sum over SMs of warps x ns */
    double active_time;   /* sum over SMs of ns with >= 1 warp */
    uint32_t executing;   /* kernels started and not finished */
    SimTime busy_since;
} Metrics;

struct Engine {
    const GpuModel *m;
    const GpuModel *full; /* the model asked for: m unless SMs are sampled
                             (opt.sm_sample), m's sampled copy then */
    const SimScenario *sc;
    SimOptions opt;
    SimResult *res;
    SimEventQ q;
    SimTime now;
    uint64_t n_events;
    /* sampled SMs (eng_sampled_blocks): kernel launches prepared, and those
     * whose blocks did not scale to a whole number (rounded) */
    uint64_t sampled_kernels, sampled_rounded;
    uint32_t n_steady;            /* SMs in steady state (engine_steady.c) */
    bool settling;                /* in settle(): this instant's events are
                                 all handled */
    uint64_t ops_done, ops_total; /* progress hook (SimProgress) */
    uint32_t sm_words;

    Proc *procs;
    uint32_t n_procs;
    GPtrArray *ctxs; /* Ctx* in creation order */
    Ctx *mps;        /* the MPS server context, once created */
    uint32_t mps_clients;
    uint64_t mem_used;

    /* time-slicing (engine_ctx.c) */
    GpuPhase phase;
    Ctx *cur, *next, *last;
    SimEvent ev_slice, ev_switch, ev_yield;
    SimTime slice_start;
    bool sliced; /* the GPU has switched between contexts (start_switch):
                    graph nodes follow graph_node_spacing_sliced from then */

    CopyDir copy[SIM_COPY_N_DIRS];
    HostCpu cpu;
    uint64_t seed; /* the run's seed: arrivals and jitter */
    bool jitter;   /* apply the processes' jitter */

    GQueue dirty_queues;          /* Queue* to pump, FIFO: in the order their
                                 work arrived */
    Ctx *dirty_head, *dirty_tail; /* contexts whose dispatcher should
                                     run, FIFO through Ctx.dirty_next */
    GPtrArray *faults;            /* KernelRt* that faulted this instant */
    SmRt **resched;               /* SMs whose event to recompute after
                                 dispatch (one heap update per SM, not per
                                 block): n_resched of sm_count at most */
    uint32_t n_resched;           /* its length */
    uint64_t flushes;             /* flush_resched calls (SmRt.flush_seen) */
    SmRt **deferred;              /* SMs whose event sm_event put off to
                                 the instant's end (engine_sm.c) */
    uint32_t n_deferred, cap_deferred;
    bool sm_defer_ok;      /* sm_event may put it off: no timer
                                 kernels that start late (they read SMs'
                                 events while placing) */
    GPtrArray *dram_dirty; /* Ctx* whose DRAM pressure changed this
                                 instant (engine_dram.c) */
    void *cand;            /* placement scratch, 3 x sm_count entries */
    uint64_t admit_seq;
    Metrics met;

    OpInst *inst_free;
    Group *group_free;
    Cohort *cohort_free;
    GError *error; /* first fatal error; stops the loop */
};

/* engine.c */
void eng_op_complete(Engine *E, OpInst *in);
OpInst *eng_inst_new(Engine *E);
void eng_inst_release(Engine *E, OpInst *in);
void eng_live_link(Proc *P, OpInst *in);
void eng_launch_kernel(Engine *E, OpInst *in, SimTime latency);
void eng_mark_queue(Engine *E, Queue *q);
void eng_mark_ctx(Engine *E, Ctx *c);
SimOpRecord *eng_record(Engine *E, const OpInst *in);
/* Record @in (plain op or graph node) as it is issued or starts: one
 * builder for both (engine.c).  @name: NULL for the kind's choice. */
void eng_record_new(Engine *E, OpInst *in, const char *name);
bool eng_proc_alive(const Proc *p);

/* engine.c, for the sharing mechanisms (engine_share.c) */
Ctx *eng_ctx_new(Engine *E, const char *name, bool mps_server, uint64_t mem);
Queue *eng_queue_new(Ctx *c);
/* @P does not start: its result says why (a note too). */
void eng_refuse(Engine *E, Proc *P, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
void eng_kill_proc(Engine *E, Proc *P, const char *why);

/* engine_share.c: how a process shares the GPU.  Each op gets the started
 * (or starting) process; none depends on the run's mode or the model's
 * architecture, which share_ops_for decides once. */
typedef struct ShareOps {
    const char *name;
    bool mps; /* an MPS client (SimProcResult.mps) */
    /* Hardware queues a process gets when nothing says. */
    uint32_t (*default_connections)(const GpuModel *m);
    /* Add the device memory its context brings to *need (its allocations
     * so far); false: refused (eng_refuse said why). */
    bool (*admit)(Engine *E, Proc *P, uint64_t *need);
    /* What that memory is for, in an out-of-memory message. */
    const char *(*overhead)(const Engine *E);
    /* Give it its context and queues, and its SM limit in @r. */
    void (*attach)(Engine *E, Proc *P, SimProcResult *r);
    /* The queue (within its context) of a stream's first op. */
    uint32_t (*map_stream)(Proc *P);
    /* Mark the queues its completions may unblock. */
    void (*mark_queues)(Engine *E, Proc *P);
    /* A fatal fault in its kernel @kname: kill whom it kills. */
    void (*fault)(Engine *E, Proc *P, const char *kname, const char *own);
    /* Its extra costs on @m (read once, when it starts, into Proc.cost). */
    void (*costs)(const GpuModel *m, ShareCosts *out);
} ShareOps;
extern const ShareOps share_own, share_mps_volta, share_mps_prevolta;
/* Its mechanism from the run's mode and the model (notes a fallback). */
const ShareOps *share_ops_for(Engine *E, const Proc *P);
/* The LRU distance of @name in @lru (distinct other functions run since
 * it last ran; SIM_MAX_FUNC_LRU if not among them), which then becomes
 * the most recent. */
uint32_t eng_func_lru_touch(FuncLru *lru, const char *name);
/* w(d): @m's share of the function fetch at LRU distance @d. */
double eng_func_weight(const GpuModel *m, uint32_t d);
/* What @k, prepared (sm_prepare_kernel) and about to be launched, waits
 * beyond its launch latency for how its process shares the GPU
 * (mps_client_kernel, the function fetch); updates the process's last
 * kernel and functions. */
SimTime eng_share_kernel_cost(const Engine *E, KernelRt *k);

/* engine_sm.c */
void sm_init_ctx(Engine *E, Ctx *c);
void sm_free_ctx(Engine *E, Ctx *c);
bool sm_prepare_kernel(Engine *E, KernelRt *k, GError **error);
void sm_pending_insert(Engine *E, Ctx *c, KernelRt *k);
void sm_pending_remove(Ctx *c, KernelRt *k);
void sm_dispatch(Engine *E, Ctx *c);
void sm_event(Engine *E, SmRt *sm);
void sm_cohort_event(Engine *E, Cohort *co);
/* Blocks of @co's groups whose early end has come end now. */
void sm_cohort_early(Engine *E, Cohort *co);
void sm_freeze(Engine *E, Ctx *c);
void sm_thaw(Engine *E, Ctx *c);
void sm_kill_kernel(Engine *E, KernelRt *k);
void sm_kernel_free(KernelRt *k);
/* Progress accounting and retiming of one SM (engine_dram.c uses them). */
void sm_advance(Engine *E, SmRt *sm);
void sm_reschedule(Engine *E, SmRt *sm);
/* The SM events sm_event put off this instant, at their reserved places
 * (after settling the instant, before time moves on). */
void sm_undefer_all(Engine *E);
void sm_loosen(Engine *E, SmRt *sm);

/* Advance @sm's loose groups @times times by @d ns at their current rates,
 * exactly as @times calls of sm_advance would (engine_steady.c). */
void sm_advance_periods(SmRt *sm, double d, uint64_t times);
/* The rate of @g's blocks on @sm now (engine_sm.c's group_rate). */
double sm_group_rate(const SmRt *sm, const Group *g);
/* Whether some group on @sm would run below rate 1 with every count of
 * its head group @g's blocks, from the first one (on a load of
 * sm->load_before), however a placement batched them. */
bool sm_slowed_throughout(const Engine *E, SmRt *sm, Group *g);

/* Complete every block of @co now (sm_cohort_event without extending). */
void sm_cohort_complete(Engine *E, Cohort *co);

/* engine_steady.c: an SM whose placements repeat stands for whole periods.
 * sm_steady_note: after @sm's event was recomputed for this instant's
 * placement; sm_steady_stop: back to the state a step-by-step run has now;
 * the others stop every SM (of a kernel) in steady state. */
void sm_steady_note(Engine *E, SmRt *sm);
void sm_steady_stop(Engine *E, SmRt *sm);
void sm_steady_stop_kernel(Engine *E, KernelRt *k);
void sm_steady_stop_all(Engine *E);
/* Before @k places blocks now: SMs and cohorts whose period ends now take
 * part, as in a step-by-step run, and all stop if @k runs low on blocks. */
void sm_steady_dispatching(Engine *E, KernelRt *k);
/* After a dispatch of @c: the cohort its head kernel just placed may stand
 * for whole waves beside the other kernels' blocks. */
void sm_steady_cohort_try(Engine *E, Ctx *c);
/* An extended cohort beside others completes its last wave. */
void sm_steady_cohort_end(Engine *E, Cohort *co);
/* Tests only: never enter steady state (the step-by-step reference). */
void sm_force_no_steady(bool on);
/* Tests: blocks never join an older group of their kernel (engine_sm.c,
 * spread_join), as before that approximation. */
void sm_force_no_join(bool on);
/* tests: every placement computed, none copied (engine_sm.c, place_tier) */
void sm_force_no_clone(bool on);
/* tests: placements copied so far on this thread */
uint64_t sm_clone_count(void);
/* tests: no SM holding groups copies the placement of an equal one
 * (engine_sm.c, sm_place_copy); bare SMs still may (sm_force_no_clone) */
void sm_force_no_copy(bool on);
/* tests: such copies made by this thread so far */
uint64_t sm_copy_count(void);
/* tests: copies' retimes that took their template's time (engine_sm.c,
 * flush_resched, twin_ok) on this thread so far */
uint64_t sm_twin_count(void);
/* Tests: sm_event never puts off an SM's share and event (engine_sm.c,
 * sm_may_defer): the reference the put-off runs must match bit for bit. */
void sm_force_no_defer(bool on);
/* Whether @m lets sm_event put SMs' events off (no early block ends), and
 * the tests have not forbidden it: Engine.sm_defer_ok's start. */
bool sm_defer_allowed(const GpuModel *m);
/* Whether a block's early end @left ns of work before its group's end is
 * simulated (engine_sm.c, sm_block_end_spread): from kernel_launch_latency
 * on. */
bool early_resolved(const GpuModel *m, double left);
/* The work left at which @g's next block ends early (engine_sm.c); -1:
 * none left to end early. */
double sm_group_early_left(const Engine *E, const Group *g);

/* engine_issue.c: the SM's issue rate shared among its groups by age.
 * Sets every group's speed from sm->load and the list order (youngest
 * first), and sm->speed (the per-warp speed at sm->load); true if some
 * group (not wall-clock or self-timed) runs below its kernel's speed
 * alone. */
bool issue_share(const GpuModel *m, SmRt *sm);
/* Whether a kernel whose blocks put @alone_load warps' worth of load on
 * an SM holding @warps of its warps issues like greedy warps. */
bool issue_greedy(const GpuModel *m, double alone_load, double warps);
/* Whether a warp of load @wq (ILP-1 warps, from its kernel's ilp) holds
 * its scheduler: alone it takes more than sm_greedy_warp_share of what the
 * scheduler issues saturated (engine_issue.c). */
bool issue_greedy_warp(const GpuModel *m, double wq);
bool issue_pipe_bound(double sm_intensity, double pipe_share);
/* Tests only: share every SM holding several groups by the general path
 * (share_pass per scheduler or for the SM), the reference of the fused
 * pass share_even (engine_issue.c). */
void issue_force_general(bool on);

/* engine_dram.c: device memory bandwidth shared by running kernels. */
bool dram_enabled(const GpuModel *m);
/* Its pressure per block from its DRAM bytes (or @mem_intensity: its
 * spec's, or its class default, engine_sm.c) over @alone_ns, its time
 * alone, with @wave_blocks resident. */
void dram_prepare_kernel(const Engine *E, KernelRt *k, double mem_intensity,
                         double alone_ns, uint64_t wave_blocks);
/* Per-block work (ns at rate 1) of a kernel of @duration_ns alone in
 * @full_waves full waves and a last one of @last_blocks (0: none). */
double dram_work(const Engine *E, const KernelRt *k, double duration_ns,
                 uint64_t full_waves, uint64_t last_blocks);
/* What issue_share remembered for @k's one group (KernelRt.is_*), set on
 * @sm and its group @g: their share, and @g's cached rates stale.  Inline:
 * the memo's hit and every copied placement (engine_sm.c) set it. */
static inline void issue_share_memo_set(SmRt *sm, Group *g, const KernelRt *k)
{
    sm->speed = k->is_prop;
    g->speed = k->is_speed;
    g->turns = k->is_turns;
    g->pipe_over = k->is_pipe_over;
    g->rate_ok = false;
    g->vrate_ok = false;
}
/* Its DRAM rate in @c now: 1 without DRAM demand, above 1 when fewer
 * blocks pull than when it ran alone.  Inline: every retime of an SM asks
 * it per group. */
static inline double dram_rate(const Ctx *c, const KernelRt *k)
{
    return k->dram_p > 0 ? c->dram_speed / k->dram_speed_alone : 1.0;
}
/* The factor (at most 1) by which the per-SM ceiling holds back @sm's
 * DRAM groups at its context's DRAM speed @speed; 1 without a ceiling. */
double dram_sm_factor(const SmRt *sm, double speed);
/* Whether the ceiling may hold back @sm's DRAM groups at some DRAM speed
 * (their rates are then not proportional to it: timed the old way). */
bool dram_sm_capped(const SmRt *sm);
/* What a kernel launch in @c (graph node spacing, stream launch latency)
 * waits on DRAM beyond its unloaded time at @c's pressure now. */
SimTime dram_launch_delay(const Engine *E, const Ctx *c);
/* L(P), the loaded DRAM latency over the unloaded, at @c's pressure now
 * plus @k's own when alone (1 without DRAM sharing or pressure). */
double dram_launch_load(const Engine *E, const Ctx *c, const KernelRt *k);
/* @blocks (negative: fewer) of @k start/stop pulling on @sm's context.
 * (These three are inline tests around engine_dram.c's work: every
 * placement, completion and dispatch calls them, mostly for kernels
 * without DRAM pressure and instants that changed none.) */
void dram_add_pressure(Engine *E, SmRt *sm, const KernelRt *k, int64_t blocks,
                       bool new_group);
static inline void dram_add(Engine *E, SmRt *sm, const KernelRt *k,
                            int64_t blocks, bool new_group)
{
    if (k->dram_p > 0)
        dram_add_pressure(E, sm, k, blocks, new_group);
}
void dram_remove_pressure(Engine *E, SmRt *sm, const KernelRt *k,
                          uint32_t blocks);
static inline void dram_remove_group(Engine *E, SmRt *sm, const KernelRt *k,
                                     uint32_t blocks)
{
    if (k->dram_p > 0)
        dram_remove_pressure(E, sm, k, blocks);
}
/* Retime the SMs of every context whose pressure changed. */
void dram_flush_dirty(Engine *E);
static inline void dram_flush(Engine *E)
{
    if (E->dram_dirty->len) /* the usual case: none changed */
        dram_flush_dirty(E);
}
/* ceil(@x) as a time: for 0 <= x < 2^53 by truncation (exact there: every
 * such integer is a double), else by ceil(). */
static inline SimTime ceil_ns(double x)
{
    if (x >= 0 && x < 9007199254740992.0) {
        const SimTime i = (SimTime)x;
        return (double)i < x ? i + 1 : i;
    }
    return (SimTime)ceil(x);
}
/* The DRAM clock of @c now (engine_dram.c): the integral of its
 * dram_speed over the time it ran; constant while frozen. */
static inline double dram_clock(const Engine *E, const Ctx *c)
{
    return c->frozen ? c->vclk
                     : c->vclk + (double)(E->now - c->vclk_t) * c->dram_speed;
}
/* @sm's progress is accounted up to now: so on the clock (its clock
 * reading is kept only while it holds DRAM groups, and set when it gets
 * its first). */
static inline void dram_sm_synced(const Engine *E, SmRt *sm)
{
    sm->v_last = dram_clock(E, sm->ctx);
    sm->v_epoch = sm->ctx->dram_epoch;
}
void dram_init_ctx(Engine *E, Ctx *c);
void dram_free_ctx(Engine *E, Ctx *c);
/* sm_reschedule's answer for @sm's loose DRAM groups: @old, timed by its
 * own event (an early end due), else their earliest completion @vmin on
 * the DRAM clock after sm->v_last and @dmin ns from now at the rates of
 * the moment (INFINITY: none). */
void dram_timed(Engine *E, SmRt *sm, bool old, double vmin, double dmin);
/* EV_DRAM: the SM at the top of @c's heap has a group due. */
void dram_event(Engine *E, Ctx *c);
/* @c's clock stops (frozen) and starts again (thawed) now. */
void dram_freeze(Engine *E, Ctx *c);
void dram_thaw(Engine *E, Ctx *c);
/* @sm's count of cohort groups changed. */
void dram_cohort_note(SmRt *sm);
/* Tests only: use the one-block-at-a-time most-free placement everywhere,
 * to check that the batched one places blocks identically. */
void sm_force_exact_placement(bool on);
/* Tests only: look for a kernel's SMs over all SMs every time (the
 * reference), not only over those released since it last stopped short, to
 * check that incremental dispatch places blocks identically. */
void sm_force_full_scan(bool on);
/* Verify every SM's accounting against its groups and the cohort
 * invariant; aborts (g_error) on a violation.  O(SMs x groups). */
void sm_check(const Engine *E);

/* engine_ctx.c */
void ctx_work_arrived(Engine *E, Ctx *c);
void ctx_became_idle(Engine *E, Ctx *c);
void ctx_kernel_started(Engine *E, Ctx *c);
bool ctx_may_start(const Ctx *c);
void ctx_drained(Engine *E, Ctx *c);
bool ctx_can_dispatch(const Engine *E, const Ctx *c);
void ctx_event(Engine *E, SimEvent *ev);
void ctx_finish(Engine *E);

/* engine_graph.c */
void graph_start(Engine *E, OpInst *in);
void graph_node_event(Engine *E, NodeRt *n);
void graph_node_done(Engine *E, OpInst *node_inst);
void graph_grid_freed(Engine *E, Ctx *c);
void graph_kill(Engine *E, OpInst *in);
void graph_rt_free(Engine *E, GraphRt *g);

/* engine_copy.c */
void copy_init(Engine *E);
void copy_free(Engine *E);
/* The MPS hand-off wait before device-to-host copy @in may start (0: none
 * or already charged). */
SimTime copy_handoff_wait(const Engine *E, OpInst *in);
void copy_submit(Engine *E, OpInst *in);
void copy_event(Engine *E, CopyDir *cd);

/* The jitter factor of node @node (spec @op) of the graph instance @g. */
double eng_node_scale(const Engine *E, const OpInst *g, uint32_t node,
                      const SimOp *op);

/* engine_host.c */
void host_cpu_init(Engine *E, uint32_t cores);
void host_cpu_free(Engine *E);
void host_cpu_work(Engine *E, Proc *P, SimTime d);
void host_cpu_done(Engine *E, Proc *P);

/* engine_metrics.c */
void met_init(Engine *E);
void met_free(Engine *E);
void met_sm_warps(Engine *E, uint32_t sm, uint32_t warps);
void met_kernel_started(Engine *E);
void met_kernel_ended(Engine *E);
void met_finish(Engine *E);

/* Sampled SMs (engine.c; identity when opt.sm_sample <= 1): @sms SMs of
 * the whole GPU on the sampled one, and @n blocks of @in's kernel there
 * (rounded at random, unbiased, at least 1). */
uint32_t eng_sampled_sms(const Engine *E, uint32_t sms);
uint64_t eng_sampled_blocks(Engine *E, const OpInst *in, uint64_t n);

#endif /* SIM_ENGINE_INTERNAL_H */
