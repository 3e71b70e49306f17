/* test_validate.c -- hqsim against the committed H100 and H200
 * measurements (traces/measured/h100, traces/measured/h200): every measured
 * experiment is replayed with that GPU's calibrated model and compared.
 * Targets (issue 3): median makespan error of the predictions <= 5%, none
 * above 15% except the documented misses in each folder's
 * known_misses.txt (each with its reason; each must still miss, so a fix
 * updates the list), median per-op end-time error <= 2% of the span.  The
 * H100's mechanism spot checks and generalization floors run on the H100
 * only.  Runs without a GPU: the measurements are data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "validate.h"

typedef struct {
    GpuModel *m;
    GPtrArray *rows;
    GPtrArray *misses; /* GRegex* */
    char *dir;
} Fix;

/* Replay traces/measured/@folder with model @model and read its list of
 * known misses. */
static int setup_for(void **state, const char *folder, const char *model)
{
    Fix *f = g_new0(Fix, 1);
    f->dir =
        g_build_filename(HQSIM_SOURCE_DIR, "traces", "measured", folder, NULL);
    GError *err = NULL;
    f->m = sim_gpu_model_find(model, NULL, &err);
    if (!f->m)
        return -1;
    f->rows = sim_validate(f->dir, f->m, NULL, false, &err);
    if (!f->rows) {
        fprintf(stderr, "%s\n", err->message);
        return -1;
    }
    f->misses = g_ptr_array_new_with_free_func((GDestroyNotify)g_regex_unref);
    g_autofree char *path = g_build_filename(f->dir, "known_misses.txt", NULL);
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return -1;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        if (!lines[i][0] || lines[i][0] == '#')
            continue;
        char *sp = strpbrk(lines[i], " \t");
        if (sp)
            *sp = 0;
        GRegex *re = g_regex_new(lines[i], 0, 0, NULL);
        if (!re)
            return -1;
        g_ptr_array_add(f->misses, re);
    }
    *state = f;
    return 0;
}

static int setup_h100(void **state)
{
    return setup_for(state, "h100", "h100-sxm");
}

static int setup_h200(void **state)
{
    return setup_for(state, "h200", "h200");
}

static int teardown(void **state)
{
    Fix *f = *state;
    g_ptr_array_free(f->rows, TRUE);
    g_ptr_array_free(f->misses, TRUE);
    sim_gpu_model_free(f->m);
    g_free(f->dir);
    g_free(f);
    return 0;
}

static bool known_miss(const Fix *f, const char *id)
{
    for (guint i = 0; i < f->misses->len; i++)
        if (g_regex_match(g_ptr_array_index(f->misses, i), id, 0, NULL))
            return true;
    return false;
}

/* Most of the data set is replayed: at least 140 predictions. */
static void test_validate_replays_the_data_set(void **state)
{
    Fix *f = *state;
    SimValSummary p = sim_validate_summary(f->rows, false);
    SimValSummary c = sim_validate_summary(f->rows, true);
    assert_true(p.n >= 140);
    assert_true(c.n >= 10);
}

/* The H200 campaign (parts A, B, E, F, H): at least 110 predictions and
 * 40 calibration experiments. */
static void test_validate_h200_replays_the_data_set(void **state)
{
    Fix *f = *state;
    SimValSummary p = sim_validate_summary(f->rows, false);
    SimValSummary c = sim_validate_summary(f->rows, true);
    assert_true(p.n >= 110);
    assert_true(c.n >= 40);
}

static void test_validate_median_errors_within_targets(void **state)
{
    Fix *f = *state;
    SimValSummary p = sim_validate_summary(f->rows, false);
    if (p.median_abs_err > 0.05)
        fail_msg("median makespan error %.2f%% > 5%%", 100 * p.median_abs_err);
    if (p.median_end_err > 0.02)
        fail_msg("median end-time error %.2f%% of the span > 2%%",
                 100 * p.median_end_err);
}

/* Every prediction within 15%, but the documented misses; and each
 * documented miss still misses (else the list is stale). */
static void test_validate_no_undocumented_miss(void **state)
{
    Fix *f = *state;
    for (guint i = 0; i < f->rows->len; i++) {
        const SimValRow *r = g_ptr_array_index(f->rows, i);
        if (r->skipped || r->calibration)
            continue;
        bool listed = known_miss(f, r->id);
        if (!listed && fabs(r->err) > 0.15)
            fail_msg("%s: makespan error %+.1f%% (measured %.3f ms, "
                     "predicted %.3f ms) is not a documented miss",
                     r->id, 100 * r->err, r->meas_ms, r->pred_ms);
        if (listed && fabs(r->err) <= 0.05)
            fail_msg("%s is listed in known_misses.txt but is now within "
                     "5%% (%+.1f%%): update the list",
                     r->id, 100 * r->err);
    }
}

/* The calibration experiments are reproduced too (they set values, they
 * are not fitted point by point): within 20%. */
static void test_validate_calibration_reproduced(void **state)
{
    Fix *f = *state;
    for (guint i = 0; i < f->rows->len; i++) {
        const SimValRow *r = g_ptr_array_index(f->rows, i);
        if (r->skipped || !r->calibration || known_miss(f, r->id))
            continue;
        if (fabs(r->err) > 0.20)
            fail_msg("calibration experiment %s: %+.1f%%", r->id, 100 * r->err);
    }
}

/* Spot checks of mechanisms, by experiment, with the tolerance each
 * deserves: simpleHyperQ depth-first at 4 connections (false
 * dependencies), the carveout rule, two MPS clients at 25% (disjoint SMs),
 * time-slicing of 4 processes, cross-process copies. */
static void test_validate_mechanisms(void **state)
{
    Fix *f = *state;
    const struct {
        const char *id;
        double tol;
    } cases[] = {
        {"hq_df32_c4", 0.01},
        {"hq_bf32_c1", 0.01},
        {"lo_half_small", 0.02},
        {"lo_carve_k1b1024_k2b64", 0.02},
        {"mps_excl_25_25", 0.01},
        {"ts4_small", 0.02},
        {"cp_h2d_256m_x2proc_nomps", 0.05},
        {"pr_lohi", 0.01},
        /* DRAM shared by triads on disjoint SMs; a memory-bound kernel
         * beside an FMA kernel on the same SMs (issue_frac) */
        {"i_tri16_116", 0.03},
        {"i_tri33_99", 0.03},
        {"i_tri_fma", 0.03},
        {"i_older_mix", 0.03},
        /* greedy-then-oldest inside an SM (engine_issue.c): a greedy
         * (ILP-4) kernel first whether older or younger, the older of two
         * ILP-1 kernels first; a wave's SMs freed one at a time, so a
         * queued kernel piles onto the first (part J, FINDINGS.md §17) */
        {"i_fma4_tri", 0.03},
        {"i_fma1_fma4", 0.03},
        {"j_fma4_fma1", 0.03},
        {"j_older_fma1_fma4", 0.03},
        {"j_smem_fma4", 0.03},
        {"i_older_fma", 0.03},
        {"i_behind", 0.03},
        {"j_behind_fma", 0.03},
        /* free turns beside a greedy kernel (engine_issue.c, FINDINGS.md
         * §19): an add beside an fp32 GEMM that leaves 13% of the issue
         * cycles runs alongside it (+50% before, when the GEMM held the
         * SM), while the triad beside an ILP-4 kernel that leaves almost
         * none still waits for it (i_fma4_tri above) */
        {"l_mm32_add", 0.05},
        {"ls_mm32_add", 0.05},
        {"j_tri_fma4", 0.03},
        /* a kernel bound on the shared-memory pipe shares that pipe, not
         * the issue slots (engine_issue.c): two such kernels took 1.64x
         * one alone, not 2x (+22% before, when its 58% of issue slots
         * read as a saturated SM) */
        {"i_smem_x2", 0.05},
        /* per-scheduler issue (engine_issue.c, FINDINGS.md §34): ILP pairs
         * from the ILP families alone (sm_ilp_room_exponent), 2 + 2 ILP-2
         * warps on disjoint schedulers, a 1-warp block on one scheduler
         * of a 32-warp kernel's (-29%, -14%, +13%, -17%, -8% before) */
        {"ct_i4_w4", 0.03},
        {"ct_i4_w8", 0.03},
        {"i_ilp2_w2", 0.03},
        {"i_ilp2_w4", 0.03},
        {"ct_mix_w1_w32", 0.03},
        /* a device-to-device copy is a kernel on the SMs with DRAM demand
         * (sim/validate.c, FINDINGS.md §17): issued first it holds a
         * triad back until its last blocks run (started at once, the
         * triad would end near its 1.12 ms alone: -39%), beside a triad
         * or a GEMV they share DRAM (none replayed before) */
        {"k_tri_d2d", 0.02},
        {"k_d2d_tri", 0.05},
        {"k_d2d_gemv", 0.05},
        /* warps of different ILP on one scheduler (engine_issue.c,
         * share_ranked; FINDINGS.md §34 addendum): the higher ILP issues
         * first below saturation too, and ILP 8's saturation is measured
         * (sm_ilp_saturation_warps), not the exponent's extrapolation
         * (-21.5%, -22.5%, -10.9%, -8.7%, +18.4%, +7.9% before) */
        {"m_i1w4_i4w4", 0.06},
        {"m_i4w4_i1w4", 0.06},
        {"m_i2w4_i4w4", 0.03},
        {"m_i1w8_i4w4", 0.03},
        {"m_i8_w4", 0.03},
        {"m_i2w4_i8w4", 0.05},
        /* part N (after the rule, §34 addendum): ILP 2 beside ILP 1 shares
         * as an equal; ILP 1 + 2 + 4 on one scheduler (-3.4%, 24% end
         * error before; +10.3% with ILP 2 ranked over ILP 1) */
        {"n_i1w4_i2w4", 0.05},
        {"n_i1w4_i2w4_i4w4", 0.03},
    };
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        const SimValRow *hit = NULL;
        for (guint i = 0; i < f->rows->len; i++) {
            const SimValRow *r = g_ptr_array_index(f->rows, i);
            if (!strcmp(r->id, cases[c].id))
                hit = r;
        }
        if (!hit || hit->skipped)
            fail_msg("%s not replayed", cases[c].id);
        if (fabs(hit->err) > cases[c].tol)
            fail_msg("%s: %+.2f%% (tolerance %.0f%%)", cases[c].id,
                     100 * hit->err, 100 * cases[c].tol);
    }
}

/* Part P (traces/measured/h100/mpsplace, a data set of its own;
 * FINDINGS.md §41, §42) with the H100 model.  One queue across MPS
 * clients: p_hol_* within 1%.  Timer blocks refilling SMs as others leave
 * start when blocks leave their SM, not at the SM's tick (engine_sm.c,
 * late_release): the streaming clients' rows within 12% at N <= 2 and
 * 30% at N = 4 and in one process (+279%, +256%, +74%, +44% at N = 4 with
 * every late block waiting for the tick; -27% to -13% now). */
static void test_validate_mpsplace(void **state)
{
    Fix *f = *state;
    g_autofree char *dir = g_build_filename(
        HQSIM_SOURCE_DIR, "traces", "measured", "h100", "mpsplace", NULL);
    GError *err = NULL;
    GPtrArray *rows = sim_validate(dir, f->m, NULL, false, &err);
    if (!rows)
        fail_msg("%s", err->message);
    uint32_t n = 0;
    for (guint i = 0; i < rows->len; i++) {
        const SimValRow *r = g_ptr_array_index(rows, i);
        if (r->skipped)
            continue;
        const double tol =
            g_str_has_prefix(r->id, "p_hol_") ? 0.01
            : g_str_has_suffix(r->id, "_n4") || g_str_has_suffix(r->id, "_1p")
                ? 0.30
                : 0.12;
        if (fabs(r->err) > tol)
            fail_msg("%s: %+.2f%% (tolerance %.0f%%)", r->id, 100 * r->err,
                     100 * tol);
        n++;
    }
    assert_true(n >= 17);
    g_ptr_array_free(rows, TRUE);
}

/* Issue 11: kernels the calibration never saw (parts I and J, FINDINGS.md
 * §16, §17).  At least half of them are predictions; the floors below are
 * what the model reaches today (ACCURACY.md), so a change that makes it
 * worse fails: predicted median makespan error <= 2%, >= 90% of makespans
 * and >= 84% of op end times within 10% (94%, 87% with the ILP ranks of
 * FINDINGS.md §34's addendum; 88%, 80% before), no category median above 5%, the
 * DRAM-only category (triads on disjoint SMs) median <= 3%. */
static void test_validate_generalization(void **state)
{
    Fix *f = *state;
    SimValSummary p = sim_validate_summary_of(f->rows, false, "generalize/");
    SimValSummary c = sim_validate_summary_of(f->rows, true, "generalize/");
    assert_true(p.n >= 30);
    assert_true(p.n >= c.n);
    if (p.median_abs_err > 0.02)
        fail_msg("generalize: median %.2f%% > 2%%", 100 * p.median_abs_err);
    if (p.within10 < 0.90 * p.n)
        fail_msg("generalize: %u of %u makespans within 10%%", p.within10, p.n);
    if (p.ends_within10 < 0.84 * p.ends)
        fail_msg("generalize: %u of %u end times within 10%%", p.ends_within10,
                 p.ends);
    const char *cats[] = {"order",    "first",         "quads",     "mem_pairs",
                          "sm_pairs", "dram_disjoint", "processes", "ilp_mix"};
    for (size_t i = 0; i < G_N_ELEMENTS(cats); i++) {
        g_autofree char *cat = g_strconcat("generalize/", cats[i], NULL);
        SimValSummary q = sim_validate_summary_of(f->rows, false, cat);
        assert_true(q.n >= 3);
        if (q.median_abs_err > 0.05)
            fail_msg("%s: median %.2f%% > 5%%", cat, 100 * q.median_abs_err);
    }
    /* ILP mixes on one scheduler (part M): 54% of end times within 10%
     * before the ranks (engine_issue.c), 92% with them */
    SimValSummary x =
        sim_validate_summary_of(f->rows, false, "generalize/ilp_mix");
    assert_true(x.n >= 13);
    if (x.ends_within10 < 0.85 * x.ends)
        fail_msg("ilp_mix: %u of %u end times within 10%%", x.ends_within10,
                 x.ends);
    SimValSummary d =
        sim_validate_summary_of(f->rows, false, "generalize/dram_disjoint");
    assert_true(d.n >= 4);
    if (d.median_abs_err > 0.03)
        fail_msg("dram_disjoint: median %.2f%% > 3%%", 100 * d.median_abs_err);
}

/* One 2-process replay (no MPS) in a temporary data set: @memset_solo is
 * the memset row's solo_ns field ("" for none).  Returns its row. */
static SimValRow *replay_memset_case(const Fix *f, const char *memset_solo,
                                     char **dir_out)
{
    static const char manifest[] =
        "{\"experiments\": [{\"id\": \"ms_claim\", \"category\": \"t\", "
        "\"measures\": \"t\", \"processes\": [{\"index\": 0, \"mps_client\": "
        "false}, {\"index\": 1, \"mps_client\": false}], \"files\": "
        "{\"ops\": \"ms_claim_ops.csv\"}}]}";
    /* p0 clears 4 bytes (a call of 20 us), then launches K0 (visible at
     * ~50 us); p1's K1 is visible at ~30 us.  "Measured": the memset
     * takes the idle GPU for p0, so K1 pays a switch (starts at ~172 us)
     * and K0 follows it after p1 yields (the order and the switches of
     * l_mp2_mm16_nomps it1, FINDINGS.md §19 addendum). */
    g_autofree char *ops = g_strdup_printf(
        "process,iteration,op,type,stream,stream_priority,name,kind,grid,"
        "block,dyn_smem,static_smem,regs_per_thread,work,work_unit,bytes,"
        "host_mem,launch_ns,api_ns,start_ns,end_ns,solo_ns,chains\n"
        "0,0,0,memset,0,0,A.memset,memset,,,,,,,,4,,0,20000,23000,23700,%s,\n"
        "0,0,1,kernel,0,0,K0,k,132,256,0,0,32,,,,,20000,30000,416000,516000,"
        "100000,1\n"
        "1,0,0,kernel,0,0,K1,k,132,256,0,0,32,,,,,10000,20000,172000,272000,"
        "100000,1\n",
        memset_solo);
    g_autofree char *dir = g_dir_make_tmp("hqval-XXXXXX", NULL);
    assert_non_null(dir);
    g_autofree char *mp = g_build_filename(dir, "manifest.json", NULL);
    g_autofree char *op = g_build_filename(dir, "ms_claim_ops.csv", NULL);
    assert_true(g_file_set_contents(mp, manifest, -1, NULL));
    assert_true(g_file_set_contents(op, ops, -1, NULL));
    GError *err = NULL;
    GPtrArray *rows = sim_validate(dir, f->m, NULL, false, &err);
    if (!rows)
        fail_msg("%s", err->message);
    assert_int_equal(rows->len, 1);
    SimValRow *r = g_ptr_array_steal_index(rows, 0);
    g_ptr_array_free(rows, TRUE);
    g_remove(op);
    g_remove(mp);
    *dir_out = g_steal_pointer(&dir);
    return r;
}

/* A stream memset is GPU work of its context (sim/validate.c): the one an
 * idle process issues first claims the GPU, so the other's kernel pays a
 * switch (without it, K1 would start free at ~30 us and both kernels end
 * ~139 us early: 27% of the span).  Its own end is not compared; one
 * without a solo duration is not replayed, and says why. */
static void test_validate_memset_claims_context(void **state)
{
    Fix *f = *state;
    char *dir = NULL;
    SimValRow *r = replay_memset_case(f, "700", &dir);
    g_rmdir(dir);
    g_free(dir);
    if (r->skipped)
        fail_msg("not replayed: %s", r->skipped);
    assert_int_equal(r->ends, 2); /* K0 and K1, not the memset */
    assert_int_equal(r->ends_within10, 2);
    if (r->end_err > 0.01)
        fail_msg("median end error %.1f%% of the span", 100 * r->end_err);
    sim_val_row_free(r);
    r = replay_memset_case(f, "", &dir);
    g_rmdir(dir);
    g_free(dir);
    assert_non_null(r->skipped);
    assert_non_null(strstr(r->skipped, "A.memset"));
    sim_val_row_free(r);
}

/* A manifest that includes a missing or malformed one fails, naming it. */
static void test_validate_include_errors(void **state)
{
    Fix *f = *state;
    g_autofree char *dir = g_dir_make_tmp("hqval-XXXXXX", NULL);
    assert_non_null(dir);
    g_autofree char *main_path = g_build_filename(dir, "manifest.json", NULL);
    g_autofree char *sub_path = g_build_filename(dir, "part.json", NULL);
    const char *cases[][2] = {
        {"{\"include\": [\"nope.json\"], \"experiments\": []}", "nope.json"},
        {"{\"include\": [\"part.json\"], \"experiments\": []}", "part.json"},
        {"{\"include\": [7], \"experiments\": []}", "include"},
    };
    assert_true(
        g_file_set_contents(sub_path, "{\"experiments\": 3}", -1, NULL));
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        assert_true(g_file_set_contents(main_path, cases[i][0], -1, NULL));
        GError *err = NULL;
        GPtrArray *rows = sim_validate(dir, f->m, NULL, false, &err);
        assert_null(rows);
        assert_non_null(err);
        if (!strstr(err->message, cases[i][1]))
            fail_msg("error '%s' does not name '%s'", err->message,
                     cases[i][1]);
        g_error_free(err);
    }
    g_remove(sub_path);
    g_remove(main_path);
    g_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest h100[] = {
        cmocka_unit_test(test_validate_replays_the_data_set),
        cmocka_unit_test(test_validate_median_errors_within_targets),
        cmocka_unit_test(test_validate_no_undocumented_miss),
        cmocka_unit_test(test_validate_calibration_reproduced),
        cmocka_unit_test(test_validate_mechanisms),
        cmocka_unit_test(test_validate_mpsplace),
        cmocka_unit_test(test_validate_generalization),
        cmocka_unit_test(test_validate_include_errors),
        cmocka_unit_test(test_validate_memset_claims_context),
    };
    const struct CMUnitTest h200[] = {
        cmocka_unit_test(test_validate_h200_replays_the_data_set),
        cmocka_unit_test(test_validate_median_errors_within_targets),
        cmocka_unit_test(test_validate_no_undocumented_miss),
        cmocka_unit_test(test_validate_calibration_reproduced),
    };
    int failed =
        cmocka_run_group_tests_name("h100", h100, setup_h100, teardown);
    return failed +
           cmocka_run_group_tests_name("h200", h200, setup_h200, teardown);
}
