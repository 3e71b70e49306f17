/* ncu.c -- Nsight Compute `--csv` (trace-formats.md §3).
 *
 * Two shapes, both found by their header (after "==PROF==" lines and the
 * application's own output):
 *  - long (details page, --metrics): one row per kernel and metric, with
 *    "Metric Name", "Metric Unit", "Metric Value" -- the 2019-2021 layout
 *    (12 columns, "Kernel Time") and the 2022+ one (15 or more, with
 *    "Block Size"/"Grid Size" tuples, "Device", "CC" and rule columns);
 *  - wide (--page raw): one row per kernel, one column per metric, and a
 *    units row under the header.
 * Metrics are recognised by their display names (details page) or raw
 * names (launch__*, gpu__time_duration.sum...), values scaled by their unit
 * ("nsecond", "Kbyte/block", "%").  ncu replays each kernel serialized, so
 * its durations are solo times; what it adds to a timeline is each
 * kernel's resources and intensity (workload.c matches them by name and
 * order).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "csv.h"
#include "bounds.h"
#include "error.h"
#include "json.h"
#include "trace.h"

typedef enum {
    N_ID,
    N_PID,
    N_PNAME,
    N_KERNEL,
    N_STREAM,
    N_BLOCK,
    N_GRID,
    N_CC,
    N_METRIC,
    N_UNIT,
    N_VALUE,
    N_COLS
} Col;

static const char *const col_names[N_COLS] = {
    "ID",          "Process ID",  "Process Name", "Kernel Name",
    "Stream",      "Block Size",  "Grid Size",    "CC",
    "Metric Name", "Metric Unit", "Metric Value"};

typedef struct {
    SimTrace *tr;
    int idx[N_COLS];
    uint32_t n_fields;
    uint32_t min_fields; /* rows may stop before trailing rule columns */
    bool wide;
    GHashTable *by_id; /* ID -> index + 1 in tr->ncu */
    SimCsvRow *units;  /* wide form: the units row */
} Ncu;

static const char *cell(const Ncu *nc, const SimCsvRow *r, Col c)
{
    return nc->idx[c] < 0 ? "" : sim_csv_field(r, (uint32_t)nc->idx[c]);
}

/* "(256, 1, 1)" or "(32,32,1)" -> dims.  False if not a triple. */
static bool parse_dim3(const char *s, uint32_t out[3])
{
    while (*s == ' ')
        s++;
    if (*s != '(')
        return false;
    s++;
    for (int i = 0; i < 3; i++) {
        char *end = NULL;
        while (*s == ' ')
            s++;
        long long v = g_ascii_strtoll(s, &end, 10);
        if (end == s || v < 1 || v > INT32_MAX)
            return false;
        out[i] = (uint32_t)v;
        s = end;
        while (*s == ' ')
            s++;
        if (*s != (i < 2 ? ',' : ')'))
            return false;
        s++;
    }
    return true;
}

static bool time_scale(const char *unit, double *f)
{
    static const struct {
        const char *u;
        double f;
    } t[] = {{"nsecond", 1.0}, {"usecond", 1e3}, {"msecond", 1e6},
             {"second", 1e9},  {"ns", 1.0},      {"us", 1e3},
             {"ms", 1e6},      {"s", 1e9}};
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        if (!strcmp(unit, t[i].u)) {
            *f = t[i].f;
            return true;
        }
    return false;
}

/* "byte/block", "Kbyte/block", "byte" (ncu's prefixes are decimal). */
static bool bytes_scale(const char *unit, double *f)
{
    g_autofree char *u = g_strdup(unit);
    char *slash = strchr(u, '/');
    if (slash)
        *slash = '\0';
    static const struct {
        const char *u;
        double f;
    } t[] = {{"", 1.0},      {"byte", 1.0},   {"Kbyte", 1e3},
             {"Mbyte", 1e6}, {"Gbyte", 1e9},  {"KB", 1e3},
             {"MB", 1e6},    {"KiB", 1024.0}, {"MiB", 1048576.0}};
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        if (!strcmp(u, t[i].u)) {
            *f = t[i].f;
            return true;
        }
    return false;
}

/* @v @unit of byte metric @metric (line @line) in bytes, into @bytes:
 * false with @error set when the unit is unknown or the value does not fit
 * 32 bits (every byte metric hqsim reads is per block or per SM). */
static bool metric_bytes(const Ncu *nc, uint32_t line, const char *metric,
                         double v, const char *unit, double *bytes,
                         GError **error)
{
    double f;
    if (!bytes_scale(unit, &f) || v * f > UINT32_MAX) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s:%u: metric '%s': unknown unit '%s' or value "
                    "out of range",
                    nc->tr->path, line, metric, unit);
        return false;
    }
    *bytes = v * f;
    return true;
}

static bool is_name(const char *m, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(m, *names))
            return true;
    return false;
}

/* One metric of one kernel.  Values that are not numbers ("n/a",
 * "<OVERFLOW>") are ignored: ncu prints them for metrics it could not
 * collect, and a missing metric is handled where it is needed. */
static bool apply_metric(Ncu *nc, SimNcuKernel *k, const char *metric,
                         const char *unit, const char *value, uint32_t line,
                         GError **error)
{
    static const char *const duration[] = {"Duration", "gpu__time_duration.sum",
                                           NULL};
    static const char *const regs[] = {"Registers Per Thread",
                                       "launch__registers_per_thread", NULL};
    static const char *const sstatic[] = {"Static Shared Memory Per Block",
                                          "launch__shared_mem_per_block_static",
                                          NULL};
    static const char *const sdynamic[] = {
        "Dynamic Shared Memory Per Block",
        "launch__shared_mem_per_block_dynamic", NULL};
    /* the configuration the driver chose for its SMs (smem_config.c) */
    static const char *const sconfig[] = {"Shared Memory Configuration Size",
                                          "launch__shared_mem_config_size",
                                          NULL};
    static const char *const block[] = {"Block Size", "launch__block_size",
                                        NULL};
    static const char *const grid[] = {"Grid Size", "launch__grid_size", NULL};
    static const char *const issue[] = {
        "Issue Slots Busy", "sm__inst_issued.avg.pct_of_peak_sustained_active",
        NULL};
    /* sm__throughput: the busiest of the SM's units, issue included
     * (not "SM Busy", an instruction-pipe figure). */
    static const char *const smtput[] = {
        "SM [%]", "Compute (SM) Throughput",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed", NULL};
    static const char *const smpct[] = {
        "SM [%]", "Compute (SM) Throughput", "SM Busy",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed", NULL};
    static const char *const dram[] = {
        "SOL FB", "DRAM Throughput",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", NULL};
    static const char *const mempct[] = {
        "Memory [%]", "Memory Throughput",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
        NULL};
    /* its L2-served share of loads (engine_share.c memload_wait, FINDINGS
     * §69): ncu's hit-rate ratios exceed 100% on the GH100 (hits of the
     * second L2 partition counted), so the share is read from bytes */
    static const char *const l2rd[] = {"lts__t_sectors_srcunit_tex_op_read.sum",
                                       NULL};
    static const char *const dramrd[] = {"dram__bytes_read.sum", NULL};
    /* The metrics hqsim uses must be numbers >= 0; others (percentages a
     * report may leave "n/a") are skipped when they are not. */
    const char *const *const used[] = {duration, regs,  sstatic,
                                       sdynamic, block, grid};
    bool is_used = false;
    for (size_t i = 0; i < G_N_ELEMENTS(used); i++)
        is_used = is_used || is_name(metric, used[i]);
    double v;
    if (!sim_csv_parse_double(value, &v) || !isfinite(v) || v < 0 || v > 1e15) {
        if (!is_used)
            return true;
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s:%u: metric '%s': '%s' is not a number in [0, 1e15]",
                    nc->tr->path, line, metric, value);
        return false;
    }
    double f = 1.0;
    if (is_name(metric, duration)) {
        if (!time_scale(unit, &f)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s:%u: metric '%s': unknown time unit '%s'",
                        nc->tr->path, line, metric, unit);
            return false;
        }
        if (v * f > 1e18) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s:%u: metric '%s': %s %s is out of range",
                        nc->tr->path, line, metric, value, unit);
            return false;
        }
        k->duration_ns = llround(v * f);
    } else if (is_name(metric, regs)) {
        if (v > 255 || v != floor(v)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s:%u: metric '%s': %s is not a register count",
                        nc->tr->path, line, metric, value);
            return false;
        }
        k->regs = (uint32_t)v;
        k->has_regs = true;
    } else if (is_name(metric, sstatic) || is_name(metric, sdynamic)) {
        double b;
        if (!metric_bytes(nc, line, metric, v, unit, &b, error))
            return false;
        if (is_name(metric, sstatic)) {
            k->smem_static = (uint32_t)llround(b);
            k->has_smem_static = true;
        } else {
            k->smem_dynamic = (uint32_t)llround(b);
            k->has_smem_dynamic = true;
        }
    } else if (is_name(metric, sconfig)) {
        /* a whole number of KiB; ncu's "Kbyte" is decimal (233.47) */
        double b;
        if (!metric_bytes(nc, line, metric, v, unit, &b, error))
            return false;
        k->smem_config = (uint32_t)llround(b / 1024.0) * 1024;
    } else if (is_name(metric, block) || is_name(metric, grid)) {
        bool is_block = is_name(metric, block);
        if (v < 1 || v > INT32_MAX || v != floor(v)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s:%u: metric '%s': %s is out of range", nc->tr->path,
                        line, metric, value);
            return false;
        }
        /* A total; the columns' tuples, when present, win. */
        if (is_block && !k->has_block) {
            k->block[0] = (uint32_t)v;
            k->block[1] = k->block[2] = 1;
            k->has_block = true;
        } else if (!is_block && !k->has_grid) {
            k->grid[0] = (uint32_t)v;
            k->grid[1] = k->grid[2] = 1;
            k->has_grid = true;
        }
    } else if (is_name(metric, l2rd) || is_name(metric, dramrd)) {
        bool sectors = is_name(metric, l2rd);
        double b = 1.0;
        if (sectors ? strcmp(unit, "sector") != 0 : !bytes_scale(unit, &b)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s:%u: metric '%s': unknown unit '%s'", nc->tr->path,
                        line, metric, unit);
            return false;
        }
        if (sectors)
            k->l2_read_bytes = v * 32.0; /* a sector is 32 bytes */
        else
            k->dram_read_bytes = v * b;
    } else if (strcmp(unit, "%") == 0) {
        if (is_name(metric, smtput))
            k->sm_tput_pct = v;
        if (is_name(metric, issue))
            k->issue_busy_pct = v;
        else if (is_name(metric, smpct) && k->sm_pct == 0)
            k->sm_pct = v;
        else if (is_name(metric, dram))
            k->dram_pct = v;
        else if (is_name(metric, mempct) && k->mem_pct == 0)
            k->mem_pct = v;
    }
    return true;
}

static SimNcuKernel *kernel_for(Ncu *nc, const SimCsvRow *r, GError **error)
{
    const char *id_s = cell(nc, r, N_ID);
    double id;
    int64_t id_i = -1;
    if (!sim_csv_parse_double(id_s, &id) || id != floor(id) ||
        !sim_double_to_i64(id, 0, INT64_MAX, &id_i)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s:%u: column 'ID': '%s' is not a kernel id", nc->tr->path,
                    r->line, id_s);
        return NULL;
    }
    uint64_t key = (uint64_t)id_i;
    gpointer v = g_hash_table_lookup(nc->by_id, &key);
    if (v)
        return &g_array_index(nc->tr->ncu, SimNcuKernel,
                              GPOINTER_TO_UINT(v) - 1);
    SimNcuKernel k;
    memset(&k, 0, sizeof k);
    k.id = key;
    k.line = r->line;
    k.duration_ns = -1;
    k.dram_read_bytes = -1;
    k.l2_served = -1;
    /* Ids: any integer; a value past int64 is no id (no UB cast). */
    double d;
    if (!sim_csv_parse_double(cell(nc, r, N_PID), &d) ||
        !sim_double_to_i64(d, INT64_MIN, INT64_MAX, &k.pid))
        k.pid = -1;
    if (!sim_csv_parse_double(cell(nc, r, N_STREAM), &d) ||
        !sim_double_to_i64(d, INT64_MIN, INT64_MAX, &k.stream))
        k.stream = 0;
    const char *name = cell(nc, r, N_KERNEL);
    if (!*name) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s:%u: column 'Kernel Name': empty", nc->tr->path,
                    r->line);
        return NULL;
    }
    k.name = sim_trace_intern(nc->tr, name);
    const char *pname = cell(nc, r, N_PNAME);
    k.process = sim_trace_intern(nc->tr, *pname ? pname : "ncu");
    if (parse_dim3(cell(nc, r, N_BLOCK), k.block))
        k.has_block = true;
    if (parse_dim3(cell(nc, r, N_GRID), k.grid))
        k.has_grid = true;
    const char *cc = cell(nc, r, N_CC);
    if (*cc && !nc->tr->cc_major) {
        int major = 0, minor = 0;
        if (sscanf(cc, "%d.%d", &major, &minor) == 2) {
            nc->tr->cc_major = major;
            nc->tr->cc_minor = minor;
        }
    }
    g_array_append_val(nc->tr->ncu, k);
    g_hash_table_insert(nc->by_id, g_memdup2(&key, sizeof key),
                        GUINT_TO_POINTER(nc->tr->ncu->len));
    return &g_array_index(nc->tr->ncu, SimNcuKernel, nc->tr->ncu->len - 1);
}

static bool is_rule_column(const char *name)
{
    return g_str_has_prefix(name, "Rule ") ||
           g_str_has_prefix(name, "Estimated Speedup");
}

static bool read_header(Ncu *nc, const SimCsvRow *h, GError **error)
{
    for (int c = 0; c < N_COLS; c++)
        nc->idx[c] = sim_csv_find(h, col_names[c]);
    if (nc->idx[N_KERNEL] < 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s:%u: header: missing column 'Kernel Name'", nc->tr->path,
                    h->line);
        return false;
    }
    nc->wide = nc->idx[N_METRIC] < 0 && nc->idx[N_VALUE] < 0;
    if (!nc->wide) {
        static const Col need[] = {N_METRIC, N_UNIT, N_VALUE};
        for (size_t i = 0; i < G_N_ELEMENTS(need); i++)
            if (nc->idx[need[i]] < 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                            "%s:%u: header: missing column '%s'", nc->tr->path,
                            h->line, col_names[need[i]]);
                return false;
            }
    }
    nc->n_fields = h->n;
    /* Range errors name the tuple columns a launch's shape is read from
     * (they win over the metrics' totals). */
    for (int d = 0; d < 3; d++) {
        nc->tr->columns[SIM_COL_GRID_X + d] =
            nc->idx[N_GRID] >= 0 ? col_names[N_GRID] : NULL;
        nc->tr->columns[SIM_COL_BLOCK_X + d] =
            nc->idx[N_BLOCK] >= 0 ? col_names[N_BLOCK] : NULL;
    }
    /* Nsight Compute 2024+ writes the rule columns ("Rule Name", "Rule
     * Type", "Rule Description", "Estimated Speedup Type", "Estimated
     * Speedup") only on rows a rule fired for: other rows end after
     * "Metric Value" with an empty field.  Such rows may stop anywhere
     * inside that trailing run of rule columns, never before it. */
    nc->min_fields = h->n;
    if (!nc->wide)
        while (nc->min_fields > 0 &&
               is_rule_column(sim_csv_field(h, nc->min_fields - 1)))
            nc->min_fields--;
    return true;
}

static void finish_kernels(SimTrace *tr)
{
    for (guint i = 0; i < tr->ncu->len; i++) {
        SimNcuKernel *k = &g_array_index(tr->ncu, SimNcuKernel, i);
        double sm = k->issue_busy_pct > 0 ? k->issue_busy_pct : k->sm_pct;
        double mem = k->dram_pct > 0 ? k->dram_pct : k->mem_pct;
        k->sm_intensity = sm > 0 ? MIN(sm / 100.0, 1.0) : 0;
        k->mem_intensity = mem > 0 ? MIN(mem / 100.0, 1.0) : 0;
        if (k->sm_intensity > 0 && k->sm_intensity < 1e-6)
            k->sm_intensity = 1e-6; /* the native format's floor */
        /* FINDINGS.md section 20: the SM throughput above the issue share
         * means a pipe other than the issue slots binds the kernel.  Only
         * with both metrics; the engine (issue_pipe_bound) compares them,
         * as it does validate's pipe_pct column. */
        k->sm_pipe_share = k->issue_busy_pct > 0 && k->sm_tput_pct > 0
                               ? MIN(k->sm_tput_pct / 100.0, 1.0)
                               : 0;
        /* what L2 serves of its loads from the SMs: the rest came from
         * DRAM (writes and other clients of L2 left out) */
        if (k->l2_read_bytes > 0 && k->dram_read_bytes >= 0)
            k->l2_served =
                CLAMP(1.0 - k->dram_read_bytes / k->l2_read_bytes, 0.0, 1.0);
    }
}

static int cmp_id(gconstpointer a, gconstpointer b)
{
    const SimNcuKernel *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

bool sim_import_ncu(SimTrace *tr, const char *text, size_t len, GError **error)
{
    if (!sim_check_utf8(tr->path, text, len, error))
        return false;
    Ncu nc;
    memset(&nc, 0, sizeof nc);
    nc.tr = tr;
    nc.by_id = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    SimCsv csv;
    sim_csv_init(&csv, tr->path, text, len);
    g_autoptr(SimCsvRow) row = sim_csv_row_new();
    g_autoptr(SimCsvRow) header = sim_csv_row_new();
    const char *line;
    size_t n;
    bool have_header = false, ok = true;
    while (ok && sim_csv_next_line(&csv, &line, &n)) {
        if (n == 0 || sim_csv_line_starts(line, n, "==PROF=="))
            continue;
        if (!have_header) {
            if (!sim_csv_line_starts(line, n, "\"ID\",\"Process ID\""))
                continue; /* the application's own output */
            ok = sim_csv_split(&csv, line, n, csv.line, header, NULL, error) &&
                 read_header(&nc, header, error);
            have_header = true;
            continue;
        }
        if (nc.wide && !nc.units) {
            nc.units = sim_csv_row_new();
            ok =
                sim_csv_split(&csv, line, n, csv.line, nc.units, header, error);
            if (ok && nc.units->n != nc.n_fields) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                            "%s:%u: units row has %u cells, the header has "
                            "%u",
                            tr->path, csv.line, nc.units->n, nc.n_fields);
                ok = false;
            }
            continue;
        }
        ok = sim_csv_split(&csv, line, n, csv.line, row, header, error) &&
             sim_csv_check_width(&csv, row, nc.min_fields, nc.n_fields, error);
        SimNcuKernel *k = ok ? kernel_for(&nc, row, error) : NULL;
        ok = k != NULL;
        if (!ok)
            break;
        if (!nc.wide) {
            ok = apply_metric(&nc, k, cell(&nc, row, N_METRIC),
                              cell(&nc, row, N_UNIT), cell(&nc, row, N_VALUE),
                              row->line, error);
        } else {
            for (uint32_t i = 0; ok && i < row->n; i++) {
                bool identity = false;
                for (int c = 0; c < N_COLS; c++)
                    identity = identity || nc.idx[c] == (int)i;
                if (!identity)
                    ok = apply_metric(&nc, k, sim_csv_field(header, i),
                                      sim_csv_field(nc.units, i),
                                      sim_csv_field(row, i), row->line, error);
            }
        }
    }
    sim_csv_row_free(nc.units);
    g_hash_table_destroy(nc.by_id);
    if (!ok)
        return false;
    if (!have_header) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: no header line starting with \"ID\",\"Process ID\" "
                    "(not an ncu --csv file, or no kernel was profiled)",
                    tr->path);
        return false;
    }
    if (tr->ncu->len == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: the ncu table has no rows (truncated file?)",
                    tr->path);
        return false;
    }
    g_array_sort(tr->ncu, cmp_id);
    finish_kernels(tr);
    return true;
}

bool sim_import_ncu_ops(SimTrace *tr, GError **error)
{
    for (guint i = 0; i < tr->ncu->len; i++) {
        const SimNcuKernel *k = &g_array_index(tr->ncu, SimNcuKernel, i);
        const char *missing = !k->has_block         ? "Block Size"
                              : !k->has_grid        ? "Grid Size"
                              : k->duration_ns <= 0 ? "Duration"
                                                    : NULL;
        if (missing) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                        "%s:%u: kernel ID %llu ('%s'): no '%s' metric; ncu "
                        "on its own needs the launch statistics and the "
                        "duration (sections LaunchStats and SpeedOfLight, or "
                        "launch__* and gpu__time_duration.sum)",
                        tr->path, k->line, (unsigned long long)k->id, k->name,
                        missing);
            return false;
        }
        SimTraceProcess *p = sim_trace_find_process(tr, k->pid);
        if (!p) {
            g_autofree char *name =
                g_strdup_printf("%s[%lld]", k->process, (long long)k->pid);
            p = sim_trace_add_process(tr, name, k->pid);
        }
        SimTraceOp *op = sim_trace_add_op(p, SIM_TRACE_KERNEL, k->line);
        op->stream = k->stream;
        SimTraceKernel *ks = &op->u.kernel;
        ks->name = k->name;
        memcpy(ks->grid, k->grid, sizeof ks->grid);
        memcpy(ks->block, k->block, sizeof ks->block);
        ks->regs_per_thread = k->has_regs ? k->regs : 0;
        ks->static_smem_bytes = k->smem_static;
        ks->dynamic_smem_bytes = k->smem_dynamic;
        ks->ncu = k; /* the rest: sim_trace_kernel_spec() */
    }
    return true;
}

bool sim_detect_ncu_line(const char *line, size_t n)
{
    return sim_line_starts(line, n, "\"ID\",\"Process ID\"");
}
