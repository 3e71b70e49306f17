/* gen.c -- synthetic workloads.  See gen.h. */
#include "gen.h"

#include <glib.h>
#include <string.h>

SimScenario *sim_gen_many_small(uint64_t kernels, uint32_t procs, uint64_t seed)
{
    SimScenario *sc = sim_scenario_new("(generated: many-small)", "hqsim");
    sc->description = g_strdup_printf(
        "%llu small kernels over %u processes of 4 streams (seed %llu)",
        (unsigned long long)kernels, procs, (unsigned long long)seed);
    GRand *rng = g_rand_new_with_seed((guint32)seed);
    const char *names[] = {"gemm_small", "elementwise", "reduce",
                           "conv",       "softmax",     "layernorm"};
    for (uint32_t p = 0; p < procs; p++) {
        g_autofree char *pname = g_strdup_printf("proc%u", p);
        SimProcessSpec *ps = sim_scenario_add_process(sc, pname);
        for (int s = 0; s < 4; s++) {
            g_autofree char *sname = g_strdup_printf("s%d", s);
            sim_process_add_stream(sc, ps, sname, 0);
        }
        uint64_t n = kernels / procs + (p < kernels % procs);
        for (uint64_t i = 0; i < n; i++) {
            SimOp op;
            memset(&op, 0, sizeof op);
            op.kind = SIM_OP_KERNEL;
            op.stream = (uint32_t)(i % 4);
            op.api_ns = SIM_TIME_NEVER;
            SimKernelSpec *k = &op.u.kernel;
            k->name = sim_scenario_intern(
                sc, names[g_rand_int_range(rng, 0, G_N_ELEMENTS(names))]);
            k->grid[0] = (uint32_t)g_rand_int_range(rng, 1, 257);
            k->grid[1] = k->grid[2] = 1;
            k->block[0] = 128u << g_rand_int_range(rng, 0, 3);
            k->block[1] = k->block[2] = 1;
            k->regs_per_thread = 32;
            k->duration_ns = SIM_US(g_rand_int_range(rng, 5, 201));
            sim_process_add_op(ps, &op);
            if (i % 64 == 63) {
                SimOp sync;
                memset(&sync, 0, sizeof sync);
                sync.kind = SIM_OP_STREAM_SYNC;
                sync.stream = op.stream;
                sync.api_ns = SIM_TIME_NEVER;
                sim_process_add_op(ps, &sync);
            }
        }
    }
    g_rand_free(rng);
    return sc;
}

SimScenario *sim_gen_big_grid(uint64_t blocks)
{
    SimScenario *sc = sim_scenario_new("(generated: big-grid)", "hqsim");
    sc->description = g_strdup_printf("one kernel of %llu blocks",
                                      (unsigned long long)blocks);
    SimProcessSpec *p = sim_scenario_add_process(sc, "big");
    sim_process_add_stream(sc, p, "s", 0);
    SimOp op;
    memset(&op, 0, sizeof op);
    op.kind = SIM_OP_KERNEL;
    op.api_ns = SIM_TIME_NEVER;
    SimKernelSpec *k = &op.u.kernel;
    k->name = sim_scenario_intern(sc, "big_grid");
    /* split into x and y so each dimension stays within CUDA's limits */
    k->grid[0] = (uint32_t)MIN(blocks, 65535u);
    k->grid[1] = (uint32_t)((blocks + 65534) / 65535);
    k->grid[2] = 1;
    k->block[0] = 256;
    k->block[1] = k->block[2] = 1;
    k->regs_per_thread = 32;
    k->block_time_ns = SIM_US(1);
    sim_process_add_op(p, &op);
    return sc;
}

SimScenario *sim_gen_big_beside(uint64_t blocks, uint32_t corunners,
                                uint32_t corunner_blocks)
{
    SimScenario *sc = sim_gen_big_grid(blocks);
    g_free(sc->description);
    sc->description = g_strdup_printf(
        "one kernel of %llu blocks beside %u co-runners of %u blocks",
        (unsigned long long)blocks, corunners, corunner_blocks);
    SimProcessSpec *big = g_ptr_array_index(sc->processes, 0);
    big->start_ns = SIM_US(100); /* after the co-runners */
    for (uint32_t i = 0; i < corunners; i++) {
        g_autofree char *name = g_strdup_printf("co%u", i);
        SimProcessSpec *p = sim_scenario_add_process(sc, name);
        sim_process_add_stream(sc, p, "s", 0);
        SimOp op;
        memset(&op, 0, sizeof op);
        op.kind = SIM_OP_KERNEL;
        op.api_ns = SIM_TIME_NEVER;
        SimKernelSpec *k = &op.u.kernel;
        k->name = sim_scenario_intern(sc, "co_runner");
        k->grid[0] = corunner_blocks;
        k->grid[1] = k->grid[2] = 1;
        k->block[0] = 128;
        k->block[1] = k->block[2] = 1;
        k->regs_per_thread = 32;
        k->duration_ns = blocks; /* about as long as the big one */
        sim_process_add_op(p, &op);
    }
    return sc;
}
