/* test_e2e_malformed.c -- bad input and output destinations, run as a user
 * would: every file of tests/data/malformed/ (MANIFEST, made by
 * tests/malformed/generate.py) gives its exact error -- file, line, field --
 * and a non-zero exit, never a crash or a hang; outputs to /dev/null, a
 * FIFO, a symlink and /dev/stdout behave as `> file`; limits name their
 * option.
 *
 * Runs the binary named by $HQSIM (set by `make check`); skipped without it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <glib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "hqsim.h"

/* Run a shell command line (for redirections); returns its exit status
 * (128 + signal if killed; 124 if `timeout` stopped it). */
static int sh(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static int sh(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *cmd = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    int wait = 0;
    g_autoptr(GError) error = NULL;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                      NULL, NULL, &wait, &error))
        fail_msg("cannot run sh: %s", error->message);
    return WIFEXITED(wait) ? WEXITSTATUS(wait) : 128 + WTERMSIG(wait);
}

/* $HQSIM as an absolute path (commands below run in other folders). */
static const char *hqsim(void)
{
    static char *abs;
    const char *bin = g_getenv("HQSIM");
    if (!bin || !*bin)
        skip();
    if (!abs)
        abs = g_canonicalize_filename(bin, NULL);
    return abs;
}

/* A MANIFEST case is four tab-separated fields: the file, its extra
 * options ("-": none), the line its error names ("-": none) and a phrase
 * of the error. */

/* The error of `hqsim run FILE -q ARGS` inside this process, through the
 * C API (the same loading and run as the command), with the current
 * folder as the command's.  Returns the message (transfer full). */
static char *error_in_process(char *const *f)
{
    HqsimOptions *o = hqsim_options_new();
    g_auto(GStrv) extra =
        strcmp(f[1], "-") ? g_strsplit(f[1], " ", -1) : g_new0(char *, 1);
    for (int k = 0; extra[k]; k += 2) {
        assert_true(g_str_has_prefix(extra[k], "--") && extra[k + 1]);
        g_autoptr(GError) e = NULL;
        if (!strcmp(extra[k], "--limit")) {
            g_auto(GStrv) kv = g_strsplit(extra[k + 1], "=", 2);
            assert_true(hqsim_limit_set(kv[0], kv[1], &e));
        } else {
            assert_true(hqsim_options_set(o, extra[k] + 2, extra[k + 1], &e));
        }
    }
    const char *files[] = {f[0], NULL};
    g_autoptr(GError) error = NULL;
    HqsimResult *r = hqsim_run(files, o, &error);
    hqsim_limits_reset();
    hqsim_options_free(o);
    if (r) {
        hqsim_result_free(r);
        return g_strdup("(no error)");
    }
    return g_strdup(error->message);
}

/* The same case through the binary: its exit status and stderr. */
static int error_of_binary(const char *bin, const char *dir, char *const *f,
                           char **err)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    g_ptr_array_add(argv, "timeout");
    g_ptr_array_add(argv, "60");
    g_ptr_array_add(argv, (gpointer)bin);
    g_ptr_array_add(argv, "run");
    g_ptr_array_add(argv, f[0]);
    g_ptr_array_add(argv, "-q");
    g_auto(GStrv) extra = g_strsplit(f[1], " ", -1);
    if (strcmp(f[1], "-") != 0)
        for (int k = 0; extra[k]; k++)
            g_ptr_array_add(argv, extra[k]);
    g_ptr_array_add(argv, NULL);
    int wait = 0;
    g_autoptr(GError) error = NULL;
    if (!g_spawn_sync(dir, (char **)argv->pdata, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                      NULL, NULL, err, &wait, &error))
        fail_msg("cannot run %s: %s", bin, error->message);
    return WIFEXITED(wait) ? WEXITSTATUS(wait) : 128;
}

/* Every case of the corpus gets its exact error (file, line, phrase).
 * All are checked inside this process through the C API, which loads and
 * runs as the command does (one process per case under ASan took a
 * minute: its start-up is most of each case); every BINARY_EVERY-th case,
 * and every case with options, also runs the binary, which must exit 1
 * or 2 and print that same message. */
#define BINARY_EVERY 10
static void test_manifest_errors(void **state)
{
    (void)state;
    const char *bin = hqsim();
    g_autofree char *dir = source_path("tests/data/malformed");
    g_autofree char *manifest = g_build_filename(dir, "MANIFEST", NULL);
    g_autofree char *text = NULL;
    assert_true(g_file_get_contents(manifest, &text, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autofree char *cwd = g_get_current_dir();
    /* cd into the folder: messages name the file as given. */
    assert_int_equal(chdir(dir), 0);
    int cases = 0, wrong = 0, spawned = 0;
    for (int i = 0; lines[i]; i++) {
        if (!*lines[i] || lines[i][0] == '#')
            continue;
        g_auto(GStrv) f = g_strsplit(lines[i], "\t", 4);
        assert_int_equal(g_strv_length(f), 4);
        g_autofree char *msg = error_in_process(f);
        g_autofree char *where = g_strdup_printf("%s:%s:", f[0], f[2]);
        bool ok =
            (strcmp(f[2], "-") == 0 || strstr(msg, where)) && strstr(msg, f[3]);
        if (ok && (cases % BINARY_EVERY == 0 || strcmp(f[1], "-"))) {
            g_autofree char *err = NULL;
            int st = error_of_binary(bin, dir, f, &err);
            g_autofree char *line = g_strdup_printf("hqsim: %s\n", msg);
            ok = (st == 1 || st == 2) && strstr(err, line);
            if (!ok)
                print_message("%s: the binary exited %d with: %s", f[0], st,
                              err);
            spawned++;
        }
        if (!ok) {
            print_message("%s: want '%s' and '%s', got: %s\n", f[0],
                          strcmp(f[2], "-") ? where : "(no line)", f[3], msg);
            wrong++;
        }
        cases++;
    }
    assert_int_equal(chdir(cwd), 0);
    assert_true(cases >= 200);
    assert_true(spawned >= cases / BINARY_EVERY);
    assert_int_equal(wrong, 0);
}

/* Every file hqsim writes, by command and option: OUT stands for the
 * output's path, IN for traces/default.json; @ext is the reference file's
 * extension (a picture written in place is SVG); @chatty: the command
 * prints its table on stdout too (no -q), so /dev/stdout holds both. */
typedef struct {
    const char *args;
    const char *ext;
    bool chatty;
} Writer;

#define SMALL "IN -q --iterations 2"
static const Writer writers[] = {
    {"run " SMALL " --json OUT", ".json", false},
    {"run " SMALL " --csv OUT", ".csv", false},
    {"run " SMALL " --perfetto OUT", ".json", false},
    {"run " SMALL " --picture OUT", ".svg", false},
    {"run " SMALL " --report OUT", ".html", false},
    {"compare " SMALL " --json OUT", ".json", false},
    {"compare " SMALL " --modes mps --csv OUT", ".csv", false},
    {"compare " SMALL " --perfetto OUT", ".json", false},
    {"compare " SMALL " --picture OUT", ".svg", false},
    {"compare " SMALL " --report OUT", ".html", false},
    {"sweep " SMALL " -n 1-2 --modes mps --csv OUT", ".csv", false},
    {"sweep " SMALL " -n 1-2 --modes mps --json OUT", ".json", false},
    {"sweep " SMALL " -n 1-2 --modes mps --plot OUT", ".svg", false},
    {"sweep " SMALL " -n 1-2 --modes mps --report OUT", ".html", false},
    {"import tests/data/import/nvprof_v20.csv -q -o OUT", ".json", false},
    {"gen --kernels 50 -o OUT", ".json", false},
    {"validate --filter ^cp_bidir$ --markdown OUT", ".md", true},
};

/* The command line of @w writing to @out, run in the source folder. */
static char *writer_cmd(const Writer *w, const char *out)
{
    g_autofree char *in = source_path("traces/default.json");
    g_auto(GStrv) a = g_strsplit(w->args, "IN", -1);
    g_autofree char *with_in = g_strjoinv(in, a);
    g_auto(GStrv) b = g_strsplit(with_in, "OUT", -1);
    g_autofree char *q = g_strdup_printf("'%s'", out);
    g_autofree char *args = g_strjoinv(q, b);
    g_autofree char *src = source_path(".");
    return g_strdup_printf("cd '%s' && '%s' %s", src, hqsim(), args);
}

/* Whether @path holds exactly @want. */
static bool same_file(const char *path, const char *want, gsize want_len)
{
    g_autofree char *got = NULL;
    gsize len = 0;
    return g_file_get_contents(path, &got, &len, NULL) && len == want_len &&
           memcmp(got, want, len) == 0;
}

/* Every writer's output to /dev/stdout, a FIFO, a symlink and /dev/null is
 * what the same command writes to a regular file, as `> file` would be;
 * the link stays a link and /dev/null a device. */
static void test_outputs_behave_like_redirection(void **state)
{
    (void)state;
    (void)hqsim();
    g_autofree char *dir = g_dir_make_tmp("hqsim-e2e-out-XXXXXX", NULL);
    assert_non_null(dir);
    for (size_t i = 0; i < G_N_ELEMENTS(writers); i++) {
        const Writer *w = &writers[i];
        g_autofree char *ref = g_strdup_printf("%s/ref%s", dir, w->ext);
        g_autofree char *cmd = writer_cmd(w, ref);
        assert_int_equal(sh("%s", cmd), 0);
        g_autofree char *want = NULL;
        gsize len = 0;
        assert_true(g_file_get_contents(ref, &want, &len, NULL));
        assert_true(len > 100);

        g_autofree char *o1 = g_strdup_printf("%s/o1", dir);
        g_autofree char *to_stdout = writer_cmd(w, "/dev/stdout");
        assert_int_equal(sh("%s > '%s'", to_stdout, o1), 0);

        g_autofree char *fifo = g_strdup_printf("%s/p", dir);
        g_autofree char *o2 = g_strdup_printf("%s/o2", dir);
        g_autofree char *to_fifo = writer_cmd(w, fifo);
        assert_int_equal(sh("rm -f '%s' && mkfifo '%s' && "
                            "{ timeout 60 cat '%s' > '%s' & } && %s && wait",
                            fifo, fifo, fifo, o2, to_fifo),
                         0);

        g_autofree char *o3 = g_strdup_printf("%s/o3%s", dir, w->ext);
        g_autofree char *link = g_strdup_printf("%s/link%s", dir, w->ext);
        g_autofree char *to_link = writer_cmd(w, link);
        assert_int_equal(sh("rm -f '%s' '%s' && ln -s o3%s '%s' && %s && "
                            "test -L '%s'",
                            link, o3, w->ext, link, to_link, link),
                         0);

        /* Another descriptor (once): written where it stands. */
        g_autofree char *o4 = g_strdup_printf("%s/o4", dir);
        if (i == 0) {
            g_autofree char *to_fd = writer_cmd(w, "/dev/fd/3");
            assert_int_equal(sh("%s 3> '%s'", to_fd, o4), 0);
            assert_true(same_file(o4, want, len));
        }

        g_autofree char *to_null = writer_cmd(w, "/dev/null");
        assert_int_equal(sh("%s && test -c /dev/null", to_null), 0);

        if (w->chatty) {
            g_autofree char *both = NULL;
            assert_true(g_file_get_contents(o1, &both, NULL, NULL));
            assert_non_null(strstr(both, want));
        }
        const char *outs[] = {o1, o2, o3};
        for (size_t k = w->chatty; k < G_N_ELEMENTS(outs); k++)
            if (!same_file(outs[k], want, len))
                fail_msg("%s: %s differs from the regular file's", w->args,
                         k == 0   ? "/dev/stdout"
                         : k == 1 ? "a FIFO"
                                  : "a symlink's target");
    }
    /* Nothing else was left behind (no temporary files). */
    assert_int_equal(sh("cd '%s' && ! ls -a | grep -q tmp-", dir), 0);
    assert_int_equal(sh("rm -rf '%s'", dir), 0);
}

/* A comparison's CSVs (one per mode, named after the file given) cannot
 * go to one stream: "-", /dev/stdout or a FIFO is refused before any run,
 * naming why, and nothing is written. */
static void test_compare_csv_needs_a_file_name(void **state)
{
    (void)state;
    (void)hqsim();
    g_autofree char *dir = g_dir_make_tmp("hqsim-e2e-csv-XXXXXX", NULL);
    g_autofree char *f = source_path("traces/default.json");
    const char *dests[] = {"-", "/dev/stdout", "/dev/null", "p"};
    assert_int_equal(sh("cd '%s' && mkfifo p", dir), 0);
    for (size_t i = 0; i < G_N_ELEMENTS(dests); i++) {
        int st = sh("cd '%s' && '%s' compare '%s' -q --csv %s > out.txt "
                    "2> err.txt",
                    dir, hqsim(), f, dests[i]);
        assert_int_equal(st, 2);
        g_autofree char *errp = g_build_filename(dir, "err.txt", NULL);
        g_autofree char *err = NULL;
        assert_true(g_file_get_contents(errp, &err, NULL, NULL));
        g_autofree char *want = g_strdup_printf(
            "hqsim: --csv %s: a comparison writes one CSV per mode", dests[i]);
        assert_contains(err, want);
        assert_contains(err, "so it needs a file name");
    }
    /* Nothing but the FIFO and the two captures: no "-.mps" and the like. */
    assert_int_equal(sh("cd '%s' && test \"$(ls -A | tr '\\n' ' ')\" = "
                        "'err.txt out.txt p '",
                        dir),
                     0);
    /* One mode is one CSV: "-" is stdout, and stdout holds it alone. */
    assert_int_equal(sh("'%s' compare '%s' --modes mps --iterations 2 --csv - "
                        "| head -1 | grep -q '^process,stream,op,'",
                        hqsim(), f),
                     0);
    assert_int_equal(sh("test \"$('%s' run '%s' --iterations 2 --csv - | "
                        "grep -vc ',h100-sxm,yes$')\" = 1",
                        hqsim(), f),
                     0);
    assert_int_equal(sh("rm -rf '%s'", dir), 0);
}

static void test_compare_leaves_all_outputs_or_none(void **state)
{
    (void)state;
    const char *bin = hqsim();
    g_autofree char *f = source_path("traces/default.json");
    g_autofree char *dir = g_dir_make_tmp("hqsim-e2e-grp-XXXXXX", NULL);
    /* --json is fine, --report's folder does not exist: neither appears. */
    int st = sh("cd '%s' && '%s' compare '%s' -q --json out.json "
                "--report no/such/r.html 2>err.txt",
                dir, bin, f);
    assert_int_equal(st, 1);
    g_autofree char *json = g_build_filename(dir, "out.json", NULL);
    assert_false(g_file_test(json, G_FILE_TEST_EXISTS));
    assert_int_equal(sh("cd '%s' && ! ls | grep -q tmp-", dir), 0);
    assert_int_equal(sh("rm -rf '%s'", dir), 0);
}

static void test_disk_full_and_fifo_input(void **state)
{
    (void)state;
    (void)hqsim();
    g_autofree char *f = source_path("traces/default.json");
    if (access("/dev/full", W_OK) == 0) {
        Run r = run_hqsim("run", f, "-q", "--json", "/dev/full", NULL);
        assert_int_equal(r.status, 1);
        assert_contains(r.err, "cannot write /dev/full");
        assert_contains(r.err, g_strerror(ENOSPC));
        run_clear(&r);
    }
    g_autofree char *dir = g_dir_make_tmp("hqsim-e2e-fifo-XXXXXX", NULL);
    g_autofree char *fifo = g_build_filename(dir, "in.json", NULL);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* Refused at once, not a wait for a writer that never comes. */
    g_autofree char *out = g_build_filename(dir, "o.json", NULL);
    Run runs[] = {run_hqsim("run", fifo, "-q", NULL),
                  run_hqsim("import", fifo, "-o", out, NULL),
                  run_hqsim("replay", fifo, NULL)};
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++) {
        assert_int_equal(runs[i].status, 1);
        assert_contains(runs[i].err, "it is a FIFO");
        run_clear(&runs[i]);
    }
    assert_int_equal(sh("rm -rf '%s'", dir), 0);
}

static void test_limit_option(void **state)
{
    (void)state;
    g_autofree char *f = source_path("traces/default.json");
    /* default.json: 4 processes x 200 iterations x 30 ops = 24,000 ops. */
    Run r = run_hqsim("run", f, "-q", "--limit", "work=1000", NULL);
    assert_int_equal(r.status, 1);
    assert_contains(r.err, "limit 'work' = 1000");
    assert_contains(r.err, "--limit work=N");
    run_clear(&r);
    r = run_hqsim("run", f, "-q", "--limit=work=100k", NULL);
    assert_int_equal(r.status, 0);
    run_clear(&r);
    r = run_hqsim("run", f, "-q", "--limit", "wrok=5", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "unknown limit");
    run_clear(&r);
    r = run_hqsim("run", f, "-q", "--limit", "work=-5", NULL);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "positive integer");
    run_clear(&r);
    r = run_hqsim("--help", NULL);
    assert_contains(r.out, "inflated_bytes");
    run_clear(&r);
}

/* stderr of `hqsim ARGS` (a shell line) with HQSIM_PROGRESS=@mode. */
static char *stderr_of(const char *mode, const char *args)
{
    g_autofree char *dir = g_dir_make_tmp("hqsim-e2e-say-XXXXXX", NULL);
    g_autofree char *errp = g_build_filename(dir, "err.txt", NULL);
    int st = sh("HQSIM_PROGRESS=%s '%s' %s > /dev/null 2> '%s'", mode, hqsim(),
                args, errp);
    assert_int_equal(st, 0);
    char *err = NULL;
    assert_true(g_file_get_contents(errp, &err, NULL, NULL));
    assert_int_equal(sh("rm -rf '%s'", dir), 0);
    return err;
}

/* A long run says why in whole status lines when stderr is not a
 * terminal: where it stands and what bounds it (the delay of 10 s is
 * dropped by HQSIM_PROGRESS=lines; without it a short run says nothing). */
static void test_long_runs_say_why(void **state)
{
    (void)state;
    (void)hqsim();
    g_autofree char *f = source_path("traces/default.json");
    /* default.json under MPS: 12,000 GPU ops, over 65,536 events. */
    g_autofree char *args = g_strdup_printf("run '%s' --mode mps", f);
    g_autofree char *err = stderr_of("lines", args);
    assert_contains(err, "hqsim: still running after ");
    assert_contains(err, " of 12000), ");
    assert_contains(err, " of at most 1000 s simulated (limit sim_time_s), ");
    assert_contains(err, "engine events (limit events), at least 613600 "
                         "kernel-to-SM placements (-q hides this)\n");
    g_autofree char *limited =
        g_strdup_printf("compare '%s' --time-limit-ms 500 -q", f);
    g_autofree char *err2 = stderr_of("lines", limited);
    /* "after N s": N is 0 unless the machine is very loaded. */
    assert_contains(err2, " s (mps): ");
    assert_contains(err2, "of at most 0.5 s simulated (--time-limit-ms)");
    g_autofree char *sweep = g_strdup_printf(
        "sweep '%s' --iterations 20 -n 1-3 --modes mps --threads 1", f);
    g_autofree char *err3 = stderr_of("lines", sweep);
    assert_contains(err3, "hqsim sweep: still running: 1/3 configurations "
                          "done");
    assert_contains(err3, "ops in all; -q hides this)\n");
    /* Not a terminal, no variable, a short run: nothing. */
    g_autofree char *quiet = stderr_of("", args);
    assert_string_equal(quiet, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manifest_errors),
        cmocka_unit_test(test_outputs_behave_like_redirection),
        cmocka_unit_test(test_compare_csv_needs_a_file_name),
        cmocka_unit_test(test_compare_leaves_all_outputs_or_none),
        cmocka_unit_test(test_disk_full_and_fifo_input),
        cmocka_unit_test(test_limit_option),
        cmocka_unit_test(test_long_runs_say_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
