/* engine_cost.h -- counters of where the engine's events and work come
 * from, for performance analysis only (README, Performance).
 *
 * Compiled in only with -DHQSIM_COST_COUNTERS (e.g. make BUILD=build-cost
 * CFLAGS='-O2 -g -DHQSIM_COST_COUNTERS' build-cost/hqsim); then every
 * engine run prints them to stderr when it ends.  Otherwise the macros
 * are empty and nothing is counted: outputs and speed are unchanged.
 * Process-wide and not thread-safe (a sweep on several threads mixes its
 * runs' counts).
 */
#ifndef SIM_ENGINE_COST_H
#define SIM_ENGINE_COST_H

#include <stdint.h>

typedef enum {
    COST_EVENT,         /* + event kind (engine_internal.h's EV_*): handled */
    COST_INSTANT = 16,  /* instants settled (dispatchers may run) */
    COST_PLACE,         /* sm_place_as calls: groups placed or grown */
    COST_PLACE_BLOCKS,  /* blocks they placed */
    COST_PLACE_EMPTY,   /* of the calls, onto an SM holding nothing */
    COST_PLACE_COHORT,  /* of the calls, a group that joined a cohort */
    COST_COHORT_DONE,   /* cohorts completed (all their groups at once) */
    COST_COHORT_GROUPS, /* groups they completed */
    COST_STAGGER,       /* staggered releases (one SM each) */
    COST_SM_GROUPS,     /* loose groups completed by SM events */
    COST_SHARE_EMPTY,   /* issue_share on an SM just emptied */
    COST_SHARE_ONE,     /* ... holding one group */
    COST_SHARE_MORE,    /* ... holding several */
    COST_PLACE_COPIED,  /* of the placements, copied from an equal SM's */
    COST_SM_EQUAL,      /* SM events on an SM in the state of one of an
                           earlier event of the instant (engine_sm.c) */
    COST_N
} CostCounter;

#ifdef HQSIM_COST_COUNTERS
extern uint64_t sim_cost[COST_N];
#define COST_ADD(i, n) (sim_cost[(i)] += (n))
/* Print the counters to stderr and zero them (engine.c). */
void sim_cost_report(void);
#else
#define COST_ADD(i, n) ((void)0)
#define sim_cost_report() ((void)0)
#endif
#define COST(i) COST_ADD(i, 1)

#endif /* SIM_ENGINE_COST_H */
