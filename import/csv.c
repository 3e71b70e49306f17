/* csv.c -- line reader and field splitter for profiler CSV.  See csv.h. */
#include "csv.h"

#include <math.h>
#include <string.h>

#include "decimal.h"
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
    return row;
}

void sim_csv_row_free(SimCsvRow *row)
{
    if (!row)
        return;
    g_string_free(row->buf, TRUE);
    g_array_free(row->offs, TRUE);
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
    /* Room for the worst case, so that the loop writes without checks: a
     * field takes at most its bytes and a NUL, and there are at most len + 1
     * fields (every byte a comma), so 2 len + 1 bytes and len + 1 offsets. */
    g_string_set_size(row->buf, 2 * len + 1);
    g_array_set_size(row->offs, (guint)len + 1);
    char *out = row->buf->str;
    guint32 *offs = &g_array_index(row->offs, guint32, 0);
    size_t w = 0;
    row->n = 0;
    row->line = lineno;
    if (!memchr(line, '"', len)) {
        /* No quotes (an nsys row): the line itself, each comma a NUL. */
        memcpy(out, line, len);
        out[len] = '\0';
        offs[row->n++] = 0;
        for (char *c = out; (c = memchr(c, ',', len - (size_t)(c - out)));) {
            *c++ = '\0';
            offs[row->n++] = (guint32)(c - out);
        }
        g_string_set_size(row->buf, len + 1);
        g_array_set_size(row->offs, row->n);
        return true;
    }
    size_t i = 0;
    for (;;) {
        offs[row->n] = (guint32)w;
        if (i < len && line[i] == '"') {
            i++;
            for (;;) {
                const char *q = i < len ? memchr(line + i, '"', len - i) : NULL;
                if (!q) {
                    g_string_set_size(row->buf, w);
                    g_array_set_size(row->offs, row->n);
                    g_autofree char *f = field_label(header, row->n);
                    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                                "%s:%u: %s: unterminated quote (truncated "
                                "line?)",
                                csv->name, lineno, f);
                    return false;
                }
                size_t end = (size_t)(q - line);
                memcpy(out + w, line + i, end - i);
                w += end - i;
                i = end + 1;
                if (i < len && line[i] == '"') { /* a doubled quote */
                    out[w++] = '"';
                    i++;
                    continue;
                }
                break;
            }
            if (i < len && line[i] != ',') {
                g_string_set_size(row->buf, w);
                g_array_set_size(row->offs, row->n);
                g_autofree char *f = field_label(header, row->n);
                g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                            "%s:%u: %s: unexpected text after a closing "
                            "quote",
                            csv->name, lineno, f);
                return false;
            }
        } else {
            /* Byte by byte: most fields are a few bytes, where a memchr
             * and a memcpy per field cost more than the bytes. */
            while (i < len && line[i] != ',')
                out[w++] = line[i++];
        }
        out[w++] = '\0';
        row->n++;
        if (i >= len)
            break;
        i++; /* the comma */
    }
    g_string_set_size(row->buf, w);
    g_array_set_size(row->offs, row->n);
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

/* Whether @c may appear in a number sim_csv_parse_double reads. */
static bool number_char(char c)
{
    return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' ||
           c == 'e' || c == 'E';
}

/* @s up to its NUL or @n bytes, whichever comes first, as a double
 * without strtod when that is exact: an optional sign, digits and at most
 * one point (no exponent), whose significant digits (at most 19, so m
 * cannot wrap) make what sim_decimal_fast converts.  *@used: where the
 * scan stopped.  False for anything else: the caller asks strtod. */
static bool decimal_exact(const char *s, size_t n, double *out, size_t *used)
{
    size_t i = 0;
    bool neg = false, dot = false, any = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    uint64_t m = 0;
    unsigned sig = 0, frac = 0;
    for (; i < n && s[i]; i++) {
        char c = s[i];
        if (c == '.') {
            if (dot)
                return false;
            dot = true;
            continue;
        }
        if (c < '0' || c > '9')
            return false; /* an exponent, a second sign */
        any = true;
        frac += dot;
        if (m == 0 && c == '0')
            continue; /* a leading zero is not significant */
        if (++sig > 19)
            return false;
        m = m * 10 + (uint64_t)(c - '0');
    }
    *used = i;
    return any && sim_decimal_fast(m, frac, neg, out);
}

/* A field shorter than 63 bytes (what sim_csv_parse_double reads without
 * a copy) that decimal_exact converts, in one pass over the NUL-terminated
 * field; false for anything else, which goes the general way. */
static bool plain_decimal(const char *s, double *out)
{
    size_t used = 0;
    /* Stopped at byte 62, not at the NUL: 63 bytes or more. */
    return decimal_exact(s, 62, out, &used) && s[used] == '\0';
}

bool sim_csv_parse_double(const char *s, double *out)
{
    /* A plain field (no blanks, separators or exponent; shorter than the
     * copy below allows) needs no copy. */
    if (plain_decimal(s, out))
        return true;
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
        if (!number_char(tmp[i]))
            return false;
    size_t used = 0;
    if (decimal_exact(tmp, n, out, &used))
        return true;
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
