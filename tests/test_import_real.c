/* test_import_real.c -- every real profiler export in ../shared/traces/
 * (provenance in its SOURCES.md): the detected format and exact counts.
 *
 * The expected numbers were established independently of hqsim, not by
 * running it: nvprof CSVs with Python's csv module (units row applied),
 * SQLite exports with the sqlite3 shell (SELECT count(*) ..., the first
 * kernel ORDER BY start), Kineto files with `zcat | python3 -c 'json...'`
 * (events by category, ts/dur in us); the recorded span is the last GPU
 * op's end minus the first one's start.  Files 5 and 9 have no licence:
 * they are read in place, never copied.  Every test skips when the traces
 * are not there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../import/import.h"
#include "error.h"

#define TRACES HQSIM_SOURCE_DIR "/../shared/traces/"

typedef struct {
    const char *name;
    const char *gpu; /* expected model, NULL for none */
    uint32_t procs, streams, kernels, copies, memsets, syncs;
    SimTime span_ns;
    /* the first kernel */
    const char *k_name;
    uint32_t grid[3], block[3], regs;
    SimTime k_dur_ns;
    uint32_t smem_static, smem_dynamic;
} Expect;

/* skip() jumps out of the test: call it before allocating anything. */
static void need(const char *rel)
{
    char p[1024];
    snprintf(p, sizeof p, "%s%s", TRACES, rel);
    if (!g_file_test(p, G_FILE_TEST_EXISTS)) {
        print_message("skipping: %s is not there\n", p);
        skip();
    }
}

static char *trace_path(const char *rel)
{
    need(rel);
    return g_strconcat(TRACES, rel, NULL);
}

static const SimOp *first_kernel(const SimProcessSpec *p)
{
    for (uint32_t i = 0; i < p->n_ops; i++)
        if (p->ops[i].kind == SIM_OP_KERNEL &&
            strcmp(p->ops[i].u.kernel.name, "[CUDA memset]") != 0)
            return &p->ops[i];
    return NULL;
}

/* Import @rel (one or two files) and compare with @e. */
static void check(const char *const *rels, int n, const char *format,
                  const Expect *e)
{
    char *paths[4] = {NULL, NULL, NULL, NULL};
    g_assert(n >= 1 && n <= 4);
    for (int i = 0; i < n; i++)
        need(rels[i]);
    for (int i = 0; i < n; i++) {
        paths[i] = trace_path(rels[i]);
        g_autoptr(GError) error = NULL;
        const char *f = sim_import_detect(paths[i], &error);
        if (!f)
            fail_msg("%s: %s", rels[i], error->message);
        if (i == 0)
            assert_string_equal(f, format);
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc =
        sim_workload_load_report(paths, n, NULL, &rep, &error);
    for (int i = 0; i < n; i++)
        g_free(paths[i]);
    if (!sc)
        fail_msg("%s: %s", e->name, error->message);
    assert_int_equal(sc->processes->len, e->procs);
    uint32_t streams = 0, kernels = 0, copies = 0, memsets = 0, syncs = 0;
    for (uint32_t i = 0; i < rep->n_procs; i++) {
        streams += rep->procs[i].n_streams;
        kernels += rep->procs[i].n_kernels;
        copies += rep->procs[i].n_copies;
        memsets += rep->procs[i].n_memsets;
        syncs += rep->procs[i].n_syncs;
    }
    assert_int_equal(streams, e->streams);
    assert_int_equal(kernels, e->kernels);
    assert_int_equal(copies, e->copies);
    assert_int_equal(memsets, e->memsets);
    assert_int_equal(syncs, e->syncs);
    assert_int_equal(rep->span_ns, e->span_ns);
    if (e->gpu)
        assert_string_equal(sc->gpu, e->gpu);
    else
        assert_null(sc->gpu);
    /* The scenario holds what the report counts. */
    uint32_t k_ops = 0, c_ops = 0;
    for (guint i = 0; i < sc->processes->len; i++) {
        const SimProcessSpec *p = g_ptr_array_index(sc->processes, i);
        for (uint32_t j = 0; j < p->n_ops; j++) {
            k_ops += p->ops[j].kind == SIM_OP_KERNEL;
            c_ops += p->ops[j].kind == SIM_OP_COPY;
        }
    }
    assert_int_equal(k_ops, e->kernels);
    assert_int_equal(c_ops, e->copies + e->memsets);
    const SimOp *k = first_kernel(g_ptr_array_index(sc->processes, 0));
    assert_non_null(k);
    if (strncmp(k->u.kernel.name, e->k_name, strlen(e->k_name)) != 0)
        fail_msg("first kernel '%.80s', expected '%s'", k->u.kernel.name,
                 e->k_name);
    for (int d = 0; d < 3; d++) {
        assert_int_equal(k->u.kernel.grid[d], e->grid[d]);
        assert_int_equal(k->u.kernel.block[d], e->block[d]);
    }
    assert_int_equal(k->u.kernel.regs_per_thread, e->regs);
    assert_int_equal(k->u.kernel.duration_ns, e->k_dur_ns);
    assert_int_equal(k->u.kernel.static_smem_bytes, e->smem_static);
    assert_int_equal(k->u.kernel.dynamic_smem_bytes, e->smem_dynamic);
    assert_true(sim_scenario_validate(sc, &error));
}

static void check1(const char *rel, const char *format, const Expect *e)
{
    const char *rels[] = {rel};
    check(rels, 1, format, e);
}

/* ------------------------------------------------------------------------ */

static void test_real_nvprof_gtx950_cke_2stream(void **state)
{
    (void)state;
    /* 8 rows: 2 kernels, 6 memcpy on streams 13, 14; units ms,us and
     * Static SMem in KB (8.000000 KB = 8192 B); the "[223]" suffix is the
     * correlation id, not part of the name. */
    Expect e = {"cke-2stream",
                "p40",
                1,
                2,
                2,
                6,
                0,
                0,
                201921,
                "void matrixMulCUDA<int=32>(float*, float*, float*, int, int)",
                {6, 6, 1},
                {32, 32, 1},
                28,
                59264,
                8192,
                0};
    check1("nvprof-gtx950-cke-2stream/trace.csv", "nvprof", &e);
}

static void test_real_nvprof_gtx950_3stream(void **state)
{
    (void)state;
    Expect e = {"3stream",
                "p40",
                1,
                3,
                3,
                9,
                0,
                0,
                53626318,
                "kernel_vectorAdd(float const *, float const *, int, int, "
                "float*, unsigned int*, unsigned int*, double*, double*)",
                {19532, 1, 1},
                {256, 1, 1},
                28,
                11958813,
                0,
                0};
    check1("nvprof-gtx950-3stream/trace_s3_5m.csv", "nvprof", &e);
}

static void test_real_nvprof_gtx1080ti_sobol(void **state)
{
    (void)state;
    Expect e = {"sobol",
                "p40",
                1,
                1,
                1,
                2,
                0,
                0,
                97623588,
                "sobolGPU_kernel(unsigned int, unsigned int, unsigned int*, "
                "float*)",
                {128, 100, 1},
                {64, 1, 1},
                19,
                102402,
                128,
                0};
    check1("nvprof-gtx1080ti-2proc/gputrace_sobol_reduction_10.csv", "nvprof",
           &e);
}

static void test_real_nvprof_gtx1080ti_reduction(void **state)
{
    (void)state;
    /* Start in seconds, durations in scientific notation, Dynamic SMem in
     * KB (1.000000 = 1024 B), two warning lines, 100 memsets. */
    Expect e = {"reduction",
                "p40",
                1,
                1,
                201,
                100,
                100,
                0,
                343878512,
                "void reduce6<int, unsigned int=256, bool=1>(int*, int*, "
                "unsigned int)",
                {64, 1, 1},
                {256, 1, 1},
                10,
                200707,
                0,
                1024};
    check1("nvprof-gtx1080ti-2proc/gputrace_sobol_reduction_01.csv", "nvprof",
           &e);
}

static void test_real_nvprof_two_processes(void **state)
{
    (void)state;
    /* Two files, two processes, each from time 0: the span is the longer
     * one's.  The first kernel is the first process's (Sobol). */
    const char *rels[] = {
        "nvprof-gtx1080ti-2proc/gputrace_sobol_reduction_10.csv",
        "nvprof-gtx1080ti-2proc/gputrace_sobol_reduction_01.csv"};
    Expect e = {"2proc",
                "p40",
                2,
                2,
                202,
                102,
                100,
                0,
                343878512,
                "sobolGPU_kernel",
                {128, 100, 1},
                {64, 1, 1},
                19,
                102402,
                128,
                0};
    check(rels, 2, "nvprof", &e);
}

static void test_real_nvprof_gtx1080ti_cusparse(void **state)
{
    (void)state;
    /* Throughput in MB/s; 2-D blocks; static and dynamic shared memory. */
    Expect e = {"cusparse",
                "p40",
                1,
                1,
                75,
                24,
                0,
                0,
                111318618,
                "void csrMv_kernel<float, float, float, int=128, int=1, "
                "int=2>(cusparseCsrMvParams<float, float, float>)",
                {32768, 1, 1},
                {4, 32, 1},
                19,
                142788,
                528,
                256};
    check1("nvprof-gtx1080ti-cusparse/conjugateGradient_trace.csv", "nvprof",
           &e);
}

static void test_real_nvprof_titanxp_unified_memory(void **state)
{
    (void)state;
    /* 16 238 rows: 14 003 kernels, 2 005 memcpy, 1 memset, 229 unified-
     * memory rows skipped. */
    Expect e = {"titanxp-um",
                "p40",
                1,
                1,
                14003,
                2005,
                1,
                0,
                1083293721,
                "cuda_initialize_variables(int, float*)",
                {506, 1, 1},
                {192, 1, 1},
                16,
                287308,
                0,
                0};
    check1("nvprof-titanxp-um/print-gpu-trace.csv", "nvprof", &e);
    g_autofree char *p = trace_path("nvprof-titanxp-um/print-gpu-trace.csv");
    char *paths[] = {p};
    g_autoptr(GError) error = NULL;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc =
        sim_workload_load_report(paths, 1, NULL, &rep, &error);
    assert_non_null(sc);
    assert_int_equal(rep->n_skipped, 229);
}

static void test_real_nsys_sqlite_saxpy_old_schema(void **state)
{
    (void)state;
    /* Schema 2.9.1 (no ENUM tables): 5 kernels, 15 pageable memcpy
     * (cudaMemcpy) on stream 7; TARGET_INFO_CUDA_STREAM declares 7
     * streams of pid 1230493. */
    Expect e = {"saxpy",    "a100",
                1,          7,
                5,          15,
                0,          0,
                1097327843, "saxpy(double *, double *, double *, double, int)",
                {2, 1, 1},  {512, 1, 1},
                26,         17704808,
                0,          0};
    check1("nsys-sqlite-a100-saxpy-mpi/"
           "saxpy-mpi-cuda_nsys_perlmutter0.sqlite",
           "nsys-sqlite", &e);
}

static void test_real_nsys_sqlite_cloverleaf_new_schema(void **state)
{
    (void)state;
    /* Schema 3.13.2: 1 312 kernels, 279 memcpy, 1 312 cudaDeviceSynchronize
     * (SYNCHRONIZATION rows), 10 declared streams, one of priority -5. */
    Expect e = {"cloverleaf",
                "a100",
                1,
                10,
                1312,
                279,
                0,
                1312,
                342407810,
                "void clover::par_ranged2d_kernel<build_field(",
                {115426, 1, 1},
                {256, 1, 1},
                32,
                1367644,
                0,
                0};
    check1("nsys-sqlite-a100-cloverleaf/perlmutter-cloverleaf-cuda.sqlite",
           "nsys-sqlite", &e);
    g_autofree char *p = trace_path(
        "nsys-sqlite-a100-cloverleaf/perlmutter-cloverleaf-cuda.sqlite");
    char *paths[] = {p};
    g_autoptr(GError) error = NULL;
    g_autoptr(SimScenario) sc = sim_workload_load(paths, 1, NULL, &error);
    const SimProcessSpec *pr = g_ptr_array_index(sc->processes, 0);
    assert_string_equal(pr->name, "cuda-cloverleaf[1701896]");
    int neg = 0;
    for (uint32_t i = 0; i < pr->n_streams; i++)
        neg += pr->streams[i].priority == -5;
    assert_int_equal(neg, 1);
    assert_string_equal(pr->streams[0].name, "stream 6"); /* by id */
}

static void test_real_nsys_csv_nvtx_is_refused(void **state)
{
    (void)state;
    g_autofree char *p = trace_path("nsys-csv-nvtx-nbody/trace.csv");
    g_autoptr(GError) error = NULL;
    assert_string_equal(sim_import_detect(p, &error), "nsys-csv");
    char *paths[] = {p};
    SimScenario *sc = sim_workload_load(paths, 1, NULL, &error);
    assert_null(sc);
    assert_int_equal(error->code, SIM_ERROR_UNSUPPORTED);
    assert_non_null(strstr(error->message, "not the cuda_gpu_trace report"));
}

static void test_real_ncu_v100_cfd_alone(void **state)
{
    (void)state;
    /* 5 200 metric rows = 100 launches (IDs 0-99); no GPU name or CC. */
    Expect e = {"ncu-cfd",   NULL,
                1,           1,
                100,         0,
                0,           0,
                0,           "cuda_compute_step_factor",
                {506, 1, 1}, {192, 1, 1},
                20,          10720,
                0,           0};
    check1("ncu-v100-cfd/nsight_cfd_097K.log", "ncu", &e);
    g_autofree char *p = trace_path("ncu-v100-cfd/nsight_cfd_097K.log");
    char *paths[] = {p};
    g_autoptr(GError) error = NULL;
    g_autoptr(SimScenario) sc = sim_workload_load(paths, 1, NULL, &error);
    const SimProcessSpec *pr = g_ptr_array_index(sc->processes, 0);
    assert_string_equal(pr->name, "cfd_000[110830]");
    /* Issue Slots Busy 26.96 %, SOL FB 40.07 %; SM [%] 18.70 (elapsed
     * cycles, under the issue share: not bound on another pipe). */
    assert_float_equal(pr->ops[0].u.kernel.sm_intensity, 0.2696, 1e-9);
    assert_float_equal(pr->ops[0].u.kernel.mem_intensity, 0.4007, 1e-9);
    assert_float_equal(pr->ops[0].u.kernel.sm_pipe_share, 0.1870, 1e-9);
}

static void test_real_ncu_enriches_nvprof_cfd(void **state)
{
    (void)state;
    /* The same application (Rodinia cfd, 097K): ncu profiled the first
     * 15 cuda_compute_step_factor, 43 cuda_compute_flux and 42
     * cuda_time_step launches, all 506 x 192 like the trace's. */
    need("nvprof-titanxp-um/print-gpu-trace.csv");
    need("ncu-v100-cfd/nsight_cfd_097K.log");
    g_autofree char *a = trace_path("nvprof-titanxp-um/print-gpu-trace.csv");
    g_autofree char *b = trace_path("ncu-v100-cfd/nsight_cfd_097K.log");
    char *paths[] = {a, b};
    g_autoptr(GError) error = NULL;
    g_autoptr(SimImportReport) rep = NULL;
    g_autoptr(SimScenario) sc =
        sim_workload_load_report(paths, 2, NULL, &rep, &error);
    assert_non_null(sc);
    assert_int_equal(sc->processes->len, 1);
    assert_int_equal(rep->ncu_matched, 100);
    assert_int_equal(rep->ncu_unmatched, 14003 - 100);
    assert_int_equal(rep->ncu_unused, 0);
    const SimProcessSpec *p = g_ptr_array_index(sc->processes, 0);
    uint32_t seen = 0;
    for (uint32_t i = 0; i < p->n_ops && !seen; i++)
        if (p->ops[i].kind == SIM_OP_KERNEL &&
            g_str_has_prefix(p->ops[i].u.kernel.name,
                             "cuda_compute_step_factor")) {
            assert_float_equal(p->ops[i].u.kernel.sm_intensity, 0.2696, 1e-9);
            assert_int_equal(p->ops[i].u.kernel.regs_per_thread, 17);
            seen = 1;
        }
    assert_int_equal(seen, 1);
}

static void test_real_kineto_resnet50_2021(void **state)
{
    (void)state;
    /* 75 718 events: 8 772 "Kernel", 12 "Memcpy", 312 "Memset" on
     * "stream 7"; 12 cudaStreamSynchronize + 1 cudaDeviceSynchronize. */
    Expect e = {"resnet50",
                "v100",
                1,
                1,
                8772,
                12,
                312,
                13,
                996477000,
                "cask_cudnn::computeOffsetsKernel(cask_cudnn::"
                "ComputeOffsetsParams)",
                {50, 1, 1},
                {256, 1, 1},
                38,
                2000,
                0,
                0};
    check1("kineto-v100-resnet50-2021/worker0.1623143089861.pt.trace.json.gz",
           "kineto", &e);
}

static void test_real_kineto_alexnet(void **state)
{
    (void)state;
    /* 79 kernels (7: 73, 20: 6), 16 memcpy, 3 memset; 41 cuda_sync (20
     * Stream Wait Event, 16 Stream Sync, 5 Context Sync).  The waits name
     * records on streams 21-27 too: 9 streams. */
    Expect e = {"alexnet",
                "a100",
                1,
                9,
                79,
                16,
                3,
                41,
                12920244000ull,
                "void at::native::(anonymous namespace)::distribution_"
                "elementwise_grid_stride_kernel<float, 4,",
                {864, 1, 1},
                {256, 1, 1},
                47,
                71000,
                0,
                0};
    check1("kineto-a100-alexnet/"
           "benchmark_result_2869224_1695835535_trace.json.gz",
           "kineto", &e);
}

static void test_real_kineto_multistream_nccl(void **state)
{
    (void)state;
    /* Sampled trace, no deviceProperties: no GPU model. */
    Expect e = {"nccl",
                NULL,
                1,
                5,
                1154,
                40,
                10,
                0,
                1222847000,
                "void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, "
                "int const*, int const*, int*)",
                {2400, 1, 1},
                {256, 1, 1},
                27,
                10000,
                0,
                0};
    check1("kineto-a100-multistream-nccl/sampled_rank-0.json.gz", "kineto", &e);
}

static void test_real_kineto_eventsync_3stream(void **state)
{
    (void)state;
    /* 3 sgemm on streams 20, 28, 24; 5 cuda_sync: 3 "Event Sync" that are
     * cudaEventQuery (non-blocking, skipped), 1 Stream Wait Event, 1
     * Context Sync.  "shared memory" 12544 B is kept as static. */
    Expect e = {"eventsync", "a100",
                1,           3,
                3,           0,
                3,           2,
                19506000,    "ampere_sgemm_128x64_nn",
                {8, 16, 5},  {128, 1, 1},
                122,         123000,
                12544,       0};
    check1("kineto-a100-eventsync-3stream/event_sync_trace.json.gz", "kineto",
           &e);
    g_autofree char *p =
        trace_path("kineto-a100-eventsync-3stream/event_sync_trace.json.gz");
    char *paths[] = {p};
    g_autoptr(GError) error = NULL;
    g_autoptr(SimScenario) sc = sim_workload_load(paths, 1, NULL, &error);
    const SimProcessSpec *pr = g_ptr_array_index(sc->processes, 0);
    /* The wait on stream 24 for the record on stream 20 (corr 1385). */
    int waits = 0, records = 0;
    for (uint32_t i = 0; i < pr->n_ops; i++) {
        if (pr->ops[i].kind == SIM_OP_EVENT_WAIT) {
            waits++;
            assert_string_equal(pr->streams[pr->ops[i].stream].name,
                                "stream 24");
        }
        if (pr->ops[i].kind == SIM_OP_EVENT_RECORD) {
            records++;
            assert_string_equal(pr->streams[pr->ops[i].stream].name,
                                "stream 20");
        }
    }
    assert_int_equal(waits, 1);
    assert_int_equal(records, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_nvprof_gtx950_cke_2stream),
        cmocka_unit_test(test_real_nvprof_gtx950_3stream),
        cmocka_unit_test(test_real_nvprof_gtx1080ti_sobol),
        cmocka_unit_test(test_real_nvprof_gtx1080ti_reduction),
        cmocka_unit_test(test_real_nvprof_two_processes),
        cmocka_unit_test(test_real_nvprof_gtx1080ti_cusparse),
        cmocka_unit_test(test_real_nvprof_titanxp_unified_memory),
        cmocka_unit_test(test_real_nsys_sqlite_saxpy_old_schema),
        cmocka_unit_test(test_real_nsys_sqlite_cloverleaf_new_schema),
        cmocka_unit_test(test_real_nsys_csv_nvtx_is_refused),
        cmocka_unit_test(test_real_ncu_v100_cfd_alone),
        cmocka_unit_test(test_real_ncu_enriches_nvprof_cfd),
        cmocka_unit_test(test_real_kineto_resnet50_2021),
        cmocka_unit_test(test_real_kineto_alexnet),
        cmocka_unit_test(test_real_kineto_multistream_nccl),
        cmocka_unit_test(test_real_kineto_eventsync_3stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
