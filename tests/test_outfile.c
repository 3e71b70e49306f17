/* test_outfile.c -- sim/outfile.c: atomic writes to regular files, writes
 * in place to everything else, symlinks followed, groups all-or-none, the
 * reason of a failed write, and temporary files removed on a signal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"

static int setup(void **state)
{
    *state = g_dir_make_tmp("hqsim-outfile-XXXXXX", NULL);
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", (char *)*state);
    int rc = system(cmd);
    g_free(*state);
    return rc;
}

/* Files in @dir whose name contains ".tmp-". */
static int count_tmp(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    int n = 0;
    for (const char *e; (e = g_dir_read_name(d));)
        n += strstr(e, ".tmp-") != NULL;
    g_dir_close(d);
    return n;
}

static char *slurp(const char *path)
{
    char *s = NULL;
    assert_true(g_file_get_contents(path, &s, NULL, NULL));
    return s;
}

static void test_regular_file_is_replaced_atomically(void **state)
{
    const char *dir = *state;
    g_autofree char *p = g_build_filename(dir, "a.txt", NULL);
    assert_true(g_file_set_contents(p, "old", -1, NULL));
    assert_int_equal(chmod(p, 0640), 0);
    SimOutFile *f = sim_out_open(p, NULL);
    assert_non_null(f);
    fputs("new", sim_out_stream(f));
    g_autofree char *mid = slurp(p);
    assert_string_equal(mid, "old"); /* nothing in place before commit */
    assert_int_equal(count_tmp(dir), 1);
    assert_true(sim_out_commit(f, NULL));
    g_autofree char *s = slurp(p);
    assert_string_equal(s, "new");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640); /* mode kept, as `>` does */
    assert_int_equal(count_tmp(dir), 0);
}

static void test_symlink_is_followed(void **state)
{
    const char *dir = *state;
    g_autofree char *target = g_build_filename(dir, "target.txt", NULL);
    g_autofree char *link = g_build_filename(dir, "link.txt", NULL);
    assert_int_equal(symlink("target.txt", link), 0);
    assert_true(sim_write_file_atomic(link, "via link", 8, NULL));
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* the link stays a link */
    g_autofree char *s = slurp(target);
    assert_string_equal(s, "via link");
}

static void test_devices_are_written_in_place(void **state)
{
    (void)state;
    /* /dev/null stays a device (as root, a rename would replace it). */
    assert_true(sim_write_file_atomic("/dev/null", "x", 1, NULL));
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
}

static void test_fifo_is_written_in_place(void **state)
{
    const char *dir = *state;
    g_autofree char *fifo = g_build_filename(dir, "pipe", NULL);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* reader: what comes through the pipe */
        g_autofree char *got = slurp(fifo);
        _exit(strcmp(got, "through the pipe") == 0 ? 0 : 1);
    }
    assert_true(sim_write_file_atomic(fifo, "through the pipe", 16, NULL));
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat st;
    assert_int_equal(stat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
}

static void test_disk_full_says_why(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    g_autoptr(GError) error = NULL;
    g_autofree char *big = g_malloc0(1 << 16);
    assert_false(sim_write_file_atomic("/dev/full", big, 1 << 16, &error));
    assert_non_null(strstr(error->message, "/dev/full"));
    assert_non_null(strstr(error->message, g_strerror(ENOSPC)));
}

static void test_missing_directory_fails_cleanly(void **state)
{
    const char *dir = *state;
    g_autofree char *p = g_build_filename(dir, "no", "such", "x.json", NULL);
    g_autoptr(GError) error = NULL;
    assert_false(sim_write_file_atomic(p, "x", 1, &error));
    assert_non_null(strstr(error->message, "cannot write"));
}

static void test_group_is_all_or_none(void **state)
{
    const char *dir = *state;
    g_autofree char *a = g_build_filename(dir, "a.json", NULL);
    g_autofree char *b = g_build_filename(dir, "b.json", NULL);
    /* A failure after a's commit: neither appears. */
    sim_out_group_begin();
    assert_true(sim_write_file_atomic(a, "a", 1, NULL));
    assert_false(g_file_test(a, G_FILE_TEST_EXISTS));
    assert_false(sim_out_group_end(false, NULL));
    assert_false(g_file_test(a, G_FILE_TEST_EXISTS));
    assert_int_equal(count_tmp(dir), 0);
    /* Success: both appear at the end. */
    sim_out_group_begin();
    assert_true(sim_write_file_atomic(a, "a", 1, NULL));
    assert_true(sim_write_file_atomic(b, "b", 1, NULL));
    assert_false(g_file_test(b, G_FILE_TEST_EXISTS));
    assert_true(sim_out_group_end(true, NULL));
    assert_true(g_file_test(a, G_FILE_TEST_EXISTS));
    assert_true(g_file_test(b, G_FILE_TEST_EXISTS));
    assert_int_equal(count_tmp(dir), 0);
}

/* What cannot be taken back is named: an output written in place before
 * a later one failed, and a file renamed before a later rename failed. */
static void test_group_failure_names_what_was_written(void **state)
{
    const char *dir = *state;
    g_autofree char *a = g_build_filename(dir, "a.json", NULL);
    g_autofree char *sub = g_build_filename(dir, "sub", NULL);
    g_autofree char *b = g_build_filename(sub, "b.json", NULL);
    g_autoptr(GError) error = NULL;
    sim_out_group_begin();
    assert_true(sim_write_file_atomic("/dev/null", "x", 1, &error));
    assert_true(sim_write_file_atomic(a, "a", 1, &error));
    assert_false(sim_write_file_atomic(b, "b", 1, &error)); /* no sub/ */
    assert_false(sim_out_group_end(false, &error));
    g_autofree char *want1 =
        g_strdup_printf("(outputs already written: /dev/null) cannot write "
                        "%s: %s",
                        b, g_strerror(ENOENT));
    assert_string_equal(error->message, want1);
    assert_false(g_file_test(a, G_FILE_TEST_EXISTS));
    g_clear_error(&error);
    /* The second rename fails (its directory went away after the
     * temporary file was written): the first file stays and is named. */
    assert_int_equal(g_mkdir(sub, 0755), 0);
    sim_out_group_begin();
    assert_true(sim_write_file_atomic(a, "a", 1, &error));
    assert_true(sim_write_file_atomic(b, "b", 1, &error));
    g_autoptr(GDir) d = g_dir_open(sub, 0, NULL);
    const char *tmp = g_dir_read_name(d);
    assert_non_null(tmp);
    g_autofree char *tmp_path = g_build_filename(sub, tmp, NULL);
    g_autofree char *moved = g_build_filename(dir, "moved", NULL);
    assert_int_equal(rename(tmp_path, moved), 0);
    assert_false(sim_out_group_end(true, &error));
    g_autofree char *want =
        g_strdup_printf("(outputs already written: %s) cannot write %s: %s", a,
                        b, g_strerror(ENOENT));
    assert_string_equal(error->message, want);
    assert_true(g_file_test(a, G_FILE_TEST_EXISTS));
    assert_false(g_file_test(b, G_FILE_TEST_EXISTS));
    unlink(moved);
    unlink(a);
    rmdir(sub);
    assert_int_equal(count_tmp(dir), 0);
}

static void test_signal_removes_temporary_files(void **state)
{
    const char *dir = *state;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < G_N_ELEMENTS(sigs); i++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            g_autofree char *p = g_build_filename(dir, "big.csv", NULL);
            SimOutFile *f = sim_out_open(p, NULL);
            if (!f)
                _exit(3);
            fputs("half a report", sim_out_stream(f));
            fflush(sim_out_stream(f));
            raise(sigs[i]);
            _exit(4); /* not reached: the signal kills us */
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), sigs[i]);
        assert_int_equal(count_tmp(dir), 0);
    }
}

int main(void)
{
    /* sim_out keeps a signal ignored at its first output ignored (nohup, a
     * background job of a shell without job control): start from the
     * defaults, so the signal test is about our handler, not the launcher */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < G_N_ELEMENTS(sigs); i++)
        signal(sigs[i], SIG_DFL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_regular_file_is_replaced_atomically, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_is_followed, setup,
                                        teardown),
        cmocka_unit_test(test_devices_are_written_in_place),
        cmocka_unit_test_setup_teardown(test_fifo_is_written_in_place, setup,
                                        teardown),
        cmocka_unit_test(test_disk_full_says_why),
        cmocka_unit_test_setup_teardown(test_missing_directory_fails_cleanly,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_is_all_or_none, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_group_failure_names_what_was_written, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signal_removes_temporary_files,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
