/* detect.c -- which format a file is, from its content.
 *
 * Only the first bytes are read (inflated if gzip): a binary format's
 * magic, a JSON object or array, or the header line of one of the CSV
 * exports, each recognized by the importers' own detectors in the order of
 * the registry (registry.c).
 * File names are never trusted, except to refuse a ".gz" that is not gzip
 * (a user who renamed a file by mistake wants to know).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "error.h"
#include "import.h"
#include "json.h"
#include "registry.h"
#include "trace.h"

#define HEAD_BYTES (256 * 1024)

bool sim_line_starts(const char *line, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(line, prefix, k) == 0;
}

/* The first importer whose line detector takes @line. */
static const char *detect_line(const char *line, size_t n)
{
    for (size_t i = 0; i < sim_n_importers; i++) {
        const SimImporter *imp = &sim_importers[i];
        if (imp->detect_line && imp->detect_line(line, n))
            return imp->name;
    }
    return NULL;
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
        for (size_t k = 0; k < sim_n_importers; k++)
            if (sim_importers[k].detect_json &&
                sim_importers[k].detect_json(head, len))
                return sim_importers[k].name;
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
        const char *f = detect_line(line, n);
        if (f)
            return f;
        /* Near misses, for the message: profiler output without the
         * table we read. */
        if (sim_line_starts(line, n, "==PROF=="))
            prof = true;
        if (sim_line_starts(line, n, "==") &&
            g_strstr_len(line, (gssize)n, "Profiling result"))
            nvprof_text = true;
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
    for (size_t i = 0; i < sim_n_importers; i++) {
        const SimImporter *imp = &sim_importers[i];
        if (imp->magic_len && got >= imp->magic_len &&
            memcmp(magic, imp->magic, imp->magic_len) == 0)
            return imp->detect_file(path, error) ? imp->name : NULL;
    }
    bool gz = got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (!gz && g_str_has_suffix(path, ".gz")) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s: name ends in .gz but the file is not gzip data", path);
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
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "%s: %s", path,
                    gz ? "gzip data inflates to nothing (empty or truncated)"
                       : "file is empty");
        return NULL;
    }
    head[n] = '\0';
    return detect_text(path, head, (size_t)n, error);
}
