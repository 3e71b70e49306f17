/* test_e2e_models.c -- `hqsim models` and `hqsim occupancy` run as a user
 * would run them: output, exit status, and the error for bad input.
 *
 * Runs the binary named by $HQSIM (set by `make check`); skipped without it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <glib.h>

#include "e2e.h"

static void test_e2e_models_lists_every_model(void **state)
{
    (void)state;
    Run r = run_hqsim("models", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "h100-sxm");
    assert_contains(r.out, "NVIDIA H100 SXM5 80GB");
    assert_contains(r.out, "k40");
    assert_contains(r.out, "rtx2000-ada");
    assert_string_equal(r.err, "");
    run_clear(&r);
}

static void test_e2e_models_show_prints_sources(void **state)
{
    (void)state;
    Run r = run_hqsim("models", "--show", "h100-sxm", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "timeslice_us");
    assert_contains(r.out, "FINDINGS.md");
    assert_contains(r.out, "smem_carveouts_kib");
    run_clear(&r);
}

static void test_e2e_models_show_unknown_fails(void **state)
{
    (void)state;
    Run r = run_hqsim("models", "--show", "h999", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "no GPU model 'h999'");
    run_clear(&r);
}

static void test_e2e_models_bad_dir_fails(void **state)
{
    (void)state;
    Run r = run_hqsim("models", "--dir", "/nonexistent/hqsim-models", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "/nonexistent/hqsim-models");
    run_clear(&r);
}

static void test_e2e_occupancy_modal_example(void **state)
{
    (void)state;
    /* 11 KiB + 1 KiB reserved = 12 KiB; 228 / 12 = 19 (test_occupancy.c). */
    Run r = run_hqsim("occupancy", "--gpu", "h100-sxm", "--block", "32",
                      "--regs", "8", "--smem-static", "11K", NULL);
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "Blocks per SM  19, limited by shared memory");
    assert_contains(r.out, "19 of 64 warps = 29.7%");
    run_clear(&r);
}

static void test_e2e_occupancy_json(void **state)
{
    (void)state;
    Run r =
        run_hqsim("occupancy", "--gpu", "a100", "--block", "8,8,2", "--regs",
                  "32", "--smem-dynamic", "32768", "--json", NULL);
    assert_int_equal(r.status, 0);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    /* 128 threads, 32 KiB + 1 KiB reserved: 164 / 33 -> 4 blocks. */
    assert_int_equal(
        cJSON_GetObjectItemCaseSensitive(j, "blocks_per_sm")->valueint, 4);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(j, "limiter")->valuestring,
        "shared memory");
    assert_int_equal(
        cJSON_GetObjectItemCaseSensitive(j, "smem_per_block_bytes")->valueint,
        33792);
    const cJSON *limits = cJSON_GetObjectItemCaseSensitive(j, "limits");
    assert_int_equal(
        cJSON_GetObjectItemCaseSensitive(limits, "warps")->valueint, 16);
    assert_int_equal(
        cJSON_GetObjectItemCaseSensitive(limits, "shared_memory")->valueint, 4);
    cJSON_Delete(j);
    run_clear(&r);
}

static void test_e2e_occupancy_rejects_bad_input(void **state)
{
    (void)state;
    Run r = run_hqsim("occupancy", "--gpu", "h100-sxm", "--block", "0", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "--block");
    run_clear(&r);

    r = run_hqsim("occupancy", "--gpu", "h100-sxm", "--block", "32", "--regs",
                  "300", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err,
                    "registers per thread: 300 exceeds the maximum of 255");
    run_clear(&r);

    r = run_hqsim("occupancy", "--gpu", "h100-sxm", "--block", "32", "--regs",
                  "-1", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "--regs");
    run_clear(&r);

    r = run_hqsim("occupancy", "--gpu", "h999", "--block", "32", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "no GPU model 'h999'");
    run_clear(&r);

    r = run_hqsim("occupancy", "--block", "32", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "--gpu NAME is required");
    run_clear(&r);

    r = run_hqsim("occupancy", "--gpu", "v100", "--block", "32",
                  "--smem-static", "97K", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "shared memory per block: 99328 bytes");
    run_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e2e_models_lists_every_model),
        cmocka_unit_test(test_e2e_models_show_prints_sources),
        cmocka_unit_test(test_e2e_models_show_unknown_fails),
        cmocka_unit_test(test_e2e_models_bad_dir_fails),
        cmocka_unit_test(test_e2e_occupancy_modal_example),
        cmocka_unit_test(test_e2e_occupancy_json),
        cmocka_unit_test(test_e2e_occupancy_rejects_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
