/* json.c -- JSON input with file/line/field errors.  See json.h. */
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "bounds.h"
#include "error.h"

G_DEFINE_QUARK(hqsim - error - quark, sim_error)

/* ------------------------------------------------------------------------
 * Reading files
 * ------------------------------------------------------------------------ */

static char *inflate_gzip(const char *path, const unsigned char *data,
                          size_t len, size_t *len_out, GError **error)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 32) != Z_OK) { /* +32: gzip or zlib header */
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s: cannot initialise gzip decoder", path);
        return NULL;
    }
    /* Inflated size is checked as it grows: a few KB can inflate to GBs. */
    uint64_t max_out = sim_limit(SIM_BOUND_INFLATED_BYTES);
    GByteArray *out =
        g_byte_array_sized_new((guint)MIN((uint64_t)len * 4 + 1024, max_out));
    unsigned char buf[65536];
    zs.next_in = (unsigned char *)data;
    zs.avail_in = (uInt)len;
    int rc;
    do {
        zs.next_out = buf;
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                        "%s: corrupt gzip data at byte %lu: %s", path,
                        (unsigned long)zs.total_in,
                        zs.msg ? zs.msg : "inflate failed");
            inflateEnd(&zs);
            g_byte_array_free(out, TRUE);
            return NULL;
        }
        if ((uint64_t)out->len + (sizeof buf - zs.avail_out) > max_out) {
            sim_limit_fail(error, SIM_BOUND_INFLATED_BYTES,
                           "%s: gzip data inflates to more than %llu bytes",
                           path, (unsigned long long)max_out);
            inflateEnd(&zs);
            g_byte_array_free(out, TRUE);
            return NULL;
        }
        g_byte_array_append(out, buf, sizeof buf - zs.avail_out);
        /* A gzip member ended but more input follows: concatenated members
         * are legal gzip, keep going. */
        if (rc == Z_STREAM_END && zs.avail_in > 0) {
            inflateReset(&zs);
            rc = Z_OK;
        }
    } while (rc != Z_STREAM_END && (zs.avail_in > 0 || zs.avail_out == 0));
    inflateEnd(&zs);
    if (rc != Z_STREAM_END) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s: truncated gzip data (stream ends after %lu bytes)",
                    path, (unsigned long)len);
        g_byte_array_free(out, TRUE);
        return NULL;
    }
    *len_out = out->len;
    g_byte_array_append(out, (const guint8 *)"", 1);
    return (char *)g_byte_array_free(out, FALSE);
}

/* What a non-regular file is, for the message. */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO (named pipe)"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/* A regular file within the input_bytes limit, from its stat. */
static bool check_stat(const char *path, const struct stat *st, GError **error)
{
    if (!S_ISREG(st->st_mode)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO,
                    "cannot read %s: it is %s; hqsim reads only regular files",
                    path, file_kind(st->st_mode));
        return false;
    }
    if ((uint64_t)st->st_size > sim_limit(SIM_BOUND_INPUT_BYTES))
        return sim_limit_fail(error, SIM_BOUND_INPUT_BYTES,
                              "%s: the file has %llu bytes", path,
                              (unsigned long long)st->st_size);
    return true;
}

static bool io_fail(const char *path, int e, GError **error)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot read %s: %s", path,
                g_strerror(e));
    return false;
}

bool sim_check_regular_file(const char *path, GError **error)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return io_fail(path, errno, error);
    return check_stat(path, &st, error);
}

/* Read all of @fd into @buf (grown as needed, NUL-terminated).  The file
 * may grow while it is read: the input_bytes limit still holds. */
static bool read_all(const char *path, int fd, GByteArray *buf, GError **error)
{
    /* Straight into the buffer's free room (sized to the file by the
     * caller): a 400 MB trace is copied once, not twice.  Invariant: at
     * the top of the loop len <= limit (else we failed), and one read asks
     * for at most limit + 1 - len bytes, so len + room <= limit + 1 <=
     * G_MAXUINT (bounds.c clamps the limit to G_MAXUINT - 1): the guint
     * length never wraps, and one byte past the limit is enough to see
     * that the file grew past it. */
    const uint64_t limit =
        MIN(sim_limit(SIM_BOUND_INPUT_BYTES), (uint64_t)G_MAXUINT - 1);
    for (;;) {
        const guint len = buf->len;
        const guint room = (guint)MIN((uint64_t)1 << 20, limit + 1 - len);
        g_byte_array_set_size(buf, len + room);
        ssize_t n = read(fd, buf->data + len, room);
        g_byte_array_set_size(buf, len + (n > 0 ? (guint)n : 0));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return io_fail(path, errno, error);
        if (n == 0)
            return true;
        if ((uint64_t)buf->len > limit)
            return sim_limit_fail(error, SIM_BOUND_INPUT_BYTES,
                                  "%s: the file grew past %u bytes", path, len);
    }
}

/* Read a whole regular file.  Opened non-blocking and checked with fstat
 * before any read: a FIFO or device given as input is refused at once
 * instead of blocking forever or reading without end. */
static char *read_regular(const char *path, size_t *len_out, GError **error)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        io_fail(path, errno, error);
        return NULL;
    }
    struct stat st;
    bool ok = fstat(fd, &st) == 0 ? check_stat(path, &st, error)
                                  : io_fail(path, errno, error);
    /* Room for the file, one read's chunk (read_all) and the NUL, in
     * uint64 and clamped: st_size is within the limit (< G_MAXUINT) but
     * the sum may not be; the array grows past this hint if need be. */
    const uint64_t want =
        ok ? MIN((uint64_t)st.st_size + (1u << 20) + 1, (uint64_t)G_MAXUINT)
           : 1;
    GByteArray *buf = g_byte_array_sized_new((guint)want);
    ok = ok && read_all(path, fd, buf, error);
    close(fd);
    if (!ok) {
        g_byte_array_free(buf, TRUE);
        return NULL;
    }
    *len_out = buf->len;
    g_byte_array_append(buf, (const guint8 *)"", 1);
    return (char *)g_byte_array_free(buf, FALSE);
}

char *sim_read_file(const char *path, size_t *len_out, GError **error)
{
    size_t len = 0;
    char *data = read_regular(path, &len, error);
    if (!data)
        return NULL;
    const unsigned char *u = (const unsigned char *)data;
    if (len >= 2 && u[0] == 0x1f && u[1] == 0x8b) {
        size_t n = 0;
        char *plain = inflate_gzip(path, u, len, &n, error);
        g_free(data);
        if (plain && len_out)
            *len_out = n;
        return plain;
    }
    if (g_str_has_suffix(path, ".gz")) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s: name ends in .gz but the file is not gzip data", path);
        g_free(data);
        return NULL;
    }
    if (len_out)
        *len_out = len;
    return data;
}

bool sim_check_utf8(const char *name, const char *text, size_t len,
                    GError **error)
{
    /* ASCII without NUL, 8 bytes at a time (a word with a byte >= 0x80
     * or a zero byte sets a high bit of (w - 0x01..01) | w); g_utf8_validate
     * goes on from the first word that may hold anything else, a character
     * boundary. */
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, text + i, 8);
        if (((w - UINT64_C(0x0101010101010101)) | w) &
            UINT64_C(0x8080808080808080))
            break;
    }
    const gchar *end = NULL;
    if (g_utf8_validate(text + i, (gssize)(len - i), &end))
        return true;
    int line = 1;
    for (const char *p = text; p < end; p++)
        if (*p == '\n')
            line++;
    /* g_utf8_validate stops at a NUL: that is binary data, not a broken
     * UTF-8 sequence. */
    if (end < text + len && *end == '\0') {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s:%d: contains a NUL byte at offset %ld (binary data, "
                    "not text)",
                    name, line, (long)(end - text));
        return false;
    }
    /* (gunichar)-2: a valid but incomplete sequence.  At the very end of
     * the input that is a file cut short, not a wrong encoding. */
    gssize rest = (gssize)(len - (size_t)(end - text));
    if (rest > 0 && g_utf8_get_char_validated(end, rest) == (gunichar)-2) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s:%d: ends in the middle of a UTF-8 character "
                    "(truncated file?)",
                    name, line);
        return false;
    }
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "%s:%d: not valid UTF-8 (byte 0x%02x at offset %ld)", name,
                line, (unsigned char)*end, (long)(end - text));
    return false;
}

/* ------------------------------------------------------------------------
 * Documents
 * ------------------------------------------------------------------------ */

static void offset_to_line_col(const char *text, size_t off, int *line,
                               int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* True if the parse error at @off looks like a file cut short: the text
 * ends inside a string, or with objects or arrays still open and no closing
 * bracket after the error (cJSON points at the start of an unfinished token,
 * not at the end, so "off >= len" alone misses these). */
static bool looks_truncated(const char *text, size_t len, size_t off)
{
    size_t depth = 0;
    bool in_string = false, closer_after_error = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth > 0)
                depth--;
            closer_after_error |= i >= off;
        }
    }
    return in_string || (depth > 0 && !closer_after_error);
}

/* A raw control byte (U+0000 to U+001F) at @at inside a string: JSON
 * requires it escaped, cJSON would take it.  The message names the field
 * whose value holds it (@key, the last member name before it, if any) or
 * says that the string is itself a member name. */
static bool control_fail(const char *name, const char *text, size_t len,
                         size_t at, int line, const char *key, size_t key_len,
                         GError **error)
{
    size_t e = at;
    while (e < len && text[e] != '"')
        e += text[e] == '\\' ? 2 : 1;
    for (e++; e < len && strchr(" \t\r\n", text[e]); e++)
        ;
    bool is_key = e < len && text[e] == ':';
    g_autofree char *field =
        is_key || !key
            ? NULL
            : g_strdup_printf("field '%.*s': ", (int)MIN(key_len, 60), key);
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "%s:%d: %sa raw control byte 0x%02x inside %s; JSON needs "
                "it escaped (\\n, \\t, \\u00%02x)",
                name, line, field ? field : "",
                (unsigned)(unsigned char)text[at],
                is_key ? "a field name" : "a string",
                (unsigned)(unsigned char)text[at]);
    return false;
}

/* Bytes check_shape looks at: in a string, control bytes, its end and
 * escapes; outside, newlines and JSON's punctuation. */
static const bool str_special[256] = {
    [0] = 1,  [1] = 1,  [2] = 1,  [3] = 1,  [4] = 1,   [5] = 1,    [6] = 1,
    [7] = 1,  [8] = 1,  [9] = 1,  [10] = 1, [11] = 1,  [12] = 1,   [13] = 1,
    [14] = 1, [15] = 1, [16] = 1, [17] = 1, [18] = 1,  [19] = 1,   [20] = 1,
    [21] = 1, [22] = 1, [23] = 1, [24] = 1, [25] = 1,  [26] = 1,   [27] = 1,
    [28] = 1, [29] = 1, [30] = 1, [31] = 1, ['"'] = 1, ['\\'] = 1,
};
static const bool out_special[256] = {
    ['\n'] = 1, ['"'] = 1, [':'] = 1, ['{'] = 1,
    ['['] = 1,  ['}'] = 1, [']'] = 1, [','] = 1,
};

/* Before cJSON builds a tree: refuse nesting cJSON would refuse (with a
 * message that says so, not "syntax error"), more values than the limit (a
 * tree takes ~64 bytes per value, so a few MB of "0," would take GBs), and
 * raw control bytes inside strings, which JSON forbids and cJSON accepts. */
static bool check_shape(const char *name, const char *text, size_t len,
                        uint64_t max_values, GError **error)
{
    size_t depth = 0;
    uint64_t values = 0;
    int line = 1;
    bool in_string = false;
    size_t str_start = 0, last_str = 0, last_len = 0; /* last string */
    const char *key = NULL;                           /* last member name */
    size_t key_len = 0;
    for (size_t i = 0; i < len; i++) {
        /* Runs of bytes that change nothing are skipped in a tight loop:
         * most of a trace's text (a newline in a string is a control
         * byte: it fails before it counts). */
        if (in_string) {
            while (i < len && !str_special[(unsigned char)text[i]])
                i++;
            if (i >= len)
                break;
            const char c = text[i];
            if ((unsigned char)c < 0x20)
                return control_fail(name, text, len, i, line, key, key_len,
                                    error);
            if (c == '\\') {
                i++;
            } else { /* '"' */
                in_string = false;
                last_str = str_start;
                last_len = i - str_start;
            }
            continue;
        }
        while (i < len && !out_special[(unsigned char)text[i]])
            i++;
        if (i >= len)
            break;
        const char c = text[i];
        if (c == '\n')
            line++;
        if (c == '"') {
            in_string = true;
            str_start = i + 1;
        } else if (c == ':') {
            key = text + last_str;
            key_len = last_len;
        }
        if (c == '{' || c == '[') {
            if (++depth > CJSON_NESTING_LIMIT) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                            "%s:%d: arrays and objects nested more than %d "
                            "deep (hqsim's JSON reader stops there)",
                            name, line, CJSON_NESTING_LIMIT);
                return false;
            }
        } else if ((c == '}' || c == ']') && depth > 0) {
            depth--;
        }
        if ((c == ',' || c == '{' || c == '[') && ++values > max_values)
            return sim_limit_fail(error, SIM_BOUND_JSON_VALUES,
                                  "%s:%d: more than %llu JSON values", name,
                                  line, (unsigned long long)max_values);
    }
    return true;
}

bool sim_json_check_text(const char *name, const char *text, size_t len,
                         uint64_t max_values, GError **error)
{
    return sim_check_utf8(name, text, len, error) &&
           check_shape(name, text, len, max_values, error);
}

SimJsonDoc *sim_json_doc_parse(const char *name, const char *text, size_t len,
                               GError **error)
{
    if (!sim_json_check_text(name, text, len, sim_limit(SIM_BOUND_JSON_VALUES),
                             error))
        return NULL;
    SimJsonDoc *doc = g_new0(SimJsonDoc, 1);
    doc->file = g_strdup(name);
    doc->text = g_strndup(text, len);
    doc->len = len;
    const char *end = NULL;
    /* len + 1: cJSON wants the terminating NUL inside the buffer length. */
    doc->root = cJSON_ParseWithLengthOpts(doc->text, len + 1, &end, 1);
    if (!doc->root) {
        size_t off = end ? (size_t)(end - doc->text) : 0;
        int line, col;
        offset_to_line_col(doc->text, off, &line, &col);
        if (off >= len || looks_truncated(doc->text, len, off)) {
            offset_to_line_col(doc->text, len, &line, &col);
            g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                        "%s:%d:%d: JSON text ends early (truncated file?)",
                        name, line, col);
        } else {
            /* Quote at most 12 bytes, and none of the next line. */
            int n = (int)MIN(strcspn(doc->text + off, "\r\n"), 12);
            g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                        "%s:%d:%d: JSON syntax error near '%.*s'", name, line,
                        col, n, doc->text + off);
        }
        sim_json_doc_free(doc);
        return NULL;
    }
    return doc;
}

SimJsonDoc *sim_json_doc_load(const char *path, GError **error)
{
    size_t len = 0;
    g_autofree char *text = sim_read_file(path, &len, error);
    if (!text)
        return NULL;
    if (len == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "%s: file is empty",
                    path);
        return NULL;
    }
    return sim_json_doc_parse(path, text, len, error);
}

void sim_json_doc_free(SimJsonDoc *doc)
{
    if (!doc)
        return;
    cJSON_Delete(doc->root);
    g_free(doc->text);
    g_free(doc->file);
    g_free(doc);
}

/* ------------------------------------------------------------------------
 * Locating a node: walk the text in step with the tree.  The text parsed
 * without error, so the scanner may assume well-formed JSON.
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *p;
    const char *end;
    int line;
} Scan;

/* Whitespace exactly as cJSON skips it: every byte <= 32 (control bytes
 * included).  A narrower set here once left the scanner stuck on a control
 * byte cJSON had accepted, looping forever. */
static void scan_ws(Scan *s)
{
    while (s->p < s->end && (unsigned char)*s->p <= 32) {
        if (*s->p == '\n')
            s->line++;
        s->p++;
    }
}

/* A scalar (number, true, false, null) runs to the next delimiter. */
static void scan_scalar(Scan *s)
{
    while (s->p < s->end && (unsigned char)*s->p > 32 && !strchr(",]}", *s->p))
        s->p++;
}

static void scan_string(Scan *s)
{
    s->p++; /* opening quote */
    while (s->p < s->end && *s->p != '"') {
        if (*s->p == '\\')
            s->p++;
        s->p++;
    }
    s->p++; /* closing quote */
}

/* Scan one value starting at s->p, whose tree node is @node.  Returns the
 * line of @target if it is @node or inside it, else 0. */
static int scan_value(Scan *s, const cJSON *node, const cJSON *target)
{
    scan_ws(s);
    int here = s->line;
    int found = node == target ? here : 0;
    if (s->p >= s->end)
        return found;
    char c = *s->p;
    if (c == '{' || c == '[') {
        bool obj = c == '{';
        s->p++;
        const cJSON *child = node ? node->child : NULL;
        for (;;) {
            scan_ws(s);
            if (s->p >= s->end)
                return found;
            if (*s->p == (obj ? '}' : ']')) {
                s->p++;
                return found;
            }
            if (*s->p == ',') {
                s->p++;
                continue;
            }
            if (obj) {
                scan_string(s); /* key */
                scan_ws(s);
                s->p++; /* ':' */
            }
            int r = scan_value(s, child, target);
            if (r && !found)
                found = r;
            if (child)
                child = child->next;
        }
    }
    if (c == '"') {
        scan_string(s);
        return found;
    }
    scan_scalar(s);
    return found;
}

/* Record the line of @node and everything inside it into @table. */
static void scan_table(Scan *s, const cJSON *node, GHashTable *table)
{
    scan_ws(s);
    if (node)
        g_hash_table_insert(table, (gpointer)node, GINT_TO_POINTER(s->line));
    if (s->p >= s->end)
        return;
    char c = *s->p;
    if (c == '{' || c == '[') {
        bool obj = c == '{';
        s->p++;
        const cJSON *child = node ? node->child : NULL;
        for (;;) {
            scan_ws(s);
            if (s->p >= s->end)
                return;
            if (*s->p == (obj ? '}' : ']')) {
                s->p++;
                return;
            }
            if (*s->p == ',') {
                s->p++;
                continue;
            }
            if (obj) {
                scan_string(s);
                scan_ws(s);
                s->p++;
            }
            scan_table(s, child, table);
            if (child)
                child = child->next;
        }
    }
    if (c == '"') {
        scan_string(s);
        return;
    }
    scan_scalar(s);
}

/* cJSON skips a UTF-8 byte-order mark; so does the scanner. */
static size_t bom_len(const SimJsonDoc *doc)
{
    return doc->len >= 3 && !memcmp(doc->text, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

GHashTable *sim_json_line_table(const SimJsonDoc *doc)
{
    GHashTable *t = g_hash_table_new(g_direct_hash, g_direct_equal);
    Scan s = {doc->text + bom_len(doc), doc->text + doc->len, 1};
    scan_table(&s, doc->root, t);
    return t;
}

int sim_json_line_of(const SimJsonDoc *doc, const cJSON *node)
{
    if (!doc || !node)
        return 0;
    Scan s = {doc->text + bom_len(doc), doc->text + doc->len, 1};
    return scan_value(&s, doc->root, node);
}

bool sim_json_fail(const SimJsonDoc *doc, const cJSON *node, GError **error,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    int line = sim_json_line_of(doc, node);
    if (line > 0)
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID, "%s:%d: %s", doc->file,
                    line, msg);
    else
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID, "%s: %s",
                    doc ? doc->file : "?", msg);
    return false;
}

/* ------------------------------------------------------------------------
 * Getters
 * ------------------------------------------------------------------------ */

#define WHAT(w) (w) ? (w) : "", (w) ? ": " : ""

bool sim_json_check_keys(const SimJsonDoc *doc, const cJSON *obj,
                         const char *const *allowed, const char *what,
                         GError **error)
{
    if (!cJSON_IsObject(obj))
        return sim_json_fail(doc, obj, error, "%s%sexpected an object",
                             WHAT(what));
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        bool ok = false;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, it->string) == 0) {
                ok = true;
                break;
            }
        if (!ok)
            return sim_json_fail(doc, it, error, "%s%sunknown field '%s'",
                                 WHAT(what), it->string);
        /* cJSON keeps duplicate keys; the first would silently win. */
        for (const cJSON *j = it->next; j; j = j->next)
            if (strcmp(j->string, it->string) == 0)
                return sim_json_fail(doc, j, error,
                                     "%s%sfield '%s' given twice", WHAT(what),
                                     it->string);
    }
    return true;
}

static const cJSON *lookup(const SimJsonDoc *doc, const cJSON *obj,
                           const char *key, const char *what, bool required,
                           bool *absent, GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *absent = v == NULL;
    if (!v && required)
        sim_json_fail(doc, obj, error, "%s%smissing field '%s'", WHAT(what),
                      key);
    return v;
}

bool sim_json_number_u64(const SimJsonDoc *doc, const cJSON *v, const char *key,
                         const char *what, uint64_t min, uint64_t max,
                         uint64_t *out, GError **error)
{
    if (!cJSON_IsNumber(v))
        return sim_json_fail(doc, v, error, "%s%sfield '%s': expected a number",
                             WHAT(what), key);
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d))
        return sim_json_fail(doc, v, error,
                             "%s%sfield '%s': expected an integer, got %g",
                             WHAT(what), key, d);
    if (d < (double)min || d > (double)max)
        return sim_json_fail(
            doc, v, error, "%s%sfield '%s': %.0f is out of range [%llu, %llu]",
            WHAT(what), key, d, (unsigned long long)min,
            (unsigned long long)max);
    *out = (uint64_t)d;
    return true;
}

bool sim_json_get_u64(const SimJsonDoc *doc, const cJSON *obj, const char *key,
                      const char *what, bool required, uint64_t min,
                      uint64_t max, uint64_t *out, GError **error)
{
    bool absent;
    const cJSON *v = lookup(doc, obj, key, what, required, &absent, error);
    if (absent)
        return !required;
    return sim_json_number_u64(doc, v, key, what, min, max, out, error);
}

bool sim_json_get_u32(const SimJsonDoc *doc, const cJSON *obj, const char *key,
                      const char *what, bool required, uint32_t min,
                      uint32_t max, uint32_t *out, GError **error)
{
    uint64_t v = *out;
    if (!sim_json_get_u64(doc, obj, key, what, required, min, max, &v, error))
        return false;
    *out = (uint32_t)v;
    return true;
}

bool sim_json_get_int(const SimJsonDoc *doc, const cJSON *obj, const char *key,
                      const char *what, bool required, int min, int max,
                      int *out, GError **error)
{
    bool absent;
    const cJSON *v = lookup(doc, obj, key, what, required, &absent, error);
    if (absent)
        return !required;
    if (!cJSON_IsNumber(v))
        return sim_json_fail(doc, v, error, "%s%sfield '%s': expected a number",
                             WHAT(what), key);
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d))
        return sim_json_fail(doc, v, error,
                             "%s%sfield '%s': expected an integer, got %g",
                             WHAT(what), key, d);
    if (d < min || d > max)
        return sim_json_fail(doc, v, error,
                             "%s%sfield '%s': %.0f is out of range [%d, %d]",
                             WHAT(what), key, d, min, max);
    *out = (int)d;
    return true;
}

bool sim_json_get_double(const SimJsonDoc *doc, const cJSON *obj,
                         const char *key, const char *what, bool required,
                         double min, double max, double *out, GError **error)
{
    bool absent;
    const cJSON *v = lookup(doc, obj, key, what, required, &absent, error);
    if (absent)
        return !required;
    if (!cJSON_IsNumber(v))
        return sim_json_fail(doc, v, error, "%s%sfield '%s': expected a number",
                             WHAT(what), key);
    double d = v->valuedouble;
    if (!isfinite(d) || d < min || d > max)
        return sim_json_fail(doc, v, error,
                             "%s%sfield '%s': %g is out of range [%g, %g]",
                             WHAT(what), key, d, min, max);
    *out = d;
    return true;
}

bool sim_json_get_bool(const SimJsonDoc *doc, const cJSON *obj, const char *key,
                       const char *what, bool required, bool *out,
                       GError **error)
{
    bool absent;
    const cJSON *v = lookup(doc, obj, key, what, required, &absent, error);
    if (absent)
        return !required;
    if (!cJSON_IsBool(v))
        return sim_json_fail(doc, v, error,
                             "%s%sfield '%s': expected true or false",
                             WHAT(what), key);
    *out = cJSON_IsTrue(v);
    return true;
}

bool sim_json_get_string(const SimJsonDoc *doc, const cJSON *obj,
                         const char *key, const char *what, bool required,
                         const char **out, GError **error)
{
    bool absent;
    const cJSON *v = lookup(doc, obj, key, what, required, &absent, error);
    if (absent)
        return !required;
    if (!cJSON_IsString(v))
        return sim_json_fail(doc, v, error, "%s%sfield '%s': expected a string",
                             WHAT(what), key);
    *out = v->valuestring;
    return true;
}

bool sim_json_get_enum(const SimJsonDoc *doc, const cJSON *obj, const char *key,
                       const char *what, bool required,
                       const char *const *names, int *out, GError **error)
{
    const char *s = NULL;
    if (!sim_json_get_string(doc, obj, key, what, required, &s, error))
        return false;
    if (!s)
        return true;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) {
            *out = i;
            return true;
        }
    g_autoptr(GString) list = g_string_new(NULL);
    for (int i = 0; names[i]; i++)
        g_string_append_printf(list, "%s'%s'", i ? ", " : "", names[i]);
    return sim_json_fail(doc, cJSON_GetObjectItemCaseSensitive(obj, key), error,
                         "%s%sfield '%s': '%s' is not one of %s", WHAT(what),
                         key, s, list->str);
}
