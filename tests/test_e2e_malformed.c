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

static void test_manifest_errors(void **state)
{
    (void)state;
    const char *bin = hqsim();
    g_autofree char *dir = source_path("tests/data/malformed");
    g_autofree char *manifest = g_build_filename(dir, "MANIFEST", NULL);
    g_autofree char *text = NULL;
    assert_true(g_file_get_contents(manifest, &text, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    int cases = 0, wrong = 0;
    for (int i = 0; lines[i]; i++) {
        if (!*lines[i] || lines[i][0] == '#')
            continue;
        g_auto(GStrv) f = g_strsplit(lines[i], "\t", 4);
        assert_int_equal(g_strv_length(f), 4);
        cases++;
        /* cd into the folder: messages name the file as given. */
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
        g_autofree char *err = NULL;
        int wait = 0;
        g_autoptr(GError) error = NULL;
        if (!g_spawn_sync(dir, (char **)argv->pdata, NULL,
                          G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                          NULL, NULL, NULL, &err, &wait, &error))
            fail_msg("cannot run %s: %s", bin, error->message);
        int st = WIFEXITED(wait) ? WEXITSTATUS(wait) : 128;
        g_autofree char *where = g_strdup_printf("%s:%s:", f[0], f[2]);
        bool ok = (st == 1 || st == 2) &&
                  (strcmp(f[2], "-") == 0 || strstr(err, where)) &&
                  strstr(err, f[3]);
        if (!ok) {
            print_message("%s: exit %d, want '%s' and '%s', got: %s\n", f[0],
                          st, strcmp(f[2], "-") ? where : "(no line)", f[3],
                          err);
            wrong++;
        }
    }
    assert_true(cases >= 200);
    assert_int_equal(wrong, 0);
}

static void test_outputs_behave_like_redirection(void **state)
{
    (void)state;
    const char *bin = hqsim();
    g_autofree char *f = source_path("traces/default.json");
    g_autofree char *dir = g_dir_make_tmp("hqsim-e2e-out-XXXXXX", NULL);
    assert_non_null(dir);
    /* The reference: the same command with > file. */
    assert_int_equal(
        sh("'%s' run '%s' -q --json - > '%s/ref.json'", bin, f, dir), 0);
    g_autofree char *ref = NULL;
    g_autofree char *refpath = g_build_filename(dir, "ref.json", NULL);
    assert_true(g_file_get_contents(refpath, &ref, NULL, NULL));
    assert_true(strlen(ref) > 100);

    /* /dev/stdout, redirected to a file. */
    assert_int_equal(
        sh("'%s' run '%s' -q --json /dev/stdout > '%s/o1.json'", bin, f, dir),
        0);
    /* A FIFO, read by cat. */
    assert_int_equal(
        sh("cd '%s' && mkfifo p && (timeout 60 cat p > o2.json &) && "
           "'%s' run '%s' -q --json p && wait",
           dir, bin, f),
        0);
    /* A symlink: its target gets the output, the link stays. */
    assert_int_equal(sh("cd '%s' && ln -s o3.json link && "
                        "'%s' run '%s' -q --json link && test -L link",
                        dir, bin, f),
                     0);
    /* /dev/null: accepted, and still a device afterwards. */
    assert_int_equal(sh("'%s' run '%s' -q --json /dev/null && test -c "
                        "/dev/null",
                        bin, f),
                     0);
    for (int i = 1; i <= 3; i++) {
        g_autofree char *p = g_strdup_printf("%s/o%d.json", dir, i);
        g_autofree char *s = NULL;
        assert_true(g_file_get_contents(p, &s, NULL, NULL));
        assert_string_equal(s, ref);
    }
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manifest_errors),
        cmocka_unit_test(test_outputs_behave_like_redirection),
        cmocka_unit_test(test_compare_leaves_all_outputs_or_none),
        cmocka_unit_test(test_disk_full_and_fifo_input),
        cmocka_unit_test(test_limit_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
