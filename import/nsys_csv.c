/* nsys_csv.c -- `nsys stats --report cuda_gpu_trace --format csv`
 * (trace-formats.md §2.2-2.4).
 *
 * Preamble lines (NOTICE, "Processing [...]", " ** CUDA GPU Trace ...")
 * are skipped up to the header, the first line starting "Start" that has a
 * "Name" column.  The header is not quoted; a column's unit rides in its
 * title ("Start (ns)", "Bytes (MB)", "Duration(nsec)"), so columns are
 * matched on the title before the parenthesis and scaled by the unit in it.
 * nsys's MB is decimal (10^6 B).  The official report has no process
 * column: one file is one process, unless a "Pid"/"PID" column (a common
 * local modification) says otherwise.  Rows are sorted later (nsys 2025.6
 * no longer promises timestamp order).
 */
#include <math.h>
#include <string.h>

#include "csv.h"
#include "error.h"
#include "json.h"
#include "trace.h"

typedef enum {
    C_START,
    C_END,
    C_DURATION,
    C_CORR,
    C_GRDX,
    C_GRDY,
    C_GRDZ,
    C_BLKX,
    C_BLKY,
    C_BLKZ,
    C_REGS,
    C_SSMEM,
    C_DSMEM,
    C_BYTES,
    C_SRCKD,
    C_DSTKD,
    C_DEVICE,
    C_STRM,
    C_PID,
    C_NAME,
    N_C
} Col;

typedef enum { U_NONE, U_TIME, U_MEM } Unit;

static const struct {
    const char *title;
    const char *alt; /* another spelling, or NULL */
    Unit unit;
} cols[N_C] = {
    [C_START] = {"Start", NULL, U_TIME},
    [C_END] = {"End", NULL, U_TIME},
    [C_DURATION] = {"Duration", NULL, U_TIME},
    [C_CORR] = {"CorrId", NULL, U_NONE},
    [C_GRDX] = {"GrdX", NULL, U_NONE},
    [C_GRDY] = {"GrdY", NULL, U_NONE},
    [C_GRDZ] = {"GrdZ", NULL, U_NONE},
    [C_BLKX] = {"BlkX", NULL, U_NONE},
    [C_BLKY] = {"BlkY", NULL, U_NONE},
    [C_BLKZ] = {"BlkZ", NULL, U_NONE},
    [C_REGS] = {"Reg/Trd", NULL, U_NONE},
    [C_SSMEM] = {"StcSMem", NULL, U_MEM},
    [C_DSMEM] = {"DymSMem", NULL, U_MEM},
    [C_BYTES] = {"Bytes", NULL, U_MEM},
    [C_SRCKD] = {"SrcMemKd", NULL, U_NONE},
    [C_DSTKD] = {"DstMemKd", NULL, U_NONE},
    [C_DEVICE] = {"Device", NULL, U_NONE},
    [C_STRM] = {"Strm", "Stream", U_NONE},
    [C_PID] = {"Pid", "PID", U_NONE},
    [C_NAME] = {"Name", NULL, U_NONE},
};

typedef struct {
    SimTrace *tr;
    int idx[N_C];
    double scale[N_C];
    uint32_t n_fields;
    uint32_t header_line;
} Nsys;

/* "Start (ns)" -> title "Start", unit "ns"; "Duration(nsec)" too. */
static void split_title(const char *col, char **title, char **unit)
{
    const char *open = strchr(col, '(');
    const char *close = open ? strchr(open, ')') : NULL;
    if (!open || !close) {
        *title = g_strstrip(g_strdup(col));
        *unit = NULL;
        return;
    }
    *title = g_strstrip(g_strndup(col, (gsize)(open - col)));
    *unit = g_strstrip(g_strndup(open + 1, (gsize)(close - open - 1)));
}

static bool unit_factor(Unit u, const char *s, double *f)
{
    static const struct {
        const char *u;
        double f;
    } times[] = {{"s", 1e9},  {"sec", 1e9},  {"ms", 1e6}, {"msec", 1e6},
                 {"us", 1e3}, {"usec", 1e3}, {"ns", 1.0}, {"nsec", 1.0}},
      mems[] = {{"B", 1.0},           {"KB", 1e3},     {"MB", 1e6},
                {"GB", 1e9},          {"KiB", 1024.0}, {"MiB", 1048576.0},
                {"GiB", 1073741824.0}};
    if (u == U_TIME) {
        for (size_t i = 0; i < G_N_ELEMENTS(times); i++)
            if (!strcmp(s, times[i].u)) {
                *f = times[i].f;
                return true;
            }
    } else {
        for (size_t i = 0; i < G_N_ELEMENTS(mems); i++)
            if (!strcmp(s, mems[i].u)) {
                *f = mems[i].f;
                return true;
            }
    }
    return false;
}

static bool read_header(Nsys *ns, const SimCsvRow *h, GError **error)
{
    for (int c = 0; c < N_C; c++) {
        ns->idx[c] = -1;
        ns->scale[c] = 1.0;
    }
    for (uint32_t i = 0; i < h->n; i++) {
        g_autofree char *title = NULL, *unit = NULL;
        split_title(sim_csv_field(h, i), &title, &unit);
        for (int c = 0; c < N_C; c++) {
            if (strcmp(title, cols[c].title) &&
                (!cols[c].alt || strcmp(title, cols[c].alt)))
                continue;
            if (ns->idx[c] >= 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                            "%s:%u: header: column '%s' appears twice",
                            ns->tr->path, h->line, cols[c].title);
                return false;
            }
            ns->idx[c] = (int)i;
            if (cols[c].unit == U_NONE)
                break;
            if (!unit) {
                /* nsys's defaults: ns and bytes. */
                ns->scale[c] = 1.0;
            } else if (!unit_factor(cols[c].unit, unit, &ns->scale[c])) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                            "%s:%u: header: column '%s': unknown unit '%s' "
                            "(expected %s)",
                            ns->tr->path, h->line, sim_csv_field(h, i), unit,
                            cols[c].unit == U_TIME
                                ? "s, ms, us or ns"
                                : "B, KB, MB, GB, KiB, MiB or GiB");
                return false;
            }
            break;
        }
    }
    if (ns->idx[C_STRM] < 0 && ns->idx[C_GRDX] < 0) {
        g_autofree char *cols_seen = NULL;
        GString *s = g_string_new(NULL);
        for (uint32_t i = 0; i < h->n && i < 8; i++)
            g_string_append_printf(s, "%s%s", i ? ", " : "",
                                   sim_csv_field(h, i));
        cols_seen = g_string_free(s, FALSE);
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s:%u: an nsys stats CSV, but not the cuda_gpu_trace "
                    "report (columns: %s%s); export it with 'nsys stats "
                    "--report cuda_gpu_trace --format csv'",
                    ns->tr->path, h->line, cols_seen, h->n > 8 ? ", ..." : "");
        return false;
    }
    static const Col required[] = {C_START, C_CORR,  C_GRDX, C_GRDY, C_GRDZ,
                                   C_BLKX,  C_BLKY,  C_BLKZ, C_REGS, C_SSMEM,
                                   C_DSMEM, C_BYTES, C_STRM, C_NAME};
    for (size_t i = 0; i < G_N_ELEMENTS(required); i++)
        if (ns->idx[required[i]] < 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s:%u: header: missing column '%s'", ns->tr->path,
                        h->line, cols[required[i]].title);
            return false;
        }
    if (ns->idx[C_DURATION] < 0 && ns->idx[C_END] < 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s:%u: header: missing column 'Duration'", ns->tr->path,
                    h->line);
        return false;
    }
    ns->n_fields = h->n;
    ns->header_line = h->line;
    /* Range errors on the ops built from these columns name them (a
     * duration from End - Start: no one column). */
    static const Col named[SIM_COL_N] = {[SIM_COL_GRID_X] = C_GRDX,
                                         [SIM_COL_GRID_Y] = C_GRDY,
                                         [SIM_COL_GRID_Z] = C_GRDZ,
                                         [SIM_COL_BLOCK_X] = C_BLKX,
                                         [SIM_COL_BLOCK_Y] = C_BLKY,
                                         [SIM_COL_BLOCK_Z] = C_BLKZ,
                                         [SIM_COL_REGS] = C_REGS,
                                         [SIM_COL_SMEM_STATIC] = C_SSMEM,
                                         [SIM_COL_SMEM_DYNAMIC] = C_DSMEM,
                                         [SIM_COL_KERNEL_DURATION] = C_DURATION,
                                         [SIM_COL_COPY_BYTES] = C_BYTES,
                                         [SIM_COL_COPY_DURATION] = C_DURATION};
    for (int i = 0; i < SIM_COL_N; i++)
        ns->tr->columns[i] =
            ns->idx[named[i]] >= 0 ? cols[named[i]].title : NULL;
    return true;
}

static const char *cell(const Nsys *ns, const SimCsvRow *r, Col c)
{
    return ns->idx[c] < 0 ? "" : sim_csv_field(r, (uint32_t)ns->idx[c]);
}

static bool fail(const Nsys *ns, const SimCsvRow *r, Col c, GError **error,
                 const char *what, const char *value)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                "%s:%u: column '%s': %s%s%s%s", ns->tr->path, r->line,
                cols[c].title, what, value ? " '" : "", value ? value : "",
                value ? "'" : "");
    return false;
}

static bool num(const Nsys *ns, const SimCsvRow *r, Col c, double min,
                double max, bool integral, double *out, GError **error)
{
    const char *s = cell(ns, r, c);
    double v;
    if (!*s)
        return fail(ns, r, c, error, "missing value", NULL);
    if (!sim_csv_parse_double(s, &v))
        return fail(ns, r, c, error, "not a number:", s);
    v *= ns->scale[c];
    if (integral && v != floor(v))
        return fail(ns, r, c, error, "not an integer:", s);
    if (v < min || v > max)
        return fail(ns, r, c, error, "out of range:", s);
    *out = v;
    return true;
}

/* "[CUDA memcpy Host-to-Device]" (3.x) or "[CUDA memcpy HtoD]". */
/* "HtoD]" -> "HtoD" (the text up to the closing bracket, if any). */
static bool read_row(Nsys *ns, const SimCsvRow *r, GError **error)
{
    const char *name = cell(ns, r, C_NAME);
    double start, dur, sid;
    if (!num(ns, r, C_START, 0, (double)SIM_TRACE_MAX_TIME, false, &start,
             error) ||
        !num(ns, r, C_STRM, 0, 1e15, true, &sid, error))
        return false;
    if (ns->idx[C_DURATION] >= 0) {
        if (!num(ns, r, C_DURATION, 0, 1e16, false, &dur, error))
            return false;
    } else {
        double end;
        if (!num(ns, r, C_END, start, (double)SIM_TRACE_MAX_TIME, false, &end,
                 error))
            return false;
        dur = end - start;
    }
    int64_t pid = -1;
    if (ns->idx[C_PID] >= 0) {
        double v;
        if (!num(ns, r, C_PID, 0, 1e12, true, &v, error))
            return false;
        pid = (int64_t)v;
    }
    SimTraceProcess *p = sim_trace_find_process(ns->tr, pid);
    if (!p) {
        g_autofree char *base = g_path_get_basename(ns->tr->path);
        g_autofree char *pname =
            pid >= 0 ? g_strdup_printf("pid%lld", (long long)pid)
                     : g_strdup(base);
        p = sim_trace_add_process(ns->tr, pname, pid);
    }
    SimTraceOp op;
    memset(&op, 0, sizeof op);
    if (g_str_has_prefix(name, "[CUDA memcpy ")) {
        const char *kind = name + 13; /* "HtoD]" */
        SimCopyDir d;
        if (!sim_trace_copy_dir(kind, strcspn(kind, "]"), &d)) {
            ns->tr->n_skipped++;
            sim_trace_note(ns->tr,
                           "%s:%u: '%s' skipped: no such copy in "
                           "the GPU model",
                           ns->tr->path, r->line, name);
            return true;
        }
        double bytes;
        if (!num(ns, r, C_BYTES, 0, 1e16, false, &bytes, error))
            return false;
        op.kind = SIM_TRACE_COPY;
        op.u.copy.dir = d;
        op.u.copy.bytes = (uint64_t)llround(bytes);
        const char *host = d == SIM_COPY_H2D   ? cell(ns, r, C_SRCKD)
                           : d == SIM_COPY_D2H ? cell(ns, r, C_DSTKD)
                                               : "";
        op.u.copy.pinned = strcmp(host, "Pageable") != 0;
    } else if (g_str_has_prefix(name, "[CUDA memset")) {
        double bytes;
        if (!num(ns, r, C_BYTES, 0, 1e16, false, &bytes, error))
            return false;
        op.kind = SIM_TRACE_MEMSET;
        op.u.memset_bytes = (uint64_t)llround(bytes);
    } else if (name[0] == '[') {
        ns->tr->n_skipped++;
        sim_trace_note(ns->tr,
                       "%s:%u: row '%s' skipped: not a kernel, copy "
                       "or memset",
                       ns->tr->path, r->line, name);
        return true;
    } else if (!*name) {
        return fail(ns, r, C_NAME, error, "empty kernel name", NULL);
    } else {
        SimTraceKernel *k = &op.u.kernel;
        op.kind = SIM_TRACE_KERNEL;
        static const Col g[3] = {C_GRDX, C_GRDY, C_GRDZ};
        static const Col b[3] = {C_BLKX, C_BLKY, C_BLKZ};
        double v;
        for (int i = 0; i < 3; i++) {
            if (!num(ns, r, g[i], 1, INT32_MAX, true, &v, error))
                return false;
            k->grid[i] = (uint32_t)v;
            if (!num(ns, r, b[i], 1, 1024, true, &v, error))
                return false;
            k->block[i] = (uint32_t)v;
        }
        if (!num(ns, r, C_REGS, 0, 255, true, &v, error))
            return false;
        k->regs_per_thread = (uint32_t)v;
        if (!num(ns, r, C_SSMEM, 0, UINT32_MAX, false, &v, error))
            return false;
        k->static_smem_bytes = (uint32_t)llround(v);
        if (!num(ns, r, C_DSMEM, 0, UINT32_MAX, false, &v, error))
            return false;
        k->dynamic_smem_bytes = (uint32_t)llround(v);
        k->name = sim_trace_intern(ns->tr, name);
    }
    op.line = r->line;
    op.stream = (int64_t)sid;
    op.event = SIM_TRACE_NO_ID;
    op.start_ns = llround(start);
    op.end_ns = op.start_ns + llround(dur);
    op.api_start_ns = op.api_end_ns = SIM_TRACE_NO_TIME;
    g_array_append_val(p->ops, op);
    const char *dev = cell(ns, r, C_DEVICE);
    if (*dev && !ns->tr->gpu_name)
        ns->tr->gpu_name = sim_trace_device_name(dev);
    return true;
}

bool sim_import_nsys_csv(SimTrace *tr, const char *text, size_t len,
                         GError **error)
{
    if (!sim_check_utf8(tr->path, text, len, error))
        return false;
    Nsys ns;
    memset(&ns, 0, sizeof ns);
    ns.tr = tr;
    SimCsv csv;
    sim_csv_init(&csv, tr->path, text, len);
    g_autoptr(SimCsvRow) row = sim_csv_row_new();
    g_autoptr(SimCsvRow) header = sim_csv_row_new();
    const char *line;
    size_t n;
    bool have_header = false;
    while (sim_csv_next_line(&csv, &line, &n)) {
        if (n == 0)
            continue;
        if (!have_header) {
            bool is_header = (sim_csv_line_starts(line, n, "Start") ||
                              sim_csv_line_starts(line, n, "\"Start")) &&
                             g_strstr_len(line, (gssize)n, "Name");
            if (!is_header)
                continue; /* preamble */
            if (!sim_csv_split(&csv, line, n, csv.line, header, NULL, error) ||
                !read_header(&ns, header, error))
                return false;
            have_header = true;
            continue;
        }
        if (!sim_csv_split(&csv, line, n, csv.line, row, header, error))
            return false;
        if (!sim_csv_check_width(&csv, row, ns.n_fields, ns.n_fields, error))
            return false;
        if (!read_row(&ns, row, error))
            return false;
    }
    if (!have_header) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: no header line starting with 'Start' (not an nsys "
                    "stats cuda_gpu_trace CSV, or truncated)",
                    tr->path);
        return false;
    }
    if (tr->processes->len == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: the GPU trace has no kernel, copy or memset rows",
                    tr->path);
        return false;
    }
    return true;
}

/* "Start (ns)" or "Start(sec)", quoted or not, with a Name column. */
bool sim_detect_nsys_csv_line(const char *line, size_t n)
{
    return (sim_line_starts(line, n, "Start") ||
            sim_line_starts(line, n, "\"Start")) &&
           memchr(line, ',', n) && g_strstr_len(line, (gssize)n, "Name");
}
