/* test_gpu_model.c -- the bundled GPU models load, the loader rejects bad
 * files with the file, line and field in its message, and the MPS helpers
 * round as documented.
 *
 * Malformed files are made by editing the text of a bundled model (so the
 * rest of the file stays valid and only the one fault is tested) and
 * writing it to a temporary file, removed afterwards.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib/gstdio.h>

#include "error.h"
#include "gpu_model.h"

static const char *const bundled[] = {"a100", "h100-sxm", "h200", "k40",
                                      "l4",   "p100",     "p40",  "rtx2000-ada",
                                      "t4",   "titan-v",  "v100", NULL};

/* Fixture: the H100 model and the text of its file. */
typedef struct {
    GpuModel *h100;
    char *text; /* models/h100-sxm.json */
} Fixture;

static int setup(void **state)
{
    Fixture *f = g_new0(Fixture, 1);
    g_autofree char *path =
        g_build_filename(sim_models_dir(), "h100-sxm.json", NULL);
    g_autoptr(GError) error = NULL;
    if (!g_file_get_contents(path, &f->text, NULL, &error))
        fail_msg("%s", error->message);
    f->h100 = sim_gpu_model_load(path, &error);
    if (!f->h100)
        fail_msg("%s", error->message);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    sim_gpu_model_free(f->h100);
    g_free(f->text);
    g_free(f);
    return 0;
}

/* ------------------------------------------------------------------------
 * Helpers for malformed files
 * ------------------------------------------------------------------------ */

/* @text with the first occurrence of @from replaced by @to. */
static char *replace_once(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        fail_msg("'%s' not found in the model text", from);
    return g_strdup_printf("%.*s%s%s", (int)(at - text), text, to,
                           at + strlen(from));
}

/* @text without the whole line that contains @needle. */
static char *drop_line(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    if (!at)
        fail_msg("'%s' not found in the model text", needle);
    const char *start = at;
    while (start > text && start[-1] != '\n')
        start--;
    const char *end = strchr(at, '\n');
    end = end ? end + 1 : at + strlen(at);
    return g_strdup_printf("%.*s%s", (int)(start - text), text, end);
}

/* 1-based line of the first occurrence of @needle in @text. */
static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    assert_non_null(at);
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* Write @len bytes to a new temporary .json file; returns its path. */
static char *write_tmp(const char *bytes, size_t len)
{
    g_autoptr(GError) error = NULL;
    char *path = NULL;
    int fd = g_file_open_tmp("hqsim-model-XXXXXX.json", &path, &error);
    if (fd < 0)
        fail_msg("%s", error->message);
    close(fd);
    if (!g_file_set_contents(path, bytes, (gssize)len, &error))
        fail_msg("%s", error->message);
    return path;
}

/* Load @len bytes of model text from a temporary file and expect failure
 * with a message of the form "PATH:LINE: ..." that contains @needle (and,
 * if @line > 0, that line). */
static void expect_load_error(const char *bytes, size_t len, int line,
                              const char *needle)
{
    g_autofree char *path = write_tmp(bytes, len);
    g_autoptr(GError) error = NULL;
    GpuModel *m = sim_gpu_model_load(path, &error);
    g_remove(path);
    if (m) {
        sim_gpu_model_free(m);
        fail_msg("loading a bad model succeeded (expected '%s')", needle);
    }
    assert_non_null(error);
    g_autofree char *prefix = line > 0 ? g_strdup_printf("%s:%d:", path, line)
                                       : g_strdup_printf("%s", path);
    if (!g_str_has_prefix(error->message, prefix))
        fail_msg("message '%s' does not start with '%s'", error->message,
                 prefix);
    if (!strstr(error->message, needle))
        fail_msg("message '%s' lacks '%s'", error->message, needle);
}

static void expect_text_error(const char *text, int line, const char *needle)
{
    expect_load_error(text, strlen(text), line, needle);
}

/* ------------------------------------------------------------------------
 * Bundled models
 * ------------------------------------------------------------------------ */

static void test_gpu_model_bundled_list_is_complete(void **state)
{
    (void)state;
    g_autoptr(GError) error = NULL;
    g_auto(GStrv) names = sim_gpu_model_list(sim_models_dir(), &error);
    assert_non_null(names);
    assert_int_equal(g_strv_length(names), g_strv_length((char **)bundled));
    for (int i = 0; bundled[i]; i++)
        assert_string_equal(names[i], bundled[i]);
}

static void test_gpu_model_every_bundled_model_loads(void **state)
{
    (void)state;
    for (int i = 0; bundled[i]; i++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(GpuModel) m =
            sim_gpu_model_find(bundled[i], sim_models_dir(), &error);
        if (!m)
            fail_msg("%s: %s", bundled[i], error->message);
        /* The "name" field is the file stem, as find-by-name assumes. */
        assert_string_equal(m->name, bundled[i]);
        /* Every field has a provenance, including the special ones. */
        assert_non_null(g_hash_table_lookup(m->sources, "compute_capability"));
        assert_non_null(g_hash_table_lookup(m->sources, "smem_carveouts_kib"));
        assert_non_null(g_hash_table_lookup(m->sources, "timeslice_us"));
        /* max_threads_per_sm = 32 x max_warps_per_sm (loader check). */
        assert_int_equal(m->max_threads_per_sm, 32 * m->max_warps_per_sm);
        /* A dispatch order of every SM exactly once. */
        g_autofree bool *seen = g_new0(bool, m->sm_count);
        for (uint32_t s = 0; s < m->sm_count; s++) {
            assert_true(m->dispatch_order[s] < m->sm_count);
            assert_false(seen[m->dispatch_order[s]]);
            seen[m->dispatch_order[s]] = true;
        }
    }
}

static void test_gpu_model_h100_values(void **state)
{
    Fixture *f = *state;
    const GpuModel *m = f->h100;
    assert_int_equal(m->cc_major, 9);
    assert_int_equal(m->cc_minor, 0);
    assert_int_equal(m->sm_count, 132);
    assert_int_equal(m->sms_per_tpc, 2);
    assert_int_equal(m->max_warps_per_sm, 64);
    assert_int_equal(m->max_blocks_per_sm, 32);
    assert_int_equal(m->smem_per_sm_bytes, 228 * 1024);
    assert_int_equal(m->max_smem_per_block_bytes, 227 * 1024);
    assert_int_equal(m->smem_reserved_per_block_bytes, 1024);
    assert_int_equal(m->smem_alloc_granularity_bytes, 128);
    /* measured: the carveouts the driver chooses (FINDINGS.md §3, and 16
     * KiB, §28), the rule passing over 16 */
    assert_int_equal(m->n_smem_carveouts, 9);
    assert_int_equal(m->smem_carveouts_kib[0], 8);
    assert_int_equal(m->smem_carveouts_kib[1], 16);
    assert_int_equal(m->smem_carveouts_kib[8], 228);
    assert_int_equal(m->smem_rule_skips, 1u << 1);
    assert_int_equal(m->max_resident_grids, 128);
    assert_int_equal(m->connections_default, 8);
    assert_int_equal(m->connections_max, 32);
    assert_int_equal(m->stream_priority_levels, 6);
    assert_int_equal(m->preemption, SIM_PREEMPT_INSTRUCTION);
    assert_int_equal(m->timeslice_ns, 2090000); /* measured, ts2_small */
    /* measured on the H100 (traces/measured/h100/FINDINGS.md) */
    assert_int_equal(m->idle_yield_ns, 5000);
    assert_int_equal(m->context_switch_ns, 152000);
    assert_int_equal(m->context_switch_idle_ns, 139000); /* ts_idle */
    /* FINDINGS §33 (openloop/tsspan): node spacing once contexts take turns */
    assert_int_equal(m->graph_node_spacing_ns, 420);
    assert_int_equal(m->graph_node_spacing_sliced_ns, 80);
    assert_int_equal(m->graph_memset_slow_max_bytes, 4096);
    /* FINDINGS §61 (openloop/tsspan): Kineto's cost per graph kernel node */
    assert_int_equal(m->profiler_kernel_ns, 140);
    assert_true(m->mps_volta);
    assert_int_equal(m->mps_max_clients, 48);
    assert_int_equal(m->mps_connections_default, 2);
    assert_int_equal(m->mps_min_tpcs, 4);
    assert_int_equal(m->device_mem_bytes, 81079ull * 1024 * 1024);
    assert_int_equal(m->sm_clock_mhz, 1980);
    assert_int_equal(m->nvml_sample_period_ns, 200000000ull);
    assert_true(m->calibrated);
    /* The measured dispatch order by GPC, first SM of each TPC first:
     * GPC0 starts 124,125,126,... so the TPC-first order starts 124, 126,
     * and the second half starts with their partners 125, 127. */
    assert_int_equal(m->dispatch_order[0], 124);
    assert_int_equal(m->dispatch_order[1], 126);
    assert_int_equal(m->dispatch_order[66], 125);
    assert_int_equal(m->dispatch_order[67], 127);
}

static void test_gpu_model_generations_differ_where_documented(void **state)
{
    (void)state;
    g_autoptr(GError) error = NULL;
    g_autoptr(GpuModel) k40 = sim_gpu_model_find("k40", NULL, &error);
    g_autoptr(GpuModel) p100 = sim_gpu_model_find("p100", NULL, &error);
    g_autoptr(GpuModel) t4 = sim_gpu_model_find("t4", NULL, &error);
    g_autoptr(GpuModel) l4 = sim_gpu_model_find("l4", NULL, &error);
    assert_non_null(k40);
    assert_non_null(p100);
    assert_non_null(t4);
    assert_non_null(l4);
    /* Kepler: block-boundary preemption, pre-Volta MPS, 32 grids. */
    assert_int_equal(k40->preemption, SIM_PREEMPT_BLOCK);
    assert_false(k40->mps_volta);
    assert_int_equal(k40->mps_max_clients, 16);
    assert_int_equal(k40->max_resident_grids, 32);
    assert_int_equal(k40->smem_alloc_granularity_bytes, 256);
    /* cc 6.0: two register sub-partitions. */
    assert_int_equal(p100->reg_subpartitions, 2);
    assert_int_equal(p100->preemption, SIM_PREEMPT_INSTRUCTION);
    /* cc 7.5: 32 warps, 16 blocks, 64 KiB. */
    assert_int_equal(t4->max_warps_per_sm, 32);
    assert_int_equal(t4->max_blocks_per_sm, 16);
    assert_int_equal(t4->smem_per_sm_bytes, 64 * 1024);
    assert_int_equal(t4->mps_max_clients, 48);
    /* cc 8.9: 48 warps, 24 blocks, 1 KiB reserved. */
    assert_int_equal(l4->max_warps_per_sm, 48);
    assert_int_equal(l4->max_blocks_per_sm, 24);
    assert_int_equal(l4->smem_reserved_per_block_bytes, 1024);
}

static void test_gpu_model_find_unknown_name_lists_known(void **state)
{
    (void)state;
    g_autoptr(GError) error = NULL;
    GpuModel *m = sim_gpu_model_find("h999", NULL, &error);
    assert_null(m);
    assert_int_equal(error->code, SIM_ERROR_USAGE);
    assert_non_null(strstr(error->message, "no GPU model 'h999'"));
    assert_non_null(strstr(error->message, "h100-sxm"));
}

static void test_gpu_model_copy_is_deep(void **state)
{
    Fixture *f = *state;
    g_autoptr(GpuModel) c = sim_gpu_model_copy(f->h100);
    c->sm_count = 8;
    c->dispatch_order[0] = 7;
    assert_int_equal(f->h100->sm_count, 132);
    assert_int_equal(f->h100->dispatch_order[0], 124); /* measured order */
    assert_string_equal(c->name, "h100-sxm");
}

static void test_gpu_model_describe_shows_sources(void **state)
{
    Fixture *f = *state;
    g_autoptr(GString) out = g_string_new(NULL);
    sim_gpu_model_describe(f->h100, out);
    assert_non_null(strstr(out->str, "h100-sxm"));
    assert_non_null(strstr(out->str, "timeslice_us"));
    assert_non_null(strstr(out->str, "[calibrated on hardware]"));
    assert_non_null(strstr(out->str, "ts2_small"));
    assert_non_null(strstr(out->str, "8,16,32,64,100,132,164,196,228"));
    assert_non_null(strstr(out->str, "smem_carveouts_rule_skips_kib"));
}

/* A rule skip must be a listed carveout other than the largest. */
static void test_gpu_model_rejects_bad_rule_skip(void **state)
{
    Fixture *f = *state;
    const char *line = "\"smem_carveouts_rule_skips_kib\": [\n    16\n  ]";
    assert_non_null(strstr(f->text, line));
    g_autofree char *a = replace_once(
        f->text, line, "\"smem_carveouts_rule_skips_kib\": [\n    24\n  ]");
    expect_text_error(a,
                      line_of(f->text, "\"smem_carveouts_rule_skips_kib\"") + 1,
                      "24 KiB is not in smem_carveouts_kib");
    g_autofree char *b = replace_once(
        f->text, line, "\"smem_carveouts_rule_skips_kib\": [\n    228\n  ]");
    expect_text_error(b,
                      line_of(f->text, "\"smem_carveouts_rule_skips_kib\"") + 1,
                      "the largest carveout (228 KiB) cannot be skipped");
}

/* sm_ilp_saturation_warps: an array of 1 to SIM_MAX_ILP_SAT rates, each
 * in [0.5, sm_saturation_warps]; errors on the offending line. */
static void test_gpu_model_rejects_bad_ilp_saturation(void **state)
{
    Fixture *f = *state;
    const char *line = "\"sm_ilp_saturation_warps\": [5.544, 4.561, 4.973]";
    assert_non_null(strstr(f->text, line));
    const int at = line_of(f->text, "\"sm_ilp_saturation_warps\"");
    g_autofree char *a = replace_once(
        f->text, line, "\"sm_ilp_saturation_warps\": [5.544, 9.5, 4.973]");
    expect_text_error(a, at,
                      "rates must be numbers in [0.5, "
                      "sm_saturation_warps (7.9)]");
    g_autofree char *b =
        replace_once(f->text, line, "\"sm_ilp_saturation_warps\": 5.544");
    expect_text_error(b, at, "expected an array of 1 to 6 rates");
    g_autofree char *c =
        replace_once(f->text, line, "\"sm_ilp_saturation_warps\": []");
    expect_text_error(c, at, "expected an array of 1 to 6 rates");
}

/* host_wake_us: the H100's table (FINDINGS §59, harness/idle_fit.py),
 * read linearly from (0, 0) and held beyond the last point; a bad point,
 * gaps out of order and a missing source are errors on their line. */
static void test_gpu_model_host_wake(void **state)
{
    Fixture *f = *state;
    const GpuModel *m = f->h100;
    assert_int_equal(m->n_host_wake, 6);
    assert_int_equal(sim_gpu_model_host_wake(m, SIM_US(100)), 0);
    assert_int_equal(sim_gpu_model_host_wake(m, SIM_US(200)), 0);
    assert_int_equal(sim_gpu_model_host_wake(m, SIM_US(500)), 2700);
    assert_int_equal(sim_gpu_model_host_wake(m, SIM_US(1500)), 9400);
    assert_int_equal(sim_gpu_model_host_wake(m, SIM_MS(2)), 13000);
    assert_int_equal(sim_gpu_model_host_wake(m, SIM_MS(50)), 37600);
    GpuModel none = *m;
    none.n_host_wake = 0;
    assert_int_equal(sim_gpu_model_host_wake(&none, SIM_MS(2)), 0);
    const char *line = "\"host_wake_us\": [[200, 0], [500, 2.7],";
    const int at = line_of(f->text, line);
    g_autofree char *a =
        replace_once(f->text, line, "\"host_wake_us\": [[200, 0], [100, 2.7],");
    expect_text_error(a, at, "gaps must increase (100 us after 200 us)");
    g_autofree char *b = replace_once(
        f->text, line, "\"host_wake_us\": [[200, -1], [500, 2.7],");
    expect_text_error(b, at, "each point must be [gap_us, cost_us]");
    g_autofree char *c = drop_line(f->text, "\"host_wake_us\": \"measured");
    expect_text_error(c, 0, "no provenance for field 'host_wake_us'");
}

/* The H200 host's table goes on growing past 10 ms (FINDINGS §71: decoder
 * b1 alone at fixed 20 ms gaps, the upper median of 8 sweeps, 293.3 us):
 * held at 10 ms it would give 62.1 us there. */
static void test_gpu_model_host_wake_h200(void **state)
{
    (void)state;
    g_autoptr(GError) error = NULL;
    g_autoptr(GpuModel) m = sim_gpu_model_find("h200", NULL, &error);
    assert_non_null(m);
    assert_int_equal(m->n_host_wake, 7);
    assert_int_equal(sim_gpu_model_host_wake(m, SIM_MS(10)), 62100);
    assert_int_equal(sim_gpu_model_host_wake(m, SIM_MS(15)), 177700);
    assert_int_equal(sim_gpu_model_host_wake(m, SIM_MS(20)), 293300);
    assert_int_equal(sim_gpu_model_host_wake(m, SIM_MS(50)), 293300);
}

/* mps_func_lru_weight: an array of 1 to SIM_MAX_FUNC_LRU weights in
 * [0, 100], errors on the offending line. */
static void test_gpu_model_lru_weights(void **state)
{
    Fixture *f = *state;
    assert_int_equal(f->h100->n_mps_func_lru_weight, 8);
    assert_true(f->h100->mps_func_lru_weight[3] == 0);
    assert_true(f->h100->mps_func_lru_weight[7] == 1);
    const char *line = "\"mps_func_lru_weight\": [\n    0.0,";
    assert_non_null(strstr(f->text, line));
    int at = line_of(f->text, "\"mps_func_lru_weight\"");
    g_autofree char *a =
        replace_once(f->text, line, "\"mps_func_lru_weight\": [\n    -0.5,");
    expect_text_error(a, at + 1, "weights must be numbers in [0, 100]");
    g_autofree char *b =
        replace_once(f->text, line, "\"mps_func_lru_weight\": [\n    \"x\",");
    expect_text_error(b, at + 1, "weights must be numbers in [0, 100]");
    /* the array as a number */
    const char *start = strstr(f->text, "\"mps_func_lru_weight\": [");
    const char *end = strchr(start, ']') + 1;
    g_autofree char *c = g_strdup_printf("%.*s\"mps_func_lru_weight\": 1%s",
                                         (int)(start - f->text), f->text, end);
    expect_text_error(c, at, "expected an array of 1 to 16 weights");
}

/* bare_kernel_classes: the H100's table (harness/bare_kernel_fit.py), and
 * a bad class, a missing class and a value out of range rejected on their
 * line; a model without the table loads with has_bare_classes false. */
static void test_gpu_model_bare_classes(void **state)
{
    Fixture *f = *state;
    assert_true(f->h100->has_bare_classes);
    assert_true(f->h100->bare_issue_pct_per_warp[SIM_KCLASS_GEMM] == 4.166);
    assert_true(f->h100->bare_issue_pct_per_warp[SIM_KCLASS_SGEMM] == 0);
    assert_true(f->h100->bare_issue_pct_per_warp[SIM_KCLASS_ELEMENTWISE] ==
                0.33);
    /* fitted, left at 0: no default DRAM demand (FINDINGS.md §56) */
    assert_true(f->h100->bare_dram_pct_per_warp[SIM_KCLASS_GEMV] == 0);
    const char *gemv = "\"gemv\": {\"issue_pct_per_warp\": 0.92,";
    assert_non_null(strstr(f->text, gemv));
    const int at = line_of(f->text, gemv);
    g_autofree char *a =
        replace_once(f->text, gemv, "\"gemx\": {\"issue_pct_per_warp\": 0.92,");
    expect_text_error(a, at, "'gemx' is not a kernel class");
    g_autofree char *b =
        replace_once(f->text, gemv, "\"gemv\": {\"issue_pct_per_warp\": 120,");
    expect_text_error(b, at, "issue_pct_per_warp");
    g_autofree char *c = drop_line(f->text, "\"other\": {\"issue_pct");
    g_autofree char *c2 = replace_once(
        c, "\"issue_pct_per_warp\": 0.33, \"dram_pct_per_warp\": 0},",
        "\"issue_pct_per_warp\": 0.33, \"dram_pct_per_warp\": 0}");
    expect_text_error(c2, -1, "class 'other' missing");
    /* without the table: loads, no defaults */
    const char *start = strstr(f->text, "  \"bare_kernel_classes\": {");
    const char *end = strstr(start, "},\n  \"preemption\"") + 3;
    g_autofree char *d =
        g_strdup_printf("%.*s%s", (int)(start - f->text), f->text, end);
    g_autofree char *d2 = drop_line(d, "\"bare_kernel_classes\": \"fitted");
    g_autofree char *path = write_tmp(d2, strlen(d2));
    g_autoptr(GError) error = NULL;
    g_autoptr(GpuModel) m = sim_gpu_model_load(path, &error);
    g_remove(path);
    if (!m)
        fail_msg("%s", error->message);
    assert_false(m->has_bare_classes);
}

/* The class of a kernel from its name: the first class whose fragment the
 * lower-cased name holds (sim/kernel_class.c's table). */
static void test_gpu_model_kernel_class_of_name(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        SimKernelClass c;
    } t[] = {
        {"void gemv2T_kernel_val<int, int, float, float, float, float, 128>",
         SIM_KCLASS_GEMV},
        {"std::enable_if<!(false), void>::type internal::gemvx::kernel<int>",
         SIM_KCLASS_GEMV},
        {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8",
         SIM_KCLASS_SGEMM},
        {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc",
         SIM_KCLASS_GEMM},
        {"void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>",
         SIM_KCLASS_SGEMM},
        {"void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false>",
         SIM_KCLASS_GEMM},
        {"nvjet_sm90_hsh_128x8_64x12_2x1_v_bz_NNT", SIM_KCLASS_GEMM},
        {"void at::native::vectorized_layer_norm_kernel<float, float>",
         SIM_KCLASS_NORM},
        {"void cunn_SoftMaxForwardReg<float>", SIM_KCLASS_NORM},
        {"void at::native::vectorized_elementwise_kernel<4, add>",
         SIM_KCLASS_ELEMENTWISE},
        {"void at::native::index_elementwise_kernel<128, 4>",
         SIM_KCLASS_ELEMENTWISE},
        {"Kspin", SIM_KCLASS_OTHER},
        {"", SIM_KCLASS_OTHER},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        if (sim_kernel_class_of(t[i].name) != t[i].c)
            fail_msg("'%s': class %s, expected %s", t[i].name,
                     sim_kernel_class_name(sim_kernel_class_of(t[i].name)),
                     sim_kernel_class_name(t[i].c));
    SimKernelClass c;
    for (int k = SIM_KCLASS_NONE + 1; k < SIM_KCLASS_N; k++) {
        assert_true(sim_kernel_class_parse(
            sim_kernel_class_name((SimKernelClass)k), &c));
        assert_int_equal(c, k);
    }
    assert_false(sim_kernel_class_parse("", &c));
    assert_false(sim_kernel_class_parse("GEMM", &c));
}

/* ------------------------------------------------------------------------
 * Malformed files
 * ------------------------------------------------------------------------ */

static void test_gpu_model_rejects_unknown_field(void **state)
{
    Fixture *f = *state;
    g_autofree char *bad = replace_once(f->text, "  \"sm_count\": 132,\n",
                                        "  \"sm_count\": 132,\n"
                                        "  \"sm_cuont\": 132,\n");
    expect_text_error(bad, line_of(f->text, "\"sm_count\"") + 1,
                      "unknown field 'sm_cuont'");
}

static void test_gpu_model_rejects_missing_field(void **state)
{
    Fixture *f = *state;
    g_autofree char *bad = drop_line(f->text, "\"sm_clock_mhz\": 1980");
    /* A missing field has no line of its own: the object's (line 1). */
    expect_text_error(bad, 1, "missing field 'sm_clock_mhz'");
}

static void test_gpu_model_rejects_out_of_range(void **state)
{
    Fixture *f = *state;
    g_autofree char *bad =
        replace_once(f->text, "\"sm_count\": 132", "\"sm_count\": 0");
    expect_text_error(bad, line_of(f->text, "\"sm_count\""),
                      "field 'sm_count': 0 is out of range [1, 512]");
    g_autofree char *bad2 = replace_once(f->text, "\"timeslice_us\": 2090.0",
                                         "\"timeslice_us\": -5");
    expect_text_error(bad2, line_of(f->text, "\"timeslice_us\""),
                      "field 'timeslice_us': -5 is out of range");
}

static void test_gpu_model_rejects_missing_source(void **state)
{
    Fixture *f = *state;
    /* The second "sm_clock_mhz" in the file is its source entry. */
    const char *src = strstr(strstr(f->text, "\"source\""), "\"sm_clock_mhz\"");
    assert_non_null(src);
    g_autofree char *bad = drop_line(f->text, src);
    expect_text_error(bad, line_of(f->text, "\"source\""),
                      "source: no provenance for field 'sm_clock_mhz'");
}

static void test_gpu_model_rejects_empty_source(void **state)
{
    Fixture *f = *state;
    /* Move the sm_count source to the top of "source", emptied. */
    const char *src = strstr(strstr(f->text, "\"source\""), "\"sm_count\"");
    g_autofree char *bad = drop_line(f->text, src);
    g_autofree char *bad2 = replace_once(
        bad, "\"source\": {\n", "\"source\": {\n    \"sm_count\": \"\",\n");
    expect_text_error(bad2, line_of(f->text, "\"source\"") + 1,
                      "source 'sm_count': expected a non-empty string");
}

static void test_gpu_model_rejects_non_integer(void **state)
{
    Fixture *f = *state;
    g_autofree char *bad =
        replace_once(f->text, "\"sm_count\": 132", "\"sm_count\": 131.5");
    expect_text_error(bad, line_of(f->text, "\"sm_count\""),
                      "field 'sm_count': expected an integer, got 131.5");
    g_autofree char *bad2 =
        replace_once(f->text, "\"sm_count\": 132", "\"sm_count\": \"132\"");
    expect_text_error(bad2, line_of(f->text, "\"sm_count\""),
                      "field 'sm_count': expected a number");
}

static void test_gpu_model_rejects_bad_enum(void **state)
{
    Fixture *f = *state;
    g_autofree char *bad =
        replace_once(f->text, "\"preemption\": \"instruction\"",
                     "\"preemption\": \"sometimes\"");
    expect_text_error(bad, line_of(f->text, "\"preemption\""),
                      "field 'preemption': 'sometimes' is not one of "
                      "'instruction', 'block'");
}

static void test_gpu_model_rejects_truncated_json(void **state)
{
    Fixture *f = *state;
    size_t len = strlen(f->text);
    /* Cut inside a string value, between members, inside a number, just
     * before the last brace; then every 97th byte. */
    expect_load_error(f->text, len / 2, 0, "JSON text ends early");
    const char *after = strstr(f->text, "\"sm_count\": 132,\n");
    assert_non_null(after);
    after += strlen("\"sm_count\": 132,\n");
    expect_load_error(f->text, (size_t)(after - f->text), 0,
                      "JSON text ends early");
    expect_load_error(f->text, (size_t)(strstr(f->text, "132") + 2 - f->text),
                      0, "JSON text ends early");
    expect_load_error(f->text, len - 2, 0, "JSON text ends early");
    for (size_t cut = 1; cut < len; cut += 97)
        expect_load_error(f->text, cut, 0, "(truncated file?)");
}

static void test_gpu_model_syntax_error_is_not_truncation(void **state)
{
    Fixture *f = *state;
    g_autofree char *bad =
        replace_once(f->text, "\"sm_count\": 132,", "\"sm_count\": 132],");
    expect_text_error(bad, line_of(f->text, "\"sm_count\""),
                      "JSON syntax error near '],'");
}

static void test_gpu_model_rejects_non_utf8(void **state)
{
    Fixture *f = *state;
    g_autofree char *bad = replace_once(f->text, "H100 SXM5", "H100 \xff\xfe");
    expect_text_error(bad, line_of(f->text, "\"display_name\""),
                      "not valid UTF-8");
}

/* JSON forbids raw control bytes in strings (cJSON would take them): the
 * message names the line and the field. */
static void test_gpu_model_rejects_raw_control_bytes(void **state)
{
    Fixture *f = *state;
    g_autofree char *tab = replace_once(f->text, "H100 SXM5", "H100\tSXM5");
    expect_text_error(tab, line_of(f->text, "\"display_name\""),
                      "field 'display_name': a raw control byte 0x09 inside "
                      "a string; JSON needs it escaped");
    g_autofree char *key = replace_once(f->text, "\"sm_count\"",
                                        "\"sm_\x1f"
                                        "count\"");
    expect_text_error(key, line_of(f->text, "\"sm_count\""),
                      "a raw control byte 0x1f inside a field name");
}

static void test_gpu_model_rejects_inconsistent_values(void **state)
{
    Fixture *f = *state;
    /* 228 KiB per block + 1 KiB reserved cannot fit a 228 KiB SM. */
    g_autofree char *bad =
        replace_once(f->text, "\"max_smem_per_block_kib\": 227",
                     "\"max_smem_per_block_kib\": 228");
    expect_text_error(bad, 1,
                      "max_smem_per_block_kib (228) plus "
                      "smem_reserved_per_block_bytes (1024) exceeds "
                      "smem_per_sm_kib (228)");
    g_autofree char *bad2 = replace_once(f->text, "\"max_warps_per_sm\": 64",
                                         "\"max_warps_per_sm\": 48");
    expect_text_error(bad2, 1, "must be 32 x max_warps_per_sm");
}

static void test_gpu_model_rejects_wrong_schema(void **state)
{
    Fixture *f = *state;
    g_autofree char *bad =
        replace_once(f->text, "hqsim-gpu-model-1", "hqsim-gpu-model-0");
    expect_text_error(bad, line_of(f->text, "\"schema\""),
                      "field 'schema': expected 'hqsim-gpu-model-1'");
}

/* ------------------------------------------------------------------------
 * MPS helpers
 * ------------------------------------------------------------------------ */

static void test_gpu_model_mps_sm_limit_rounds_down_by_tpc(void **state)
{
    Fixture *f = *state;
    const GpuModel *m = f->h100; /* 132 SMs, 2 per TPC, rounding down */
    /* 50%: 66 SMs = 33 TPCs exactly -> 66. */
    assert_int_equal(sim_gpu_model_mps_sm_limit(m, 50), 66);
    /* 33%: 43.56 SMs = 21.78 TPCs -> 21 TPCs -> 42 SMs. */
    assert_int_equal(sim_gpu_model_mps_sm_limit(m, 33), 42);
    /* 1%: 1.32 SMs = 0.66 TPC -> 0 -> at least mps_min_tpcs (4, measured)
     * TPCs: 8 SMs. */
    assert_int_equal(sim_gpu_model_mps_sm_limit(m, 1), 8);
    /* 10%: 6.6 TPCs -> 6 -> 12 SMs (measured: 12). */
    assert_int_equal(sim_gpu_model_mps_sm_limit(m, 10), 12);
    /* 100%: all 66 TPCs. */
    assert_int_equal(sim_gpu_model_mps_sm_limit(m, 100), 132);
    /* 25%: 33 SMs = 16.5 TPCs -> 16 -> 32. */
    assert_int_equal(sim_gpu_model_mps_sm_limit(m, 25), 32);
}

static void test_gpu_model_mps_sm_limit_other_roundings(void **state)
{
    Fixture *f = *state;
    g_autoptr(GpuModel) m = sim_gpu_model_copy(f->h100);
    m->mps_pct_rounding = SIM_ROUND_UP;
    /* 33%: 21.78 TPCs -> 22 -> 44; 50% stays 66 (exact). */
    assert_int_equal(sim_gpu_model_mps_sm_limit(m, 33), 44);
    assert_int_equal(sim_gpu_model_mps_sm_limit(m, 50), 66);
    m->mps_pct_rounding = SIM_ROUND_NEAREST;
    /* 25%: 16.5 TPCs -> 17 -> 34; 33%: 21.78 -> 22 -> 44. */
    assert_int_equal(sim_gpu_model_mps_sm_limit(m, 25), 34);
    assert_int_equal(sim_gpu_model_mps_sm_limit(m, 33), 44);
}

static void test_gpu_model_mps_client_limit(void **state)
{
    Fixture *f = *state;
    /* H100: at most 48 clients; a budget of 128 channels of which the
     * server keeps one client's worth: floor(128 / C) - 1 (measured: 48 at
     * 2 connections, 31 at 4, 15 at 8). */
    const GpuModel *h100 = f->h100;
    /* 0 means the default (2): min(48, 64 - 1) = 48. */
    assert_int_equal(sim_gpu_model_mps_client_limit(h100, 0), 48);
    assert_int_equal(sim_gpu_model_mps_client_limit(h100, 2), 48);
    /* Fewer connections do not raise the client limit. */
    assert_int_equal(sim_gpu_model_mps_client_limit(h100, 1), 48);
    assert_int_equal(sim_gpu_model_mps_client_limit(h100, 4), 31);
    assert_int_equal(sim_gpu_model_mps_client_limit(h100, 8), 15);
    /* 32 each: 128 / 32 - 1 = 3. */
    assert_int_equal(sim_gpu_model_mps_client_limit(h100, 32), 3);
}

/* The ILP rule (gpu_model.h).  The H100 model's measured table
 * (sm_ilp_saturation_warps 5.544, 4.561, 4.973 at ILP 2, 4, 8;
 * harness/fit_ilp_room.py): an ILP-k warp counts as Ts / Ts_k ILP-1 warps,
 * 7.9 / 5.544 = 1.424964 at ILP 2, 1.732076 at 4, 1.588578 at 8 and
 * beyond; ILP 3 between 2 and 4, linear in log2: Ts_3 = 5.544 -
 * 0.584963 x 0.983 = 4.968982, 1.589862.  Without the table the exponent:
 * Ts / (L0 + (Ts - L0) k^-a), with the curve (4, 7.9) and a = 1.387 1.4387
 * at ILP 2 and 1.7286 at ILP 4; ILP 1, unknown (0) or a = 0 count as 1.  The curve with a knee at K is
 * L up to K and the usual curve's form beyond, never below L0's knee nor
 * beyond Ts; at K = L0 it is the usual curve bit for bit. */
static void test_gpu_model_ilp_warp_load_and_knee(void **state)
{
    Fixture *f = *state;
    const GpuModel *m = f->h100; /* 4, 7.9, a = 1.387 */
    assert_int_equal(m->n_sm_ilp_saturation_warps, 3);
    assert_float_equal(sim_gpu_model_ilp_warp_load(m, 0), 1, 0);
    assert_float_equal(sim_gpu_model_ilp_warp_load(m, 1), 1, 0);
    assert_float_equal(sim_gpu_model_ilp_warp_load(m, 2), 1.424964, 1e-6);
    assert_float_equal(sim_gpu_model_ilp_warp_load(m, 3), 1.589862, 1e-6);
    assert_float_equal(sim_gpu_model_ilp_warp_load(m, 4), 1.732076, 1e-6);
    assert_float_equal(sim_gpu_model_ilp_warp_load(m, 8), 1.588578, 1e-6);
    assert_float_equal(sim_gpu_model_ilp_warp_load(m, 64), 1.588578, 1e-6);
    GpuModel off = *m; /* read only: a shallow copy */
    off.n_sm_ilp_saturation_warps = 0;
    assert_float_equal(off.sm_ilp_room_exponent, 1.387, 0);
    assert_float_equal(sim_gpu_model_ilp_warp_load(&off, 2), 1.4387, 1e-4);
    assert_float_equal(sim_gpu_model_ilp_warp_load(&off, 4), 1.7286, 1e-4);
    off.sm_ilp_room_exponent = 0;
    assert_float_equal(sim_gpu_model_ilp_warp_load(&off, 4), 1, 0);
    for (double L = 0.5; L < 40; L += 0.75)
        assert_true(sim_gpu_model_issue_rate_knee(m, L, 4) ==
                    sim_gpu_model_issue_rate(m, L));
    /* knee 6.9144 (4 x 1.7286): linear up to it, then to 7.9 */
    assert_float_equal(sim_gpu_model_issue_rate_knee(m, 6.9, 6.9144), 6.9, 0);
    assert_float_equal(sim_gpu_model_issue_rate_knee(m, 13.8288, 6.9144),
                       7.9 - 0.9856 * exp(-6.9144 / 0.9856), 1e-9);
    /* a knee beyond Ts is a hard one; below L0 it is L0's */
    assert_float_equal(sim_gpu_model_issue_rate_knee(m, 20, 30), 7.9, 0);
    assert_true(sim_gpu_model_issue_rate_knee(m, 6, 2) ==
                sim_gpu_model_issue_rate(m, 6));
}

/* The issue-rate curve of the calibrated H100 (L0 = 4 warps at full speed,
 * saturating at 7.9; FINDINGS.md §5), worked out from its formula:
 * T(L) = L up to 4, then 7.9 - 3.9 exp(-(L - 4) / 3.9). */
static void test_gpu_model_issue_rate_curve(void **state)
{
    Fixture *f = *state;
    const GpuModel *m = f->h100;
    assert_float_equal(sim_gpu_model_issue_rate(m, 2), 2, 1e-12);
    assert_float_equal(sim_gpu_model_issue_rate(m, 4), 4, 1e-12);
    /* 8 warps: 7.9 - 3.9 e^(-4/3.9) = 6.5015; measured 6.45 (ILP-1 FMA
     * solo 1230 us against 992 us for a lone warp). */
    assert_float_equal(sim_gpu_model_issue_rate(m, 8), 6.50154, 1e-4);
    assert_float_equal(sim_gpu_model_issue_rate(m, 64), 7.9, 1e-6);
    /* Per-warp speed: 1 up to L0, then falling. */
    assert_float_equal(sim_gpu_model_warp_speed(m, 0), 1, 1e-12);
    assert_float_equal(sim_gpu_model_warp_speed(m, 4), 1, 1e-12);
    assert_float_equal(sim_gpu_model_warp_speed(m, 8), 6.50154 / 8, 1e-5);
    /* An intensity is the share of the saturated rate a kernel issues
     * alone; the load for it inverts the curve. */
    assert_float_equal(sim_gpu_model_load_for_share(m, 0.25), 1.975, 1e-9);
    double L = sim_gpu_model_load_for_share(m, 0.823);
    assert_float_equal(sim_gpu_model_issue_rate(m, L), 0.823 * 7.9, 1e-9);
    assert_float_equal(sim_gpu_model_load_for_share(m, 1.0),
                       m->max_warps_per_sm, 1e-12);
    /* A hard knee (L0 >= Tmax, the uncalibrated models): min(L, Tmax),
     * i.e. proportional sharing of the saturated rate. */
    g_autoptr(GpuModel) k = sim_gpu_model_copy(m);
    k->sm_full_speed_warps = k->sm_saturation_warps = 64;
    assert_float_equal(sim_gpu_model_issue_rate(k, 32), 32, 1e-12);
    assert_float_equal(sim_gpu_model_warp_speed(k, 128), 0.5, 1e-12);
    assert_float_equal(sim_gpu_model_load_for_share(k, 1.0), 64, 1e-12);
    assert_float_equal(sim_gpu_model_load_for_share(k, 0.5), 32, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
        T(test_gpu_model_bundled_list_is_complete),
        T(test_gpu_model_every_bundled_model_loads),
        T(test_gpu_model_h100_values),
        T(test_gpu_model_generations_differ_where_documented),
        T(test_gpu_model_find_unknown_name_lists_known),
        T(test_gpu_model_copy_is_deep),
        T(test_gpu_model_describe_shows_sources),
        T(test_gpu_model_rejects_bad_rule_skip),
        T(test_gpu_model_rejects_bad_ilp_saturation),
        T(test_gpu_model_host_wake),
        T(test_gpu_model_host_wake_h200),
        T(test_gpu_model_lru_weights),
        T(test_gpu_model_bare_classes),
        T(test_gpu_model_kernel_class_of_name),
        T(test_gpu_model_rejects_unknown_field),
        T(test_gpu_model_rejects_missing_field),
        T(test_gpu_model_rejects_out_of_range),
        T(test_gpu_model_rejects_missing_source),
        T(test_gpu_model_rejects_empty_source),
        T(test_gpu_model_rejects_non_integer),
        T(test_gpu_model_rejects_bad_enum),
        T(test_gpu_model_rejects_truncated_json),
        T(test_gpu_model_syntax_error_is_not_truncation),
        T(test_gpu_model_rejects_non_utf8),
        T(test_gpu_model_rejects_raw_control_bytes),
        T(test_gpu_model_rejects_inconsistent_values),
        T(test_gpu_model_rejects_wrong_schema),
        T(test_gpu_model_mps_sm_limit_rounds_down_by_tpc),
        T(test_gpu_model_mps_sm_limit_other_roundings),
        T(test_gpu_model_mps_client_limit),
        T(test_gpu_model_issue_rate_curve),
        T(test_gpu_model_ilp_warp_load_and_knee),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
