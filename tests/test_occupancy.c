/* test_occupancy.c -- the occupancy calculator against cases worked out by
 * hand from gpu-scheduling-rules.md §3.2 (cuda_occupancy.h) and the §3.1
 * table, on the bundled models of several compute capabilities.
 *
 * Each case's comment shows the arithmetic; the expected numbers come from
 * it, not from the program.  Limits are listed in the enum's order:
 * warps, blocks, registers, shared memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "gpu_model.h"
#include "occupancy.h"

/* Fixture: the bundled models used below, loaded once. */
typedef struct {
    GpuModel *k40;  /* cc 3.5 */
    GpuModel *p100; /* cc 6.0: 2 register sub-partitions */
    GpuModel *p40;  /* cc 6.1 */
    GpuModel *v100; /* cc 7.0 */
    GpuModel *t4;   /* cc 7.5 */
    GpuModel *a100; /* cc 8.0 */
    GpuModel *l4;   /* cc 8.9 */
    GpuModel *h100; /* cc 9.0 */
} Models;

static GpuModel *load(const char *name)
{
    g_autoptr(GError) error = NULL;
    GpuModel *m = sim_gpu_model_find(name, sim_models_dir(), &error);
    if (!m)
        fail_msg("loading model %s: %s", name, error->message);
    return m;
}

static int group_setup(void **state)
{
    Models *f = g_new0(Models, 1);
    f->k40 = load("k40");
    f->p100 = load("p100");
    f->p40 = load("p40");
    f->v100 = load("v100");
    f->t4 = load("t4");
    f->a100 = load("a100");
    f->l4 = load("l4");
    f->h100 = load("h100-sxm");
    *state = f;
    return 0;
}

static int group_teardown(void **state)
{
    Models *f = *state;
    sim_gpu_model_free(f->k40);
    sim_gpu_model_free(f->p100);
    sim_gpu_model_free(f->p40);
    sim_gpu_model_free(f->v100);
    sim_gpu_model_free(f->t4);
    sim_gpu_model_free(f->a100);
    sim_gpu_model_free(f->l4);
    sim_gpu_model_free(f->h100);
    g_free(f);
    return 0;
}

static SimKernelSpec kernel(uint32_t threads, uint32_t regs,
                            uint32_t smem_static, uint32_t smem_dynamic)
{
    SimKernelSpec k;
    memset(&k, 0, sizeof k);
    k.name = "k";
    k.grid[0] = k.grid[1] = k.grid[2] = 1;
    k.block[0] = threads;
    k.block[1] = k.block[2] = 1;
    k.regs_per_thread = regs;
    k.static_smem_bytes = smem_static;
    k.dynamic_smem_bytes = smem_dynamic;
    return k;
}

/* Run the calculator and check every number it reports. */
static void check_occ(const GpuModel *m, SimKernelSpec k, uint32_t warps,
                      uint32_t regs_per_warp, uint32_t smem_bytes,
                      uint32_t lim_warps, uint32_t lim_blocks,
                      uint32_t lim_regs, uint32_t lim_smem,
                      uint32_t blocks_per_sm, SimOccLimit limiter)
{
    g_autoptr(GError) error = NULL;
    SimOccupancy o;
    memset(&o, 0, sizeof o);
    if (!sim_occupancy(m, &k, &o, &error))
        fail_msg("%s: %s", m->name, error->message);
    assert_int_equal(o.needs.warps, warps);
    assert_int_equal(o.needs.regs_per_warp, regs_per_warp);
    assert_int_equal(o.needs.smem_bytes, smem_bytes);
    assert_int_equal(o.limit[SIM_LIMIT_WARPS], lim_warps);
    assert_int_equal(o.limit[SIM_LIMIT_BLOCKS], lim_blocks);
    assert_int_equal(o.limit[SIM_LIMIT_REGS], lim_regs);
    assert_int_equal(o.limit[SIM_LIMIT_SMEM], lim_smem);
    assert_int_equal(o.blocks_per_sm, blocks_per_sm);
    assert_string_equal(sim_occ_limit_name(o.limiter),
                        sim_occ_limit_name(limiter));
    assert_int_equal(o.active_warps, blocks_per_sm * warps);
}

/* Expect a hard per-block failure whose message contains @needle. */
static void check_nofit(const GpuModel *m, SimKernelSpec k, int code,
                        const char *needle)
{
    g_autoptr(GError) error = NULL;
    SimOccupancy o;
    assert_false(sim_occupancy(m, &k, &o, &error));
    assert_non_null(error);
    assert_int_equal(error->code, code);
    if (!strstr(error->message, needle))
        fail_msg("message '%s' lacks '%s'", error->message, needle);
}

/* ------------------------------------------------------------------------
 * cc 3.5 (K40): 64 warps, 16 blocks, 64 K regs in 4 sub-partitions,
 * 48 KiB shared memory at 256-byte granularity, nothing reserved.
 * ------------------------------------------------------------------------ */

static void test_occupancy_k40_warps_and_registers_tie(void **state)
{
    Models *f = *state;
    /* 256 threads -> 8 warps.  warps: 64 / 8 = 8.  blocks: 16.
     * regs: 32 x 32 = 1024 per warp (a multiple of 256); 65536 / 4 =
     * 16384 per sub-partition / 1024 = 16 warps; 16 x 4 = 64 / 8 = 8.
     * smem: 0 -> no limit beyond block slots, 16.
     * min = 8, reached by warps and registers: warps comes first. */
    check_occ(f->k40, kernel(256, 32, 0, 0), 8, 1024, 0, 8, 16, 8, 16, 8,
              SIM_LIMIT_WARPS);
}

static void test_occupancy_k40_smem_granularity_256(void **state)
{
    Models *f = *state;
    /* 128 threads -> 4 warps; 16 regs -> 512 per warp.
     * warps 64 / 4 = 16; blocks 16; regs 16384 / 512 = 32 per
     * sub-partition x 4 = 128 / 4 = 32.
     * smem: 12000 -> roundup to 256 = 12032 (47 x 256);
     * 49152 / 12032 = 4.08 -> 4 (12000 unrounded would also give 4, but
     * the allocation is what the SM accounts). */
    check_occ(f->k40, kernel(128, 16, 12000, 0), 4, 512, 12032, 16, 16, 32, 4,
              4, SIM_LIMIT_SMEM);
}

static void test_occupancy_regs_zero_treated_as_32(void **state)
{
    Models *f = *state;
    /* Unknown registers (0) count as 32: 32 x 32 = 1024 per warp, the
     * same as the K40 tie case above. */
    check_occ(f->k40, kernel(256, 0, 0, 0), 8, 1024, 0, 8, 16, 8, 16, 8,
              SIM_LIMIT_WARPS);
}

/* ------------------------------------------------------------------------
 * Register sub-partitions: cc 6.0 has 2, cc 6.1 has 4 (§3.2).
 * ------------------------------------------------------------------------ */

static void test_occupancy_p100_two_subpartitions(void **state)
{
    Models *f = *state;
    /* 64 threads -> 2 warps; 40 regs -> 40 x 32 = 1280 per warp (5 x 256).
     * P100: 65536 / 2 = 32768 per sub-partition / 1280 = 25.6 -> 25 warps;
     * 25 x 2 = 50 warps / 2 = 25 blocks.
     * warps 64 / 2 = 32; blocks 32; smem 0 -> 32.  min 25: registers. */
    check_occ(f->p100, kernel(64, 40, 0, 0), 2, 1280, 0, 32, 32, 25, 32, 25,
              SIM_LIMIT_REGS);
}

static void test_occupancy_p40_subpartition_floor_costs_a_block(void **state)
{
    Models *f = *state;
    /* The same kernel on cc 6.1 (4 sub-partitions): 65536 / 4 = 16384 /
     * 1280 = 12.8 -> 12 warps per sub-partition; 12 x 4 = 48 / 2 = 24.
     * Dividing the whole file instead (65536 / 1280 = 51 warps -> 25
     * blocks) would be wrong: the floor per sub-partition loses 3 warps. */
    check_occ(f->p40, kernel(64, 40, 0, 0), 2, 1280, 0, 32, 32, 24, 32, 24,
              SIM_LIMIT_REGS);
}

/* ------------------------------------------------------------------------
 * cc 7.0 (V100): 64 warps, 32 blocks, 96 KiB, 256-byte granularity.
 * ------------------------------------------------------------------------ */

static void test_occupancy_v100_warp_limited(void **state)
{
    Models *f = *state;
    /* 1024 threads -> 32 warps; 16 regs -> 512 per warp.
     * warps 64 / 32 = 2; blocks 32; regs 16384 / 512 = 32 x 4 = 128 / 32
     * = 4; smem 0 -> 32.  min 2: warps.  Occupancy 64/64. */
    check_occ(f->v100, kernel(1024, 16, 0, 0), 32, 512, 0, 2, 32, 4, 32, 2,
              SIM_LIMIT_WARPS);
}

static void test_occupancy_v100_uses_largest_carveout(void **state)
{
    Models *f = *state;
    /* 256 threads -> 8 warps; 32 regs -> 1024 per warp.
     * smem 20000 + 5000 = 25000 -> roundup 256 = 25088 (98 x 256);
     * 98304 (96 KiB) / 25088 = 3.92 -> 3.
     * warps 64 / 8 = 8; blocks 32; regs 64 / 8 = 8. */
    check_occ(f->v100, kernel(256, 32, 20000, 5000), 8, 1024, 25088, 8, 32, 8,
              3, 3, SIM_LIMIT_SMEM);
}

/* ------------------------------------------------------------------------
 * cc 7.5 (T4): 32 warps, 16 blocks, 64 KiB.
 * ------------------------------------------------------------------------ */

static void test_occupancy_t4_block_slot_limited(void **state)
{
    Models *f = *state;
    /* 32 threads -> 1 warp; 32 regs -> 1024 per warp.
     * warps 32 / 1 = 32; blocks 16; regs 16384 / 1024 = 16 x 4 = 64;
     * smem 0 -> 16.  min 16, reached by blocks and smem: blocks first.
     * Occupancy 16 / 32 warps = 50%. */
    check_occ(f->t4, kernel(32, 32, 0, 0), 1, 1024, 0, 32, 16, 64, 16, 16,
              SIM_LIMIT_BLOCKS);
    g_autoptr(GError) error = NULL;
    SimKernelSpec k = kernel(32, 32, 0, 0);
    SimOccupancy o;
    assert_true(sim_occupancy(f->t4, &k, &o, &error));
    assert_int_equal((int)(o.occupancy * 1000 + 0.5), 500);
}

static void test_occupancy_t4_dynamic_smem(void **state)
{
    Models *f = *state;
    /* 128 threads -> 4 warps; 64 regs -> 2048 per warp.
     * smem 20 KiB dynamic = 20480 (a multiple of 256);
     * 65536 / 20480 = 3.2 -> 3.
     * warps 32 / 4 = 8; blocks 16; regs 16384 / 2048 = 8 x 4 = 32 / 4 = 8.
     */
    check_occ(f->t4, kernel(128, 64, 0, 20480), 4, 2048, 20480, 8, 16, 8, 3, 3,
              SIM_LIMIT_SMEM);
}

/* ------------------------------------------------------------------------
 * cc 8.0 (A100): 164 KiB, 128-byte granularity, 1 KiB reserved per block.
 * ------------------------------------------------------------------------ */

static void test_occupancy_a100_reservation_costs_a_block(void **state)
{
    Models *f = *state;
    /* 128 threads -> 4 warps; 32 regs -> 1024 per warp.
     * smem 32 KiB + 1 KiB reserved = 33792 (a multiple of 128);
     * 167936 (164 KiB) / 33792 = 4.97 -> 4.  Without the reservation it
     * would be 167936 / 32768 = 5.1 -> 5.
     * warps 64 / 4 = 16; blocks 32; regs 64 / 4 = 16. */
    check_occ(f->a100, kernel(128, 32, 32768, 0), 4, 1024, 33792, 16, 32, 16, 4,
              4, SIM_LIMIT_SMEM);
}

static void test_occupancy_a100_largest_block_fits_once(void **state)
{
    Models *f = *state;
    /* The documented maximum, 163 KiB = 166912 bytes dynamic, + 1024
     * reserved = 167936 = 164 KiB: exactly one block per SM.
     * 64 threads -> 2 warps: warps 32, blocks 32, regs 64 / 2 = 32. */
    check_occ(f->a100, kernel(64, 32, 0, 166912), 2, 1024, 167936, 32, 32, 32,
              1, 1, SIM_LIMIT_SMEM);
}

static void test_occupancy_a100_smem_granularity_128(void **state)
{
    Models *f = *state;
    /* 100 bytes + 1024 reserved = 1124 -> roundup 128 = 1152 (9 x 128);
     * 167936 / 1152 = 145.8 -> 145.  32 threads -> 1 warp; 8 regs -> 256
     * per warp; warps 64; blocks 32; regs 16384 / 256 = 64 x 4 = 256.
     * min 32: blocks. */
    check_occ(f->a100, kernel(32, 8, 100, 0), 1, 256, 1152, 64, 32, 256, 145,
              32, SIM_LIMIT_BLOCKS);
}

/* ------------------------------------------------------------------------
 * cc 8.9 (L4): 48 warps, 24 blocks, 100 KiB.
 * ------------------------------------------------------------------------ */

static void test_occupancy_l4_register_limited(void **state)
{
    Models *f = *state;
    /* 256 threads -> 8 warps; 64 regs -> 2048 per warp.
     * regs 16384 / 2048 = 8 x 4 = 32 warps / 8 = 4.
     * warps 48 / 8 = 6; blocks 24; smem 0 + 1024 = 1024;
     * 102400 / 1024 = 100.  min 4: registers.  Occupancy 32 / 48. */
    check_occ(f->l4, kernel(256, 64, 0, 0), 8, 2048, 1024, 6, 24, 4, 100, 4,
              SIM_LIMIT_REGS);
}

static void test_occupancy_l4_block_slot_limited(void **state)
{
    Models *f = *state;
    /* 32 threads -> 1 warp; 32 regs -> 1024 per warp.
     * warps 48; blocks 24; regs 64; smem 1024 -> 100.  min 24: blocks. */
    check_occ(f->l4, kernel(32, 32, 0, 0), 1, 1024, 1024, 48, 24, 64, 100, 24,
              SIM_LIMIT_BLOCKS);
}

/* ------------------------------------------------------------------------
 * cc 9.0 (H100): 64 warps, 32 blocks, 228 KiB, 128 B, 1 KiB reserved.
 * ------------------------------------------------------------------------ */

static void test_occupancy_h100_modal_example(void **state)
{
    Models *f = *state;
    /* The modal.com GPU-glossary example: 32-thread blocks, 8 registers,
     * 12 KiB of shared memory per block -> 228 / 12 = 19 blocks, limited
     * by shared memory.  19 x 12 KiB = 228 KiB exactly, so the 12 KiB is
     * the allocation including the 1 KiB reservation: 11 KiB (11264) +
     * 1024 = 12288 (a multiple of 128); 233472 / 12288 = 19.
     * 1 warp; 8 x 32 = 256 regs per warp; warps 64; blocks 32;
     * regs 16384 / 256 = 64 x 4 = 256. */
    check_occ(f->h100, kernel(32, 8, 11264, 0), 1, 256, 12288, 64, 32, 256, 19,
              19, SIM_LIMIT_SMEM);
}

static void test_occupancy_h100_12k_request_gets_17(void **state)
{
    Models *f = *state;
    /* Asking for 12 KiB itself: 12288 + 1024 = 13312 (104 x 128);
     * 233472 / 13312 = 17.5 -> 17, two fewer than the glossary's 19. */
    check_occ(f->h100, kernel(32, 8, 12288, 0), 1, 256, 13312, 64, 32, 256, 17,
              17, SIM_LIMIT_SMEM);
}

static void test_occupancy_h100_subpartition_floor(void **state)
{
    Models *f = *state;
    /* 64 threads -> 2 warps; 40 regs -> 1280 per warp.
     * 16384 / 1280 = 12.8 -> 12 per sub-partition x 4 = 48 / 2 = 24
     * (the whole file, 65536 / 1280 = 51 warps, would give 25).
     * warps 64 / 2 = 32; blocks 32; smem 1024 -> 228. */
    check_occ(f->h100, kernel(64, 40, 0, 0), 2, 1280, 1024, 32, 32, 24, 228, 24,
              SIM_LIMIT_REGS);
}

static void test_occupancy_h100_block_dims_multiply(void **state)
{
    Models *f = *state;
    /* 16 x 16 x 2 = 512 threads -> 16 warps; 32 regs -> 1024.
     * warps 64 / 16 = 4; regs 64 / 16 = 4; blocks 32; smem 228.
     * min 4, warps first. */
    SimKernelSpec k = kernel(16, 32, 0, 0);
    k.block[1] = 16;
    k.block[2] = 2;
    check_occ(f->h100, k, 16, 1024, 1024, 4, 32, 4, 228, 4, SIM_LIMIT_WARPS);
}

/* ------------------------------------------------------------------------
 * Hard per-block failures.
 * ------------------------------------------------------------------------ */

static void test_occupancy_rejects_too_many_threads(void **state)
{
    Models *f = *state;
    check_nofit(f->h100, kernel(1025, 32, 0, 0), SIM_ERROR_NOFIT,
                "threads per block: 1025 exceeds the maximum of 1024");
}

static void test_occupancy_rejects_too_many_regs_per_thread(void **state)
{
    Models *f = *state;
    check_nofit(f->h100, kernel(32, 256, 0, 0), SIM_ERROR_NOFIT,
                "registers per thread: 256 exceeds the maximum of 255");
}

static void test_occupancy_rejects_too_many_regs_per_block(void **state)
{
    Models *f = *state;
    /* 1024 threads x 128 regs: 4096 per warp x 32 warps = 131072 > 65536. */
    check_nofit(f->h100, kernel(1024, 128, 0, 0), SIM_ERROR_NOFIT,
                "registers per block: 131072");
}

static void test_occupancy_regs_per_block_rounds_warps_up(void **state)
{
    Models *f = *state;
    /* 320 threads = 10 warps; 200 regs -> 6400 per warp (25 x 256).
     * 10 x 6400 = 64000 fits 65536, but the hardware check rounds the
     * warps up to a multiple of 4 sub-partitions: 12 x 6400 = 76800. */
    check_nofit(f->h100, kernel(320, 200, 0, 0), SIM_ERROR_NOFIT,
                "registers per block: 76800");
    /* 288 threads = 9 warps -> 12 x 6400 again: rejected. */
    check_nofit(f->h100, kernel(288, 200, 0, 0), SIM_ERROR_NOFIT,
                "registers per block: 76800");
    /* 256 threads = 8 warps -> 8 x 6400 = 51200 fits: 16384 / 6400 = 2
     * per sub-partition x 4 = 8 / 8 = 1 block. */
    check_occ(f->h100, kernel(256, 200, 0, 0), 8, 6400, 1024, 8, 32, 1, 228, 1,
              SIM_LIMIT_REGS);
}

static void test_occupancy_rejects_too_much_smem(void **state)
{
    Models *f = *state;
    /* 40 KiB static + 188 KiB dynamic = 233472 > 227 KiB = 232448. */
    check_nofit(f->h100, kernel(32, 32, 40960, 192512), SIM_ERROR_NOFIT,
                "shared memory per block: 233472 bytes (40960 static + "
                "192512 dynamic) exceeds the maximum of 232448");
    /* V100: 96 KiB + 1 byte. */
    check_nofit(f->v100, kernel(32, 32, 0, 98305), SIM_ERROR_NOFIT,
                "exceeds the maximum of 98304 bytes on v100");
    /* Static shared memory stops at 48 KiB on every architecture, even
     * where the total would fit (H100: 227 KiB with the opt-in). */
    check_nofit(f->h100, kernel(32, 32, 49153, 0), SIM_ERROR_NOFIT,
                "static shared memory per block: 49153 bytes exceeds the "
                "49152-byte (48 KiB) static limit");
    SimOccupancy occ;
    g_autoptr(GError) e = NULL;
    assert_true(sim_occupancy(f->h100,
                              &(SimKernelSpec){.name = "k",
                                               .grid = {1, 1, 1},
                                               .block = {32, 1, 1},
                                               .regs_per_thread = 32,
                                               .static_smem_bytes = 49152,
                                               .dynamic_smem_bytes = 65536},
                              &occ, &e));
}

static void test_occupancy_rejects_empty_block(void **state)
{
    Models *f = *state;
    check_nofit(f->h100, kernel(0, 32, 0, 0), SIM_ERROR_INVALID,
                "has no threads");
}

static void test_occupancy_limit_names(void **state)
{
    (void)state;
    assert_string_equal(sim_occ_limit_name(SIM_LIMIT_WARPS), "warps");
    assert_string_equal(sim_occ_limit_name(SIM_LIMIT_BLOCKS), "blocks");
    assert_string_equal(sim_occ_limit_name(SIM_LIMIT_REGS), "registers");
    assert_string_equal(sim_occ_limit_name(SIM_LIMIT_SMEM), "shared memory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_occupancy_k40_warps_and_registers_tie),
        cmocka_unit_test(test_occupancy_k40_smem_granularity_256),
        cmocka_unit_test(test_occupancy_regs_zero_treated_as_32),
        cmocka_unit_test(test_occupancy_p100_two_subpartitions),
        cmocka_unit_test(test_occupancy_p40_subpartition_floor_costs_a_block),
        cmocka_unit_test(test_occupancy_v100_warp_limited),
        cmocka_unit_test(test_occupancy_v100_uses_largest_carveout),
        cmocka_unit_test(test_occupancy_t4_block_slot_limited),
        cmocka_unit_test(test_occupancy_t4_dynamic_smem),
        cmocka_unit_test(test_occupancy_a100_reservation_costs_a_block),
        cmocka_unit_test(test_occupancy_a100_largest_block_fits_once),
        cmocka_unit_test(test_occupancy_a100_smem_granularity_128),
        cmocka_unit_test(test_occupancy_l4_register_limited),
        cmocka_unit_test(test_occupancy_l4_block_slot_limited),
        cmocka_unit_test(test_occupancy_h100_modal_example),
        cmocka_unit_test(test_occupancy_h100_12k_request_gets_17),
        cmocka_unit_test(test_occupancy_h100_subpartition_floor),
        cmocka_unit_test(test_occupancy_h100_block_dims_multiply),
        cmocka_unit_test(test_occupancy_rejects_too_many_threads),
        cmocka_unit_test(test_occupancy_rejects_too_many_regs_per_thread),
        cmocka_unit_test(test_occupancy_rejects_too_many_regs_per_block),
        cmocka_unit_test(test_occupancy_regs_per_block_rounds_warps_up),
        cmocka_unit_test(test_occupancy_rejects_too_much_smem),
        cmocka_unit_test(test_occupancy_rejects_empty_block),
        cmocka_unit_test(test_occupancy_limit_names),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
