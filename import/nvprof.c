/* nvprof.c -- nvprof `--print-gpu-trace --csv` (trace-formats.md §1).
 *
 * Layout: comment lines ("==PID== ..." or, with --import-profile,
 * "======== ..."), possibly the application's own output, then a quoted
 * header starting "Start","Duration", a units row with one cell per column,
 * and one row per GPU activity in start order.  Columns are found by name
 * (four header variants are known) and every numeric column is scaled by
 * its unit from the units row, which nvprof chooses per file: s/ms/us/ns for
 * times, B/KB/MB/GB (binary: KB = 1024 B) for sizes.
 *
 * One file is one process.  Unified-memory rows (page faults, migrations)
 * have no stream and are not stream work: they are skipped and counted.
 */
#include <math.h>
#include <string.h>

#include "csv.h"
#include "error.h"
#include "json.h"
#include "trace.h"

typedef enum {
    COL_START,
    COL_DURATION,
    COL_GRID_X,
    COL_GRID_Y,
    COL_GRID_Z,
    COL_BLOCK_X,
    COL_BLOCK_Y,
    COL_BLOCK_Z,
    COL_REGS,
    COL_SSMEM,
    COL_DSMEM,
    COL_SIZE,
    COL_THROUGHPUT,
    COL_SRC_MEM,
    COL_DST_MEM,
    COL_DEVICE,
    COL_CONTEXT,
    COL_STREAM,
    COL_UM,
    COL_NAME,
    COL_CORR,
    N_COLS
} Col;

typedef enum { UNIT_NONE, UNIT_TIME, UNIT_SIZE, UNIT_RATE, UNIT_ANY } UnitClass;

static const struct {
    const char *name;
    bool required;
    UnitClass unit;
} cols[N_COLS] = {
    [COL_START] = {"Start", true, UNIT_TIME},
    [COL_DURATION] = {"Duration", true, UNIT_TIME},
    [COL_GRID_X] = {"Grid X", true, UNIT_NONE},
    [COL_GRID_Y] = {"Grid Y", true, UNIT_NONE},
    [COL_GRID_Z] = {"Grid Z", true, UNIT_NONE},
    [COL_BLOCK_X] = {"Block X", true, UNIT_NONE},
    [COL_BLOCK_Y] = {"Block Y", true, UNIT_NONE},
    [COL_BLOCK_Z] = {"Block Z", true, UNIT_NONE},
    [COL_REGS] = {"Registers Per Thread", true, UNIT_NONE},
    [COL_SSMEM] = {"Static SMem", true, UNIT_SIZE},
    [COL_DSMEM] = {"Dynamic SMem", true, UNIT_SIZE},
    [COL_SIZE] = {"Size", true, UNIT_SIZE},
    [COL_THROUGHPUT] = {"Throughput", false, UNIT_RATE},
    [COL_SRC_MEM] = {"SrcMemType", false, UNIT_NONE},
    [COL_DST_MEM] = {"DstMemType", false, UNIT_NONE},
    [COL_DEVICE] = {"Device", false, UNIT_NONE},
    [COL_CONTEXT] = {"Context", false, UNIT_NONE},
    [COL_STREAM] = {"Stream", true, UNIT_NONE},
    [COL_UM] = {"Unified Memory", false, UNIT_ANY},
    [COL_NAME] = {"Name", true, UNIT_NONE},
    [COL_CORR] = {"Correlation_ID", false, UNIT_NONE},
};

typedef struct {
    SimTrace *tr;
    SimCsv csv;
    int idx[N_COLS];      /* column index, -1 if absent */
    double scale[N_COLS]; /* unit factor to ns or bytes */
    uint32_t n_fields;
    uint64_t n_um;      /* unified-memory rows skipped */
    bool noted_gpu;     /* a second GPU was reported */
    char last_dev[128]; /* the last row's Device cell, if shorter */
} Nvprof;

static bool time_unit(const char *u, double *f)
{
    static const struct {
        const char *u;
        double f;
    } t[] = {{"s", 1e9},  {"ms", 1e6},        {"us", 1e3},
             {"ns", 1.0}, {"\xc2\xb5s", 1e3}, {"\xce\xbcs", 1e3}};
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        if (strcmp(u, t[i].u) == 0) {
            *f = t[i].f;
            return true;
        }
    return false;
}

/* nvprof's sizes are binary: 78.125 KB is 80 000 B (trace-formats §1.4). */
static bool size_unit(const char *u, double *f)
{
    static const struct {
        const char *u;
        double f;
    } t[] = {{"B", 1.0},
             {"KB", 1024.0},
             {"MB", 1024.0 * 1024.0},
             {"GB", 1024.0 * 1024.0 * 1024.0}};
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        if (strcmp(u, t[i].u) == 0) {
            *f = t[i].f;
            return true;
        }
    return false;
}

static bool rate_unit(const char *u)
{
    return !strcmp(u, "GB/s") || !strcmp(u, "MB/s") || !strcmp(u, "KB/s") ||
           !strcmp(u, "B/s");
}

static bool fail(const Nvprof *np, uint32_t line, Col c, GError **error,
                 const char *fmt, ...) G_GNUC_PRINTF(5, 6);

static bool fail(const Nvprof *np, uint32_t line, Col c, GError **error,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID, "%s:%u: column '%s': %s",
                np->tr->path, line, cols[c].name, msg);
    return false;
}

/* ------------------------------------------------------------------------
 * Header and units row
 * ------------------------------------------------------------------------ */

static bool read_header(Nvprof *np, const SimCsvRow *h, GError **error)
{
    for (int c = 0; c < N_COLS; c++) {
        np->idx[c] = sim_csv_find(h, cols[c].name);
        np->scale[c] = 1.0;
        if (np->idx[c] < 0 && cols[c].required) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s:%u: header: missing column '%s'", np->tr->path,
                        h->line, cols[c].name);
            return false;
        }
    }
    for (uint32_t i = 0; i < h->n; i++)
        for (uint32_t j = i + 1; j < h->n; j++)
            if (!strcmp(sim_csv_field(h, i), sim_csv_field(h, j))) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                            "%s:%u: header: column '%s' appears twice",
                            np->tr->path, h->line, sim_csv_field(h, i));
                return false;
            }
    np->n_fields = h->n;
    /* Range errors on the ops built from these columns name them. */
    static const Col named[SIM_COL_N] = {
        [SIM_COL_GRID_X] = COL_GRID_X,
        [SIM_COL_GRID_Y] = COL_GRID_Y,
        [SIM_COL_GRID_Z] = COL_GRID_Z,
        [SIM_COL_BLOCK_X] = COL_BLOCK_X,
        [SIM_COL_BLOCK_Y] = COL_BLOCK_Y,
        [SIM_COL_BLOCK_Z] = COL_BLOCK_Z,
        [SIM_COL_REGS] = COL_REGS,
        [SIM_COL_SMEM_STATIC] = COL_SSMEM,
        [SIM_COL_SMEM_DYNAMIC] = COL_DSMEM,
        [SIM_COL_KERNEL_DURATION] = COL_DURATION,
        [SIM_COL_COPY_BYTES] = COL_SIZE,
        [SIM_COL_COPY_DURATION] = COL_DURATION};
    for (int i = 0; i < SIM_COL_N; i++)
        np->tr->columns[i] = cols[named[i]].name;
    return true;
}

static bool read_units(Nvprof *np, const SimCsvRow *u, GError **error)
{
    if (u->n != np->n_fields) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s:%u: units row has %u cells, the header has %u",
                    np->tr->path, u->line, u->n, np->n_fields);
        return false;
    }
    for (int c = 0; c < N_COLS; c++) {
        if (np->idx[c] < 0)
            continue;
        const char *unit = sim_csv_field(u, (uint32_t)np->idx[c]);
        bool ok = true;
        switch (cols[c].unit) {
        case UNIT_TIME: ok = time_unit(unit, &np->scale[c]); break;
        case UNIT_SIZE: ok = size_unit(unit, &np->scale[c]); break;
        case UNIT_RATE: ok = rate_unit(unit); break;
        case UNIT_ANY: ok = !*unit || size_unit(unit, &np->scale[c]); break;
        case UNIT_NONE: ok = !*unit; break;
        }
        if (!ok) {
            const char *expect =
                cols[c].unit == UNIT_TIME   ? "s, ms, us or ns"
                : cols[c].unit == UNIT_RATE ? "GB/s, MB/s, KB/s or B/s"
                : cols[c].unit == UNIT_NONE ? "no unit"
                                            : "B, KB, MB or GB";
            if (!*unit)
                return fail(np, u->line, c, error,
                            "units row: missing unit (expected %s)", expect);
            return fail(np, u->line, c, error,
                        "units row: unknown unit '%s' (expected %s)", unit,
                        expect);
        }
    }
    return true;
}

/* ------------------------------------------------------------------------
 * Data rows
 * ------------------------------------------------------------------------ */

static const char *cell(const Nvprof *np, const SimCsvRow *r, Col c)
{
    return np->idx[c] < 0 ? "" : sim_csv_field(r, (uint32_t)np->idx[c]);
}

/* A number in column @c scaled by its unit; must be present and >= 0. */
static bool scaled(const Nvprof *np, const SimCsvRow *r, Col c, double max,
                   double *out, GError **error)
{
    const char *s = cell(np, r, c);
    double v;
    if (!*s)
        return fail(np, r->line, c, error, "missing value");
    if (!sim_csv_parse_double(s, &v))
        return fail(np, r->line, c, error, "'%s' is not a number", s);
    if (v < 0)
        return fail(np, r->line, c, error, "%s is negative", s);
    v *= np->scale[c];
    if (v > max)
        return fail(np, r->line, c, error, "%s is too large", s);
    *out = v;
    return true;
}

/* @s as a number when it is 1 to 9 decimal digits (a launch dimension, a
 * register count): what sim_csv_parse_double gives, without its
 * generality. */
static bool small_digits(const char *s, double *v)
{
    uint32_t x = 0;
    size_t n = 0;
    for (; s[n] >= '0' && s[n] <= '9'; n++) {
        if (n == 9)
            return false;
        x = x * 10 + (uint32_t)(s[n] - '0');
    }
    *v = x;
    return n > 0 && s[n] == '\0';
}

static bool integer(const Nvprof *np, const SimCsvRow *r, Col c, uint32_t min,
                    uint32_t max, uint32_t *out, GError **error)
{
    const char *s = cell(np, r, c);
    double v;
    if (small_digits(s, &v)) {
        if (v >= min && v <= max) {
            *out = (uint32_t)v;
            return true;
        }
    }
    if (!*s)
        return fail(np, r->line, c, error, "missing value");
    if (!sim_csv_parse_double(s, &v) || v != floor(v))
        return fail(np, r->line, c, error, "'%s' is not an integer", s);
    if (v < min || v > max)
        return fail(np, r->line, c, error, "%s is out of range [%u, %u]", s,
                    min, max);
    *out = (uint32_t)v;
    return true;
}

/* "[CUDA memcpy HtoD]" -> direction; false for kinds hqsim has no copy
 * engine for (host to host). */
/* Host memory kind of a copy: pinned unless the trace says pageable. */
static bool copy_pinned(const Nvprof *np, const SimCsvRow *r, SimCopyDir d)
{
    const char *host = d == SIM_COPY_H2D   ? cell(np, r, COL_SRC_MEM)
                       : d == SIM_COPY_D2H ? cell(np, r, COL_DST_MEM)
                                           : "";
    return strcmp(host, "Pageable") != 0;
}

/* @name interned, without the correlation id CUDA 8 nvprof appends:
 * "k(int) [223]" -> "k(int)".  Only such a name is copied. */
static const char *kernel_name(SimTrace *tr, const char *name)
{
    size_t n = strlen(name);
    if (n <= 3 || name[n - 1] != ']')
        return sim_trace_intern(tr, name);
    g_autofree char *clean = g_strdup(name);
    char *open = strrchr(clean, '[');
    if (open && open > clean && open[-1] == ' ' &&
        strspn(open + 1, "0123456789") == (size_t)(clean + n - 1 - open - 1))
        open[-1] = '\0';
    return sim_trace_intern(tr, clean);
}

/* "HtoD]" -> "HtoD" (the text up to the closing bracket, if any). */
static bool read_row(Nvprof *np, SimTraceProcess *p, const SimCsvRow *r,
                     GError **error)
{
    const char *name = cell(np, r, COL_NAME);
    if (g_str_has_prefix(name, "[Unified Memory")) {
        np->tr->n_skipped++;
        np->n_um++;
        return true;
    }
    double start, dur;
    if (!scaled(np, r, COL_START, (double)SIM_TRACE_MAX_TIME, &start, error) ||
        !scaled(np, r, COL_DURATION, 1e15, &dur, error))
        return false;
    const char *stream = cell(np, r, COL_STREAM);
    double sid;
    if (!*stream)
        return fail(np, r->line, COL_STREAM, error, "missing value for '%s'",
                    name);
    if (!sim_csv_parse_double(stream, &sid) || sid != floor(sid) || sid < 0 ||
        sid > 1e15)
        return fail(np, r->line, COL_STREAM, error, "'%s' is not a stream id",
                    stream);

    SimTraceOp op;
    memset(&op, 0, sizeof op);
    if (g_str_has_prefix(name, "[CUDA memcpy ")) {
        const char *kind = name + 13; /* "HtoD]" */
        SimCopyDir dir;
        if (!sim_trace_copy_dir(kind, strcspn(kind, "]"), &dir)) {
            np->tr->n_skipped++;
            sim_trace_note(np->tr,
                           "%s:%u: '%s' skipped: no such copy in "
                           "the GPU model",
                           np->tr->path, r->line, name);
            return true;
        }
        double bytes;
        if (!scaled(np, r, COL_SIZE, 1e15, &bytes, error))
            return false;
        op.kind = SIM_TRACE_COPY;
        op.u.copy.dir = dir;
        op.u.copy.bytes = (uint64_t)llround(bytes);
        op.u.copy.pinned = copy_pinned(np, r, dir);
    } else if (strcmp(name, "[CUDA memset]") == 0) {
        double bytes;
        if (!scaled(np, r, COL_SIZE, 1e15, &bytes, error))
            return false;
        op.kind = SIM_TRACE_MEMSET;
        op.u.memset_bytes = (uint64_t)llround(bytes);
    } else if (name[0] == '[') {
        np->tr->n_skipped++;
        sim_trace_note(np->tr,
                       "%s:%u: row '%s' skipped: not a kernel, "
                       "copy or memset",
                       np->tr->path, r->line, name);
        return true;
    } else if (!*name) {
        return fail(np, r->line, COL_NAME, error, "empty kernel name");
    } else {
        SimTraceKernel *k = &op.u.kernel;
        op.kind = SIM_TRACE_KERNEL;
        static const Col gc[3] = {COL_GRID_X, COL_GRID_Y, COL_GRID_Z};
        static const Col bc[3] = {COL_BLOCK_X, COL_BLOCK_Y, COL_BLOCK_Z};
        for (int d = 0; d < 3; d++)
            if (!integer(np, r, gc[d], 1, INT32_MAX, &k->grid[d], error) ||
                !integer(np, r, bc[d], 1, 1024, &k->block[d], error))
                return false;
        double ss, ds;
        if (!integer(np, r, COL_REGS, 0, 255, &k->regs_per_thread, error) ||
            !scaled(np, r, COL_SSMEM, (double)UINT32_MAX, &ss, error) ||
            !scaled(np, r, COL_DSMEM, (double)UINT32_MAX, &ds, error))
            return false;
        k->static_smem_bytes = (uint32_t)llround(ss);
        k->dynamic_smem_bytes = (uint32_t)llround(ds);
        k->name = kernel_name(np->tr, name);
    }
    op.line = r->line;
    op.stream = (int64_t)sid;
    op.event = SIM_TRACE_NO_ID;
    op.start_ns = llround(start);
    op.end_ns = op.start_ns + llround(dur);
    op.api_start_ns = op.api_end_ns = SIM_TRACE_NO_TIME;
    g_array_append_val(p->ops, op);

    /* Rows name one device mostly: a cell as the last one changes
     * nothing. */
    const char *dev = cell(np, r, COL_DEVICE);
    if (strcmp(dev, np->last_dev) == 0)
        return true;
    if (strlen(dev) < sizeof np->last_dev)
        strcpy(np->last_dev, dev);
    if (*dev) {
        g_autofree char *gpu = sim_trace_device_name(dev);
        if (!np->tr->gpu_name)
            np->tr->gpu_name = g_steal_pointer(&gpu);
        else if (strcmp(np->tr->gpu_name, gpu) != 0 && !np->noted_gpu) {
            sim_trace_note(np->tr,
                           "%s:%u: a second GPU '%s' appears; all "
                           "rows are simulated on one GPU",
                           np->tr->path, r->line, gpu);
            np->noted_gpu = true;
        }
    }
    return true;
}

/* "==15527== NVPROF is profiling process 15527, command: ../reduction/x"
 * -> process name "x[15527]". */
static char *process_name_from(const char *line, size_t len, int64_t *pid)
{
    g_autofree char *s = g_strndup(line, len);
    const char *key = strstr(s, "profiling process ");
    if (!key)
        return NULL;
    char *end = NULL;
    long long v = g_ascii_strtoll(key + 18, &end, 10);
    if (end == key + 18 || v <= 0)
        return NULL;
    *pid = v;
    const char *cmd = strstr(end, "command: ");
    if (!cmd)
        return g_strdup_printf("pid%lld", v);
    cmd += 9;
    g_autofree char *prog = g_strndup(cmd, strcspn(cmd, " \t"));
    g_autofree char *base = g_path_get_basename(prog);
    return g_strdup_printf("%s[%lld]", base, v);
}

bool sim_import_nvprof(SimTrace *tr, const char *text, size_t len,
                       GError **error)
{
    if (!sim_check_utf8(tr->path, text, len, error))
        return false;
    Nvprof np;
    memset(&np, 0, sizeof np);
    np.tr = tr;
    sim_csv_init(&np.csv, tr->path, text, len);
    g_autoptr(SimCsvRow) row = sim_csv_row_new();
    g_autoptr(SimCsvRow) header = sim_csv_row_new();
    g_autofree char *pname = NULL;
    int64_t pid = -1;
    const char *line;
    size_t n;
    bool have_header = false, have_units = false;
    SimTraceProcess *p = NULL;
    while (sim_csv_next_line(&np.csv, &line, &n)) {
        uint32_t ln = np.csv.line;
        if (n == 0)
            continue;
        if (line[0] == '=') {
            if (!pname)
                pname = process_name_from(line, n, &pid);
            continue;
        }
        if (!have_header) {
            if (sim_csv_line_starts(line, n, "\"Start\"")) {
                if (!sim_csv_split(&np.csv, line, n, ln, header, NULL, error) ||
                    !read_header(&np, header, error))
                    return false;
                have_header = true;
            } else if (sim_csv_line_starts(line, n, "\"Device\",\"Context\"")) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                            "%s:%u: an nvprof metrics/events trace "
                            "(--metrics or --events), not a timeline; "
                            "profile with --print-gpu-trace --csv alone",
                            tr->path, ln);
                return false;
            } else if (g_ascii_strncasecmp(line, "No kernels were profiled",
                                           MIN(n, 24)) == 0 &&
                       n >= 24) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                            "%s:%u: nvprof profiled no kernels; nothing to "
                            "import",
                            tr->path, ln);
                return false;
            }
            continue; /* application output before the table */
        }
        if (!sim_csv_split(&np.csv, line, n, ln, row, header, error))
            return false;
        if (!have_units) {
            if (!read_units(&np, row, error))
                return false;
            have_units = true;
            if (!pname)
                pname = g_path_get_basename(tr->path);
            p = sim_trace_add_process(tr, pname, pid);
            continue;
        }
        if (!sim_csv_check_width(&np.csv, row, np.n_fields, np.n_fields, error))
            return false;
        if (!read_row(&np, p, row, error))
            return false;
    }
    if (!have_header) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: no header line starting with \"Start\",\"Duration\" "
                    "(not an nvprof --print-gpu-trace --csv file, or "
                    "truncated)",
                    tr->path);
        return false;
    }
    if (!have_units) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s:%u: the header is not followed by the units row "
                    "(truncated file?)",
                    tr->path, np.csv.line);
        return false;
    }
    if (p->ops->len == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: the GPU trace has no kernel, copy or memset rows",
                    tr->path);
        return false;
    }
    if (np.n_um)
        sim_trace_note(tr,
                       "%s: %llu unified-memory rows skipped (page "
                       "faults and migrations are not stream work)",
                       tr->path, (unsigned long long)np.n_um);
    return true;
}

/* nvprof quotes its header and its first column is "Start" with no unit
 * (nsys writes "Start (ns)", unquoted); the summary mode's starts with
 * "Device". */
bool sim_detect_nvprof_line(const char *line, size_t n)
{
    return sim_line_starts(line, n, "\"Start\",") ||
           sim_line_starts(line, n,
                           "\"Device\",\"Context\",\"Stream\",\"Kernel\"");
}
