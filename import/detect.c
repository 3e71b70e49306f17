/* detect.c -- which format a file is, from its content.
 *
 * Only the first bytes are read (inflated if gzip): the SQLite magic, a
 * JSON object or array, or the header line of one of the CSV exports.
 * File names are never trusted, except to refuse a ".gz" that is not gzip
 * (a user who renamed a file by mistake wants to know).
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "error.h"
#include "import.h"
#include "json.h"

#define HEAD_BYTES (256 * 1024)

static const char *const format_names[] = {
    "hqsim", "nvprof", "nsys-csv", "nsys-sqlite", "ncu", "kineto", NULL};

const char *const *sim_import_formats(void)
{
    return format_names;
}

static const char *fmt(const char *name)
{
    for (int i = 0; format_names[i]; i++)
        if (strcmp(format_names[i], name) == 0)
            return format_names[i];
    g_assert_not_reached();
    return NULL;
}

/* An SQLite file: an Nsight Systems export, or something we do not read. */
static const char *detect_sqlite(const char *path, GError **error)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "SELECT name FROM sqlite_master WHERE "
                                "type = 'table'",
                                -1, &st, NULL);
    bool nsys = false, nvvp = false;
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (!t)
            continue;
        if (!strcmp(t, "StringIds") || !strcmp(t, "META_DATA_EXPORT") ||
            !strcmp(t, "EXPORT_META_DATA") ||
            g_str_has_prefix(t, "TARGET_INFO_"))
            nsys = true;
        if (!strcmp(t, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"))
            nvvp = true;
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE) {
        g_autofree char *msg =
            g_utf8_make_valid(db ? sqlite3_errmsg(db) : "out of memory", -1);
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s: not a readable SQLite database: %s", path, msg);
        sqlite3_finalize(st);
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (nsys)
        return fmt("nsys-sqlite");
    if (nvvp)
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s: an nvprof binary profile (-o FILE.nvvp); convert it "
                    "with 'nvprof -i FILE --print-gpu-trace --csv "
                    "--log-file trace.csv'",
                    path);
    else
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s: an SQLite database without Nsight Systems tables "
                    "(StringIds, TARGET_INFO_*)",
                    path);
    return NULL;
}

static bool starts(const char *line, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(line, prefix, k) == 0;
}

/* The text formats, from their header lines. */
static const char *detect_text(const char *path, const char *head, size_t len,
                               GError **error)
{
    size_t i = 0;
    if (len >= 3 && !memcmp(head, "\xef\xbb\xbf", 3))
        i = 3; /* byte-order mark */
    while (i < len && g_ascii_isspace(head[i]))
        i++;
    if (i < len && (head[i] == '{' || head[i] == '[')) {
        if (g_strstr_len(head, (gssize)len, "\"hqsim_scenario\""))
            return fmt("hqsim");
        return fmt("kineto");
    }
    bool prof = false, nvprof_text = false;
    const char *first = NULL;
    size_t first_len = 0;
    for (size_t pos = 0; pos < len;) {
        const char *line = head + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + 1;
        if (n && line[n - 1] == '\r')
            n--;
        if (!nl && pos < len) /* a partial last line of the head */
            break;
        if (n == 0)
            continue;
        if (!first) {
            first = line;
            first_len = n;
        }
        /* nvprof quotes its header and its first column is "Start" with
         * no unit; nsys writes "Start (ns)" (or "Start(sec)"), unquoted. */
        if (starts(line, n, "\"Start\",") ||
            starts(line, n, "\"Device\",\"Context\",\"Stream\",\"Kernel\""))
            return fmt("nvprof");
        if (starts(line, n, "\"ID\",\"Process ID\""))
            return fmt("ncu");
        if (starts(line, n, "==PROF=="))
            prof = true;
        if (starts(line, n, "==") && g_strstr_len(line, (gssize)n,
                                                  "Profiling result"))
            nvprof_text = true;
        if ((starts(line, n, "Start") || starts(line, n, "\"Start")) &&
            memchr(line, ',', n) && g_strstr_len(line, (gssize)n, "Name"))
            return fmt("nsys-csv");
    }
    if (!first) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s: contains only blank lines", path);
        return NULL;
    }
    g_autofree char *shown = g_strndup(first, MIN(first_len, 60));
    for (char *c = shown; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
    if (prof)
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: Nsight Compute output without a CSV table (no line "
                    "starting \"ID\",\"Process ID\"); profile with --csv",
                    path);
    else if (nvprof_text)
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s: nvprof output without a CSV table; profile with "
                    "--print-gpu-trace --csv",
                    path);
    else
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s:1: unrecognized content ('%s'); expected an hqsim "
                    "scenario, nvprof/nsys/ncu CSV, an nsys SQLite export or "
                    "Kineto JSON",
                    path, shown);
    return NULL;
}

const char *sim_import_detect(const char *path, GError **error)
{
    /* Regular files only: a FIFO would block fopen forever. */
    if (!sim_check_regular_file(path, error))
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "%s: %s", path,
                    g_strerror(errno));
        return NULL;
    }
    unsigned char magic[16];
    size_t got = fread(magic, 1, sizeof magic, f);
    bool read_err = ferror(f);
    fclose(f);
    if (read_err) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "%s: read error", path);
        return NULL;
    }
    if (got == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "%s: file is empty",
                    path);
        return NULL;
    }
    if (got == 16 && memcmp(magic, "SQLite format 3", 16) == 0)
        return detect_sqlite(path, error);
    bool gz = got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (!gz && g_str_has_suffix(path, ".gz")) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s: name ends in .gz but the file is not gzip data",
                    path);
        return NULL;
    }
    /* gzread reads plain files as they are. */
    gzFile z = gzopen(path, "rb");
    if (!z) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "%s: cannot open", path);
        return NULL;
    }
    g_autofree char *head = g_malloc(HEAD_BYTES + 1);
    int n = gzread(z, head, HEAD_BYTES);
    int zerr = 0;
    const char *zmsg = n < 0 ? gzerror(z, &zerr) : NULL;
    g_autofree char *zcopy = g_strdup(zmsg);
    gzclose(z);
    if (n < 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s: corrupt gzip data: %s", path,
                    zcopy ? zcopy : "read error");
        return NULL;
    }
    if (n == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s: %s", path,
                    gz ? "gzip data inflates to nothing (empty or truncated)"
                       : "file is empty");
        return NULL;
    }
    head[n] = '\0';
    return detect_text(path, head, (size_t)n, error);
}
