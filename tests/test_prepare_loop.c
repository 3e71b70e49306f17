/* test_prepare_loop.c -- --loop-request on a timed trace infers the times
 * alone of the looped request only (plan/prepare.h: step 4's cut, then
 * step 2 on the request it kept), on two real PyTorch profiles of the H100
 * (traces/measured/h100/pytorch/):
 *
 *  - torch_multistream_trace: requests whose kernels overlap on several
 *    streams, so recorded times are not times alone.  Run alone once, the
 *    kept request with its inferred times reproduces its own recording
 *    (the inference's aim), and with its recorded times it does not: the
 *    inference ran, and on the right recorded ops (an offset into another
 *    request's ops would fit other durations).
 *  - torch_profile_trace (resnet18, one stream): the kept request is the
 *    one the whole recording's inference kept, with the same times alone
 *    (within the inference's tolerance), so inferring the other 29
 *    requests changed nothing but the cost.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plan/prepare.h"
#include "engine.h"
#include "import.h"
#include "replay.h"
#include "transform.h"

#define DIR HQSIM_SOURCE_DIR "/traces/measured/h100/pytorch/"

/* @path imported as recorded (into *@rep), and a copy cut to its looped
 * request (into *@cut, its first op's recorded index into *@first). */
static SimScenario *load_recorded(const char *path, SimImportReport **rep,
                                  SimScenario **cut, uint32_t *first)
{
    char *paths[] = {(char *)path};
    SimImportOptions io;
    sim_import_options_init(&io);
    GError *err = NULL;
    SimScenario *sc = sim_workload_load_report(paths, 1, &io, rep, &err);
    if (!sc)
        fail_msg("%s", err->message);
    assert_int_equal(sc->processes->len, 1);
    *cut = sim_scenario_copy(sc);
    if (!sim_scenario_loop_request(*cut, 1, first, &err))
        fail_msg("%s", err->message);
    return sc;
}

/* @sc's request run once alone (no jitter) on @m: summed |simulated -
 * recorded| over summed recorded time of its kernels and copies, recorded
 * times from op @first of @rep's process 0 on. */
static double request_error(const SimScenario *sc, const GpuModel *m,
                            const SimImportReport *rep, uint32_t first)
{
    g_autoptr(SimScenario) one = sim_scenario_copy(sc);
    ((SimProcessSpec *)g_ptr_array_index(one->processes, 0))->iterations = 1;
    SimOptions so;
    sim_options_init(&so);
    so.no_jitter = true;
    GError *err = NULL;
    g_autoptr(SimResult) r = sim_engine_run(m, one, &so, &err);
    if (!r)
        fail_msg("%s", err->message);
    const SimImportProcess *p = &rep->procs[0];
    double diff = 0, total = 0;
    uint32_t n = 0;
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord, i);
        if (o->node != SIM_NO_INDEX ||
            p->rec_end_ns[first + o->op_index] == SIM_TIME_NEVER)
            continue;
        double rec = (double)(p->rec_end_ns[first + o->op_index] -
                              p->rec_start_ns[first + o->op_index]);
        diff += fabs((double)(o->end_ns - o->start_ns) - rec);
        total += rec;
        n++;
    }
    assert_true(n > 10);
    return diff / total;
}

static void test_looped_request_reproduces_its_recording(void **state)
{
    (void)state;
    SimImportReport *rep = NULL;
    SimScenario *cut = NULL;
    uint32_t first = 0;
    g_autoptr(SimScenario) rec = load_recorded(
        DIR "torch_multistream_trace.json.gz", &rep, &cut, &first);
    GError *err = NULL;
    g_autoptr(GpuModel) m = sim_gpu_model_find(rec->gpu, NULL, &err);
    assert_non_null(m);
    char *paths[] = {(char *)DIR "torch_multistream_trace.json.gz"};
    PrepOptions po = {.loop_request = true, .iterations = 1};
    g_autoptr(SimScenario) inferred = prep_load(paths, 1, &po, &err);
    if (!inferred)
        fail_msg("%s", err->message);
    /* the same request, in recorded and in inferred times */
    const SimProcessSpec *a = g_ptr_array_index(cut->processes, 0);
    const SimProcessSpec *b = g_ptr_array_index(inferred->processes, 0);
    assert_int_equal(a->n_ops, b->n_ops);
    double e_rec = request_error(cut, m, rep, first);
    double e_inf = request_error(inferred, m, rep, first);
    print_message("  multistream request at op %u (%u ops): error of its "
                  "recording alone %.2f%% with recorded times, %.2f%% with "
                  "inferred times alone\n",
                  first, b->n_ops, 100 * e_rec, 100 * e_inf);
    if (!(e_inf < 0.02 && e_rec > 5 * e_inf))
        fail_msg("inferred %.4f, recorded %.4f", e_inf, e_rec);
    sim_scenario_free(cut);
    sim_import_report_free(rep);
}

/* Op @i's time alone (kernel or copy), 0 for other ops. */
static SimTime op_time(const SimProcessSpec *p, uint32_t i)
{
    const SimOp *op = &p->ops[i];
    return op->kind == SIM_OP_KERNEL ? op->u.kernel.duration_ns
           : op->kind == SIM_OP_COPY ? op->u.copy.duration_ns
                                     : 0;
}

static void test_single_stream_request_as_whole_inference(void **state)
{
    (void)state;
    SimImportReport *rep = NULL;
    SimScenario *cut = NULL;
    uint32_t first = 0;
    g_autoptr(SimScenario) whole =
        load_recorded(DIR "torch_profile_trace.json.gz", &rep, &cut, &first);
    sim_scenario_free(cut);
    GError *err = NULL;
    g_autoptr(GpuModel) m = sim_gpu_model_find(whole->gpu, NULL, &err);
    assert_non_null(m);
    /* the former order: the whole recording inferred, then cut */
    assert_true(sim_workload_infer_solo(whole, rep, m, 40, &err) >= 0);
    uint32_t first_whole = 0;
    assert_true(sim_scenario_loop_request(whole, 100, &first_whole, &err));
    assert_int_equal(first_whole, first); /* the same request kept */
    char *paths[] = {(char *)DIR "torch_profile_trace.json.gz"};
    PrepOptions po = {.loop_request = true};
    g_autoptr(SimScenario) sc = prep_load(paths, 1, &po, &err);
    if (!sc)
        fail_msg("%s", err->message);
    const SimProcessSpec *a = g_ptr_array_index(whole->processes, 0);
    const SimProcessSpec *b = g_ptr_array_index(sc->processes, 0);
    assert_int_equal(a->n_ops, b->n_ops);
    assert_int_equal(b->iterations, 100);
    uint32_t timed = 0;
    for (uint32_t i = 0; i < a->n_ops; i++) {
        SimTime x = op_time(a, i), y = op_time(b, i);
        assert_int_equal(a->ops[i].kind, b->ops[i].kind);
        if (!x)
            continue;
        timed++;
        if (fabs((double)y / (double)x - 1) > SIM_INFER_TOLERANCE)
            fail_msg("op %u: %" G_GUINT64_FORMAT " ns alone inferred in the "
                     "whole recording, %" G_GUINT64_FORMAT " in its request",
                     i, (guint64)x, (guint64)y);
    }
    assert_true(timed > 100);
    sim_import_report_free(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_looped_request_reproduces_its_recording),
        cmocka_unit_test(test_single_stream_request_as_whole_inference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
