/* cmd_calibrate.c -- `hqsim calibrate`: measure this machine's NVIDIA GPU
 * with the harness and fit a model file for it, or fit measurements taken
 * earlier (--fit DIR).
 *
 * Measuring runs harness/campaign.sh parts A, B, E, F and H, the parts whose
 * experiments set model parameters (harness/README.md), then
 * harness/post.py (raw tarballs -> measurement folder) and harness/fit.py
 * (folder -> model file + fit table), then `hqsim validate` on the new data
 * with the new model.  Every step is a program run in turn from one table;
 * the first that fails stops the command and is reported once, here.
 * Nothing changes a card setting: the campaign launches kernels and copies,
 * and starts an MPS daemon of its own (pipe directory under /tmp) that it
 * always quits.  Exit status 3: no GPU or no CUDA compiler on this machine.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "gpu_model.h"

#define CALIBRATE_NO_GPU 3

/* The campaign parts that set parameters, with their time on an H100. */
typedef struct {
    const char *part;
    int seconds;
    const char *what;
} CalPart;

static const CalPart cal_parts[] = {
    {"A", 45, "connections, dispatch order, issue curve, copies, latency"},
    {"B", 80, "time slice and switch cost, MPS rounding and limits, memory"},
    {"E", 10, "resume penalty, copies from two processes"},
    {"F", 18, "MPS client limit at 4 and 8 connections"},
    {"H", 6, "how fast one wave is dispatched"},
};

typedef struct {
    char *out;     /* output folder */
    char *name;    /* model name (file OUT/NAME.json) */
    char *base;    /* model giving the fields no experiment measures */
    char *fit;     /* --fit: earlier data, raw tarballs or post-processed */
    char *harness; /* harness/ folder */
    char *python;
} CalOpts;

static void cal_opts_clear(CalOpts *o)
{
    g_free(o->out);
    g_free(o->name);
    g_free(o->base);
    g_free(o->fit);
    g_free(o->harness);
    g_free(o->python);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(CalOpts, cal_opts_clear)

/* Run one step with the terminal as its output; its failure is an error
 * naming the step. */
static gboolean cal_step(int i, int n, const char *label, char **argv,
                         GError **error)
{
    printf("hqsim calibrate: [%d/%d] %s\n", i, n, label);
    fflush(stdout);
    int wait = 0;
    GError *err = NULL;
    if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                      NULL, &wait, &err)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "%s: cannot run %s: %s",
                    label, argv[0], err->message);
        g_error_free(err);
        return FALSE;
    }
    if (!g_spawn_check_wait_status(wait, &err)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "%s: %s %s", label, argv[0],
                    err->message);
        g_error_free(err);
        return FALSE;
    }
    return TRUE;
}

/* The GPU's name from `nvidia-smi -L` ("GPU 0: NVIDIA H200 (UUID: ...)"),
 * or NULL with the reason in @why. */
static char *cal_gpu_name(char **why)
{
    char *out = NULL, *err = NULL;
    int wait = 0;
    char *argv[] = {"nvidia-smi", "-L", NULL};
    gboolean ok = g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
                               NULL, &out, &err, &wait, NULL) &&
                  g_spawn_check_wait_status(wait, NULL);
    char *name = NULL;
    if (ok && g_str_has_prefix(out, "GPU 0: ")) {
        char *s = out + strlen("GPU 0: ");
        char *end = strstr(s, " (UUID");
        name = g_strndup(s, end ? (gsize)(end - s) : strcspn(s, "\n"));
    } else {
        *why = g_strdup(ok ? "nvidia-smi -L lists no GPU"
                           : "nvidia-smi -L did not run");
    }
    g_free(out);
    g_free(err);
    return name;
}

/* "NVIDIA H200 NVL" -> "nvidia-h200-nvl": a model name. */
static char *cal_model_name(const char *gpu)
{
    GString *s = g_string_new(NULL);
    for (const char *p = gpu; *p; p++) {
        if (g_ascii_isalnum(*p))
            g_string_append_c(s, g_ascii_tolower(*p));
        else if (s->len && s->str[s->len - 1] != '-')
            g_string_append_c(s, '-');
    }
    while (s->len && s->str[s->len - 1] == '-')
        g_string_truncate(s, s->len - 1);
    return g_string_free(s, FALSE);
}

static char *cal_base_path(const char *base)
{
    if (strchr(base, '/') || g_str_has_suffix(base, ".json"))
        return g_strdup(base);
    g_autofree char *file = g_strconcat(base, ".json", NULL);
    return g_build_filename(sim_models_dir(), file, NULL);
}

/* Fit DATA into OUT/NAME.json and validate it there (the last three steps
 * of both modes).  @calib: where fit.py writes calibration.txt (NULL: the
 * data folder is the user's, leave it as it is). */
static gboolean cal_fit_validate(const CalOpts *o, const char *data,
                                 const char *calib, int i, int n,
                                 GError **error)
{
    g_autofree char *fitpy = g_build_filename(o->harness, "fit.py", NULL);
    g_autofree char *file = g_strconcat(o->name, ".json", NULL);
    g_autofree char *model = g_build_filename(o->out, file, NULL);
    g_autofree char *md = g_build_filename(o->out, "fit.md", NULL);
    g_autofree char *acc = g_build_filename(o->out, "ACCURACY.md", NULL);
    g_autofree char *base = cal_base_path(o->base);
    /* without @calib the list ends at "--calibration"'s NULL */
    char *fit[] = {o->python,     fitpy,    (char *)data,
                   "--base",      base,     "--out",
                   model,         "--name", o->name,
                   "--md",        md,       calib ? "--calibration" : NULL,
                   (char *)calib, NULL};
    if (!cal_step(i, n, "fit the model parameters (harness/fit.py)", fit,
                  error))
        return FALSE;
    g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);
    char *val[] = {
        self ? self : "hqsim", "validate", (char *)data, "--gpu", model,
        "--markdown",          acc,        NULL};
    if (!cal_step(i + 1, n, "validate the new model on the new data", val,
                  error))
        return FALSE;
    printf("hqsim calibrate: wrote %s, %s and %s\n", model, md, acc);
    return TRUE;
}

/* --fit DIR: post-process raw tarballs if DIR holds them, then fit. */
static gboolean cal_fit_only(const CalOpts *o, GError **error)
{
    g_autofree char *summary = g_build_filename(o->fit, "summary.json", NULL);
    if (g_file_test(summary, G_FILE_TEST_EXISTS))
        return cal_fit_validate(o, o->fit, NULL, 1, 2, error);
    g_autofree char *data = g_build_filename(o->out, "data", NULL);
    g_autofree char *post = g_build_filename(o->harness, "post.py", NULL);
    char *argv[] = {o->python, post, o->fit, data, NULL};
    if (!cal_step(1, 3, "post-process the raw tarballs (harness/post.py)", argv,
                  error))
        return FALSE;
    g_autofree char *calib = g_build_filename(data, "calibration.txt", NULL);
    return cal_fit_validate(o, data, calib, 2, 3, error);
}

/* Build the harness, run the parts, sanitize, post-process, fit. */
static gboolean cal_measure(const CalOpts *o, GError **error)
{
    const int np = (int)G_N_ELEMENTS(cal_parts), n = np + 5;
    int total = 0;
    for (int k = 0; k < np; k++)
        total += cal_parts[k].seconds;
    printf("hqsim calibrate: %d steps; the campaign takes about %d s on an "
           "H100, building and post-processing a few minutes more\n",
           n, total);
    char *make[] = {"make", "-C", o->harness, NULL};
    if (!cal_step(1, n, "build the harness (nvcc)", make, error))
        return FALSE;
    g_autofree char *full = g_build_filename(o->out, "raw-full", NULL);
    g_autofree char *camp = g_build_filename(o->harness, "campaign.sh", NULL);
    for (int k = 0; k < np; k++) {
        g_autofree char *label =
            g_strdup_printf("campaign part %s (~%d s): %s", cal_parts[k].part,
                            cal_parts[k].seconds, cal_parts[k].what);
        char *argv[] = {"bash", camp, (char *)cal_parts[k].part, full, NULL};
        if (!cal_step(2 + k, n, label, argv, error))
            return FALSE;
    }
    g_autofree char *raw = g_build_filename(o->out, "raw", NULL);
    g_autofree char *data = g_build_filename(o->out, "data", NULL);
    g_autofree char *post = g_build_filename(o->harness, "post.py", NULL);
    char *san[] = {o->python, post, "--sanitize", full, raw, NULL};
    if (!cal_step(np + 2, n, "drop serial numbers from the raw tarballs", san,
                  error))
        return FALSE;
    char *pp[] = {o->python, post, raw, data, NULL};
    if (!cal_step(np + 3, n, "post-process (harness/post.py)", pp, error))
        return FALSE;
    g_autofree char *calib = g_build_filename(data, "calibration.txt", NULL);
    return cal_fit_validate(o, data, calib, np + 4, n, error);
}

static const char calibrate_description[] =
    "On a machine with an NVIDIA GPU and the CUDA compiler: builds the\n"
    "measurement harness, runs the campaign parts whose experiments set model\n"
    "parameters (A, B, E, F, H: ~3 min on an H100), post-processes them, fits\n"
    "the parameters (harness/fit.py) and writes OUT/NAME.json (every fitted\n"
    "value's source names its experiment, GPU, driver, CUDA and date),\n"
    "OUT/fit.md and OUT/ACCURACY.md (`hqsim validate` on the new data).\n"
    "Fields no experiment measures come from --base.  Card settings are\n"
    "never changed.  Without a GPU it exits with status 3; --fit DIR fits\n"
    "earlier measurements (raw part*.tar.gz or a post-processed folder) with\n"
    "no GPU.  Needs python3 (standard library only).";

/* Defaults that depend on the mode: name and output folder. */
static gboolean cal_defaults(CalOpts *o, GError **error)
{
    if (!o->python) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "calibrate needs python3 on the PATH");
        return FALSE;
    }
    if (!o->harness)
#ifdef HQSIM_SOURCE_DIR
        o->harness = g_build_filename(HQSIM_SOURCE_DIR, "harness", NULL);
#else
        o->harness = g_strdup("harness");
#endif
    if (!o->base)
        o->base = g_strdup("h100-sxm");
    if (!o->name && o->fit) {
        g_autofree char *b = g_path_get_basename(o->fit);
        o->name = cal_model_name(b);
    }
    if (!o->out)
        o->out = g_strconcat("calibration-", o->name, NULL);
    if (g_mkdir_with_parents(o->out, 0755) != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot create %s: %s",
                    o->out, g_strerror(errno));
        return FALSE;
    }
    return TRUE;
}

/* No GPU or no nvcc: say so and what to do instead. */
static int cal_no_gpu(const char *why)
{
    fprintf(stderr,
            "hqsim calibrate: no NVIDIA GPU to measure here (%s).\n"
            "Run it on a machine with an NVIDIA GPU, its driver and the CUDA "
            "toolkit,\nor fit measurements taken there: hqsim calibrate --fit "
            "DIR\n",
            why);
    return CALIBRATE_NO_GPU;
}

int sim_cmd_calibrate(int argc, char **argv)
{
    g_auto(CalOpts) o = {0};
    const GOptionEntry entries[] = {
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &o.out,
         "output folder (default calibration-NAME)", "DIR"},
        {"gpu-name", 'n', 0, G_OPTION_ARG_STRING, &o.name,
         "model name (default: from nvidia-smi, or the --fit folder's name)",
         "NAME"},
        {"base", 'b', 0, G_OPTION_ARG_STRING, &o.base,
         "model that gives the fields no experiment measures (default "
         "h100-sxm)",
         "MODEL"},
        {"fit", 0, 0, G_OPTION_ARG_FILENAME, &o.fit,
         "fit earlier measurements in DIR, no GPU needed", "DIR"},
        {"harness", 0, 0, G_OPTION_ARG_FILENAME, &o.harness,
         "the harness folder (default: the source tree's harness/)", "DIR"},
        G_OPTION_ENTRY_NULL};
    int status = 0;
    if (!sim_cli_parse("calibrate", "", calibrate_description, entries, &argc,
                       &argv, &status))
        return status;
    if (argc > 1) {
        fprintf(stderr, "hqsim calibrate: unexpected argument '%s'\n", argv[1]);
        return 2;
    }
    g_autoptr(GError) error = NULL;
    o.python = g_find_program_in_path("python3");
    if (!o.fit) {
        g_autofree char *why = NULL;
        g_autofree char *gpu = cal_gpu_name(&why);
        if (!gpu)
            return cal_no_gpu(why);
        g_autofree char *nvcc = g_find_program_in_path("nvcc");
        if (!nvcc &&
            !g_file_test("/usr/local/cuda/bin/nvcc", G_FILE_TEST_IS_EXECUTABLE))
            return cal_no_gpu("no nvcc on the PATH or in /usr/local/cuda");
        printf("hqsim calibrate: measuring GPU 0, %s\n", gpu);
        if (!o.name)
            o.name = cal_model_name(gpu);
    }
    if (!cal_defaults(&o, &error))
        return sim_cli_report_error(error);
    gboolean ok = o.fit ? cal_fit_only(&o, &error) : cal_measure(&o, &error);
    return ok ? 0 : sim_cli_report_error(error);
}
