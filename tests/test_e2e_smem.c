/* test_e2e_smem.c -- shared-memory configuration windows (sim/smem_config.c)
 * through the real binary, on scenarios built from measured H100 rows
 * (traces/measured/h100/FINDINGS.md §28, mpspct/var/fit/var.csv and
 * mpspct/var/more/var.csv; harness/mps_var_predict.py writes the same
 * scenarios with more iterations).
 *
 * A victim MPS client runs a graph of 32 chained 1-block kernels of 5 us
 * (wall clock) beside one other client running graphs of 32 kernels of 132
 * blocks x 128 threads with 512 B of dynamic shared memory, 3 us blocks.
 * Each kernel carries its configuration as Nsight Compute measured it
 * (smem_config_bytes) and its preferred carveout (carveout_pct).  Measured,
 * the victim's span per node grows either by <= 0.08 us (it joins the
 * others' SMs) or by 0.5-0.9 us (it waits for an SM to empty), nothing
 * between; hqsim must put each row in its measured class. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"

#define NODES 32

typedef struct {
    const char *name;
    uint32_t threads, smem, config; /* bytes */
    int pct;                        /* -1: no preference */
} Spec;

/* the victims and aggressors of §28 (ncu's configurations) */
static const Spec VT = {"VT", 32, 0, 32768, -1};
static const Spec VS = {"VS", 32, 1536, 8192, 0};
static const Spec VT8 = {"VT8", 32, 0, 32768, 0};
static const Spec G132C0 = {"g132c0", 128, 512, 8192, 0};
static const Spec G132C100 = {"g132c100", 128, 512, 233472, 100};
static const Spec ADEF = {"adef", 128, 512, 65536, -1};

static void put_graph(GString *o, const char *proc, const Spec *s,
                      uint32_t grid, double block_us, uint32_t iterations)
{
    g_string_append_printf(o,
                           "{\"name\": \"%s\", \"iterations\": %u, "
                           "\"streams\": [{\"name\": \"s\"}], \"ops\": "
                           "[{\"op\": \"graph\", \"stream\": \"s\", "
                           "\"nodes\": [",
                           proc, iterations);
    for (int i = 0; i < NODES; i++) {
        g_string_append_printf(o,
                               "%s{\"op\": \"kernel\", \"name\": \"%s\", "
                               "\"grid\": %u, \"block\": %u, "
                               "\"block_time_us\": %g, \"wall_clock\": true, "
                               "\"smem_config_bytes\": %u",
                               i ? ", " : "", s->name, grid, s->threads,
                               block_us, s->config);
        if (s->smem)
            g_string_append_printf(o, ", \"dynamic_smem_bytes\": %u", s->smem);
        if (s->pct >= 0)
            g_string_append_printf(o, ", \"carveout_pct\": %d", s->pct);
        g_string_append(o, "}");
    }
    g_string_append(o, "]}]}");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The victim's median span per iteration (first node start to last node
 * end), iterations 10 to 49 of 60, beside @aggr (NULL: alone). */
static double victim_span(const char *dir, const Spec *v, const Spec *aggr)
{
    g_autoptr(GString) o = g_string_new(
        "{\"hqsim_scenario\": 1, \"gpu\": \"h100-sxm\", \"processes\": [");
    put_graph(o, "victim", v, 1, 5, 60);
    if (aggr) {
        g_string_append(o, ", ");
        put_graph(o, "aggr", aggr, 132, 3, 600);
    }
    g_string_append(o, "]}");
    g_autofree char *sc = g_build_filename(dir, "smem.json", NULL);
    g_autofree char *csv = g_build_filename(dir, "smem.csv", NULL);
    assert_true(g_file_set_contents(sc, o->str, -1, NULL));
    Run r = run_hqsim("run", sc, "--mode", "mps", "--csv", csv, "-q", NULL);
    if (r.status != 0)
        fail_msg("hqsim run: %s", r.err);
    run_clear(&r);
    g_autofree char *text = NULL;
    assert_true(g_file_get_contents(csv, &text, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_auto(GStrv) head = g_strsplit(lines[0], ",", -1);
    int c_proc = -1, c_it = -1, c_start = -1, c_end = -1;
    for (int i = 0; head[i]; i++) {
        c_proc = strcmp(head[i], "process") ? c_proc : i;
        c_it = strcmp(head[i], "iteration") ? c_it : i;
        c_start = strcmp(head[i], "start_us") ? c_start : i;
        c_end = strcmp(head[i], "end_us") ? c_end : i;
    }
    assert_true(c_proc >= 0 && c_it >= 0 && c_start >= 0 && c_end >= 0);
    double first[60], last[60];
    for (int i = 0; i < 60; i++)
        first[i] = 1e300, last[i] = -1;
    for (int l = 1; lines[l] && *lines[l]; l++) {
        g_auto(GStrv) c = g_strsplit(lines[l], ",", -1);
        if (strcmp(c[c_proc], "victim"))
            continue;
        int it = atoi(c[c_it]);
        assert_in_range(it, 0, 59);
        first[it] = MIN(first[it], atof(c[c_start]));
        last[it] = MAX(last[it], atof(c[c_end]));
    }
    double spans[40];
    for (int i = 0; i < 40; i++)
        spans[i] = last[10 + i] - first[10 + i];
    qsort(spans, 40, sizeof *spans, cmp_double);
    return (spans[19] + spans[20]) / 2;
}

/* Rows of §28, N = 2, with their measured growth per node (us): the
 * predicted growth must fall in the same class (<= 0.05: joins; >= 0.2:
 * waits for an SM to empty; hqsim gives 0.00 and ~0.34). */
static void test_e2e_smem_windows_cost_class(void **state)
{
    const E2eTmpdir *t = *state;
    const struct {
        const Spec *victim, *aggr;
        double measured;
    } rows[] = {
        {&VT, &G132C0, 0.66},    /* 8 KB SMs, below VT's own 32 KB */
        {&VT, &G132C100, -0.01}, /* 228 KB in VT's [32, 228] */
        {&VS, &G132C0, 0.03},    /* 8 KB in VS's [8, 8] */
        {&VS, &G132C100, 0.67},  /* 228 KB above VS's own 8 KB */
        {&VT8, &ADEF, 0.77},     /* 64 KB above VT8's own 32 KB (more/) */
        {&VT, &ADEF, 0.01},      /* 64 KB in VT's [32, 228] (more/) */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        double alone = victim_span(t->dir, rows[i].victim, NULL);
        double beside = victim_span(t->dir, rows[i].victim, rows[i].aggr);
        double g = (beside - alone) / NODES;
        bool hi = rows[i].measured >= 0.3;
        if (hi ? g < 0.2 : g > 0.05)
            fail_msg("%s beside %s: hqsim %+.3f us per node, measured %+.2f",
                     rows[i].victim->name, rows[i].aggr->name, g,
                     rows[i].measured);
    }
}

/* A configuration that is not one of the model's is refused naming the
 * field and the op; retargeting to another GPU drops the measured
 * configuration (the target's rule decides), so the same scenario runs on
 * an A100, whose largest carveout (164 KiB) is below it. */
static void test_e2e_smem_config_checked_and_retargeted(void **state)
{
    const E2eTmpdir *t = *state;
    g_autofree char *sc = g_build_filename(t->dir, "cfg.json", NULL);
    const char *fmt =
        "{\"hqsim_scenario\": 1, \"gpu\": \"h100-sxm\", \"processes\": "
        "[{\"name\": \"p\", \"streams\": [{\"name\": \"s\"}], \"ops\": [\n"
        "{\"op\": \"kernel\", \"name\": \"k\", \"stream\": \"s\", \"grid\": "
        "4, \"block\": 128, \"duration_us\": 10, \"smem_config_bytes\": "
        "%u}]}]}";
    g_autofree char *bad = g_strdup_printf(fmt, 12288u);
    assert_true(g_file_set_contents(sc, bad, -1, NULL));
    Run r = run_hqsim("run", sc, "-q", NULL);
    assert_int_not_equal(r.status, 0);
    assert_contains(r.err, "cfg.json:2");
    assert_contains(r.err, "smem_config_bytes");
    run_clear(&r);
    g_autofree char *good = g_strdup_printf(fmt, 200704u);
    assert_true(g_file_set_contents(sc, good, -1, NULL));
    r = run_hqsim("run", sc, "-q", NULL);
    assert_int_equal(r.status, 0);
    run_clear(&r);
    r = run_hqsim("run", sc, "--gpu", "a100", "-q", NULL);
    if (r.status != 0)
        fail_msg("retargeted run: %s", r.err);
    run_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_e2e_smem_windows_cost_class,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(
            test_e2e_smem_config_checked_and_retargeted, e2e_tmpdir_setup,
            e2e_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
