/* testutil.h -- helpers shared by the cmocka tests (header-only).
 *
 * test_model() builds a small GPU in code (the "test mode that shrinks
 * limits": few SMs, round numbers, zero launch overheads) so engine tests
 * state exact expected times derived by hand.  Scenario builders keep the
 * tests short.  Include after <cmocka.h>.
 */
#ifndef HQSIM_TESTUTIL_H
#define HQSIM_TESTUTIL_H

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "gpu_model.h"
#include "scenario.h"

/* A Hopper-like GPU with @sms SMs and no launch or API overheads. */
static inline GpuModel *test_model(uint32_t sms)
{
    GpuModel *m = g_new0(GpuModel, 1);
    m->name = g_strdup("test");
    m->display_name = g_strdup("test GPU");
    m->path = g_strdup("(test)");
    m->cc_major = 9;
    m->cc_minor = 0;
    m->sm_count = sms;
    m->sms_per_tpc = 2;
    m->max_threads_per_sm = 2048;
    m->max_warps_per_sm = 64;
    m->max_blocks_per_sm = 32;
    m->max_threads_per_block = 1024;
    m->regs_per_sm = 65536;
    m->max_regs_per_block = 65536;
    m->max_regs_per_thread = 255;
    m->reg_alloc_unit_regs = 256;
    m->reg_subpartitions = 4;
    m->warp_alloc_granularity = 4;
    m->smem_per_sm_bytes = 228 * 1024;
    /* the carveouts an H100's driver chooses (FINDINGS.md §3) */
    const uint32_t carve[] = {8, 32, 64, 100, 132, 164, 196, 228};
    memcpy(m->smem_carveouts_kib, carve, sizeof carve);
    m->n_smem_carveouts = G_N_ELEMENTS(carve);
    m->max_smem_per_block_bytes = 227 * 1024;
    m->smem_alloc_granularity_bytes = 128;
    m->smem_reserved_per_block_bytes = 1024;
    m->max_resident_grids = 128;
    m->connections_default = 8;
    m->connections_max = 32;
    m->stream_priority_levels = 6;
    m->placement = SIM_PLACE_MOST_FREE;
    m->dispatch_order = g_new(uint32_t, sms);
    for (uint32_t i = 0; i < sms; i++)
        m->dispatch_order[i] = i;
    m->sm_saturation_warps = 64;
    m->sm_full_speed_warps = 64;     /* a hard knee: proportional sharing */
    m->sm_issue_share_saturated = 1; /* sm_intensity: share of saturation */
    m->sm_greedy_warp_share = 0.76;  /* the H100 model's (engine_issue.c) */
    m->preemption = SIM_PREEMPT_INSTRUCTION;
    m->timeslice_ns = SIM_US(1000);
    m->context_switch_ns = SIM_US(10);
    m->context_switch_idle_ns = SIM_US(10);
    m->idle_yield_ns = SIM_US(500);
    m->context_state_gbps = 3000;
    m->context_resume_ns = 0;
    m->context_mem_bytes = 500ull << 20;
    m->mps_supported = true;
    m->mps_volta = true;
    m->mps_max_clients = 48;
    m->mps_connections_default = 2;
    m->mps_connection_budget = 128;
    m->mps_min_tpcs = 1;
    m->mps_pct_rounding = SIM_ROUND_DOWN;
    m->mps_sm_assign = SIM_MPS_SMS_DYNAMIC;
    m->mps_server_mem_bytes = 300ull << 20;
    m->mps_client_mem_bytes = 100ull << 20;
    m->device_mem_bytes = 80000ull << 20;
    m->copy_engines_h2d = 1;
    m->copy_engines_d2h = 1;
    m->h2d_bandwidth_gbps = 10; /* 10 bytes per ns */
    m->d2h_bandwidth_gbps = 10;
    m->d2d_bandwidth_gbps = 1000;
    m->pageable_bandwidth_factor = 0.5;
    m->copy_duplex_factor = 1.0;
    m->copy_latency_ns = 0;
    m->dram_bandwidth_gbps = 3000;
    m->dram_achievable_gbps = 0; /* DRAM not shared unless a test says */
    m->dram_curve_exponent = 2;
    m->sm_age_priority_warps = 0;    /* proportional unless a test says */
    m->sm_release_staggered = false; /* a wave's SMs freed at once */
    m->sm_block_end_spread = 0;      /* a group's blocks end together */
    m->nvml_sample_period_ns = SIM_MS(100);
    m->sm_clock_mhz = 1000;
    return m;
}

static inline SimOp test_kernel(uint32_t stream, const char *name,
                                uint32_t grid, uint32_t block,
                                SimTime duration_ns)
{
    SimOp op;
    memset(&op, 0, sizeof op);
    op.kind = SIM_OP_KERNEL;
    op.stream = stream;
    op.api_ns = SIM_TIME_NEVER;
    op.u.kernel.name = name;
    op.u.kernel.grid[0] = grid;
    op.u.kernel.grid[1] = op.u.kernel.grid[2] = 1;
    op.u.kernel.block[0] = block;
    op.u.kernel.block[1] = op.u.kernel.block[2] = 1;
    op.u.kernel.regs_per_thread = 32;
    op.u.kernel.duration_ns = duration_ns;
    return op;
}

static inline SimOp test_simple(SimOpKind kind, uint32_t stream, uint32_t event)
{
    SimOp op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.stream = stream;
    op.event = event;
    op.api_ns = SIM_TIME_NEVER;
    return op;
}

static inline SimOp test_copy(uint32_t stream, SimCopyDir dir, uint64_t bytes,
                              bool pinned)
{
    SimOp op = test_simple(SIM_OP_COPY, stream, 0);
    op.u.copy.bytes = bytes;
    op.u.copy.dir = dir;
    op.u.copy.pinned = pinned;
    return op;
}

static inline SimOp test_gap(SimTime ns)
{
    SimOp op = test_simple(SIM_OP_HOST_GAP, 0, 0);
    op.u.gap_ns = ns;
    return op;
}

/* A process with @n_streams streams named s0, s1, ... */
static inline SimProcessSpec *test_process(SimScenario *sc, const char *name,
                                           uint32_t n_streams)
{
    SimProcessSpec *p = sim_scenario_add_process(sc, name);
    for (uint32_t i = 0; i < n_streams; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "s%u", i);
        sim_process_add_stream(sc, p, buf, 0);
    }
    return p;
}

/* Run and assert success. */
static inline SimResult *test_run(const GpuModel *m, const SimScenario *sc,
                                  SimShareMode mode)
{
    SimOptions o;
    sim_options_init(&o);
    o.mode = mode;
    o.check_invariants = true;
    GError *err = NULL;
    SimResult *r = sim_engine_run(m, sc, &o, &err);
    if (!r) {
        fprintf(stderr, "engine error: %s\n", err->message);
        g_error_free(err);
    }
    return r;
}

/* The record of op @op_index (first iteration) of process @proc. */
static inline const SimOpRecord *test_op(const SimResult *r, uint32_t proc,
                                         uint32_t op_index)
{
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord, i);
        if (o->proc == proc && o->op_index == op_index && o->iteration == 0)
            return o;
    }
    return NULL;
}

#endif /* HQSIM_TESTUTIL_H */
