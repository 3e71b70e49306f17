/* test_e2e_closed_loop.c -- does a closed loop repeat itself exactly?
 * (README "Performance", "Does a closed loop repeat itself?").  An exact
 * skip of whole periods needs every op of iteration i + k to start and end
 * exactly D ns after the same op of iteration i.  A lone process without
 * latency spread (--no-jitter) has that from its first iteration, with
 * k = 1: nothing carries over from one iteration to the next but the time
 * (MPS function fetches, DRAM pressure, the staggered drain's key are all
 * relative).  With the spread --loop-request takes from the trace (one
 * recorded request's row drawn per iteration) its iterations differ, which
 * is why the README's closed loops get no exact skip.  Runs the binary on
 * the bundled resnet18 PyTorch trace and reads its per-op CSV.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <math.h>

#include "csv.h"
#include "e2e.h"

#define ITERS 6
#define MAX_OPS 4096

/* start and end (ns) of op @op of iteration @it: [it][op][0/1]; -1 unset */
typedef struct {
    int64_t t[ITERS][MAX_OPS][2];
    uint32_t n_ops; /* 1 + the largest op index seen */
} Loop;

static int64_t ns_of(const char *us)
{
    double v = 0;
    assert_true(sim_csv_parse_double(us, &v));
    return llround(v * 1000);
}

/* Run the trace as a lone process's closed loop (extra option @opt or NULL)
 * and read its ops' times from the CSV. */
static void run_loop(const char *dir, const char *opt, Loop *L)
{
    g_autofree char *trace =
        source_path("traces/measured/h100/pytorch/torch_profile_trace.json.gz");
    g_autofree char *csv = g_build_filename(dir, "ops.csv", NULL);
    Run r = run_hqsim("run", "-q", trace, "--loop-request", "--iterations",
                      G_STRINGIFY(ITERS), "--host-scale", "0.372", "--mode",
                      "mps", "--csv", csv, opt, NULL);
    if (r.status != 0)
        fail_msg("hqsim exited %d: %s", r.status, r.err);
    run_clear(&r);
    g_autofree char *text = NULL;
    gsize len = 0;
    assert_true(g_file_get_contents(csv, &text, &len, NULL));
    memset(L->t, 0xff, sizeof L->t);
    L->n_ops = 0;
    SimCsv c;
    sim_csv_init(&c, csv, text, len);
    g_autoptr(SimCsvRow) head = sim_csv_row_new();
    g_autoptr(SimCsvRow) row = sim_csv_row_new();
    const char *line;
    size_t n;
    assert_true(sim_csv_next_line(&c, &line, &n));
    assert_true(sim_csv_split(&c, line, n, c.line, head, NULL, NULL));
    const int ci = sim_csv_find(head, "iteration"),
              co = sim_csv_find(head, "op"),
              cs = sim_csv_find(head, "start_us"),
              ce = sim_csv_find(head, "end_us");
    assert_true(ci >= 0 && co >= 0 && cs >= 0 && ce >= 0);
    while (sim_csv_next_line(&c, &line, &n)) {
        assert_true(sim_csv_split(&c, line, n, c.line, row, head, NULL));
        const long it = strtol(sim_csv_field(row, (uint32_t)ci), NULL, 10),
                   op = strtol(sim_csv_field(row, (uint32_t)co), NULL, 10);
        assert_true(it >= 0 && it < ITERS && op >= 0 && op < MAX_OPS);
        L->t[it][op][0] = ns_of(sim_csv_field(row, (uint32_t)cs));
        L->t[it][op][1] = ns_of(sim_csv_field(row, (uint32_t)ce));
        L->n_ops = MAX(L->n_ops, (uint32_t)op + 1);
    }
}

/* The first start of iteration @it. */
static int64_t iter_start(const Loop *L, int it)
{
    int64_t s = INT64_MAX;
    for (uint32_t o = 0; o < L->n_ops; o++)
        if (L->t[it][o][0] >= 0)
            s = MIN(s, L->t[it][o][0]);
    assert_true(s != INT64_MAX);
    return s;
}

static void test_lone_loop_repeats_exactly(void **state)
{
    Loop *L = g_new(Loop, 1);
    run_loop(((E2eTmpdir *)*state)->dir, "--no-jitter", L);
    const int64_t P = iter_start(L, 1) - iter_start(L, 0);
    assert_true(P > 0);
    uint32_t checked = 0;
    for (int it = 1; it < ITERS; it++)
        for (uint32_t o = 0; o < L->n_ops; o++) {
            if (L->t[0][o][0] < 0)
                continue;
            for (int e = 0; e < 2; e++)
                if (L->t[it][o][e] != L->t[0][o][e] + it * P)
                    fail_msg("op %u of iteration %d %s at %lld ns, not "
                             "iteration 0's + %d x %lld",
                             o, it, e ? "ends" : "starts",
                             (long long)L->t[it][o][e], it, (long long)P);
            checked++;
        }
    /* every op of the request (119 kernels, copies) in every iteration */
    assert_true(checked >= (ITERS - 1) * 120u);
    g_free(L);
}

static void test_loop_with_spread_does_not_repeat(void **state)
{
    Loop *L = g_new(Loop, 1);
    run_loop(((E2eTmpdir *)*state)->dir, NULL, L);
    /* each iteration draws its own recorded request's row: the iterations
     * take different times, so no shift maps one onto the next */
    g_autoptr(GHashTable) seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    int64_t d[ITERS - 1];
    for (int it = 0; it + 1 < ITERS; it++) {
        d[it] = iter_start(L, it + 1) - iter_start(L, it);
        assert_true(d[it] > 0);
        g_hash_table_add(seen, &d[it]);
    }
    assert_true(g_hash_table_size(seen) >= 3);
    g_free(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lone_loop_repeats_exactly,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_loop_with_spread_does_not_repeat,
                                        e2e_tmpdir_setup, e2e_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
