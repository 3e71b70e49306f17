/* test_import_fixtures.c -- the import rules (import/README.md) on small
 * traces written for these tests (tests/data/import/), whose expected
 * programs are worked out by hand in the comments: op order, host gaps, API
 * times, streams, syncs, event records, memsets, units, enrichment,
 * merging, filters, the GPU mapping, and identity replay on a test GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <glib/gstdio.h>

#include "../import/import.h"
#include "../import/trace.h"
#include "engine.h"
#include "error.h"
#include "testutil.h"

#define DATA HQSIM_SOURCE_DIR "/tests/data/import/"
#define US(x) ((SimTime)((x)*1000))

/* Import @n files with launch latency @lat_ns (SIM_TIME_NEVER: from the
 * model); fails the test on error. */
static SimScenario *import_n(char *const *paths, int n, SimTime lat_ns,
                             SimImportReport **rep)
{
    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.launch_latency_ns = lat_ns;
    g_autoptr(GError) error = NULL;
    SimScenario *sc = sim_workload_load_report(paths, n, &opt, rep, &error);
    if (!sc)
        fail_msg("import failed: %s", error->message);
    return sc;
}

static SimScenario *import1(const char *path, SimTime lat_ns,
                            SimImportReport **rep)
{
    char *paths[] = {(char *)path};
    return import_n(paths, 1, lat_ns, rep);
}

static const SimProcessSpec *proc(const SimScenario *sc, guint i)
{
    assert_true(i < sc->processes->len);
    return g_ptr_array_index(sc->processes, i);
}

/* The op kinds of @p, as a string of letters: K kernel, C copy, G gap,
 * S stream sync, D device sync, R record, W wait, E event sync. */
static char *kinds(const SimProcessSpec *p)
{
    static const char letter[] = "KCGSDRWE";
    GString *s = g_string_new(NULL);
    for (uint32_t i = 0; i < p->n_ops; i++)
        g_string_append_c(s, letter[p->ops[i].kind]);
    return g_string_free(s, FALSE);
}

static bool contains(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle);
}

/* ------------------------------------------------------------------------
 * nvprof
 * ------------------------------------------------------------------------ */

/* nvprof_v20.csv, times in us (units row "us,us"), L = 3 us:
 *   copy  HtoD pageable s13  start 100 dur 50   issue 100 (copies: L 0);
 *         the host waits for a pageable copy: cursor 150
 *   memset            s14  start 160 dur 20   issue 160: gap 10
 *   kernel k          s13  start 200 dur 100  issue 197: gap 37
 *   kernel k2         s14  start 210 dur 40   issue 207: gap 10
 *   copy  DtoH pinned s13  start 320 dur 30   issue 320: gap 113
 * Process start: 100 (the first issue).  Span 100..350 = 250 us. */
static void test_nvprof_v20_program(void **state)
{
    (void)state;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import1(DATA "nvprof_v20.csv", US(3), &rep);
    assert_string_equal(sc->format, "nvprof");
    assert_string_equal(sc->gpu, "v100");
    assert_true(contains(sc->description, "Tesla V100-SXM2-16GB"));
    assert_int_equal(sc->processes->len, 1);
    const SimProcessSpec *p = proc(sc, 0);
    assert_string_equal(p->name, "demo[4242]");
    assert_int_equal(p->start_ns, 0);
    assert_int_equal(p->n_streams, 2);
    assert_string_equal(p->streams[0].name, "stream 13");
    assert_string_equal(p->streams[1].name, "stream 14");
    g_autofree char *k = kinds(p);
    assert_string_equal(k, "CGCGKGKGC");
    const SimOp *o = p->ops;
    assert_int_equal(o[0].u.copy.dir, SIM_COPY_H2D);
    assert_false(o[0].u.copy.pinned);
    assert_int_equal(o[0].u.copy.bytes, 1024 * 1024); /* KB are binary */
    assert_int_equal(o[0].u.copy.duration_ns, US(50));
    assert_int_equal(o[0].api_ns, 0);
    assert_int_equal(o[1].u.gap_ns, US(10));
    assert_int_equal(o[1].api_ns, SIM_TIME_NEVER);
    /* The memset: a device-to-device copy of 4 KB for 2.0e+01 us. */
    assert_int_equal(o[2].kind, SIM_OP_COPY);
    assert_int_equal(o[2].u.copy.dir, SIM_COPY_D2D);
    assert_int_equal(o[2].u.copy.bytes, 4096);
    assert_int_equal(o[2].u.copy.duration_ns, US(20));
    assert_int_equal(o[2].stream, 1);
    assert_int_equal(o[3].u.gap_ns, US(37));
    const SimKernelSpec *kk = &o[4].u.kernel;
    assert_string_equal(kk->name, "void k<int, float>(float*, int, int)");
    assert_int_equal(kk->grid[0], 80);
    assert_int_equal(kk->grid[1], 2);
    assert_int_equal(kk->block[0], 256);
    assert_int_equal(kk->regs_per_thread, 32);
    assert_int_equal(kk->static_smem_bytes, 1536);
    assert_int_equal(kk->dynamic_smem_bytes, 2048);
    assert_int_equal(kk->duration_ns, US(100));
    assert_int_equal(o[4].line, 10);
    assert_int_equal(o[5].u.gap_ns, US(10));
    assert_int_equal(o[6].u.kernel.block[1], 2);
    assert_int_equal(o[7].u.gap_ns, US(113));
    assert_true(o[8].u.copy.pinned);
    assert_int_equal(o[8].u.copy.dir, SIM_COPY_D2H);
    /* Report. */
    assert_int_equal(rep->n_procs, 1);
    assert_int_equal(rep->procs[0].n_kernels, 2);
    assert_int_equal(rep->procs[0].n_copies, 2);
    assert_int_equal(rep->procs[0].n_memsets, 1);
    assert_int_equal(rep->procs[0].n_late, 0);
    assert_int_equal(rep->span_ns, US(250));
    assert_int_equal(rep->procs[0].rec_start_ns[4], US(100));
    assert_int_equal(rep->procs[0].rec_end_ns[4], US(200));
    assert_int_equal(rep->procs[0].rec_start_ns[1], SIM_TIME_NEVER);
}

/* Replayed on a GPU whose launch latency is the one used to import, the
 * program starts and ends every op when the trace says. */
static void test_nvprof_v20_identity_replay(void **state)
{
    (void)state;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import1(DATA "nvprof_v20.csv", US(3), &rep);
    g_autoptr(GpuModel) m = test_model(200);
    m->kernel_launch_latency_ns = US(3);
    g_autoptr(SimResult) r = test_run(m, sc, SIM_SHARE_AS_SCENARIO);
    assert_non_null(r);
    for (uint32_t i = 0; i < proc(sc, 0)->n_ops; i++) {
        if (rep->procs[0].rec_start_ns[i] == SIM_TIME_NEVER)
            continue;
        const SimOpRecord *o = test_op(r, 0, i);
        assert_non_null(o);
        assert_int_equal(o->start_ns, rep->procs[0].rec_start_ns[i]);
        assert_int_equal(o->end_ns, rep->procs[0].rec_end_ns[i]);
    }
}

/* Import-mode comment lines, the 22-column header, seconds/ms units, and
 * two unified-memory rows skipped and counted. */
static void test_nvprof_skips_unified_memory_rows(void **state)
{
    (void)state;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import1(DATA "nvprof_um.csv", US(3), &rep);
    const SimProcessSpec *p = proc(sc, 0);
    g_autofree char *k = kinds(p);
    assert_string_equal(k, "CGK"); /* copy at 1000 us, kernel at 1050 */
    assert_int_equal(p->ops[0].u.copy.bytes, 512 * 1024);
    assert_int_equal(p->ops[0].u.copy.duration_ns, US(10));
    assert_int_equal(p->ops[1].u.gap_ns, US(47));
    assert_int_equal(p->ops[2].u.kernel.duration_ns, US(5));
    assert_int_equal(rep->n_skipped, 2);
    bool noted = false;
    for (char **n = rep->notes; *n; n++)
        noted = noted || contains(*n, "2 unified-memory rows skipped");
    assert_true(noted);
    assert_string_equal(sc->gpu, "p40");
}

/* The peer-copy variant (Src Dev...Dst Ctx, no Correlation_ID), ns and GB
 * units: PtoP is a device-to-device copy. */
static void test_nvprof_peer_columns(void **state)
{
    (void)state;
    g_autoptr(SimScenario) sc = import1(DATA "nvprof_peer.csv", 0, NULL);
    const SimProcessSpec *p = proc(sc, 0);
    g_autofree char *k = kinds(p);
    assert_string_equal(k, "CGK");
    assert_int_equal(p->ops[1].u.gap_ns, 1000); /* issued at 1000, 2000 */
    assert_int_equal(p->ops[0].u.copy.dir, SIM_COPY_D2D);
    assert_int_equal(p->ops[0].u.copy.bytes, 1073742); /* 0.001 GiB */
    assert_int_equal(p->ops[0].u.copy.duration_ns, 250);
    assert_string_equal(p->ops[2].u.kernel.name, "tiny");
    assert_string_equal(sc->gpu, "p100");
}

/* Two nvprof files: two processes, each on its own clock from 0. */
static void test_nvprof_two_files_two_processes(void **state)
{
    (void)state;
    char *paths[] = {DATA "nvprof_v20.csv", DATA "nvprof_um.csv"};
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import_n(paths, 2, US(3), &rep);
    assert_int_equal(sc->processes->len, 2);
    assert_int_equal(proc(sc, 0)->start_ns, 0);
    assert_int_equal(proc(sc, 1)->start_ns, 0);
    assert_string_equal(proc(sc, 1)->name, "nvprof_um.csv");
    assert_int_equal(rep->n_files, 2);
    assert_string_equal(rep->formats, "nvprof");
}

/* --from-ms/--to-ms: a window 100..200 us after the first op (100 us)
 * keeps the two kernels (starts 200 and 210). */
static void test_window_keeps_ops_that_start_in_it(void **state)
{
    (void)state;
    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.launch_latency_ns = US(3);
    opt.window_start_ns = US(100);
    opt.window_end_ns = US(200);
    char *paths[] = {DATA "nvprof_v20.csv"};
    g_autoptr(GError) error = NULL;
    g_autoptr(SimScenario) sc = sim_workload_load(paths, 1, &opt, &error);
    assert_non_null(sc);
    g_autofree char *k = kinds(proc(sc, 0));
    assert_string_equal(k, "KGK");
    /* An empty window is an error, not an empty scenario. */
    opt.window_start_ns = US(10000);
    opt.window_end_ns = US(20000);
    SimScenario *none = sim_workload_load(paths, 1, &opt, &error);
    assert_null(none);
    assert_true(contains(error->message, "nothing to simulate"));
}

/* ------------------------------------------------------------------------
 * nsys CSV
 * ------------------------------------------------------------------------ */

/* 2024 header (GreenCtx, "Throughput (MB/s)"), preamble lines, decimal MB.
 * Rows (ns): copy s7 at 1000 for 500; kernel s7 at 2000 for 3000; memset
 * s14 at 2500 for 1000; copy DtoH pageable s7 at 6000 for 700.  With L =
 * 3 us the kernel "should" be issued at -1000, before the copy ahead of it
 * on its stream: it keeps its stream order and is issued with the copy at
 * 1000, late (the recorded 1 us gap is shorter than L).  The process
 * starts at -1000, so a 2 us gap precedes the copy. */
static void test_nsys_csv_2024(void **state)
{
    (void)state;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc =
        import1(DATA "nsys_gpu_trace_2024.csv", US(3), &rep);
    assert_string_equal(sc->format, "nsys-csv");
    assert_string_equal(sc->gpu, "h100-sxm");
    const SimProcessSpec *p = proc(sc, 0);
    g_autofree char *k = kinds(p);
    assert_string_equal(k, "GCKGCGC");
    assert_int_equal(p->ops[0].u.gap_ns, 2000);
    assert_int_equal(rep->procs[0].n_late, 1);
    assert_int_equal(p->ops[1].u.copy.bytes, 1049000); /* 1.049 MB */
    const SimKernelSpec *kk = &p->ops[2].u.kernel;
    assert_string_equal(kk->name, "void kern<float>(float*, int)");
    assert_int_equal(kk->grid[0], 132);
    assert_int_equal(kk->regs_per_thread, 40);
    assert_int_equal(kk->dynamic_smem_bytes, 16000);
    assert_int_equal(p->ops[4].u.copy.dir, SIM_COPY_D2D); /* memset */
    assert_int_equal(p->ops[4].u.copy.bytes, 1000);
    assert_int_equal(p->ops[6].u.copy.dir, SIM_COPY_D2H);
    assert_false(p->ops[6].u.copy.pinned);
    assert_int_equal(rep->span_ns, 5700);
}

/* 2022 header (no GreenCtx, "Throughput (MBps)", HtoD naming), rows out of
 * order: sorted by start. */
static void test_nsys_csv_2022_unsorted(void **state)
{
    (void)state;
    g_autoptr(SimScenario) sc =
        import1(DATA "nsys_gpu_trace_2022.csv", 0, NULL);
    const SimProcessSpec *p = proc(sc, 0);
    g_autofree char *k = kinds(p);
    /* L = 0: kernelA s13 @3100, copy s7 @1000, kernelB s7 @5000. */
    assert_string_equal(k, "CGKGK");
    assert_int_equal(p->ops[0].u.copy.dir, SIM_COPY_H2D);
    assert_int_equal(p->ops[0].u.copy.bytes, 2000000);
    assert_string_equal(p->ops[2].u.kernel.name, "kernelA");
    assert_int_equal(p->ops[2].u.kernel.block[1], 2);
    assert_string_equal(p->ops[4].u.kernel.name, "kernelB");
    assert_int_equal(p->ops[4].u.kernel.static_smem_bytes, 1000);
    assert_string_equal(p->streams[0].name, "stream 7");
    assert_string_equal(p->streams[1].name, "stream 13");
    assert_string_equal(sc->gpu, "a100");
}

/* ------------------------------------------------------------------------
 * ncu
 * ------------------------------------------------------------------------ */

/* ncu alone (2022+ long layout): one process, kernels in ID order, back to
 * back with the model's API times; duration in us and ns with thousands
 * separators; Kbyte/block; Issue Slots Busy preferred for sm_intensity. */
static void test_ncu_long_alone(void **state)
{
    (void)state;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import1(DATA "ncu_2023.csv", US(3), &rep);
    assert_string_equal(sc->format, "ncu");
    assert_string_equal(sc->gpu, "h100-sxm"); /* from CC 9.0 */
    const SimProcessSpec *p = proc(sc, 0);
    assert_string_equal(p->name, "python3[777]");
    g_autofree char *k = kinds(p);
    assert_string_equal(k, "KK");
    const SimKernelSpec *a = &p->ops[0].u.kernel, *b = &p->ops[1].u.kernel;
    assert_int_equal(p->ops[0].api_ns, SIM_TIME_NEVER);
    assert_int_equal(a->duration_ns, 3010);
    assert_int_equal(a->grid[0], 132);
    assert_int_equal(a->block[0], 256);
    assert_int_equal(a->regs_per_thread, 40);
    assert_int_equal(a->dynamic_smem_bytes, 16000);
    /* "Shared Memory Configuration Size" 167.94 Kbyte: 164 KiB */
    assert_int_equal(a->smem_config_bytes, 164 * 1024);
    assert_int_equal(b->smem_config_bytes, 0);
    assert_float_equal(a->sm_intensity, 0.20, 1e-9);
    assert_float_equal(a->mem_intensity, 0.555, 1e-9);
    assert_int_equal(b->duration_ns, 1024);
    assert_float_equal(b->sm_intensity, 0.7525, 1e-9);
    assert_float_equal(b->mem_intensity, 0.0, 0);
    /* a pipe share needs both the issue share and the SM throughput: a has
     * only the throughput (its sm_intensity), b only the issue share */
    assert_float_equal(a->sm_pipe_share, 0.0, 0);
    assert_float_equal(b->sm_pipe_share, 0.0, 0);
    assert_false(rep->timed);
}

/* --page raw: one row per kernel, a units row, raw metric names, 3-D
 * tuples. */
static void test_ncu_raw_alone(void **state)
{
    (void)state;
    g_autoptr(SimScenario) sc = import1(DATA "ncu_raw.csv", US(3), NULL);
    const SimProcessSpec *p = proc(sc, 0);
    assert_int_equal(p->n_streams, 2);
    const SimKernelSpec *a = &p->ops[0].u.kernel, *b = &p->ops[1].u.kernel;
    assert_string_equal(a->name, "w13_kernel");
    assert_int_equal(a->grid[0], 5);
    assert_int_equal(a->grid[1], 20);
    assert_int_equal(a->duration_ns, 40000);
    assert_int_equal(a->static_smem_bytes, 2048);
    assert_float_equal(a->sm_intensity, 0.805, 1e-9);
    assert_float_equal(a->mem_intensity, 0.125, 1e-9);
    assert_int_equal(b->block[1], 2);
    assert_int_equal(b->dynamic_smem_bytes, 4096);
    assert_int_equal(b->regs_per_thread, 64);
    assert_int_equal(p->ops[1].stream, 1);
    assert_string_equal(sc->gpu, "v100"); /* CC 7.0 */
}

/* ncu with a timeline: the trace kernel of the same base name and order
 * takes ncu's intensities; its own launch configuration stays. */
static void test_ncu_enriches_a_timeline(void **state)
{
    (void)state;
    char *paths[] = {DATA "nsys_gpu_trace_2024.csv", DATA "ncu_2023.csv"};
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import_n(paths, 2, US(3), &rep);
    assert_string_equal(sc->format, "nsys-csv+ncu");
    assert_int_equal(sc->processes->len, 1);
    const SimKernelSpec *k = &proc(sc, 0)->ops[2].u.kernel;
    assert_string_equal(k->name, "void kern<float>(float*, int)");
    assert_float_equal(k->sm_intensity, 0.20, 1e-9);
    assert_float_equal(k->mem_intensity, 0.555, 1e-9);
    assert_int_equal(k->regs_per_thread, 40);
    assert_int_equal(k->smem_config_bytes, 164 * 1024);
    assert_int_equal(k->duration_ns, 3000); /* the timeline's, not ncu's */
    assert_int_equal(rep->ncu_matched, 1);
    assert_int_equal(rep->ncu_unmatched, 0);
    assert_int_equal(rep->ncu_unused, 1); /* kernelB is not in the trace */
    assert_true(rep->timed);
}

/* A trace kernel carries its launch configuration; what ncu adds comes
 * from the matched record, intensities only where measured (a pipe share
 * only beside an issue share), and nothing at all without a record. */
static void test_trace_kernel_spec_from_ncu_record(void **state)
{
    (void)state;
    SimNcuKernel n;
    memset(&n, 0, sizeof n);
    n.duration_ns = 4200;
    n.smem_config = 100 * 1024;
    n.mem_intensity = 0.25;
    n.sm_pipe_share = 0.5; /* no issue share: not applied */
    SimTraceKernel t = {.name = "k",
                        .grid = {4, 2, 1},
                        .block = {128, 1, 1},
                        .regs_per_thread = 40,
                        .static_smem_bytes = 1024,
                        .dynamic_smem_bytes = 2048};
    SimKernelSpec k;
    sim_trace_kernel_spec(&t, &k);
    assert_string_equal(k.name, "k");
    assert_int_equal(k.grid[0] * k.grid[1] * k.grid[2], 8);
    assert_int_equal(k.block[0], 128);
    assert_int_equal(k.regs_per_thread, 40);
    assert_int_equal(k.static_smem_bytes + k.dynamic_smem_bytes, 3072);
    assert_int_equal(k.duration_ns, 0);
    assert_int_equal(k.smem_config_bytes, 0);
    assert_true(k.mem_intensity == 0 && k.sm_intensity == 0);
    t.ncu = &n;
    sim_trace_kernel_spec(&t, &k);
    assert_int_equal(k.duration_ns, 4200);
    assert_int_equal(k.smem_config_bytes, 100 * 1024);
    assert_float_equal(k.mem_intensity, 0.25, 0);
    assert_true(k.sm_intensity == 0 && k.sm_pipe_share == 0);
    n.sm_intensity = 0.75;
    sim_trace_kernel_spec(&t, &k);
    assert_float_equal(k.sm_intensity, 0.75, 0);
    assert_float_equal(k.sm_pipe_share, 0.5, 0);
    assert_int_equal(k.regs_per_thread, 40); /* the trace's own stays */
}

/* Nsight Compute 2025 (the H100 recording, traces/measured/h100/ncu/) ends
 * rows a rule did not fire for after "Metric Value": fewer fields than the
 * header's trailing rule columns, which must not read as truncation.  Its 60
 * records cover the first 60 kernels of the profiled PyTorch trace. */
static void test_ncu_2025_rows_without_rule_columns(void **state)
{
    (void)state;
    char *paths[] = {
        HQSIM_SOURCE_DIR
        "/traces/measured/h100/pytorch/torch_profile_trace.json.gz",
        HQSIM_SOURCE_DIR "/traces/measured/h100/ncu/ncu_torch.csv"};
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import_n(paths, 2, US(3), &rep);
    assert_string_equal(sc->format, "kineto+ncu");
    assert_int_equal(rep->ncu_matched, 60);
    assert_int_equal(rep->ncu_unused, 0);
    /* The first kernel, nchwToNhwcKernel <<<(1568,1,8),256>>>: ncu (sections
     * LaunchStats and Occupancy, so no intensity) confirms its 32 registers
     * and says its 4224 bytes of shared memory are all static. */
    const SimProcessSpec *p = proc(sc, 0);
    const SimKernelSpec *k = NULL;
    for (uint32_t i = 0; i < p->n_ops && !k; i++)
        if (p->ops[i].kind == SIM_OP_KERNEL)
            k = &p->ops[i].u.kernel;
    assert_non_null(k);
    assert_non_null(strstr(k->name, "nchwToNhwcKernel"));
    assert_int_equal(k->block[0], 256);
    assert_int_equal(k->grid[0], 1568);
    assert_int_equal(k->grid[2], 8);
    assert_int_equal(k->regs_per_thread, 32);
    assert_int_equal(k->static_smem_bytes, 4224);
    assert_int_equal(k->dynamic_smem_bytes, 0);
    /* the driver's configuration, 102,400 bytes (hqsim's rule: 8 blocks x
     * 5,248 bytes -> 64 KiB; FINDINGS.md §28) */
    assert_int_equal(k->smem_config_bytes, 100 * 1024);
}

/* The H100 DNN kernels alone (traces/measured/h100/dnn/ncu.csv.gz, sections
 * SpeedOfLight and ComputeWorkloadAnalysis): "Compute (SM) Throughput" is
 * the kernel's sm_pipe_share beside its "Issue Slots Busy" sm_intensity,
 * so the engine's pipe rule (FINDINGS.md section 20: above 1.1 x the issue
 * share the kernel is bound on another pipe) sees the tensor-core kernels
 * as validate's pipe_pct column shows them. */
static void test_ncu_h100_pipe_share(void **state)
{
    (void)state;
    g_autoptr(SimScenario) sc = import1(
        HQSIM_SOURCE_DIR "/traces/measured/h100/dnn/ncu.csv.gz", US(3), NULL);
    const SimProcessSpec *p = proc(sc, 0);
    assert_int_equal(p->n_ops, 9);
    static const struct {
        uint32_t op;
        const char *name;
        double issue, pipe;
    } want[] = {
        {0, "void at::vectorized_elementwise_kernel", 0.0329, 0.0388},
        {1, "sm90_xmma_fprop_implicit_gemm", 0.2351, 0.7380},
        {4, "nvjet_sm90_tst_64x64", 0.1761, 0.4452},
        {5, "nvjet_sm90_hsh_256x128", 0.1134, 0.9016},
        {6, "void cutlass::Kernel2<cutlass_80_simt_sgemm", 0.8457, 0.8457},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        const SimKernelSpec *k = &p->ops[want[i].op].u.kernel;
        assert_true(g_str_has_prefix(k->name, want[i].name));
        assert_float_equal(k->sm_intensity, want[i].issue, 1e-9);
        assert_float_equal(k->sm_pipe_share, want[i].pipe, 1e-9);
    }
    /* With the trace they were recorded in, the trace's kernels take the
     * pair (import/workload.c): the first convolution of the together run. */
    char *paths[] = {HQSIM_SOURCE_DIR
                     "/traces/measured/h100/dnn/kineto/together_trace.json.gz",
                     HQSIM_SOURCE_DIR "/traces/measured/h100/dnn/ncu.csv.gz"};
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) tr = import_n(paths, 2, US(3), &rep);
    assert_int_equal(rep->ncu_matched, 9);
    const SimKernelSpec *conv = NULL;
    p = proc(tr, 0);
    for (uint32_t i = 0; i < p->n_ops && !conv; i++)
        if (p->ops[i].kind == SIM_OP_KERNEL &&
            g_str_has_prefix(p->ops[i].u.kernel.name,
                             "sm90_xmma_fprop_implicit_gemm"))
            conv = &p->ops[i].u.kernel;
    assert_non_null(conv);
    assert_float_equal(conv->sm_intensity, 0.2351, 1e-9);
    assert_float_equal(conv->sm_pipe_share, 0.7380, 1e-9);
}

/* The L2-served share of a kernel's loads (FINDINGS §69): 1 - DRAM read
 * bytes / (L2 read sectors from the SMs x 32 B), from the two metrics
 * harness/l2_ncu.py merged into the serving table's ncu files (encoder b1,
 * H200 measurement): its first GEMM 1 - 2,632,960 / (487,403 x 32); a
 * kernel with no L2 reads from the SMs has none (the model's default). */
static const SimKernelSpec *first_kernel(const SimProcessSpec *p,
                                         const char *prefix)
{
    for (uint32_t i = 0; i < p->n_ops; i++) {
        const SimOp *op = &p->ops[i];
        if (op->kind == SIM_OP_KERNEL &&
            g_str_has_prefix(op->u.kernel.name, prefix))
            return &op->u.kernel;
        if (op->kind != SIM_OP_GRAPH)
            continue;
        for (uint32_t j = 0; j < op->u.graph->n_nodes; j++) {
            const SimOp *n = &op->u.graph->nodes[j].op;
            if (n->kind == SIM_OP_KERNEL &&
                g_str_has_prefix(n->u.kernel.name, prefix))
                return &n->u.kernel;
        }
    }
    return NULL;
}

static void test_ncu_l2_served(void **state)
{
    (void)state;
    char *paths[] = {
        HQSIM_SOURCE_DIR
        "/traces/measured/h100/launch/kineto/encoder_b1_graph.json.gz",
        HQSIM_SOURCE_DIR
        "/traces/measured/h100/openloop/ncu/encoder_b1_graph.csv.gz"};
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import_n(paths, 2, US(3), &rep);
    const SimProcessSpec *p = proc(sc, 0);
    const SimKernelSpec *gemm = first_kernel(p, "sm80_xmma_gemm_f32f32");
    assert_non_null(gemm);
    assert_true(gemm->has_l2_served);
    assert_float_equal(gemm->l2_served, 1.0 - 2632960.0 / (487403.0 * 32),
                       1e-12);
    const SimKernelSpec *scal = first_kernel(p, "void scal_kernel");
    assert_non_null(scal);
    assert_false(scal->has_l2_served);
}

/* ------------------------------------------------------------------------
 * Kineto
 * ------------------------------------------------------------------------ */

/* kineto_2024.json, us after T, L = 2 us (the API call [a, b], the GPU
 * execution [s, e]):
 *   memcpy HtoD pinned s7   api [0,5]   run [3,13]   issue min(5, 3) = 3
 *   kA                 s7   api [6,10]  run [15,35]  issue min(10, 13) = 10
 *   cudaEventRecord    (on s7, named by the wait below)   api [11,13]
 *   Stream Wait Event  s20  api [14,16]  waits for that record
 *   kB                 s20  api [17,20] run [37,47]  issue 20
 *   memcpy DtoH pageable s20 api [21,24] run [47,52]: the call returned
 *                       before the copy: imported as pinned, issue 24
 *   Stream Sync        s20  api [25,53]: the host waits until 52
 *   cudaEventQuery     (an "Event Sync" record): does not block, skipped
 *   memset             s7   api [60,62] run [62,64]  issue 62
 *   Context Sync            api [66,67]
 * Each op: a gap to its API call, then the call up to the issue. */
static void test_kineto_2024_program(void **state)
{
    (void)state;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import1(DATA "kineto_2024.json", US(2), &rep);
    assert_string_equal(sc->format, "kineto");
    assert_string_equal(sc->gpu, "a100");
    const SimProcessSpec *p = proc(sc, 0);
    assert_string_equal(p->name, "python3[100]");
    g_autofree char *k = kinds(p);
    assert_string_equal(k, "CGKGRGWGKGCGSGCGD");
    static const SimTime api[] = {3, 0, 4, 0, 2, 0, 2, 0, 3,
                                  0, 3, 0, 0, 0, 2, 0, 0};
    static const SimTime gap[] = {0, 3, 0, 1, 0, 1, 0, 1, 0,
                                  1, 0, 1, 0, 8, 0, 4, 0};
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (p->ops[i].kind == SIM_OP_HOST_GAP)
            assert_int_equal(p->ops[i].u.gap_ns, US(gap[i]));
        else
            assert_int_equal(p->ops[i].api_ns, US(api[i]));
    }
    assert_int_equal(p->n_streams, 2);
    assert_string_equal(p->streams[0].name, "stream 7");
    assert_string_equal(p->streams[1].name, "stream 20");
    assert_int_equal(p->n_events, 1);
    assert_int_equal(p->ops[4].stream, 0); /* the record: on stream 7 */
    assert_int_equal(p->ops[6].stream, 1); /* the wait: on stream 20 */
    assert_int_equal(p->ops[6].event, p->ops[4].event);
    assert_true(p->ops[10].u.copy.pinned);  /* staged pageable copy */
    assert_int_equal(p->ops[12].stream, 1); /* stream sync of stream 20 */
    assert_int_equal(p->ops[14].u.copy.dir, SIM_COPY_D2D); /* memset */
    const SimKernelSpec *ka = &p->ops[2].u.kernel;
    assert_int_equal(ka->regs_per_thread, 16);
    assert_int_equal(ka->static_smem_bytes, 1024);
    assert_int_equal(p->ops[8].u.kernel.regs_per_thread, 32); /* 0: unknown */
    assert_int_equal(rep->procs[0].n_syncs, 3);
    assert_int_equal(rep->procs[0].n_late, 0);
    assert_int_equal(rep->span_ns, US(61)); /* 3 .. 64 */
}

/* The program above replays the recorded timeline exactly on a GPU with the
 * same launch latency. */
static void test_kineto_2024_identity_replay(void **state)
{
    (void)state;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import1(DATA "kineto_2024.json", US(2), &rep);
    g_autoptr(GpuModel) m = test_model(8);
    m->kernel_launch_latency_ns = US(2);
    g_autoptr(SimResult) r = test_run(m, sc, SIM_SHARE_AS_SCENARIO);
    assert_non_null(r);
    uint32_t checked = 0;
    for (uint32_t i = 0; i < proc(sc, 0)->n_ops; i++) {
        if (rep->procs[0].rec_start_ns[i] == SIM_TIME_NEVER)
            continue;
        const SimOpRecord *o = test_op(r, 0, i);
        assert_non_null(o);
        assert_int_equal(o->start_ns, rep->procs[0].rec_start_ns[i]);
        assert_int_equal(o->end_ns, rep->procs[0].rec_end_ns[i]);
        checked++;
    }
    assert_int_equal(checked, 5);
}

/* 2021 spelling: "Kernel"/"Memcpy"/"Memset"/"Runtime", "tid": "stream 7",
 * no cuda_sync: cudaStreamSynchronize syncs the stream last used. */
static void test_kineto_2021_spelling(void **state)
{
    (void)state;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import1(DATA "kineto_2021.json", US(2), &rep);
    const SimProcessSpec *p = proc(sc, 0);
    g_autofree char *k = kinds(p);
    assert_string_equal(k, "KGCGSGC");
    assert_string_equal(p->ops[0].u.kernel.name, "volta_sgemm_128x64_nn");
    assert_int_equal(p->ops[0].u.kernel.grid[0], 3136);
    assert_int_equal(p->ops[0].u.kernel.static_smem_bytes, 16384);
    assert_int_equal(p->ops[4].stream, 0);
    assert_string_equal(p->streams[0].name, "stream 7");
    assert_string_equal(sc->gpu, "v100");
    bool guessed = false;
    for (char **n = rep->notes; *n; n++)
        guessed = guessed || contains(*n, "1 stream syncs without a "
                                          "recorded stream");
    assert_true(guessed);
}

/* Two host pids in one file: two processes, offsets kept (same clock). */
static void test_kineto_two_pids_two_processes(void **state)
{
    (void)state;
    g_autoptr(SimScenario) sc = import1(DATA "kineto_2pid.json", US(2), NULL);
    assert_int_equal(sc->processes->len, 2);
    assert_string_equal(proc(sc, 0)->name, "pid[11]");
    assert_string_equal(proc(sc, 1)->name, "worker[22]");
    assert_int_equal(proc(sc, 0)->start_ns, 0);
    assert_int_equal(proc(sc, 1)->start_ns, US(1));
    assert_string_equal(proc(sc, 1)->ops[0].u.kernel.name, "b");
}

/* A Kineto file on the Unix-epoch clock: process @pid launches one kernel
 * at @ts_us that runs 5-15 us later. */
static char *write_kineto_at(const char *dir, const char *name, int pid,
                             int64_t ts_us)
{
    char *path = g_build_filename(dir, name, NULL);
    g_autofree char *text = g_strdup_printf(
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cuda_runtime\", "
        "\"name\": \"cudaLaunchKernel\", \"pid\": %d, \"tid\": %d, \"ts\": "
        "%" PRId64 ", \"dur\": 2, \"args\": {\"correlation\": 1}}, {\"ph\": "
        "\"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": "
        "7, \"ts\": %" PRId64 ", \"dur\": 10, \"args\": {\"device\": 0, "
        "\"stream\": 7, \"correlation\": 1, \"registers per thread\": 8, "
        "\"shared memory\": 0, \"grid\": [1, 1, 1], \"block\": [32, 1, "
        "1]}}]}",
        pid, pid, ts_us, ts_us + 5);
    assert_true(g_file_set_contents(path, text, -1, NULL));
    return path;
}

/* Files on absolute clocks (rule 1): a and b were recorded together (b's
 * launch, 10 us after a's, falls inside a's span) and keep their offset;
 * c was recorded 1000 s later, apart, and starts at 0 too, with a note
 * naming how far apart it was -- whatever the order the files are given
 * in.  --recorded-clocks keeps c 1000 s later. */
static void test_traces_recorded_apart_start_together(void **state)
{
    (void)state;
    g_autofree char *dir = g_dir_make_tmp("hqsim-clocks-XXXXXX", NULL);
    const int64_t t = INT64_C(1700000000000000); /* 2023, in us */
    g_autofree char *a = write_kineto_at(dir, "a.json", 11, t);
    g_autofree char *b = write_kineto_at(dir, "b.json", 22, t + 10);
    g_autofree char *c = write_kineto_at(dir, "c.json", 33, t + 1000000000);
    char *abc[] = {a, b, c}, *ca[] = {c, a};
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import_n(abc, 3, US(3), &rep);
    assert_int_equal(proc(sc, 0)->start_ns, 0);
    assert_int_equal(proc(sc, 1)->start_ns, US(10));
    assert_int_equal(proc(sc, 2)->start_ns, 0);
    g_autofree char *said = g_strdup_printf("%s was recorded 1000.000 s "
                                            "after %s",
                                            c, a);
    assert_true(contains(sc->clock_note, said));
    assert_true(contains(sc->clock_note, "--recorded-clocks keeps"));
    bool noted = false;
    for (char **n = rep->notes; *n; n++)
        noted = noted || contains(*n, said);
    assert_true(noted);

    g_autoptr(SimScenario) rev = import_n(ca, 2, US(3), NULL);
    assert_int_equal(proc(rev, 0)->start_ns, 0);
    assert_int_equal(proc(rev, 1)->start_ns, 0);
    assert_true(contains(rev->clock_note, said));

    char *ab[] = {a, b};
    g_autoptr(SimScenario) together = import_n(ab, 2, US(3), NULL);
    assert_int_equal(proc(together, 1)->start_ns, US(10));
    assert_null(together->clock_note);

    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.launch_latency_ns = US(3);
    opt.recorded_clocks = true;
    g_autoptr(SimScenario) kept =
        sim_workload_load_report(abc, 3, &opt, NULL, NULL);
    assert_non_null(kept);
    assert_int_equal(proc(kept, 1)->start_ns, US(10));
    assert_int_equal(proc(kept, 2)->start_ns, (SimTime)1000000000000);
    assert_null(kept->clock_note);
    g_unlink(a);
    g_unlink(b);
    g_unlink(c);
    g_rmdir(dir);
}

/* PyTorch's [memory] events: the process's device memory is the peak the
 * caching allocator reserved on the imported GPU (64 MiB); events of
 * another GPU (512 MiB on device 1) and of the CPU (900 MiB) do not
 * count.  Without such events the memory stays unknown (0). */
static void test_kineto_memory_events(void **state)
{
    (void)state;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import1(DATA "kineto_memory.json", US(2), &rep);
    assert_int_equal(proc(sc, 0)->device_mem_bytes, 64u << 20);
    bool noted = false;
    for (char **n = rep->notes; n && *n; n++)
        noted |= contains(*n, "device memory 64.0 MiB");
    assert_true(noted);
    g_autoptr(SimScenario) plain =
        import1(DATA "kineto_2024.json", US(2), NULL);
    assert_int_equal(proc(plain, 0)->device_mem_bytes, 0);
}

/* --process keeps processes by name, base name or pid. */
static void test_process_filter(void **state)
{
    (void)state;
    char *paths[] = {DATA "kineto_2pid.json"};
    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.launch_latency_ns = 0;
    char *by_name[] = {"worker", NULL};
    opt.processes = by_name;
    g_autoptr(GError) error = NULL;
    g_autoptr(SimScenario) a = sim_workload_load(paths, 1, &opt, &error);
    assert_non_null(a);
    assert_int_equal(a->processes->len, 1);
    assert_string_equal(proc(a, 0)->name, "worker[22]");
    assert_int_equal(proc(a, 0)->start_ns, 0);
    char *by_pid[] = {"11", NULL};
    opt.processes = by_pid;
    g_autoptr(SimScenario) b = sim_workload_load(paths, 1, &opt, &error);
    assert_non_null(b);
    assert_string_equal(proc(b, 0)->name, "pid[11]");
    char *none[] = {"nobody", NULL};
    opt.processes = none;
    SimScenario *c = sim_workload_load(paths, 1, &opt, &error);
    assert_null(c);
    assert_true(contains(error->message, "no process matches"));
}

/* ------------------------------------------------------------------------
 * Native scenarios, detection, latency, names, GPUs, summary
 * ------------------------------------------------------------------------ */

/* A written scenario reads back as "hqsim" and merges with a trace. */
static void test_native_scenario_merges_with_a_trace(void **state)
{
    (void)state;
    g_autoptr(SimScenario) sc = import1(DATA "nvprof_v20.csv", US(3), NULL);
    g_autofree char *dir = g_dir_make_tmp("hqsim-import-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "s.json", NULL);
    g_autoptr(GError) error = NULL;
    assert_true(sim_scenario_write(sc, path, &error));
    assert_string_equal(sim_import_detect(path, &error), "hqsim");
    char *paths[] = {path, DATA "kineto_2pid.json"};
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) both = import_n(paths, 2, US(3), &rep);
    assert_int_equal(both->processes->len, 3);
    assert_string_equal(proc(both, 0)->name, "demo[4242]");
    assert_int_equal(proc(both, 0)->n_ops, proc(sc, 0)->n_ops);
    assert_string_equal(both->format, "hqsim+kineto");
    assert_int_equal(rep->procs[0].n_kernels, 2);
    /* Alone, a native scenario comes back as it was written. */
    char *one[] = {path};
    g_autoptr(SimScenario) back = sim_workload_load(one, 1, NULL, &error);
    assert_non_null(back);
    assert_string_equal(back->gpu, sc->gpu);
    assert_string_equal(back->description, sc->description);
    assert_int_equal(back->seed, sc->seed);
    assert_int_equal(proc(back, 0)->n_ops, proc(sc, 0)->n_ops);
    g_remove(path);
    g_rmdir(dir);
}

/* Every bundled scenario loads through the importer exactly as through
 * the native loader (what `hqsim run` does). */
static void test_bundled_scenarios_load_unchanged(void **state)
{
    (void)state;
    const char *dir = HQSIM_SOURCE_DIR "/traces";
    GDir *d = g_dir_open(dir, 0, NULL);
    if (!d)
        skip();
    const char *name;
    int n = 0;
    while ((name = g_dir_read_name(d))) {
        if (!g_str_has_suffix(name, ".json"))
            continue;
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(SimScenario) a = sim_scenario_load(path, &error);
        if (!a)
            continue; /* not a scenario (a data file) */
        char *paths[] = {path};
        g_autoptr(SimScenario) b = sim_workload_load(paths, 1, NULL, &error);
        if (!b)
            fail_msg("%s: %s", name, error->message);
        assert_int_equal(b->processes->len, a->processes->len);
        assert_string_equal(b->format, "hqsim");
        assert_true(g_strcmp0(a->gpu, b->gpu) == 0);
        assert_true(g_strcmp0(a->description, b->description) == 0);
        assert_int_equal(a->seed, b->seed);
        g_autofree char *ja = sim_scenario_to_json(a);
        g_autofree char *jb = sim_scenario_to_json(b);
        assert_string_equal(ja, jb);
        n++;
    }
    g_dir_close(d);
    assert_true(n > 0);
}

static void test_detect_formats_from_content(void **state)
{
    (void)state;
    static const struct {
        const char *file, *format;
    } cases[] = {
        {"nvprof_v20.csv", "nvprof"},
        {"nvprof_um.csv", "nvprof"},
        {"nvprof_peer.csv", "nvprof"},
        {"nsys_gpu_trace_2024.csv", "nsys-csv"},
        {"nsys_gpu_trace_2022.csv", "nsys-csv"},
        {"ncu_2023.csv", "ncu"},
        {"ncu_raw.csv", "ncu"},
        {"kineto_2024.json", "kineto"},
        {"kineto_2021.json", "kineto"},
        {"bad/nvprof_metrics.csv", "nvprof"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path = g_strconcat(DATA, cases[i].file, NULL);
        g_autoptr(GError) error = NULL;
        const char *f = sim_import_detect(path, &error);
        if (!f)
            fail_msg("%s: %s", cases[i].file, error->message);
        assert_string_equal(f, cases[i].format);
    }
}

/* Without a latency in the options, the GPU model's is used. */
static void test_launch_latency_comes_from_the_model(void **state)
{
    (void)state;
    g_autoptr(GError) error = NULL;
    g_autoptr(GpuModel) m = sim_gpu_model_find("v100", NULL, &error);
    if (!m)
        fail_msg("%s", error->message);
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc =
        import1(DATA "nvprof_v20.csv", SIM_TIME_NEVER, &rep);
    /* L = submit latency + kernel launch latency of the model */
    SimTime L = m->submit_latency_ns + m->kernel_launch_latency_ns;
    assert_int_equal(rep->launch_latency_ns, L);
    /* The kernel at 200 us is issued L before it; the copy before it, 40 us
     * earlier, was issued its own latency (the submit latency) before its
     * start: the gap between them is 40 us - L + submit. */
    assert_int_equal(proc(sc, 0)->ops[3].u.gap_ns,
                     US(40) - L + m->submit_latency_ns);
}

static void test_kernel_base_names(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"void ns::k<int=1>(float*) [7]", "k"},
        {"cuda_compute_step_factor(int, float*, float*, float*)",
         "cuda_compute_step_factor"},
        {"cuda_compute_step_factor", "cuda_compute_step_factor"},
        {"void reduce6<int, unsigned int=256, bool=1>(int*, int*, unsigned "
         "int) [1098]",
         "reduce6"},
        {"void at::native::(anonymous namespace)::distribution_kernel<float, "
         "4, at::native::F<float>(at::T&)::{lambda()#1}>(long, int)",
         "distribution_kernel"},
        {"ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn"},
        {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_"
         "align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4::"
         "Params)",
         "Kernel"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *b = sim_trace_kernel_base_name(cases[i][0]);
        assert_string_equal(b, cases[i][1]);
    }
}

static void test_gpu_names_map_to_models(void **state)
{
    (void)state;
    static const struct {
        const char *gpu;
        const char *model;
        bool exact;
    } cases[] = {
        {"NVIDIA H100 80GB HBM3", "h100-sxm", true},
        {"NVIDIA H100 PCIe", "h100-sxm", false},
        {"NVIDIA H200", "h200", true},
        {"NVIDIA A100-SXM4-40GB", "a100", true},
        {"NVIDIA A100-PG509-200", "a100", true},
        {"NVIDIA A10G", "a100", false},
        {"NVIDIA GeForce RTX 3090", "a100", false},
        {"NVIDIA L4", "l4", true},
        {"NVIDIA L40S", "l4", false},
        {"NVIDIA RTX 2000 Ada Generation", "rtx2000-ada", true},
        {"NVIDIA GeForce RTX 4090", "rtx2000-ada", false},
        {"Tesla T4", "t4", true},
        {"NVIDIA GeForce RTX 2080 Ti", "t4", false},
        {"Tesla V100-SXM2-16GB", "v100", true},
        {"Tesla V100-DGXS-32GB", "v100", true},
        {"NVIDIA TITAN V", "titan-v", true},
        {"Tesla P100-SXM2-16GB", "p100", true},
        {"Tesla P40", "p40", true},
        {"Tesla P4", "p40", false},
        {"GeForce GTX 1080 Ti", "p40", false},
        {"TITAN Xp", "p40", false},
        {"GeForce GTX 950", "p40", false},
        {"GeForce GTX 750 Ti", "p40", false},
        {"Tesla K40c", "k40", false},
        {"Tesla K80", "k40", false},
        {"NVIDIA B200", "h200", false},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        const char *gen = NULL;
        const char *m = sim_import_gpu_model_for(cases[i].gpu, 0, 0, &gen);
        if (!m || strcmp(m, cases[i].model) || (gen == NULL) != cases[i].exact)
            fail_msg("'%s' -> %s (%s), expected %s", cases[i].gpu,
                     m ? m : "NULL", gen ? gen : "exact", cases[i].model);
    }
    /* Unknown name: the compute capability decides. */
    const char *gen = NULL;
    assert_string_equal(sim_import_gpu_model_for("Mystery GPU", 7, 5, &gen),
                        "t4");
    assert_non_null(gen);
    assert_string_equal(sim_import_gpu_model_for(NULL, 9, 0, NULL), "h100-sxm");
    assert_null(sim_import_gpu_model_for(NULL, 0, 0, NULL));
}

static void test_summary_names_counts_and_span(void **state)
{
    (void)state;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc = import1(DATA "nvprof_v20.csv", US(3), &rep);
    g_autofree char *s = sim_import_report_summary(rep);
    assert_true(contains(s, "(nvprof)"));
    assert_true(contains(s, "1 process,"));
    assert_true(contains(s, "2 streams"));
    assert_true(contains(s, "2 kernels"));
    assert_true(contains(s, "2 copies"));
    assert_true(contains(s, "1 memset"));
    assert_true(contains(s, "recorded span 250.000 us"));
    assert_true(contains(s, "Tesla V100-SXM2-16GB"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvprof_v20_program),
        cmocka_unit_test(test_kineto_memory_events),
        cmocka_unit_test(test_nvprof_v20_identity_replay),
        cmocka_unit_test(test_nvprof_skips_unified_memory_rows),
        cmocka_unit_test(test_nvprof_peer_columns),
        cmocka_unit_test(test_nvprof_two_files_two_processes),
        cmocka_unit_test(test_window_keeps_ops_that_start_in_it),
        cmocka_unit_test(test_nsys_csv_2024),
        cmocka_unit_test(test_nsys_csv_2022_unsorted),
        cmocka_unit_test(test_ncu_long_alone),
        cmocka_unit_test(test_ncu_raw_alone),
        cmocka_unit_test(test_ncu_enriches_a_timeline),
        cmocka_unit_test(test_trace_kernel_spec_from_ncu_record),
        cmocka_unit_test(test_ncu_2025_rows_without_rule_columns),
        cmocka_unit_test(test_ncu_h100_pipe_share),
        cmocka_unit_test(test_ncu_l2_served),
        cmocka_unit_test(test_kineto_2024_program),
        cmocka_unit_test(test_kineto_2024_identity_replay),
        cmocka_unit_test(test_kineto_2021_spelling),
        cmocka_unit_test(test_kineto_two_pids_two_processes),
        cmocka_unit_test(test_traces_recorded_apart_start_together),
        cmocka_unit_test(test_process_filter),
        cmocka_unit_test(test_native_scenario_merges_with_a_trace),
        cmocka_unit_test(test_bundled_scenarios_load_unchanged),
        cmocka_unit_test(test_detect_formats_from_content),
        cmocka_unit_test(test_launch_latency_comes_from_the_model),
        cmocka_unit_test(test_kernel_base_names),
        cmocka_unit_test(test_gpu_names_map_to_models),
        cmocka_unit_test(test_summary_names_counts_and_span),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
