/* outfile.c -- output files: atomic for regular files, in place for the
 * rest.  See outfile.h. */
#define _GNU_SOURCE /* fopencookie: keep the errno of a failed write */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

struct SimOutFile {
    char *path;   /* as given; NULL for stdout */
    char *target; /* regular file renamed onto (symlinks followed); NULL
                     when written in place */
    char *tmp;    /* temporary sibling of target (NULL in place) */
    int fd;
    int err;  /* errno of the first failed write, 0 if none */
    int slot; /* in the signal-cleanup table, -1 if none */
    FILE *fp;
};

/* ------------------------------------------------------------------------
 * Temporary files removed on SIGINT, SIGTERM and SIGHUP.  The handler only
 * calls unlink() (async-signal-safe) on paths that are complete strings
 * before their slot is published and unpublished before they are freed.
 * ------------------------------------------------------------------------ */

#define MAX_TMP 64
static char *volatile tmp_slots[MAX_TMP];
static GMutex tmp_lock;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_TMP; i++) {
        char *p = tmp_slots[i];
        if (p)
            unlink(p);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static int tmp_register(char *path)
{
    static bool installed;
    g_mutex_lock(&tmp_lock);
    if (!installed) {
        for (size_t i = 0; i < G_N_ELEMENTS(cleanup_signals); i++) {
            struct sigaction sa, old;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask);
            /* A signal the user ignores (nohup) stays ignored. */
            if (sigaction(cleanup_signals[i], NULL, &old) == 0 &&
                old.sa_handler == SIG_DFL)
                sigaction(cleanup_signals[i], &sa, NULL);
        }
        installed = true;
    }
    int slot = -1;
    for (int i = 0; i < MAX_TMP && slot < 0; i++)
        if (!tmp_slots[i]) {
            tmp_slots[i] = path;
            slot = i;
        }
    g_mutex_unlock(&tmp_lock);
    return slot;
}

static void tmp_unregister(int slot)
{
    if (slot < 0)
        return;
    g_mutex_lock(&tmp_lock);
    tmp_slots[slot] = NULL;
    g_mutex_unlock(&tmp_lock);
}

/* ------------------------------------------------------------------------
 * Deferred renames: a group of outputs appears together or not at all.
 * ------------------------------------------------------------------------ */

static GPtrArray *deferred;      /* SimOutFile* closed, waiting to be renamed */
static GPtrArray *group_written; /* char*: outputs of the group already written
                               in place (they cannot wait) */
static int defer_depth;

/* Note an output of the open group that is already complete. */
static void note_in_place(const char *what)
{
    if (defer_depth > 0)
        g_ptr_array_add(group_written, g_strdup(what));
}

/* ------------------------------------------------------------------------ */

/* After the first failed write the rest is dropped and the call reports
 * success: the errno is kept in f->err for commit to report, and glibc's
 * stdio is never handed a short or failed cookie write (its error path
 * for those reads outside its buffer, as valgrind shows). */
static ssize_t cookie_write(void *c, const char *buf, size_t n)
{
    SimOutFile *f = c;
    size_t done = 0;
    while (!f->err && done < n) {
        ssize_t w = write(f->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            f->err = w < 0 ? errno : ENOSPC;
        else
            done += (size_t)w;
    }
    return (ssize_t)n;
}

static int cookie_close(void *c)
{
    (void)c; /* the fd is closed by its owner, after fsync */
    return 0;
}

/* Follow @path's symlinks to the file they name (which may not exist yet,
 * like a dangling link that `> link` would create). */
static char *follow_links(const char *path)
{
    char *cur = g_strdup(path);
    for (int depth = 0; depth < 40; depth++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        char *to = g_file_read_link(cur, NULL);
        if (!to)
            return cur;
        if (!g_path_is_absolute(to)) {
            g_autofree char *dir = g_path_get_dirname(cur);
            char *abs = g_build_filename(dir, to, NULL);
            g_free(to);
            to = abs;
        }
        g_free(cur);
        cur = to;
    }
    return cur; /* a loop: open() reports it */
}

static void out_free(SimOutFile *f)
{
    tmp_unregister(f->slot);
    g_free(f->path);
    g_free(f->target);
    g_free(f->tmp);
    g_free(f);
}

static SimOutFile *open_fail(SimOutFile *f, const char *path, int e,
                             GError **error)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: %s", path,
                g_strerror(e));
    if (f->fd >= 0)
        close(f->fd);
    if (f->tmp)
        unlink(f->tmp);
    out_free(f);
    return NULL;
}

bool sim_out_in_place(const char *path)
{
    if (strcmp(path, "-") == 0)
        return true;
    /* Devices, FIFOs, sockets and /dev/stdout-like names are written in
     * place, as `> path` would: renaming over them would replace the device
     * (as root) or the terminal's file with a regular file. */
    static const char *const fd_names[] = {"/dev/stdout", "/dev/stderr",
                                           "/dev/fd/", "/proc/"};
    struct stat st;
    bool in_place = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    for (size_t i = 0; i < G_N_ELEMENTS(fd_names); i++)
        in_place = in_place || g_str_has_prefix(path, fd_names[i]);
    return in_place;
}

/* The descriptor @path names (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), or -1. */
static int named_fd(const char *path)
{
    static const struct {
        const char *prefix;
        int fd; /* -1: the number after the prefix */
    } names[] = {{"/dev/stdout", 1},
                 {"/dev/stderr", 2},
                 {"/dev/fd/", -1},
                 {"/proc/self/fd/", -1}};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        if (names[i].fd >= 0 && strcmp(path, names[i].prefix) == 0)
            return names[i].fd;
        if (names[i].fd < 0 && g_str_has_prefix(path, names[i].prefix)) {
            const char *num = path + strlen(names[i].prefix);
            char *end = NULL;
            long n = strtol(num, &end, 10);
            if (end != num && !*end && n >= 0 && n <= INT_MAX)
                return (int)n;
        }
    }
    return -1;
}

SimOutFile *sim_out_open(const char *path, GError **error)
{
    SimOutFile *f = g_new0(SimOutFile, 1);
    f->fd = -1;
    f->slot = -1;
    /* Standard output through its stream, so that what the command
     * prints there and this output keep their order, as in `> file`. */
    int fd = named_fd(path);
    if (strcmp(path, "-") == 0 || fd == STDOUT_FILENO) {
        f->fp = stdout;
        return f;
    }
    f->path = g_strdup(path);
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (fd >= 0) {
        /* Another open descriptor: written where it stands, not reopened
         * (reopening would truncate what the shell's `>` already holds). */
        f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (f->fd < 0)
            return open_fail(f, path, errno, error);
    } else if (sim_out_in_place(path)) {
        f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (f->fd < 0)
            return open_fail(f, path, errno, error);
    } else {
        f->target = follow_links(path);
        f->tmp = g_strdup_printf("%s.tmp-XXXXXX", f->target);
        f->fd = g_mkstemp(f->tmp);
        if (f->fd < 0) {
            int e = errno;
            g_clear_pointer(&f->tmp, g_free);
            return open_fail(f, path, e, error);
        }
        f->slot = tmp_register(f->tmp);
        /* As `> path`: an existing file keeps its mode, a new one gets
         * 0666 less the umask (mkstemp made it 0600). */
        mode_t mode;
        if (exists) {
            mode = st.st_mode & 07777;
        } else {
            mode_t um = umask(022);
            umask(um);
            mode = 0666 & ~um;
        }
        fchmod(f->fd, mode);
    }
    cookie_io_functions_t io = {NULL, cookie_write, NULL, cookie_close};
    f->fp = fopencookie(f, "w", io);
    if (!f->fp)
        return open_fail(f, path, errno, error);
    return f;
}

FILE *sim_out_stream(SimOutFile *f)
{
    return f->fp;
}

static bool write_fail(const char *path, int e, GError **error)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: %s", path,
                e ? g_strerror(e) : "write error");
    return false;
}

/* Rename a closed temporary file onto its target; frees @f. */
static bool finish_rename(SimOutFile *f, GError **error)
{
    bool ok = rename(f->tmp, f->target) == 0;
    if (!ok) {
        write_fail(f->path, errno, error);
        unlink(f->tmp);
    }
    out_free(f);
    return ok;
}

bool sim_out_commit(SimOutFile *f, GError **error)
{
    if (!f->path) {
        bool ok = fflush(stdout) == 0 && !f->err;
        if (!ok)
            g_set_error(error, SIM_ERROR, SIM_ERROR_IO,
                        "cannot write standard output: %s",
                        g_strerror(f->err ? f->err : errno));
        else
            note_in_place("standard output");
        g_free(f);
        return ok;
    }
    bool ok = fflush(f->fp) == 0 && !ferror(f->fp) && !f->err;
    int e = f->err ? f->err : errno;
    fclose(f->fp);
    /* fsync only what is renamed: a device or FIFO may not support it. */
    if (ok && f->tmp && fsync(f->fd) != 0) {
        ok = false;
        e = errno;
    }
    if (close(f->fd) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        write_fail(f->path, e, error);
        if (f->tmp)
            unlink(f->tmp);
        out_free(f);
        return false;
    }
    if (!f->tmp) {
        note_in_place(f->path);
        out_free(f);
        return true;
    }
    if (defer_depth > 0) {
        g_ptr_array_add(deferred, f);
        return true;
    }
    return finish_rename(f, error);
}

void sim_out_abort(SimOutFile *f)
{
    if (!f)
        return;
    if (f->path) {
        fclose(f->fp);
        close(f->fd);
        if (f->tmp)
            unlink(f->tmp);
        out_free(f);
        return;
    }
    g_free(f);
}

void sim_out_group_begin(void)
{
    if (defer_depth++ == 0) {
        deferred = g_ptr_array_new();
        group_written = g_ptr_array_new_with_free_func(g_free);
    }
}

bool sim_out_group_end(bool keep, GError **error)
{
    g_assert(defer_depth > 0);
    if (--defer_depth > 0)
        return keep;
    bool ok = keep;
    for (guint i = 0; i < deferred->len; i++) {
        SimOutFile *f = g_ptr_array_index(deferred, i);
        if (ok) {
            g_autofree char *path = g_strdup(f->path);
            ok = finish_rename(f, error);
            if (ok)
                g_ptr_array_add(group_written, g_steal_pointer(&path));
        } else {
            unlink(f->tmp);
            out_free(f);
        }
    }
    /* What could not be taken back is named in the error. */
    if (!ok && group_written->len && error && *error) {
        g_autoptr(GString) names = g_string_new(NULL);
        for (guint i = 0; i < group_written->len; i++)
            g_string_append_printf(names, "%s%s", i ? ", " : "",
                                   (char *)g_ptr_array_index(group_written, i));
        g_prefix_error(error, "(outputs already written: %s) ", names->str);
    }
    g_ptr_array_free(deferred, TRUE);
    g_ptr_array_free(group_written, TRUE);
    deferred = NULL;
    group_written = NULL;
    return ok;
}

void sim_out_write(SimOutFile *f, const char *data, size_t len)
{
    if (len && fwrite(data, 1, len, f->fp) != len && !f->err)
        f->err = errno ? errno : EIO;
}

bool sim_write_file_atomic(const char *path, const char *data, size_t len,
                           GError **error)
{
    SimOutFile *f = sim_out_open(path, error);
    if (!f)
        return false;
    sim_out_write(f, data, len);
    return sim_out_commit(f, error);
}

int sim_output_find(const SimOutputFormat *formats, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(formats[i].name, name) == 0)
            return (int)i;
    return -1;
}

bool sim_outputs_write(const SimOutputFormat *formats, size_t n,
                       const char *const *paths, const void *what,
                       GError **error)
{
    for (size_t i = 0; i < n; i++)
        if (paths[i] && !formats[i].write(what, paths[i], error))
            return false;
    return true;
}
