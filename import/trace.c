/* trace.c -- the importers' intermediate form: construction and name
 * helpers.  See trace.h. */
#include "trace.h"

#include <stdarg.h>
#include <string.h>

static void process_free(gpointer data)
{
    SimTraceProcess *p = data;
    g_free(p->name);
    g_array_free(p->ops, TRUE);
    g_array_free(p->streams, TRUE);
    g_free(p);
}

#define SLAB_RECORDS 4096 /* per chunk */

void sim_slab_init(SimSlab *s, size_t size)
{
    s->chunks = g_ptr_array_new_with_free_func(g_free);
    s->size = size;
    s->used = SLAB_RECORDS;
}

void *sim_slab_new0(SimSlab *s)
{
    if (s->used == SLAB_RECORDS) {
        g_ptr_array_add(s->chunks, g_malloc0(SLAB_RECORDS * s->size));
        s->used = 0;
    }
    char *c = g_ptr_array_index(s->chunks, s->chunks->len - 1);
    return c + s->size * s->used++;
}

void sim_slab_clear(SimSlab *s)
{
    if (s->chunks)
        g_ptr_array_free(s->chunks, TRUE);
    s->chunks = NULL;
}

SimTrace *sim_trace_new(const char *path, const char *format)
{
    SimTrace *tr = g_new0(SimTrace, 1);
    tr->path = g_strdup(path);
    tr->format = format;
    tr->strings = g_string_chunk_new(4096);
    tr->processes = g_ptr_array_new_with_free_func(process_free);
    tr->notes = g_ptr_array_new_with_free_func(g_free);
    tr->ncu = g_array_new(FALSE, TRUE, sizeof(SimNcuKernel));
    return tr;
}

void sim_trace_free(SimTrace *tr)
{
    if (!tr)
        return;
    g_free(tr->path);
    g_free(tr->gpu_name);
    g_string_chunk_free(tr->strings);
    g_ptr_array_free(tr->processes, TRUE);
    g_ptr_array_free(tr->notes, TRUE);
    g_array_free(tr->ncu, TRUE);
    g_free(tr);
}

const char *sim_trace_intern(SimTrace *tr, const char *s)
{
    return s ? g_string_chunk_insert_const(tr->strings, s) : NULL;
}

SimTraceProcess *sim_trace_add_process(SimTrace *tr, const char *name,
                                       int64_t pid)
{
    SimTraceProcess *p = g_new0(SimTraceProcess, 1);
    p->name = g_strdup(name);
    p->pid = pid;
    p->ops = g_array_new(FALSE, TRUE, sizeof(SimTraceOp));
    p->streams = g_array_new(FALSE, TRUE, sizeof(SimTraceStream));
    g_ptr_array_add(tr->processes, p);
    return p;
}

SimTraceProcess *sim_trace_find_process(SimTrace *tr, int64_t pid)
{
    for (guint i = 0; i < tr->processes->len; i++) {
        SimTraceProcess *p = g_ptr_array_index(tr->processes, i);
        if (p->pid == pid)
            return p;
    }
    return NULL;
}

SimTraceOp *sim_trace_add_op(SimTraceProcess *p, SimTraceKind kind,
                             uint32_t line)
{
    SimTraceOp op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.line = line;
    op.stream = SIM_TRACE_NO_ID;
    op.event = SIM_TRACE_NO_ID;
    op.start_ns = op.end_ns = SIM_TRACE_NO_TIME;
    op.api_start_ns = op.api_end_ns = SIM_TRACE_NO_TIME;
    g_array_append_val(p->ops, op);
    return &g_array_index(p->ops, SimTraceOp, p->ops->len - 1);
}

/* 10^6 ops of a big trace live at once during the import: keep an op at
 * most what it is now (it was 192 bytes with a whole SimKernelSpec). */
_Static_assert(sizeof(SimTraceOp) <= 120, "SimTraceOp grew");

void sim_trace_kernel_spec(const SimTraceKernel *k, SimKernelSpec *out)
{
    memset(out, 0, sizeof *out);
    out->name = k->name;
    memcpy(out->grid, k->grid, sizeof out->grid);
    memcpy(out->block, k->block, sizeof out->block);
    out->regs_per_thread = k->regs_per_thread;
    out->static_smem_bytes = k->static_smem_bytes;
    out->dynamic_smem_bytes = k->dynamic_smem_bytes;
    const SimNcuKernel *n = k->ncu;
    if (!n)
        return;
    out->duration_ns = (SimTime)n->duration_ns;
    /* The driver's configuration for its SMs (smem_config.c). */
    out->smem_config_bytes = n->smem_config;
    /* The pipe share is read against the issue share: both come from the
     * same record (ncu.c sets a pipe share only beside an issue share). */
    if (n->sm_intensity > 0) {
        out->sm_intensity = n->sm_intensity;
        out->sm_pipe_share = n->sm_pipe_share;
    }
    out->mem_intensity = n->mem_intensity;
    if (n->l2_served >= 0) {
        out->l2_served = n->l2_served;
        out->has_l2_served = true;
    }
}

void sim_trace_note(SimTrace *tr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_ptr_array_add(tr->notes, g_strdup_vprintf(fmt, ap));
    va_end(ap);
}

bool sim_trace_copy_dir(const char *kind, size_t len, SimCopyDir *d)
{
    static const struct {
        const char *k;
        SimCopyDir d;
    } t[] = {{"HtoD", SIM_COPY_H2D},
             {"Host-to-Device", SIM_COPY_H2D},
             {"Unified Host-to-Device", SIM_COPY_H2D},
             {"HtoA", SIM_COPY_H2D},
             {"Host-to-Array", SIM_COPY_H2D},
             {"DtoH", SIM_COPY_D2H},
             {"Device-to-Host", SIM_COPY_D2H},
             {"Unified Device-to-Host", SIM_COPY_D2H},
             {"AtoH", SIM_COPY_D2H},
             {"Array-to-Host", SIM_COPY_D2H},
             {"DtoD", SIM_COPY_D2D},
             {"Device-to-Device", SIM_COPY_D2D},
             {"PtoP", SIM_COPY_D2D},
             {"Peer-to-Peer", SIM_COPY_D2D},
             {"DtoA", SIM_COPY_D2D},
             {"Device-to-Array", SIM_COPY_D2D},
             {"AtoD", SIM_COPY_D2D},
             {"Array-to-Device", SIM_COPY_D2D},
             {"AtoA", SIM_COPY_D2D}};
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        if (strlen(t[i].k) == len && !strncmp(kind, t[i].k, len)) {
            *d = t[i].d;
            return true;
        }
    return false;
}

int sim_trace_sync_kind_of_api(const char *name)
{
    if (!name)
        return -1;
    if (strstr(name, "DeviceSynchronize") || strstr(name, "CtxSynchronize"))
        return SIM_TRACE_DEVICE_SYNC;
    if (strstr(name, "StreamSynchronize"))
        return SIM_TRACE_STREAM_SYNC;
    if (strstr(name, "EventSynchronize"))
        return SIM_TRACE_EVENT_SYNC;
    if (strstr(name, "StreamWaitEvent"))
        return SIM_TRACE_EVENT_WAIT;
    return -1;
}

bool sim_trace_api_blocks(const char *name)
{
    return name &&
           (g_str_has_prefix(name, "cudaMemcpy") ||
            g_str_has_prefix(name, "cuMemcpy")) &&
           !strstr(name, "Async");
}

/* ------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

/* Index of the bracket that opens the group closing at s[end] (one of ')'
 * or '>'), counting nested (), <> and []; -1 if unbalanced. */
static long match_open(const char *s, long end)
{
    int depth = 0;
    for (long i = end; i >= 0; i--) {
        char c = s[i];
        if (c == ')' || c == '>' || c == ']')
            depth++;
        else if (c == '(' || c == '<' || c == '[')
            depth--;
        if (depth == 0)
            return i;
    }
    return -1;
}

char *sim_trace_kernel_base_name(const char *name)
{
    g_autofree char *s = g_strstrip(g_strdup(name ? name : ""));
    long n = (long)strlen(s);
    /* nvprof (CUDA 8) appends the correlation id: " [1148]". */
    if (n > 2 && s[n - 1] == ']') {
        long i = n - 2;
        while (i >= 0 && g_ascii_isdigit(s[i]))
            i--;
        if (i >= 1 && i < n - 2 && s[i] == '[' && s[i - 1] == ' ') {
            n = i - 1;
            s[n] = '\0';
        }
    }
    /* Trailing qualifiers after the parameter list. */
    while (n > 0 && (s[n - 1] == ' '))
        s[--n] = '\0';
    if (n > 6 && strcmp(s + n - 6, " const") == 0) {
        n -= 6;
        s[n] = '\0';
    }
    if (n > 0 && s[n - 1] == ')') {
        long open = match_open(s, n - 1);
        if (open > 0) {
            n = open;
            s[n] = '\0';
        }
    }
    while (n > 0 && s[n - 1] == ' ')
        s[--n] = '\0';
    if (n > 0 && s[n - 1] == '>') {
        long open = match_open(s, n - 1);
        if (open > 0) {
            n = open;
            s[n] = '\0';
        }
    }
    /* The last component: after the last "::" or blank outside brackets. */
    int depth = 0;
    long start = 0;
    for (long i = n - 1; i >= 0; i--) {
        char c = s[i];
        if (c == ')' || c == '>' || c == ']')
            depth++;
        else if (c == '(' || c == '<' || c == '[')
            depth--;
        else if (depth == 0 &&
                 (c == ' ' || (c == ':' && i > 0 && s[i - 1] == ':'))) {
            start = i + 1;
            break;
        }
    }
    if (start >= n) /* nothing sensible: keep the whole name */
        return g_strdup(name ? name : "");
    return g_strndup(s + start, (gsize)(n - start));
}

char *sim_trace_device_name(const char *device)
{
    if (!device || !*device)
        return NULL;
    size_t n = strlen(device);
    if (n > 3 && device[n - 1] == ')') {
        const char *open = strrchr(device, '(');
        if (open && open > device && open[-1] == ' ') {
            bool digits = open + 1 < device + n - 1;
            for (const char *p = open + 1; p < device + n - 1; p++)
                if (!g_ascii_isdigit(*p))
                    digits = false;
            if (digits)
                return g_strndup(device, (gsize)(open - 1 - device));
        }
    }
    return g_strdup(device);
}

bool sim_trace_api_graph_launch(const char *api)
{
    return api && (g_str_has_prefix(api, "cudaGraphLaunch") ||
                   g_str_has_prefix(api, "cuGraphLaunch"));
}
