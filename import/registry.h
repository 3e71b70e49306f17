/* registry.h -- the importers, one table (internal to import/).
 *
 * Each input format is one row: its name (what --format takes and reports
 * print), how its content is recognized, and how it is read.  Detection
 * (detect.c) asks the rows in table order; loading (workload.c) calls the
 * row's reader.  Adding a format is its reader's file plus one row in
 * registry.c.
 */
#ifndef SIM_IMPORT_REGISTRY_H
#define SIM_IMPORT_REGISTRY_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "scenario.h"
#include "trace.h"

typedef struct {
    const char *name;
    /* Detection from content; any may be absent (NULL / 0). */
    const char *magic; /* a binary format: the file's first bytes ... */
    size_t magic_len;
    bool (*detect_file)(const char *path, GError **error); /* ... then this */
    bool (*detect_json)(const char *head, size_t len);
    bool (*detect_line)(const char *line, size_t n);
    /* Reading: exactly one of these. */
    SimScenario *(*read_native)(const char *path, GError **error);
    bool (*read_path)(SimTrace *tr, GError **error);
    bool (*read_text)(SimTrace *tr, const char *text, size_t len,
                      GError **error);
} SimImporter;

extern const SimImporter sim_importers[];
extern const size_t sim_n_importers;

/* The row named @name, or NULL. */
const SimImporter *sim_importer_find(const char *name);

#endif /* SIM_IMPORT_REGISTRY_H */
