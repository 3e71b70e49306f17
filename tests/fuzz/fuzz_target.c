/* fuzz_target.c -- libFuzzer entry points for every input hqsim reads.
 *
 * One source, one binary per target (FUZZ_TARGET picks it, see
 * tests/fuzz/fuzz.mk): the scenario loader, the GPU model loader, each
 * importer (format forced), format detection, and a whole run (load a
 * scenario, simulate it on the H100 model).  Any crash, leak, sanitizer
 * report (ASan, UBSan with float-cast-overflow) or timeout is a finding;
 * an error return is the expected answer to bad input.
 *
 * Importers and the model loader read files, so the input is written to a
 * private temporary file first (named with the extension the reader
 * expects).  Limits (sim/bounds.h) are lowered so that one input takes
 * milliseconds: a limit error is a correct answer, not a finding.  (At
 * 200,000 events a bundled seed, traces/spread.json, took 4.5 CPU s
 * under the fuzzer's instrumentation, a graph scenario 2.5 s at 50,000
 * and 0.9 s at 10,000 (90 us an event): past libFuzzer's wall-clock
 * timeout on a loaded machine, a false finding, and 2 executions a
 * second.)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "engine.h"
#include "gpu_model.h"
#include "import.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static const char *tmp_path(const char *ext)
{
    static char path[256];
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, sizeof path, "%s/hqsim-fuzz-%ld%s", dir, (long)getpid(),
             ext);
    return path;
}

static const char *write_tmp(const uint8_t *data, size_t size,
                             const char *ext)
{
    const char *path = tmp_path(ext);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    return path;
}

G_GNUC_UNUSED static void import_as(const uint8_t *data, size_t size,
                                    const char *format,
                                    const char *ext)
{
    const char *path = write_tmp(data, size, ext);
    SimImportOptions opt;
    sim_import_options_init(&opt);
    opt.format = format;
    opt.gpu_model = "h100-sxm";
    char *paths[] = {(char *)path};
    GError *error = NULL;
    SimScenario *sc = sim_workload_load(paths, 1, &opt, &error);
    if (sc) {
        /* What `import` writes, `run` must read back. */
        char *json = sim_scenario_to_json(sc);
        SimScenario *back = sim_scenario_parse("import.json", json,
                                               strlen(json), &error);
        if (!back) {
            fprintf(stderr, "import wrote what run rejects: %s\n",
                    error->message);
            abort();
        }
        sim_scenario_free(back);
        g_free(json);
    }
    sim_scenario_free(sc);
    g_clear_error(&error);
    unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const char *const small[] = {
        "inflated_bytes=4000000", "json_values=200000",
        "ops=20000",              "work=5000",          "events=2000",
        "processes=64",           "sim_time_s=100",     "samples=10000"};
    for (size_t i = 0; i < sizeof small / sizeof *small; i++)
        if (!sim_limit_set_arg(small[i], NULL))
            abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
#if defined(FUZZ_scenario) || defined(FUZZ_run)
    SimScenario *sc = sim_scenario_parse("fuzz.json", (const char *)data,
                                         size, &error);
#if defined(FUZZ_run)
    static GpuModel *m;
    if (!m && !(m = sim_gpu_model_find("h100-sxm", NULL, NULL)))
        abort();
    if (sc) {
        SimOptions so;
        sim_options_init(&so);
        so.record_ops = true;
        SimResult *r = sim_engine_run(m, sc, &so, &error);
        sim_result_free(r);
    }
#endif
    sim_scenario_free(sc);
#elif defined(FUZZ_model)
    GpuModel *m = sim_gpu_model_load(write_tmp(data, size, ".json"), &error);
    sim_gpu_model_free(m);
#elif defined(FUZZ_detect)
    const char *path = write_tmp(data, size, "");
    (void)sim_import_detect(path, &error);
    unlink(path);
#elif defined(FUZZ_nvprof)
    import_as(data, size, "nvprof", ".csv");
#elif defined(FUZZ_nsys_csv)
    import_as(data, size, "nsys-csv", ".csv");
#elif defined(FUZZ_nsys_sqlite)
    import_as(data, size, "nsys-sqlite", ".sqlite");
#elif defined(FUZZ_ncu)
    import_as(data, size, "ncu", ".csv");
#elif defined(FUZZ_kineto)
    import_as(data, size, "kineto", ".json");
#else
#error "define FUZZ_<target>"
#endif
    g_clear_error(&error);
    return 0;
}
