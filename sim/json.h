/* json.h -- reading JSON input files with errors that name file, line and
 * field.
 *
 * cJSON stays at this boundary: a SimJsonDoc owns the text and the parsed
 * tree; loaders read values through the typed getters below, which check
 * types, ranges and integrality and report "FILE:LINE: field 'KEY': ...".
 * cJSON keeps no positions, so the line of a node is found, only when an
 * error is reported, by walking the text in step with the tree
 * (sim_json_line_of).  No cJSON pointer escapes a loader.
 */
#ifndef SIM_JSON_H
#define SIM_JSON_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct SimJsonDoc {
    char *file; /* name used in messages (owned) */
    char *text; /* the whole input, NUL-terminated (owned) */
    size_t len;
    cJSON *root; /* (owned) */
} SimJsonDoc;

/* Read @path (plain or gzip-compressed, detected from its first bytes),
 * check it is UTF-8, and parse it.  Parse errors give the line and column.
 * Returns: (transfer full) (nullable). */
SimJsonDoc *sim_json_doc_load(const char *path, GError **error);

/* Parse @len bytes of @text (copied).  @name is used in messages. */
SimJsonDoc *sim_json_doc_parse(const char *name, const char *text, size_t len,
                               GError **error);

/* The checks sim_json_doc_parse makes before it parses, with their
 * messages: valid UTF-8 without NUL bytes, no raw control byte inside a
 * string, nesting within cJSON's limit, at most @max_values values (a
 * reader that parses one element at a time passes UINT64_MAX and bounds
 * each element itself). */
bool sim_json_check_text(const char *name, const char *text, size_t len,
                         uint64_t max_values, GError **error);

void sim_json_doc_free(SimJsonDoc *doc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimJsonDoc, sim_json_doc_free)

/* 1-based line of @node's value in the text, 0 if not found. */
int sim_json_line_of(const SimJsonDoc *doc, const cJSON *node);

/* Lines of every node in one pass over the text: a table from cJSON node
 * pointer to GINT_TO_POINTER(line).  O(text length); use it when many nodes
 * need their line (a scenario's ops), sim_json_line_of for one.
 * Returns: (transfer full). */
GHashTable *sim_json_line_table(const SimJsonDoc *doc);

/* Set @error to "FILE:LINE: MESSAGE" with the line of @node (NULL: no
 * line).  Always returns false, so loaders can `return sim_json_fail(...)`. */
bool sim_json_fail(const SimJsonDoc *doc, const cJSON *node, GError **error,
                   const char *fmt, ...) G_GNUC_PRINTF(4, 5);

/* Reject members of @obj whose names are not in the NULL-terminated
 * @allowed list ("unknown field 'X'"). */
bool sim_json_check_keys(const SimJsonDoc *doc, const cJSON *obj,
                         const char *const *allowed, const char *what,
                         GError **error);

/* Typed getters.  Each looks up @key in object @obj.  When the key is absent:
 * if @required, an error "missing field 'KEY'"; otherwise *out is left as is
 * and true is returned.  Present values must have the right type and lie in
 * [min, max]; integers must be integral.  @what prefixes the field in
 * messages (e.g. "process 'a' op 3"); NULL for none. */
bool sim_json_get_u64(const SimJsonDoc *doc, const cJSON *obj, const char *key,
                      const char *what, bool required, uint64_t min,
                      uint64_t max, uint64_t *out, GError **error);
bool sim_json_get_u32(const SimJsonDoc *doc, const cJSON *obj, const char *key,
                      const char *what, bool required, uint32_t min,
                      uint32_t max, uint32_t *out, GError **error);
bool sim_json_get_int(const SimJsonDoc *doc, const cJSON *obj, const char *key,
                      const char *what, bool required, int min, int max,
                      int *out, GError **error);
bool sim_json_get_double(const SimJsonDoc *doc, const cJSON *obj,
                         const char *key, const char *what, bool required,
                         double min, double max, double *out, GError **error);
bool sim_json_get_bool(const SimJsonDoc *doc, const cJSON *obj, const char *key,
                       const char *what, bool required, bool *out,
                       GError **error);
/* *out points into the document (transfer none); copy it to keep it. */
bool sim_json_get_string(const SimJsonDoc *doc, const cJSON *obj,
                         const char *key, const char *what, bool required,
                         const char **out, GError **error);
/* A string that must be one of the NULL-terminated @names; *out is its
 * index. */
bool sim_json_get_enum(const SimJsonDoc *doc, const cJSON *obj, const char *key,
                       const char *what, bool required,
                       const char *const *names, int *out, GError **error);

/* Check that a number node is integral and in range. */
bool sim_json_number_u64(const SimJsonDoc *doc, const cJSON *node,
                         const char *key, const char *what, uint64_t min,
                         uint64_t max, uint64_t *out, GError **error);

/* Read a whole file into memory, transparently inflating gzip (.gz magic).
 * Only regular files are read (a FIFO or device is an error, never a
 * wait); sizes are bounded by the input_bytes and inflated_bytes limits.
 * Returns: (transfer full) NUL-terminated (nullable). */
char *sim_read_file(const char *path, size_t *len_out, GError **error);

/* True if @path is a regular file within the input_bytes limit (for
 * readers that open files themselves, like SQLite). */
bool sim_check_regular_file(const char *path, GError **error);

/* Check @len bytes are valid UTF-8; on failure the error names the line. */
bool sim_check_utf8(const char *name, const char *text, size_t len,
                    GError **error);

#endif /* SIM_JSON_H */
