/* outfile.h -- output files written safely.
 *
 * Every report, CSV, JSON or picture hqsim writes to a regular file (or a
 * name that does not exist yet) goes to a temporary file beside it and is
 * renamed into place only once complete, so a failed or interrupted run
 * never leaves a half-written output (SPEC.md "Bad input").  A symlink is
 * followed: its target is replaced, the link stays.  Anything else -- a
 * device (/dev/null), a FIFO, a socket, /dev/stdout or /proc/self/fd/N --
 * is written in place, exactly as `> path` would.  "-" means standard
 * output.  Temporary files are removed on SIGINT, SIGTERM and SIGHUP.  A
 * failed write names its reason (e.g. "No space left on device").
 */
#ifndef SIM_OUTFILE_H
#define SIM_OUTFILE_H

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

typedef struct SimOutFile SimOutFile;

/* Open @path for writing (its temporary sibling, really).
 * Returns: (transfer full) (nullable). */
SimOutFile *sim_out_open(const char *path, GError **error);

/* The stream to write to (transfer none). */
FILE *sim_out_stream(SimOutFile *f);

/* Whether @path is written in place rather than renamed onto: "-"
 * (standard output), a device, FIFO or socket, /dev/stdout and the like.
 * Such a path names one stream, so it cannot stand for several files. */
bool sim_out_in_place(const char *path);

/* Write @len bytes of @data to @f; a failure (its errno) is kept and
 * reported by sim_out_commit. */
void sim_out_write(SimOutFile *f, const char *data, size_t len);

/* Flush, close and rename into place; frees @f.  On failure the temporary
 * file is removed and nothing appears at the destination. */
bool sim_out_commit(SimOutFile *f, GError **error);

/* Discard: remove the temporary file; frees @f.  NULL is fine. */
void sim_out_abort(SimOutFile *f);

/* A group of outputs that appear together or not at all: between begin and
 * end, commits keep their temporary files; end(true) renames them all into
 * place, end(false) removes them.  Outputs written in place (devices,
 * FIFOs, standard output) cannot wait: they are written at commit.  When
 * the group fails -- @keep false with *@error already set by the caller,
 * or a rename failing here -- the error names every output that is
 * nonetheless complete ("(outputs already written: /dev/stdout) ...").
 * Returns: @keep and every rename done.  Groups nest; only the outermost
 * acts.  Main thread only. */
void sim_out_group_begin(void);
bool sim_out_group_end(bool keep, GError **error);

/* Write @len bytes of @data to @path atomically. */
/* An output format: its name (the option --NAME FILE that asks for it),
 * its file name's usual extension(s), and its writer, which writes @what
 * (the table's own kind of results) to @path atomically.  Each command's
 * outputs are one table of these (viz/outputs.c for runs and
 * comparisons, plan/sweep_report.c for sweeps). */
typedef struct {
    const char *name;
    const char *ext;
    bool (*write)(const void *what, const char *path, GError **error);
} SimOutputFormat;

/* The index of @name in @formats (@n), or -1. */
int sim_output_find(const SimOutputFormat *formats, size_t n, const char *name);

/* Write, in table order, each of @formats whose path in @paths (same
 * index; NULL: not asked for) is set; the first failure stops and is
 * returned (earlier outputs stay unless the caller groups them). */
bool sim_outputs_write(const SimOutputFormat *formats, size_t n,
                       const char *const *paths, const void *what,
                       GError **error);

bool sim_write_file_atomic(const char *path, const char *data, size_t len,
                           GError **error);

#endif /* SIM_OUTFILE_H */
