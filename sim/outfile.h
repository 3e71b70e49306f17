/* outfile.h -- output files written atomically.
 *
 * Every report, CSV, JSON or picture hqsim writes goes to a temporary file
 * beside its destination and is renamed into place only once complete, so a
 * failed or interrupted run never leaves a half-written output (SPEC.md "Bad
 * input").  "-" means standard output (written directly).
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

/* Flush, close and rename into place; frees @f.  On failure the temporary
 * file is removed and nothing appears at the destination. */
bool sim_out_commit(SimOutFile *f, GError **error);

/* Discard: remove the temporary file; frees @f.  NULL is fine. */
void sim_out_abort(SimOutFile *f);

/* Write @len bytes of @data to @path atomically. */
bool sim_write_file_atomic(const char *path, const char *data, size_t len,
                           GError **error);

#endif /* SIM_OUTFILE_H */
