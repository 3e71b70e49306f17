/* outfile.c -- atomic output files.  See outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

struct SimOutFile {
    char *path;   /* destination; NULL for stdout */
    char *tmp;    /* temporary sibling */
    FILE *fp;
};

SimOutFile *sim_out_open(const char *path, GError **error)
{
    SimOutFile *f = g_new0(SimOutFile, 1);
    if (strcmp(path, "-") == 0) {
        f->fp = stdout;
        return f;
    }
    f->path = g_strdup(path);
    f->tmp = g_strdup_printf("%s.tmp-XXXXXX", path);
    int fd = g_mkstemp(f->tmp);
    if (fd < 0 || !(f->fp = fdopen(fd, "w"))) {
        int e = errno;
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: %s",
                    path, g_strerror(e));
        if (fd >= 0) {
            close(fd);
            unlink(f->tmp);
        }
        g_free(f->path);
        g_free(f->tmp);
        g_free(f);
        return NULL;
    }
    /* mkstemp creates 0600; outputs are ordinary files. */
    fchmod(fd, 0644);
    return f;
}

FILE *sim_out_stream(SimOutFile *f)
{
    return f->fp;
}

bool sim_out_commit(SimOutFile *f, GError **error)
{
    bool ok = true;
    if (!f->path) {
        ok = fflush(stdout) == 0;
        if (!ok)
            g_set_error(error, SIM_ERROR, SIM_ERROR_IO,
                        "cannot write standard output: %s",
                        g_strerror(errno));
        g_free(f);
        return ok;
    }
    if (ferror(f->fp) || fflush(f->fp) != 0 || fsync(fileno(f->fp)) != 0)
        ok = false;
    int e = errno;
    if (fclose(f->fp) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (ok && rename(f->tmp, f->path) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: %s",
                    f->path, g_strerror(e));
        unlink(f->tmp);
    }
    g_free(f->path);
    g_free(f->tmp);
    g_free(f);
    return ok;
}

void sim_out_abort(SimOutFile *f)
{
    if (!f)
        return;
    if (f->path) {
        fclose(f->fp);
        unlink(f->tmp);
    }
    g_free(f->path);
    g_free(f->tmp);
    g_free(f);
}

bool sim_write_file_atomic(const char *path, const char *data, size_t len,
                           GError **error)
{
    SimOutFile *f = sim_out_open(path, error);
    if (!f)
        return false;
    if (len && fwrite(data, 1, len, f->fp) != len) {
        int e = errno;
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot write %s: %s",
                    path, g_strerror(e));
        sim_out_abort(f);
        return false;
    }
    return sim_out_commit(f, error);
}
