/* csv.h -- reading the comma-separated exports of nvprof, nsys and ncu.
 *
 * A SimCsv walks a text buffer line by line (LF or CRLF) and splits a line
 * into fields on request, so that an importer can skip preambles (nvprof's
 * "==PID==" lines, nsys's NOTICE lines, an application's own stdout) that
 * are not CSV at all.  Fields may be quoted with '"' (a doubled quote inside
 * is one quote); a quoted field may contain commas but not a line break --
 * no profiler writes one, and refusing it keeps every error on one line.
 *
 * Numbers are read locale-independently; ncu's thousands separators
 * ("10,720", only possible inside quotes) are accepted.  Every error names
 * the file and line; callers add the column.
 */
#ifndef SIM_IMPORT_CSV_H
#define SIM_IMPORT_CSV_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* A line split into fields.  Representation: one buffer holding every
 * field NUL-terminated, and the offset of each field in it; so a row costs
 * two allocations however many fields it has, and is reused across lines. */
typedef struct {
    GString *buf;
    GArray *offs;  /* guint32 offset of field i in buf */
    uint32_t n;    /* number of fields */
    uint32_t line; /* 1-based line it came from */
} SimCsvRow;

typedef struct {
    const char *name; /* file name for messages (transfer none) */
    const char *text;
    size_t len;
    size_t pos;    /* start of the next line */
    uint32_t line; /* number of the line last returned */
} SimCsv;

void sim_csv_init(SimCsv *csv, const char *name, const char *text, size_t len);

/* The next line, without its line break.  *line points into the text and is
 * not NUL-terminated.  Returns false at the end of the text. */
bool sim_csv_next_line(SimCsv *csv, const char **line, size_t *len);

SimCsvRow *sim_csv_row_new(void);
void sim_csv_row_free(SimCsvRow *row);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimCsvRow, sim_csv_row_free)

/* Split @len bytes of @line (line number @lineno) into @row.  Fails, naming
 * the file, line and field (by its @header name when a header is given,
 * else NULL), on an unterminated quote or text after a closing quote. */
bool sim_csv_split(const SimCsv *csv, const char *line, size_t len,
                   uint32_t lineno, SimCsvRow *row, const SimCsvRow *header,
                   GError **error);

/* Fails, naming the file and the row's line, unless @row has between
 * @min_fields and @max_fields fields (the header's count, or fewer where
 * trailing columns are optional). */
bool sim_csv_check_width(const SimCsv *csv, const SimCsvRow *row,
                         uint32_t min_fields, uint32_t max_fields,
                         GError **error);

/* Field @i of @row (transfer none), "" when @i is out of range. */
const char *sim_csv_field(const SimCsvRow *row, uint32_t i);

/* Index of the column named @name in @header, or -1. */
int sim_csv_find(const SimCsvRow *header, const char *name);

/* Parse a whole field as a finite number: optional sign, digits with
 * optional thousands separators, fraction, exponent.  Surrounding blanks
 * are allowed.  Returns false for anything else, including "". */
bool sim_csv_parse_double(const char *s, double *out);

/* Does @line (not NUL-terminated) start with @prefix? */
bool sim_csv_line_starts(const char *line, size_t len, const char *prefix);

#endif /* SIM_IMPORT_CSV_H */
