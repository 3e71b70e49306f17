/* csv.c -- line reader and field splitter for profiler CSV.  See csv.h. */
#include "csv.h"

#include <math.h>
#include <string.h>

#include "error.h"

void sim_csv_init(SimCsv *csv, const char *name, const char *text, size_t len)
{
    csv->name = name;
    csv->text = text;
    csv->len = len;
    csv->pos = 0;
    csv->line = 0;
}

bool sim_csv_next_line(SimCsv *csv, const char **line, size_t *len)
{
    if (csv->pos >= csv->len)
        return false;
    const char *start = csv->text + csv->pos;
    const char *nl = memchr(start, '\n', csv->len - csv->pos);
    size_t n = nl ? (size_t)(nl - start) : csv->len - csv->pos;
    csv->pos += n + (nl ? 1 : 0);
    if (n > 0 && start[n - 1] == '\r')
        n--;
    csv->line++;
    *line = start;
    *len = n;
    return true;
}

SimCsvRow *sim_csv_row_new(void)
{
    SimCsvRow *row = g_new0(SimCsvRow, 1);
    row->buf = g_string_sized_new(256);
    row->offs = g_array_new(FALSE, FALSE, sizeof(guint32));
    row->quoted = g_array_new(FALSE, FALSE, sizeof(gboolean));
    return row;
}

void sim_csv_row_free(SimCsvRow *row)
{
    if (!row)
        return;
    g_string_free(row->buf, TRUE);
    g_array_free(row->offs, TRUE);
    g_array_free(row->quoted, TRUE);
    g_free(row);
}

/* "field 19 ('Name')" */
static char *field_label(const SimCsvRow *header, uint32_t i)
{
    if (header && i < header->n)
        return g_strdup_printf("field %u ('%s')", i + 1,
                               sim_csv_field(header, i));
    return g_strdup_printf("field %u", i + 1);
}

bool sim_csv_split(const SimCsv *csv, const char *line, size_t len,
                   uint32_t lineno, SimCsvRow *row, const SimCsvRow *header,
                   GError **error)
{
    g_string_truncate(row->buf, 0);
    g_array_set_size(row->offs, 0);
    g_array_set_size(row->quoted, 0);
    row->n = 0;
    row->line = lineno;
    size_t i = 0;
    for (;;) {
        guint32 off = (guint32)row->buf->len;
        gboolean quoted = FALSE;
        if (i < len && line[i] == '"') {
            quoted = TRUE;
            i++;
            for (;;) {
                if (i >= len) {
                    g_autofree char *f = field_label(header, row->n);
                    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                                "%s:%u: %s: unterminated quote (truncated "
                                "line?)",
                                csv->name, lineno, f);
                    return false;
                }
                if (line[i] == '"') {
                    if (i + 1 < len && line[i + 1] == '"') {
                        g_string_append_c(row->buf, '"');
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                g_string_append_c(row->buf, line[i]);
                i++;
            }
            if (i < len && line[i] != ',') {
                g_autofree char *f = field_label(header, row->n);
                g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                            "%s:%u: %s: unexpected text after a closing "
                            "quote",
                            csv->name, lineno, f);
                return false;
            }
        } else {
            while (i < len && line[i] != ',')
                g_string_append_c(row->buf, line[i++]);
        }
        g_string_append_c(row->buf, '\0');
        g_array_append_val(row->offs, off);
        g_array_append_val(row->quoted, quoted);
        row->n++;
        if (i >= len)
            break;
        i++; /* the comma */
    }
    return true;
}

bool sim_csv_check_width(const SimCsv *csv, const SimCsvRow *row,
                         uint32_t min_fields, uint32_t max_fields,
                         GError **error)
{
    if (row->n >= min_fields && row->n <= max_fields)
        return true;
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                "%s:%u: %u fields, but the header has %u%s", csv->name,
                row->line, row->n, max_fields,
                row->n < min_fields ? " (truncated line?)" : "");
    return false;
}

const char *sim_csv_field(const SimCsvRow *row, uint32_t i)
{
    if (i >= row->n)
        return "";
    return row->buf->str + g_array_index(row->offs, guint32, i);
}

int sim_csv_find(const SimCsvRow *header, const char *name)
{
    for (uint32_t i = 0; i < header->n; i++)
        if (strcmp(sim_csv_field(header, i), name) == 0)
            return (int)i;
    return -1;
}

bool sim_csv_parse_double(const char *s, double *out)
{
    char tmp[64];
    size_t n = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    for (; *s; s++) {
        if (*s == ',')
            continue; /* thousands separator */
        if (n + 1 >= sizeof tmp)
            return false;
        tmp[n++] = *s;
    }
    while (n > 0 && (tmp[n - 1] == ' ' || tmp[n - 1] == '\t'))
        n--;
    tmp[n] = '\0';
    if (n == 0)
        return false;
    /* Only decimal notation: g_ascii_strtod would also take "inf", "nan"
     * and hexadecimal. */
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789+-.eE", tmp[i]))
            return false;
    char *end = NULL;
    double d = g_ascii_strtod(tmp, &end);
    if (end != tmp + n || !isfinite(d))
        return false;
    *out = d;
    return true;
}

bool sim_csv_line_starts(const char *line, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(line, prefix, n) == 0;
}
