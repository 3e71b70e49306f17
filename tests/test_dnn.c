/* test_dnn.c -- real library kernels on an H100, together, predicted from
 * each kernel alone (issue 11, part L): traces/measured/h100/dnn/.
 *
 * cuBLAS GEMMs (fp32, fp16, a bf16 one too small to fill the GPU, a skinny
 * GEMV-like one), a cuDNN convolution, an elementwise add, a sum, softmax
 * and layer norm, recorded with the PyTorch profiler (harness/torch_pairs.py):
 * in pairs and quads on streams of one process (launched a few us apart,
 * l_*; or ~100 us apart, ls_*) and in 2 processes with and without MPS
 * (l_mp2_*).  `hqsim validate` replays each from the solo data only (every
 * kernel's median duration alone, launch shape, registers, shared memory,
 * and Nsight Compute's issue slots busy and DRAM bytes) with the host calls
 * at their recorded times; nothing of part L is fitted.
 *
 * Each entry's limits are its errors today plus a margin (x1.25 + 2 points;
 * `python3 harness/torch_pairs_predict.py --entries` prints them), so a
 * model change that makes a real-kernel prediction worse fails here.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "validate.h"

#define DIR HQSIM_SOURCE_DIR "/traces/measured/h100"

typedef struct {
    const char *id;
    double err;     /* limit on |makespan error| (median over iterations) */
    double end_err; /* limit on the median |end error| / iteration span */
} Entry;

/* ENTRIES-BEGIN (harness/torch_pairs_predict.py --entries) */
static const Entry entries[] = {
    {"l_mm16_mm32", 0.036, 0.030},
    {"l_mm16_conv", 0.070, 0.034},
    {"l_conv_mm16", 0.037, 0.040},
    {"l_mm32_conv", 0.053, 0.038},
    {"l_mms_x2", 0.030, 0.034},
    {"l_mms_conv", 0.040, 0.035},
    {"l_mm16_x2", 0.039, 0.028},
    {"l_mm16_add", 0.061, 0.042},
    {"l_add_mm16", 0.048, 0.037},
    {"l_mm32_add", 0.048, 0.142},
    {"l_conv_sum", 0.039, 0.042},
    {"l_mms_gemv", 0.029, 0.032},
    {"l_mms_softmax", 0.024, 0.026},
    {"l_conv_lnorm", 0.040, 0.034},
    {"l_add_x2", 0.022, 0.029},
    {"l_add_sum", 0.022, 0.029},
    {"l_softmax_lnorm", 0.035, 0.029},
    {"l_gemv_add", 0.024, 0.035},
    {"l_sum_softmax", 0.030, 0.040},
    {"l_gemv_x2", 0.056, 0.060},
    {"l_quad_mix", 0.031, 0.034},
    {"l_quad_small", 0.021, 0.022},
    {"l_quad_gemm", 0.021, 0.080},
    {"l_quad_mem", 0.033, 0.026},
    {"ls_mm16_mm32", 0.031, 0.030},
    {"ls_mm16_conv", 0.057, 0.029},
    {"ls_conv_mm16", 0.036, 0.036},
    {"ls_mm32_conv", 0.049, 0.038},
    {"ls_mms_x2", 0.044, 0.045},
    {"ls_mms_conv", 0.043, 0.037},
    {"ls_mm16_x2", 0.031, 0.027},
    {"ls_mm16_add", 0.065, 0.044},
    {"ls_add_mm16", 0.049, 0.035},
    {"ls_mm32_add", 0.053, 0.160},
    {"ls_conv_sum", 0.041, 0.043},
    {"ls_mms_gemv", 0.022, 0.028},
    {"ls_mms_softmax", 0.030, 0.028},
    {"ls_conv_lnorm", 0.044, 0.034},
    {"ls_add_x2", 0.024, 0.031},
    {"ls_add_sum", 0.022, 0.028},
    {"ls_softmax_lnorm", 0.041, 0.037},
    {"ls_gemv_add", 0.029, 0.043},
    {"ls_sum_softmax", 0.026, 0.039},
    {"ls_gemv_x2", 0.036, 0.037},
    {"ls_quad_mix", 0.026, 0.028},
    {"ls_quad_small", 0.043, 0.027},
    {"ls_quad_gemm", 0.037, 0.070},
    {"ls_quad_mem", 0.026, 0.026},
    {"l_mp2_add_mps", 0.022, 0.023},
    {"l_mp2_add_nomps", 0.020, 0.021},
    {"l_mp2_conv_sum_mps", 0.126, 0.079},
    {"l_mp2_conv_sum_nomps", 0.036, 0.023},
    {"l_mp2_mm16_mps", 0.022, 0.025},
    {"l_mp2_mm16_nomps", 0.035, 0.029},
};
/* ENTRIES-END */

static const Entry *entry_of(const char *id)
{
    for (size_t i = 0; i < G_N_ELEMENTS(entries); i++)
        if (!strcmp(entries[i].id, id))
            return &entries[i];
    return NULL;
}

/* Every part L experiment is replayed, is a prediction, has an entry, and
 * stays within its limits; every entry is still in the data set. */
static void test_dnn_rows_within_limits(void **state)
{
    (void)state;
    if (g_getenv("HQSIM_VALGRIND"))
        skip(); /* seconds natively, many minutes under valgrind; test_validate
                   covers the replay code there */
    GError *err = NULL;
    g_autoptr(GpuModel) m = sim_gpu_model_find("h100-sxm", NULL, &err);
    assert_non_null(m);
    GPtrArray *rows = sim_validate(DIR, m, "^ls?_", false, &err);
    if (!rows)
        fail_msg("%s", err->message);
    assert_int_equal(rows->len, G_N_ELEMENTS(entries));
    for (guint i = 0; i < rows->len; i++) {
        const SimValRow *r = g_ptr_array_index(rows, i);
        const Entry *e = entry_of(r->id);
        if (!e)
            fail_msg("%s: no entry (add it with --entries)", r->id);
        if (r->skipped)
            fail_msg("%s not replayed: %s", r->id, r->skipped);
        assert_false(r->calibration); /* nothing of part L is fitted */
        print_message("%-22s makespan %+6.1f%% end %5.2f%%\n", r->id,
                      100 * r->err, 100 * r->end_err);
        if (fabs(r->err) > e->err || r->end_err > e->end_err)
            fail_msg("%s: makespan %+.1f%%, end-time %.2f%% (limits %.1f%%, "
                     "%.1f%%)",
                     r->id, 100 * r->err, 100 * r->end_err, 100 * e->err,
                     100 * e->end_err);
    }
    /* the summary the README and FINDINGS quote: median within 2%, every
     * makespan within 10% but the two known misses (ls?_mm32_add) */
    SimValSummary s = sim_validate_summary_of(rows, false, "dnn/");
    assert_true(s.n >= 50);
    if (s.median_abs_err > 0.02 || s.within10 + 2 < s.n)
        fail_msg("dnn: median %.2f%%, %u of %u within 10%%",
                 100 * s.median_abs_err, s.within10, s.n);
    g_ptr_array_free(rows, TRUE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dnn_rows_within_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
