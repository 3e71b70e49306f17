/* kineto.c -- PyTorch profiler / Kineto trace JSON (trace-formats.md §4).
 *
 * Both spellings: 2021 ("cat": "Kernel", "Memcpy", "Memset", "Runtime";
 * "tid": "stream 7"; "external id") and current ("kernel", "gpu_memcpy",
 * "gpu_memset", "cuda_runtime", "cuda_driver", "cuda_sync"; integer tid).
 * Times are microseconds (integer or with three decimals), on the Unix
 * clock unless "baseTimeNanoseconds" is given, in which case they are
 * relative to it.
 *
 * GPU events carry the device as "pid"; the host process that issued one is
 * found through its correlation id (the cuda_runtime event with the same
 * "correlation"), so a file with several host pids gives several processes.
 * cuda_sync events (CUPTI synchronization records) give stream waits and
 * host syncs, and name the correlation id of the cudaEventRecord they wait
 * for; each such record becomes an event record on the recording stream.
 * Older files have no cuda_sync: host syncs then come from the API names
 * (cudaDeviceSynchronize, cudaStreamSynchronize).
 */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "bounds.h"
#include "error.h"
#include "json.h"
#include "json_arena.h"
#include "occupancy.h"
#include "trace.h"

typedef struct {
    int64_t corr; /* its key in Kineto.api */
    int64_t start, end;
    int64_t pid;
    const char *name; /* interned */
    bool synced;      /* a cuda_sync event describes this call */
} Api;

/* One element of the traceEvents array as text (streaming mode): where it
 * is, its line, and what pass 1 found it to be, so that the later passes
 * parse only the elements they use. */
typedef struct {
    size_t off, len;
    uint32_t line;
    uint32_t rec; /* 1 + index of its GpuRec in Kineto.recs (pass 1 read
                     the GPU activity already); 0: none */
    uint8_t use;  /* USE_* bits, set by pass 1 */
} Elem;

/* What a GPU activity (kernel, copy, memset) says apart from what pass 1
 * learns from the whole trace (the device imported, the API calls): read
 * once, in pass 1 (streaming mode), so that pass 2 does not parse the
 * element again.  An element whose fields have an error is not read so:
 * pass 2 parses it and reports the error where it always did. */
typedef struct {
    int64_t start, end, stream;
    int64_t corr;     /* args.correlation; -1: none */
    const char *name; /* interned: a kernel's or a skipped copy's name */
    union {
        struct {
            uint32_t grid[3], block[3], regs, smem;
        } k;
        struct {
            uint64_t bytes;
            SimCopyDir dir;
            bool pinned;
        } c;
        uint64_t memset_bytes;
    } u;
    uint32_t line;
    int32_t device;
    uint8_t cat;  /* Cat */
    bool no_copy; /* a memcpy the GPU model has no such copy for */
} GpuRec;

enum { USE_GPU = 1, USE_MEMORY = 2 };

typedef struct {
    SimTrace *tr;
    SimJsonDoc *doc;         /* the whole document, or (streaming) the document
                            with traceEvents emptied */
    const cJSON *events;     /* tree mode: the traceEvents array */
    GArray *elems;           /* streaming mode: Elem of each element */
    bool reparse;            /* streaming mode: an element did not parse; read
                            the whole tree instead, for its exact error */
    GArray *lines;           /* uint32 line of each traceEvents element */
    GArray *recs;            /* streaming mode: GpuRec read in pass 1 */
    double recs_ts_max;      /* the largest "ts" of those */
    int64_t base_ns;         /* baseTimeNanoseconds, else 0 */
    GHashTable *api;         /* correlation -> Api* (keys in the Api) */
    SimSlab apis;            /* the Api records */
    GHashTable *pnames;      /* host pid -> name */
    GHashTable *records;     /* record correlation ids already emitted */
    GHashTable *dev_count;   /* pass 1: device -> GPU activities */
    GHashTable *pid_count;   /* pass 1: host pid -> API calls */
    struct Flat *flat;       /* pass 1's reader without a tree (owned) */
    const char *text;        /* streaming mode: the whole text */
    bool scan_reading;       /* streaming mode: pass 1 reads each element as
                              the scan finds it (scan_read) */
    guint read_upto;         /* ... and has read the elements before this */
    SimJsonArena scan_arena; /* scan_read's trees */
    int64_t time_base;       /* added to every time read: 0 in pass 1 (the
                              root's base may come after traceEvents),
                              then base_ns (shift_times) */
    int device;              /* the GPU whose events are imported */
    int64_t main_pid;        /* host pid for GPU work without an API event */
    uint64_t n_other_device, n_unlinked_syncs;
} Kineto;

/* cJSON_GetObjectItemCaseSensitive(@obj, @key), the same answer (the
 * first member of that name; none past a nameless child), with the first
 * byte compared before strcmp: an event is looked up twenty-odd times. */
static inline cJSON *member(const cJSON *obj, const char *key)
{
    if (!obj || !key)
        return NULL;
    for (cJSON *c = obj->child; c && c->string; c = c->next)
        if (c->string[0] == key[0] && strcmp(c->string, key) == 0)
            return c;
    return NULL;
}

/* cJSON_HasObjectItem(@obj, @key): a member of that name in any case.
 * The exact spelling is asked first, as it is found by a cheaper walk. */
static bool has_member(const cJSON *obj, const char *key)
{
    return member(obj, key) || cJSON_HasObjectItem(obj, key);
}

static uint32_t line_at(const Kineto *kn, guint i)
{
    return i < kn->lines->len ? g_array_index(kn->lines, uint32_t, i) : 0;
}

/* ------------------------------------------------------------------------
 * Streaming: the traceEvents array one element at a time
 *
 * A trace of a million kernels is hundreds of MB of JSON; its cJSON tree
 * takes about ten times that.  So the text is split into its elements
 * (split_events) and each element is parsed alone, used and freed: memory
 * is the text and what is kept, not the tree.  Whatever this path cannot
 * vouch for (an element or the rest of the document that does not parse,
 * brackets that do not match, a byte-order mark...) sends the whole file
 * down the tree path instead, which reports the same error, with the same
 * line, as always.  Semantic errors found while the later elements have
 * not been parsed yet wait until they have (a syntax error anywhere comes
 * first, as it always did).
 * ------------------------------------------------------------------------ */

/* Called with each element of the array, in order, once its end is
 * found; @flat: the flat reader (below) read it, an object and nothing
 * else, in the scan, and holds it now. */
typedef void (*ElemFn)(const Elem *e, bool flat, void *data);

/* The flat reader's element ("The flat reader", below): its objects and
 * their members. */
enum { FV_STR, FV_NUM, FV_LIT, FV_OBJ, FV_ARR };

#define FLAT_MEMBERS 32 /* per object */
#define FLAT_OBJS 4     /* the element and the objects in it */

typedef struct {
    const char *key; /* in the text: not NUL-terminated */
    uint32_t klen;
    uint32_t str; /* FV_STR: its copy's offset in Flat.strs */
    double num;   /* FV_NUM */
    double a[3];  /* FV_ARR: its first three numbers */
    uint32_t n;   /* FV_ARR: its length */
    uint8_t type;
    uint8_t obj; /* FV_OBJ: index in Flat.obj */
} FlatVal;

typedef struct {
    FlatVal m[FLAT_MEMBERS];
    unsigned n;
} FlatObj;

/* The text is only read: the string values are copied, NUL-terminated,
 * into strs. */
struct Flat {
    const char *p, *end;
    char *strs; /* (owned) */
    size_t n_strs, cap_strs;
    FlatObj obj[FLAT_OBJS];
    unsigned n_obj;
    uint32_t lines;  /* line breaks read */
    uint64_t values; /* brackets and commas read inside the element, as
                        scan_events counts them */
};
typedef struct Flat Flat;

static bool flat_read(Flat *f, const char *p, const char *end);

/* The one scanner of the traceEvents array (or a root array) of @text:
 * strings (with their escapes), the root's keys, brackets and commas, in
 * one pass.  Gives @fn each element with the line of its first byte, and
 * sets *open and *close to the array's brackets.  False when the
 * structure is not the plain one: no such array, brackets of different
 * kinds matched, an empty element, a raw control byte in a string, or
 * more elements or more values in one element than @max_values (which
 * bounds what the streaming path holds at once: the elements' places and
 * one element's tree).  Whitespace is
 * every byte <= 32, as for cJSON; the first "traceEvents" key of the root
 * object is the one cJSON returns. */
/* Bytes scan_events must look at: in a string, its end, an escape and a
 * raw control byte (JSON forbids those there: the scan refuses them, which
 * is check_shape's test for the elements, sim/json.c); outside, structure
 * and line breaks. */
static const bool str_stop[256] = {
    [0] = 1,  [1] = 1,  [2] = 1,  [3] = 1,  [4] = 1,   [5] = 1,    [6] = 1,
    [7] = 1,  [8] = 1,  [9] = 1,  [10] = 1, [11] = 1,  [12] = 1,   [13] = 1,
    [14] = 1, [15] = 1, [16] = 1, [17] = 1, [18] = 1,  [19] = 1,   [20] = 1,
    [21] = 1, [22] = 1, [23] = 1, [24] = 1, [25] = 1,  [26] = 1,   [27] = 1,
    [28] = 1, [29] = 1, [30] = 1, [31] = 1, ['"'] = 1, ['\\'] = 1,
};
static const bool scan_stop[256] = {
    ['"'] = true, [':'] = true, ['['] = true, ['{'] = true,
    [']'] = true, ['}'] = true, [','] = true, ['\n'] = true};

/* Inside an element, only strings, brackets, commas and line breaks
 * matter (a colon does only at the root). */
static const bool body_stop[256] = {
    ['"'] = true, ['['] = true, ['{'] = true, [']'] = true,
    ['}'] = true, [','] = true, ['\n'] = true};

/* The rest of an element that is an object or array, from its opening
 * bracket at *i (pushed on @stack: *depth > @floor, the array's depth) to
 * its closing bracket (popped: *depth == @floor, *i there): what
 * scan_events' loop does there, in a loop of its own (most of a trace's
 * text is inside elements).  False where that loop refuses: brackets of
 * different kinds matched, nesting past cJSON's limit, a raw control byte
 * in a string, more values than @max_values, the text's end. */
static bool scan_body(const char *text, size_t len, size_t *i, char *stack,
                      size_t *depth, size_t floor, uint32_t *line,
                      uint64_t *values, uint64_t max_values)
{
    size_t d = *depth;
    uint32_t ln = *line;
    uint64_t v = *values;
    for (size_t j = *i + 1; j < len; j++) {
        while (j < len && !body_stop[(unsigned char)text[j]])
            j++;
        if (j >= len)
            return false;
        const char c = text[j];
        switch (c) {
        case '\n': ln++; break;
        case '"':
            for (j++;; j += 2) { /* a backslash and the byte it escapes */
                while (j < len && !str_stop[(unsigned char)text[j]])
                    j++;
                if (j >= len)
                    return false;
                if (text[j] == '"')
                    break;
                if ((unsigned char)text[j] < 0x20)
                    return false; /* a raw control byte */
            }
            break;
        case '[':
        case '{':
            if (d >= CJSON_NESTING_LIMIT)
                return false;
            stack[d++] = c;
            if (++v > max_values)
                return false;
            break;
        case ']':
        case '}':
            if (stack[d - 1] != (c == ']' ? '[' : '{'))
                return false;
            if (--d == floor) {
                *i = j;
                *depth = d;
                *line = ln;
                *values = v;
                return true;
            }
            break;
        default: /* ',' */
            if (++v > max_values)
                return false;
            break;
        }
    }
    return false;
}

/* Bytes @a to @b of @text are blanks. */
static bool blank(const char *text, size_t a, size_t b)
{
    for (; a < b; a++)
        if ((unsigned char)text[a] > 32)
            return false;
    return true;
}

/* (With @flat, while *@reading, an element that is an object is read by
 * the flat reader first, which finds its end, lines and values as
 * scan_body does (and is as strict), in the same pass over the text;
 * scan_body does what it refuses.) */
static bool scan_events(const char *text, size_t len, bool root_array,
                        uint64_t max_values, ElemFn fn, void *data, Flat *flat,
                        const bool *reading, size_t *open, size_t *close)
{
    char stack[CJSON_NESTING_LIMIT + 1];
    size_t depth = 0, arr_depth = root_array ? 1 : 0;
    uint32_t line = 1;
    bool after_colon = false, key_events = false;
    bool expect = false;  /* in the array, before an element */
    bool comma = false;   /* ... after a comma */
    bool pending = false; /* an element started, not yet given to @fn */
    uint64_t values = 0, n_elems = 0;
    Elem cur = {0};
    bool cur_flat = false; /* the flat reader read cur... */
    size_t flat_end = 0;   /* ... up to here */
    for (size_t i = 0; i < len; i++) {
        /* Bytes that change nothing (unless an element may start here)
         * are skipped in a tight loop: numbers, literals, blanks. */
        if (!expect) {
            while (i < len && !scan_stop[(unsigned char)text[i]])
                i++;
            if (i >= len)
                break;
        }
        char c = text[i];
        if (c == '\n')
            line++;
        if ((unsigned char)c <= 32)
            continue;
        bool in_array = arr_depth && depth == arr_depth;
        if (in_array && expect) {
            if (c == ',' || (c == ']' && comma))
                return false; /* an empty element, a trailing comma */
            if (c != ']') {
                if (n_elems >= max_values)
                    return false; /* more events than the limit */
                cur = (Elem){.off = i, .line = line};
                cur_flat = false;
                pending = true;
                expect = false;
                values = 0;
            }
        }
        switch (c) {
        case '"': {
            size_t st = ++i;
            for (;;) {
                while (i < len && !str_stop[(unsigned char)text[i]])
                    i++;
                if (i >= len || text[i] == '"')
                    break;
                if ((unsigned char)text[i] < 0x20)
                    return false; /* a raw control byte */
                i += 2;           /* a backslash and the byte it escapes */
            }
            if (i >= len)
                return false;
            if (depth == 1 && !root_array && !after_colon)
                key_events =
                    i - st == 11 && memcmp(text + st, "traceEvents", 11) == 0;
            break;
        }
        case ':':
            if (depth == 1)
                after_colon = true;
            break;
        case '[':
        case '{':
            if (depth >= CJSON_NESTING_LIMIT)
                return false;
            stack[depth++] = c;
            values++;
            if (!arr_depth && !root_array && depth == 2 && c == '[' &&
                after_colon && key_events) {
                arr_depth = 2;
                expect = true;
                *open = i;
            } else if (root_array && depth == 1) {
                if (c != '[')
                    return false;
                expect = true;
                *open = i;
            } else if (arr_depth && depth > arr_depth) {
                if (flat && *reading && pending && i == cur.off &&
                    flat_read(flat, text + i, text + len)) {
                    depth--; /* its closing brace, as scan_body pops it */
                    i = (size_t)(flat->p - text) - 1;
                    line += flat->lines;
                    values += flat->values;
                    cur_flat = true;
                    flat_end = i + 1;
                } else if (!scan_body(text, len, &i, stack, &depth, arr_depth,
                                      &line, &values, max_values)) {
                    return false;
                }
            }
            break;
        case ']':
        case '}':
            if (!depth || stack[depth - 1] != (c == ']' ? '[' : '{'))
                return false;
            if (arr_depth && depth == arr_depth) {
                if (c != ']')
                    return false;
                if (pending) {
                    cur.len = i - cur.off;
                    fn(&cur, cur_flat && blank(text, flat_end, i), data);
                }
                *close = i;
                return true;
            }
            depth--;
            break;
        case ',':
            values++;
            if (in_array) {
                cur.len = i - cur.off;
                fn(&cur, cur_flat && blank(text, flat_end, i), data);
                n_elems++;
                pending = false;
                expect = comma = true;
            }
            if (depth == 1)
                after_colon = false;
            break;
        default: break;
        }
        if (values > max_values)
            return false;
    }
    return false;
}

static void scan_read(Kineto *kn, guint index, bool flat);
static Flat *flat_of(Kineto *kn);

static void keep_elem(const Elem *e, bool flat, void *data)
{
    Kineto *kn = data;
    g_array_append_val(kn->elems, *e);
    if (kn->scan_reading)
        scan_read(kn, kn->elems->len - 1, flat);
}

/* Split the traceEvents array (or a root array) of kn->text into
 * kn->elems (scan_events, under the json_values limit), pass 1 reading
 * the elements meanwhile (scan_read). */
static bool split_events(Kineto *kn, size_t len, bool root_array, size_t *open,
                         size_t *close)
{
    kn->scan_reading = true;
    bool ok =
        scan_events(kn->text, len, root_array, sim_limit(SIM_BOUND_JSON_VALUES),
                    keep_elem, kn, flat_of(kn), &kn->scan_reading, open, close);
    sim_json_arena_clear(&kn->scan_arena);
    return ok;
}

static void keep_line(const Elem *e, bool flat, void *data)
{
    (void)flat;
    g_array_append_val((GArray *)data, e->line);
}

/* Lines of the elements of the traceEvents array (or of a root array).
 * The text parsed as one tree, so it is well-formed JSON and the scan
 * meets no structure it refuses; nothing bounds the count. */
static GArray *element_lines(const char *text, size_t len, bool root_array)
{
    GArray *lines = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    size_t open = 0, close = 0;
    scan_events(text, len, root_array, UINT64_MAX, keep_line, lines, NULL, NULL,
                &open, &close);
    return lines;
}

/* Parse element @e alone into @arena (json_arena.h: its nodes are
 * dropped together at the next reset); NULL if it is not exactly one
 * JSON value. */
static cJSON *parse_elem(SimJsonArena *arena, const char *text, const Elem *e)
{
    const char *end = NULL;
    cJSON *v = sim_json_arena_parse(arena, text + e->off, e->len, &end);
    if (!v)
        return NULL;
    for (; end && end < text + e->off + e->len; end++)
        if ((unsigned char)*end > 32)
            return NULL;
    return v;
}

/* The elements of traceEvents in order, in either mode.  In streaming
 * mode an element is parsed when reached and freed at the next; elements
 * whose Elem.use has none of @want's bits are skipped unparsed (@want 0:
 * every element). */
typedef struct {
    const Kineto *kn;
    const char *text;  /* streaming mode: the whole text */
    guint i;           /* index of the next element */
    const cJSON *next; /* tree mode */
    cJSON *owned;      /* streaming mode: the element parsed last, in
                          arena */
    SimJsonArena arena;
    uint8_t want;
    bool digested; /* streaming mode: give an element read in pass 1
                      (Elem.rec) as DIGESTED, unparsed */
    bool flat;     /* streaming mode: pass 1 reads what flat_event accepts
                      without a tree (and without giving it) */
} EvIter;

static bool flat_event(Kineto *kn, guint index, const char *text);

/* ev_iter_next's answer for an element whose GpuRec stands for it. */
static const cJSON digested_elem;
#define DIGESTED (&digested_elem)

static void ev_iter_init(EvIter *it, const Kineto *kn, const char *text,
                         uint8_t want)
{
    memset(it, 0, sizeof *it);
    it->kn = kn;
    it->text = text;
    it->want = want;
    it->next = kn->events ? kn->events->child : NULL;
}

/* The next element, its index and line; NULL at the end, or (streaming)
 * at an element that does not parse: then kn->reparse is set. */
static const cJSON *ev_iter_next(EvIter *it, guint *index, uint32_t *line)
{
    Kineto *kn = (Kineto *)it->kn;
    if (!kn->elems) {
        const cJSON *ev = it->next;
        if (!ev)
            return NULL;
        it->next = ev->next;
        *index = it->i;
        *line = line_at(kn, it->i++);
        return ev;
    }
    sim_json_arena_reset(&it->arena);
    it->owned = NULL;
    while (it->i < kn->elems->len) {
        Elem *e = &g_array_index(kn->elems, Elem, it->i++);
        if (it->want && !(e->use & it->want))
            continue;
        if (it->digested && e->rec) {
            *index = it->i - 1;
            *line = e->line;
            return DIGESTED;
        }
        if (it->flat && flat_event(kn, it->i - 1, it->text))
            continue;
        it->owned = parse_elem(&it->arena, it->text, e);
        if (!it->owned) {
            kn->reparse = true;
            return NULL;
        }
        *index = it->i - 1;
        *line = e->line;
        return it->owned;
    }
    return NULL;
}

static void ev_iter_end(EvIter *it)
{
    sim_json_arena_clear(&it->arena);
    it->owned = NULL;
}

/* Streaming mode, after a semantic error at an element: whether every
 * later element parses (else the error is not the first one the tree path
 * would report: kn->reparse is set and the caller drops it). */
static bool rest_parses(EvIter *it)
{
    if (!it->kn->elems)
        return true;
    it->want = 0;
    it->flat = false;
    guint i;
    uint32_t line;
    while (ev_iter_next(it, &i, &line))
        ;
    ev_iter_end(it);
    return !it->kn->reparse;
}

static bool ev_fail(const Kineto *kn, uint32_t line, const char *name,
                    GError **error, const char *fmt, ...) G_GNUC_PRINTF(5, 6);
static bool ev_fail(const Kineto *kn, uint32_t line, const char *name,
                    GError **error, const char *fmt, ...)
{
    if (!error)
        return false; /* pass 1's readings that the tree will repeat */
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_autofree char *shown = g_strndup(name ? name : "?", 60);
    if (line)
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s:%u: event '%s': %s", kn->tr->path, line, shown, msg);
    else
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID, "%s: event '%s': %s",
                    kn->tr->path, shown, msg);
    return false;
}

/* ------------------------------------------------------------------------
 * One view of an event over both readers
 *
 * The field rules below (get_times, event_stream, event_pid, gpu_device,
 * get_dim3, gpu_fields, api_event...) are written once, over this view:
 * an object is a cJSON node (the tree) or a FlatObj (the flat reader), a
 * value a member of either.  Both readers answer alike: the first member
 * of a name; an absent member, a member that is not an object and an
 * argument that is not one are none.  So an event gives the same import
 * (or the same error, word for word) whichever reader read it.
 * ------------------------------------------------------------------------ */

/* An object, or none (both NULL). */
typedef struct {
    const cJSON *j;    /* tree: an object node */
    const FlatObj *fo; /* flat reader: one of f->obj */
    const Flat *f;
} Obj;

/* A member's value, or none (both NULL: absent). */
typedef struct {
    const cJSON *j;
    const FlatVal *fv;
    const Flat *f;
} Val;

static inline Obj tree_obj(const cJSON *j)
{
    return (Obj){.j = cJSON_IsObject(j) ? j : NULL};
}

static inline Obj flat_root(const Flat *f)
{
    return (Obj){.fo = &f->obj[0], .f = f};
}

static inline bool obj_ok(Obj o)
{
    return o.j || o.fo;
}

/* The first member of @o named @key (member()). */
static inline Val get(Obj o, const char *key)
{
    if (o.fo) {
        const size_t n = strlen(key);
        for (unsigned i = 0; i < o.fo->n; i++)
            if (o.fo->m[i].klen == n && memcmp(o.fo->m[i].key, key, n) == 0)
                return (Val){.fv = &o.fo->m[i], .f = o.f};
        return (Val){.j = NULL};
    }
    return (Val){.j = member(o.j, key)};
}

static inline bool present(Val v)
{
    return v.j || v.fv;
}

/* has_member(): a member of that name in any case (the exact spelling,
 * found faster, first). */
static bool has_any_case(Obj o, const char *key)
{
    if (!o.fo)
        return has_member(o.j, key);
    if (present(get(o, key)))
        return true;
    const size_t n = strlen(key);
    for (unsigned i = 0; i < o.fo->n; i++)
        if (o.fo->m[i].klen == n &&
            g_ascii_strncasecmp(o.fo->m[i].key, key, n) == 0)
            return true;
    return false;
}

/* The string, or NULL if @v is none. */
static inline const char *val_str(Val v)
{
    if (v.fv)
        return v.fv->type == FV_STR ? v.f->strs + v.fv->str : NULL;
    return cJSON_IsString(v.j) ? v.j->valuestring : NULL;
}

/* The number into *d; false if @v is none. */
static inline bool val_num(Val v, double *d)
{
    if (v.fv) {
        *d = v.fv->num;
        return v.fv->type == FV_NUM;
    }
    if (!cJSON_IsNumber(v.j))
        return false;
    *d = v.j->valuedouble;
    return true;
}

/* The object, or none. */
static inline Obj val_obj(Val v)
{
    if (v.fv)
        return v.fv->type == FV_OBJ
                   ? (Obj){.fo = &v.f->obj[v.fv->obj], .f = v.f}
                   : (Obj){.j = NULL};
    return tree_obj(v.j);
}

/* An array's length, counted up to 4, with its first three elements in
 * @a (NaN for one that is no number); -1 if @v is no array.  (The flat
 * reader holds arrays of numbers only.) */
static int val_array3(Val v, double a[3])
{
    if (v.fv) {
        if (v.fv->type != FV_ARR)
            return -1;
        memcpy(a, v.fv->a, sizeof v.fv->a);
        return (int)MIN(v.fv->n, 4u);
    }
    if (!cJSON_IsArray(v.j))
        return -1;
    int n = 0;
    for (const cJSON *c = v.j->child; c && n < 4; c = c->next, n++)
        if (n < 3)
            a[n] = cJSON_IsNumber(c) ? c->valuedouble : NAN;
    return n;
}

/* The string member @key of @o, or NULL. */
static inline const char *get_str(Obj o, const char *key)
{
    return val_str(get(o, key));
}

/* The object member @key of @o, or none. */
static inline Obj get_obj(Obj o, const char *key)
{
    return val_obj(get(o, key));
}

/* The finite number field @key of @obj. */
static inline bool get_num(const Kineto *kn, uint32_t line, const char *name,
                           Obj obj, const char *key, double *out,
                           GError **error)
{
    Val v = get(obj, key);
    if (!present(v))
        return ev_fail(kn, line, name, error, "missing field '%s'", key);
    if (!val_num(v, out) || !isfinite(*out))
        return ev_fail(kn, line, name, error, "field '%s': expected a number",
                       key);
    return true;
}

/* Microseconds to ns without going through a double of ~1e18 (epoch
 * microseconds times 1000 would lose up to 256 ns): whole microseconds are
 * exact in a double up to 2^53, the fraction is converted apart. */
static int64_t us_to_ns(double us)
{
    double whole = floor(us);
    return (int64_t)whole * 1000 + llround((us - whole) * 1000.0);
}

/* "ts"/"dur" in us -> ns on the trace clock. */
static bool get_times(const Kineto *kn, uint32_t line, const char *name, Obj ev,
                      int64_t *start, int64_t *end, GError **error)
{
    double ts = 0, dur = 0;
    if (!get_num(kn, line, name, ev, "ts", &ts, error) ||
        !get_num(kn, line, name, ev, "dur", &dur, error))
        return false;
    if (dur < 0 || dur > 1e12)
        return ev_fail(kn, line, name, error,
                       "field 'dur': %g is out of range [0, 1e12] us", dur);
    /* Epoch microseconds until 2096, or relative to baseTimeNanoseconds
     * (PyTorch 2.x writes both a base and large, clock-based ts: the same
     * bound holds; base + ts stays far inside int64 nanoseconds). */
    double ts_max = 4e15;
    if (ts < -ts_max || ts > ts_max)
        return ev_fail(kn, line, name, error,
                       "field 'ts': %.17g is out of range [%g, %g] us", ts,
                       -ts_max, ts_max);
    *start = us_to_ns(ts) + kn->time_base;
    *end = *start + us_to_ns(dur);
    return true;
}

/* An integer argument (args.KEY); @dflt if absent or not an integer. */
static inline int64_t arg_int(Obj args, const char *key, int64_t dflt)
{
    double d;
    if (!val_num(get(args, key), &d) || d != floor(d) || fabs(d) > 9e15)
        return dflt;
    return (int64_t)d;
}

/* A JSON number as an integer id, when it is one exactly (|v| <= 9e15,
 * where doubles hold every integer): larger ids cannot be converted
 * without undefined behaviour and are treated as absent. */
static inline bool json_id(Val v, int64_t *out)
{
    double d;
    if (!val_num(v, &d) || !(fabs(d) <= 9e15))
        return false;
    *out = (int64_t)d;
    return true;
}

/* The stream of a GPU event: args.stream, else "tid" (7 or "stream 7"). */
static int64_t event_stream(Obj ev, Obj args)
{
    int64_t s = arg_int(args, "stream", -1);
    if (s >= 0)
        return s;
    Val tid = get(ev, "tid");
    int64_t id;
    if (json_id(tid, &id) && id >= 0)
        return id;
    const char *t = val_str(tid);
    if (t) {
        if (g_str_has_prefix(t, "stream "))
            t += 7;
        char *end = NULL;
        long long v = g_ascii_strtoll(t, &end, 10);
        if (end != t && v >= 0)
            return v;
    }
    return -1;
}

/* The host pid of an event: "pid", a number or a string of digits. */
static int64_t event_pid(Obj ev)
{
    Val pid = get(ev, "pid");
    int64_t id;
    if (json_id(pid, &id))
        return id;
    const char *s = val_str(pid);
    if (s) {
        char *end = NULL;
        long long v = g_ascii_strtoll(s, &end, 10);
        if (end != s && *end == '\0')
            return v;
    }
    return -1;
}

typedef enum { K_OTHER, K_KERNEL, K_MEMCPY, K_MEMSET, K_API, K_SYNC } Cat;

/* The category of an event whose "ph" and "cat" are @ph and @c (NULL:
 * not a string). */
static Cat category_of(const char *ph, const char *c)
{
    if (!ph || strcmp(ph, "X") || !c)
        return K_OTHER;
    /* Any case of each name: only the names with the first letter can
     * match. */
    switch (g_ascii_tolower(c[0])) {
    case 'k': return !g_ascii_strcasecmp(c, "kernel") ? K_KERNEL : K_OTHER;
    case 'g':
    case 'm':
        if (!g_ascii_strcasecmp(c, "gpu_memcpy") ||
            !g_ascii_strcasecmp(c, "memcpy"))
            return K_MEMCPY;
        if (!g_ascii_strcasecmp(c, "gpu_memset") ||
            !g_ascii_strcasecmp(c, "memset"))
            return K_MEMSET;
        return K_OTHER;
    case 'c':
    case 'r':
        if (!g_ascii_strcasecmp(c, "cuda_runtime") ||
            !g_ascii_strcasecmp(c, "runtime") ||
            !g_ascii_strcasecmp(c, "cuda_driver"))
            return K_API;
        return !g_ascii_strcasecmp(c, "cuda_sync") ? K_SYNC : K_OTHER;
    default: return K_OTHER;
    }
}

static Cat category(Obj ev)
{
    return category_of(get_str(ev, "ph"), get_str(ev, "cat"));
}

static const char *ev_name(Obj ev)
{
    const char *n = get_str(ev, "name");
    return n ? n : "";
}

/* The device of a GPU activity: args.device, args.inDevice, else "pid". */
static int gpu_device(Obj ev, Obj args)
{
    int64_t d = arg_int(args, "device", -1);
    if (d < 0)
        d = arg_int(args, "inDevice", -1);
    if (d < 0)
        d = event_pid(ev);
    return (int)d;
}

/* ------------------------------------------------------------------------
 * Pass 1: API calls, process names, the device
 * ------------------------------------------------------------------------ */

static bool gpu_fields(Kineto *kn, Obj ev, Cat c, uint32_t line, GpuRec *r,
                       GError **error);

/* GPU activity @r, read in pass 1 from element @e whose "ts" is @ts. */
static void keep_rec(Kineto *kn, Elem *e, const GpuRec *r, double ts)
{
    g_array_append_val(kn->recs, *r);
    e->rec = kn->recs->len;
    kn->recs_ts_max = MAX(kn->recs_ts_max, ts);
}

/* A GPU activity of device @d: counted, to find the busiest. */
static void count_device(Kineto *kn, int d)
{
    gpointer n = g_hash_table_lookup(kn->dev_count, GINT_TO_POINTER(d));
    g_hash_table_insert(kn->dev_count, GINT_TO_POINTER(d),
                        GUINT_TO_POINTER(GPOINTER_TO_UINT(n) + 1));
}

/* An API call (@name, from @start to @end, correlation @corr, host @pid):
 * counted for its pid, kept by its correlation. */
static void count_api(Kineto *kn, int64_t start, int64_t end, int64_t corr,
                      int64_t pid, const char *name)
{
    guint *pc = g_hash_table_lookup(kn->pid_count, &pid);
    if (!pc) {
        pc = g_new0(guint, 1);
        g_hash_table_insert(kn->pid_count, g_memdup2(&pid, sizeof pid), pc);
    }
    (*pc)++;
    if (corr < 0)
        return;
    Api *a = g_hash_table_lookup(kn->api, &corr);
    if (a) { /* runtime and driver event of one call: the outer */
        a->start = MIN(a->start, start);
        a->end = MAX(a->end, end);
        return;
    }
    a = sim_slab_new0(&kn->apis);
    a->corr = corr;
    a->start = start;
    a->end = end;
    a->pid = pid;
    a->name = sim_trace_intern(kn->tr, name);
    g_hash_table_insert(kn->api, &a->corr, a);
}

/* Streaming mode: GPU activity @ev read now (Kineto.recs, Elem.rec), unless
 * its fields have an error (pass 2 then parses it again and reports it). */
static void digest(Kineto *kn, Obj ev, Cat c, uint32_t line, Elem *e)
{
    GpuRec r;
    double ts = 0;
    if (kn->recs->len >= UINT32_MAX - 1 ||
        !gpu_fields(kn, ev, c, line, &r, NULL))
        return;
    val_num(get(ev, "ts"), &ts); /* get_times read it as a number */
    keep_rec(kn, e, &r, ts);
}

/* One element in pass 1 (@ev none: not an object); in streaming mode also
 * marks what the later passes want of it (Elem.use) and reads its GPU
 * activity (digest).  False, with @error set unless it is NULL, at an
 * error: before anything but Elem.use is changed, so that the flat reader
 * (which gives NULL) can leave the element to the tree, for its message. */
static bool api_event(Kineto *kn, Obj ev, guint index, uint32_t line,
                      GError **error)
{
    if (!obj_ok(ev))
        return ev_fail(kn, line, "?", error, "a trace event must be an object");
    Elem *e = kn->elems ? &g_array_index(kn->elems, Elem, index) : NULL;
    const char *name = ev_name(ev);
    if (e && !strcmp(name, "[memory]"))
        e->use |= USE_MEMORY;
    const char *ph = get_str(ev, "ph");
    if (ph && !strcmp(ph, "M") && !strcmp(name, "process_name")) {
        const char *n = get_str(get_obj(ev, "args"), "name");
        int64_t pid = event_pid(ev);
        if (n && pid >= 0)
            g_hash_table_replace(kn->pnames, g_memdup2(&pid, sizeof pid),
                                 g_strdup(n));
        return true;
    }
    Cat c = category_of(ph, get_str(ev, "cat"));
    Obj args = get_obj(ev, "args");
    if (e && (c == K_KERNEL || c == K_MEMCPY || c == K_MEMSET || c == K_SYNC))
        e->use |= USE_GPU;
    if (c == K_KERNEL || c == K_MEMCPY || c == K_MEMSET) {
        count_device(kn, gpu_device(ev, args));
        if (e)
            digest(kn, ev, c, line, e);
        return true;
    }
    if (c != K_API)
        return true;
    int64_t start, end;
    if (!get_times(kn, line, name, ev, &start, &end, error))
        return false;
    count_api(kn, start, end, arg_int(args, "correlation", -1), event_pid(ev),
              name);
    return true;
}

/* Pass 1 read every time with time_base 0: now base_ns is known (the root
 * is parsed), add it to what pass 1 kept (the same sums as adding it at
 * once: base + ts stays far inside int64, get_times), for pass 2 too. */
static void shift_times(Kineto *kn)
{
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, kn->api);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        ((Api *)v)->start += kn->base_ns;
        ((Api *)v)->end += kn->base_ns;
    }
    for (guint i = 0; kn->recs && i < kn->recs->len; i++) {
        GpuRec *r = &g_array_index(kn->recs, GpuRec, i);
        r->start += kn->base_ns;
        r->end += kn->base_ns;
    }
    kn->time_base = kn->base_ns;
}

static bool pass_api(Kineto *kn, const char *text, GError **error)
{
    EvIter ei;
    ev_iter_init(&ei, kn, text, 0);
    ei.i = kn->read_upto; /* read in the scan */
    ei.flat = true;
    const cJSON *ev;
    guint i;
    uint32_t line;
    while ((ev = ev_iter_next(&ei, &i, &line)))
        if (!api_event(kn, tree_obj(ev), i, line, error)) {
            if (!rest_parses(&ei))
                g_clear_error(error);
            ev_iter_end(&ei);
            return false;
        }
    ev_iter_end(&ei);
    if (kn->reparse)
        return false;
    shift_times(kn);
    /* The GPU with the most work; the host pid with the most API calls. */
    GHashTableIter it;
    gpointer k, v;
    guint best = 0;
    kn->device = 0;
    g_hash_table_iter_init(&it, kn->dev_count);
    while (g_hash_table_iter_next(&it, &k, &v))
        if (GPOINTER_TO_UINT(v) > best ||
            (GPOINTER_TO_UINT(v) == best && GPOINTER_TO_INT(k) < kn->device)) {
            best = GPOINTER_TO_UINT(v);
            kn->device = GPOINTER_TO_INT(k);
        }
    best = 0;
    kn->main_pid = -1;
    g_hash_table_iter_init(&it, kn->pid_count);
    while (g_hash_table_iter_next(&it, &k, &v))
        if (*(guint *)v > best ||
            (*(guint *)v == best && *(int64_t *)k < kn->main_pid)) {
            best = *(guint *)v;
            kn->main_pid = *(int64_t *)k;
        }
    return true;
}

static SimTraceProcess *process_for(Kineto *kn, int64_t pid)
{
    SimTraceProcess *p = sim_trace_find_process(kn->tr, pid);
    if (p)
        return p;
    const char *name = g_hash_table_lookup(kn->pnames, &pid);
    g_autofree char *full = NULL;
    if (pid < 0) {
        g_autofree char *base = g_path_get_basename(kn->tr->path);
        full = g_strdup(base);
    } else {
        full = g_strdup_printf("%s[%lld]", name ? name : "pid", (long long)pid);
    }
    return sim_trace_add_process(kn->tr, full, pid);
}

/* The process and API call of a GPU activity or sync with @corr. */
static SimTraceProcess *owner(Kineto *kn, int64_t corr, Api **api)
{
    Api *a = corr >= 0 ? g_hash_table_lookup(kn->api, &corr) : NULL;
    *api = a;
    return process_for(kn, a ? a->pid : kn->main_pid);
}

/* ------------------------------------------------------------------------
 * Pass 2: GPU activity and syncs
 * ------------------------------------------------------------------------ */

/* A launch dimension, args.@key: [x, y, z] of integers >= 1. */
static bool get_dim3(const Kineto *kn, uint32_t line, const char *name,
                     Obj args, const char *key, uint32_t out[3], GError **error)
{
    Val v = get(args, key);
    if (!present(v))
        return ev_fail(kn, line, name, error, "missing field 'args.%s'", key);
    double a[3];
    if (val_array3(v, a) != 3)
        return ev_fail(kn, line, name, error,
                       "field 'args.%s': expected [x, y, z]", key);
    for (int i = 0; i < 3; i++) {
        /* NaN (no number) fails the first test */
        if (a[i] != floor(a[i]) || a[i] < 1 || a[i] > INT32_MAX)
            return ev_fail(kn, line, name, error,
                           "field 'args.%s': element %d must be an integer "
                           ">= 1",
                           key, i);
        out[i] = (uint32_t)a[i];
    }
    return true;
}

/* "Memcpy HtoD (Pageable -> Device)" -> direction and host pinning. */
static bool parse_memcpy(const char *name, SimCopyDir *dir, bool *pinned)
{
    if (!g_str_has_prefix(name, "Memcpy "))
        return false;
    const char *k = name + 7;
    if (!sim_trace_copy_dir(k, strcspn(k, " ("), dir))
        return false;
    *pinned = !(*dir == SIM_COPY_H2D && strstr(name, "(Pageable ->")) &&
              !(*dir == SIM_COPY_D2H && strstr(name, "-> Pageable)"));
    return true;
}

static void set_api(SimTraceOp *op, const Api *a)
{
    if (a) {
        op->api_start_ns = a->start;
        op->api_end_ns = a->end;
    }
}

/* The fields of GPU activity @ev of category @c into @r (all of them but
 * the device's check: gpu_event makes it first). */
static bool gpu_fields(Kineto *kn, Obj ev, Cat c, uint32_t line, GpuRec *r,
                       GError **error)
{
    const char *name = ev_name(ev);
    Obj args = get_obj(ev, "args");
    memset(r, 0, sizeof *r);
    r->cat = (uint8_t)c;
    r->line = line;
    r->device = gpu_device(ev, args);
    if (!get_times(kn, line, name, ev, &r->start, &r->end, error))
        return false;
    r->stream = event_stream(ev, args);
    if (r->stream < 0)
        return ev_fail(kn, line, name, error,
                       "no stream ('args.stream' or 'tid')");
    r->corr = arg_int(args, "correlation", -1);
    if (c == K_KERNEL) {
        if (!*name)
            return ev_fail(kn, line, name, error, "kernel without a name");
        if (!get_dim3(kn, line, name, args, "grid", r->u.k.grid, error) ||
            !get_dim3(kn, line, name, args, "block", r->u.k.block, error))
            return false;
        /* Present but not an integer is an error, not a default. */
        int64_t regs = arg_int(args, "registers per thread", 0);
        int64_t smem = arg_int(args, "shared memory", 0);
        if (has_any_case(args, "registers per thread") &&
            arg_int(args, "registers per thread", -1) < 0)
            regs = -1;
        if (has_any_case(args, "shared memory") &&
            arg_int(args, "shared memory", -1) < 0)
            smem = -1;
        if (regs < 0 || regs > 255)
            return ev_fail(kn, line, name, error,
                           "field 'args.registers per thread': expected an "
                           "integer in [0, 255]");
        if (smem < 0 || smem > UINT32_MAX)
            return ev_fail(kn, line, name, error,
                           "field 'args.shared memory': out of range");
        r->u.k.regs = (uint32_t)regs;
        r->u.k.smem = (uint32_t)smem;
        r->name = sim_trace_intern(kn->tr, name);
        return true;
    }
    double bytes = 0;
    if (!get_num(kn, line, name, args, "bytes", &bytes, error))
        return false;
    if (bytes < 0 || bytes > 1e15)
        return ev_fail(kn, line, name, error,
                       "field 'args.bytes': out of range");
    if (c == K_MEMSET) {
        r->u.memset_bytes = (uint64_t)bytes;
    } else if (parse_memcpy(name, &r->u.c.dir, &r->u.c.pinned)) {
        r->u.c.bytes = (uint64_t)bytes;
    } else {
        r->no_copy = true;
        r->name = sim_trace_intern(kn->tr, name);
    }
    return true;
}

/* ------------------------------------------------------------------------
 * The flat reader: pass 1 without a tree
 *
 * Most elements of a big trace are an API call or a GPU activity: an
 * object of strings and numbers with an "args" object beside them.  Pass 1
 * reads such an element here, without the cJSON tree, in the same pass
 * over the text as the scan that finds the elements (scan_events: the
 * reader finds the element's end, lines and values itself, and is at least
 * as strict), and gives it to api_event through the view above, as the
 * tree's elements are: one set of field rules.  It reads as the tree does
 * (the first member of a name; a number as the arena parser reads it,
 * sim_json_exact_number).  An element this reader refuses -- an escape, a
 * number it cannot vouch for, a nesting or an array of anything but
 * numbers, more members than it holds -- is parsed as before; one in which
 * api_event finds an error is left to pass_api, so every message stays the
 * tree's.  The 10^6-kernel trace of bench/big_trace.py: pass 1 took 2/3 of
 * its import in the arena's trees and their lookups; then, read apart from
 * the scan, the scan 18% and the reader 30%.
 * ------------------------------------------------------------------------ */
G_STATIC_ASSERT(CJSON_NESTING_LIMIT > 8); /* the reader's depth: 3 */
static void flat_free(Flat *f)
{
    if (f)
        g_free(f->strs);
    g_free(f);
}

static inline void flat_ws(Flat *f)
{
    while (f->p < f->end && (unsigned char)*f->p <= 32) { /* cJSON's */
        f->lines += *f->p == '\n';
        f->p++;
    }
}

/* The string at f->p (its opening quote): *s and *len; false if it has an
 * escape, a raw control byte (scan_events refuses those) or no end.  Byte
 * by byte: most strings of an event are a few bytes. */
static inline bool flat_string(Flat *f, const char **s, uint32_t *len)
{
    const char *q = f->p + 1;
    while (q < f->end && !str_stop[(unsigned char)*q])
        q++;
    if (q >= f->end || *q != '"' || q - f->p - 1 > INT32_MAX)
        return false;
    *s = f->p + 1;
    *len = (uint32_t)(q - *s);
    f->p = q + 1;
    return true;
}

/* A string value, copied into f->strs. */
static bool flat_str_value(Flat *f, FlatVal *v)
{
    const char *s;
    uint32_t n;
    if (!flat_string(f, &s, &n) || f->n_strs + n + 1 > UINT32_MAX)
        return false;
    if (f->cap_strs - f->n_strs < (size_t)n + 1) {
        f->cap_strs = MAX(MAX(2 * f->cap_strs, 4096), f->n_strs + n + 1);
        f->strs = g_realloc(f->strs, f->cap_strs);
    }
    memcpy(f->strs + f->n_strs, s, n);
    f->strs[f->n_strs + n] = '\0';
    v->type = FV_STR;
    v->str = (uint32_t)f->n_strs;
    f->n_strs += n + 1;
    return true;
}

static bool flat_number(Flat *f, double *out)
{
    const char *after;
    if (!sim_json_exact_number(f->p, f->end, out, &after))
        return false;
    f->p = after;
    return true;
}

/* After a value of an array or object: its closing byte @close (true,
 * *done set) or a comma; false for anything else. */
static inline bool flat_next(Flat *f, char close, bool *done)
{
    flat_ws(f);
    if (f->p < f->end && *f->p == ',') {
        f->p++;
        f->values++;
        flat_ws(f);
        *done = false;
        return true;
    }
    if (f->p < f->end && *f->p == close) {
        f->p++;
        *done = true;
        return true;
    }
    return false;
}

/* An array of numbers at f->p (its opening bracket). */
static bool flat_array(Flat *f, FlatVal *v)
{
    v->type = FV_ARR;
    v->n = 0;
    f->p++;
    flat_ws(f);
    if (f->p < f->end && *f->p == ']') {
        f->p++;
        return true;
    }
    for (bool done = false; !done;) {
        double d;
        if (!flat_number(f, &d))
            return false;
        if (v->n < 3)
            v->a[v->n] = d;
        v->n++;
        if (!flat_next(f, ']', &done))
            return false;
    }
    return true;
}

static bool flat_word(Flat *f, FlatVal *v, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(f->end - f->p) < n || memcmp(f->p, w, n) != 0)
        return false;
    f->p += n;
    v->type = FV_LIT;
    return true;
}

static bool flat_object(Flat *f, unsigned o, bool top);

/* The value at f->p into @v; objects only in the element's own members
 * (@top). */
static bool flat_value(Flat *f, FlatVal *v, bool top)
{
    if (f->p >= f->end)
        return false;
    switch (*f->p) {
    case '"': return flat_str_value(f, v);
    case '{':
        if (!top || f->n_obj == FLAT_OBJS)
            return false;
        f->values++;
        v->type = FV_OBJ;
        v->obj = (uint8_t)f->n_obj++;
        return flat_object(f, v->obj, false);
    case '[': f->values++; return flat_array(f, v);
    case 'n': return flat_word(f, v, "null");
    case 't': return flat_word(f, v, "true");
    case 'f': return flat_word(f, v, "false");
    default: v->type = FV_NUM; return flat_number(f, &v->num);
    }
}

/* The object at f->p (its opening brace) into f->obj[@o]. */
static bool flat_object(Flat *f, unsigned o, bool top)
{
    FlatObj *ob = &f->obj[o];
    ob->n = 0;
    f->p++;
    flat_ws(f);
    if (f->p < f->end && *f->p == '}') {
        f->p++;
        return true;
    }
    for (bool done = false; !done;) {
        if (ob->n == FLAT_MEMBERS || f->p >= f->end || *f->p != '"')
            return false;
        FlatVal *v = &ob->m[ob->n++];
        if (!flat_string(f, &v->key, &v->klen))
            return false;
        flat_ws(f);
        if (f->p >= f->end || *f->p != ':')
            return false;
        f->p++;
        flat_ws(f);
        if (!flat_value(f, v, top) || !flat_next(f, '}', &done))
            return false;
    }
    return true;
}

/* The element at @p (its first byte), an object, read into @f up to its
 * closing brace (f->p just past it), reading no further than @end: false
 * where the reader refuses it. */
static bool flat_read(Flat *f, const char *p, const char *end)
{
    f->p = p;
    f->end = end;
    f->n_obj = 1;
    f->n_strs = 0;
    f->lines = 0;
    f->values = 0;
    return p < end && *p == '{' && flat_object(f, 0, true);
}

static Flat *flat_of(Kineto *kn)
{
    if (!kn->flat)
        kn->flat = g_new0(Flat, 1);
    return kn->flat;
}

/* Element @e of @text read into kn->flat: false where the reader refuses
 * it. */
static bool flat_parse(Kineto *kn, const char *text, const Elem *e)
{
    Flat *f = flat_of(kn);
    const char *p = text + e->off, *end = p + e->len;
    while (p < end && (unsigned char)*p <= 32)
        p++;
    if (!flat_read(f, p, end))
        return false;
    flat_ws(f);
    return f->p == f->end;
}

/* Pass 1 of element @index without a tree: what api_event does with it,
 * read by the flat reader; false (nothing but Elem.use changed) where the
 * tree must do it: the reader refuses the element, or api_event finds an
 * error there, which the tree reports. */
static _Atomic uint64_t flat_reads;

/* Pass 1 of element @index as the scan finds it (@flat: the flat reader
 * holds it, else it is parsed here), in order: kn->read_upto is moved
 * past it.  Where the flat reader is refused or api_event finds an error,
 * the scan stops reading: pass_api goes on from there, in order too, and
 * reports the error. */
static void scan_read(Kineto *kn, guint index, bool flat)
{
    const Elem *e = &g_array_index(kn->elems, Elem, index);
    bool ok;
    if (flat) {
        ok = api_event(kn, flat_root(kn->flat), index, e->line, NULL);
        if (ok)
            atomic_fetch_add(&flat_reads, 1);
    } else {
        sim_json_arena_reset(&kn->scan_arena);
        const cJSON *j = parse_elem(&kn->scan_arena, kn->text, e);
        ok = j && api_event(kn, tree_obj(j), index, e->line, NULL);
    }
    if (ok)
        kn->read_upto = index + 1;
    else
        kn->scan_reading = false;
}

static bool flat_event(Kineto *kn, guint index, const char *text)
{
    const Elem *e = &g_array_index(kn->elems, Elem, index);
    if (!flat_parse(kn, text, e) ||
        !api_event(kn, flat_root(kn->flat), index, e->line, NULL))
        return false;
    atomic_fetch_add(&flat_reads, 1);
    return true;
}

/* GPU activity @r of the imported device as an op of its process. */
static void gpu_emit(Kineto *kn, const GpuRec *r)
{
    Api *a;
    SimTraceProcess *p = owner(kn, r->corr, &a);
    if (r->no_copy) {
        kn->tr->n_skipped++;
        sim_trace_note(kn->tr,
                       "%s:%u: '%s' skipped: no such copy "
                       "in the GPU model",
                       kn->tr->path, r->line, r->name);
        return;
    }
    SimTraceOp op;
    memset(&op, 0, sizeof op);
    if (r->cat == K_KERNEL) {
        op.kind = SIM_TRACE_KERNEL;
        SimTraceKernel *k = &op.u.kernel;
        memcpy(k->grid, r->u.k.grid, sizeof k->grid);
        memcpy(k->block, r->u.k.block, sizeof k->block);
        k->regs_per_thread = r->u.k.regs;
        /* Kineto records static + dynamic shared memory as one number;
         * past the 48 KiB static limit it can only be dynamic (opt-in). */
        if (r->u.k.smem > SIM_STATIC_SMEM_MAX_BYTES)
            k->dynamic_smem_bytes = r->u.k.smem;
        else
            k->static_smem_bytes = r->u.k.smem;
        k->name = r->name;
    } else if (r->cat == K_MEMSET) {
        op.kind = SIM_TRACE_MEMSET;
        op.u.memset_bytes = r->u.memset_bytes;
    } else {
        op.kind = SIM_TRACE_COPY;
        op.u.copy.bytes = r->u.c.bytes;
        op.u.copy.dir = r->u.c.dir;
        op.u.copy.pinned = r->u.c.pinned;
        op.api_blocks = a && sim_trace_api_blocks(a->name);
    }
    op.line = r->line;
    op.stream = r->stream;
    op.event = SIM_TRACE_NO_ID;
    op.start_ns = r->start;
    op.end_ns = r->end;
    op.api_start_ns = op.api_end_ns = SIM_TRACE_NO_TIME;
    set_api(&op, a);
    if (a && sim_trace_api_graph_launch(a->name)) {
        /* A node of a graph: its correlation is the launch call's. */
        op.in_graph = true;
        op.graph = r->corr;
    }
    g_array_append_val(p->ops, op);
}

/* A device's GPU activity that pass 1 read into @r; others are counted
 * and skipped. */
static void gpu_rec(Kineto *kn, const GpuRec *r)
{
    if (r->device != kn->device) {
        kn->n_other_device++;
        kn->tr->n_skipped++;
        return;
    }
    gpu_emit(kn, r);
}

static bool gpu_event(Kineto *kn, Obj ev, Cat c, uint32_t line, GError **error)
{
    if (gpu_device(ev, get_obj(ev, "args")) != kn->device) {
        kn->n_other_device++;
        kn->tr->n_skipped++;
        return true;
    }
    GpuRec r;
    if (!gpu_fields(kn, ev, c, line, &r, error))
        return false;
    gpu_emit(kn, &r);
    return true;
}

/* The record a wait or event sync refers to, as an event record op on the
 * recording stream (once per record). */
static void add_record(Kineto *kn, SimTraceProcess *p, int64_t rec_corr,
                       int64_t stream)
{
    if (g_hash_table_contains(kn->records, &rec_corr))
        return;
    Api *a = g_hash_table_lookup(kn->api, &rec_corr);
    if (!a)
        return; /* recorded before the trace began */
    g_hash_table_add(kn->records, g_memdup2(&rec_corr, sizeof rec_corr));
    SimTraceOp *op = sim_trace_add_op(p, SIM_TRACE_EVENT_RECORD, 0);
    op->stream = stream;
    op->event = rec_corr;
    set_api(op, a);
}

static bool sync_event(Kineto *kn, Obj ev, uint32_t line, GError **error)
{
    const char *name = ev_name(ev);
    Obj args = get_obj(ev, "args");
    int64_t start, end;
    if (!get_times(kn, line, name, ev, &start, &end, error))
        return false;
    Api *a;
    SimTraceProcess *p = owner(kn, arg_int(args, "correlation", -1), &a);
    int kind = a ? sim_trace_sync_kind_of_api(a->name) : -1;
    if (a && kind < 0 && strstr(a->name, "Query"))
        return true; /* cudaEventQuery / cudaStreamQuery do not block */
    if (kind < 0) {
        const char *s = get_str(args, "cuda_sync_kind");
        s = s ? s : name;
        kind = !strcmp(s, "Event Sync")          ? SIM_TRACE_EVENT_SYNC
               : !strcmp(s, "Stream Wait Event") ? SIM_TRACE_EVENT_WAIT
               : !strcmp(s, "Stream Sync")       ? SIM_TRACE_STREAM_SYNC
               : !strcmp(s, "Context Sync")      ? SIM_TRACE_DEVICE_SYNC
                                                 : -1;
    }
    if (kind < 0) {
        kn->tr->n_skipped++;
        return true;
    }
    if (a)
        a->synced = true;
    SimTraceOp op;
    memset(&op, 0, sizeof op);
    op.kind = (SimTraceKind)kind;
    op.line = line;
    op.stream = SIM_TRACE_NO_ID;
    op.event = SIM_TRACE_NO_ID;
    op.start_ns = op.end_ns = SIM_TRACE_NO_TIME;
    op.api_start_ns = start;
    op.api_end_ns = end;
    set_api(&op, a);
    int64_t stream = arg_int(args, "stream", -1);
    if (kind == SIM_TRACE_EVENT_WAIT || kind == SIM_TRACE_EVENT_SYNC) {
        int64_t rec = arg_int(args, "wait_on_cuda_event_record_corr_id", -1);
        int64_t rec_stream = arg_int(args, "wait_on_stream", -1);
        if (rec < 0 || rec_stream < 0) {
            kn->n_unlinked_syncs++;
            return true; /* which record it waits for is not known */
        }
        add_record(kn, p, rec, rec_stream);
        op.event = rec;
        if (kind == SIM_TRACE_EVENT_WAIT) {
            if (stream < 0)
                return ev_fail(kn, line, name, error,
                               "Stream Wait Event without 'args.stream'");
            op.stream = stream;
        }
    } else if (kind == SIM_TRACE_STREAM_SYNC && stream >= 0) {
        op.stream = stream;
    }
    g_array_append_val(p->ops, op);
    return true;
}

/* Host syncs known only from their API call (files without cuda_sync). */
static void api_only_syncs(Kineto *kn)
{
    GHashTableIter it;
    gpointer k, v;
    uint64_t unknown = 0;
    g_hash_table_iter_init(&it, kn->api);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        Api *a = v;
        int kind = sim_trace_sync_kind_of_api(a->name);
        if (a->synced || kind < 0)
            continue;
        if (kind != SIM_TRACE_DEVICE_SYNC && kind != SIM_TRACE_STREAM_SYNC) {
            unknown++; /* an event wait whose event is unknown */
            continue;
        }
        SimTraceProcess *p = sim_trace_find_process(kn->tr, a->pid);
        if (!p)
            continue;
        SimTraceOp *op = sim_trace_add_op(p, (SimTraceKind)kind, 0);
        op->api_start_ns = a->start;
        op->api_end_ns = a->end;
    }
    kn->n_unlinked_syncs += unknown;
}

/* "baseTimeNanoseconds" read from the text: a double would round it. */
/* ------------------------------------------------------------------------
 * Device memory: PyTorch's "[memory]" events (profile_memory=True)
 * ------------------------------------------------------------------------ */

/* Kineto's "Device Type" for CUDA memory (c10::DeviceType::CUDA). */
#define KINETO_DEVICE_CUDA 1

/* Each "[memory]" instant event reports, after one allocation or free,
 * what PyTorch's caching allocator holds on the device: "Total Allocated"
 * (live tensors) and "Total Reserved" (what it took from the driver with
 * cudaMalloc, which is what the GPU loses).  A process's device memory is
 * the peak reservation on the imported GPU (the peak allocation where the
 * reservation is not recorded).  Returns how many events were read. */
static uint64_t memory_events(Kineto *kn, const char *text)
{
    g_autoptr(GHashTable) peak =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    uint64_t n = 0;
    EvIter it;
    ev_iter_init(&it, kn, text, USE_MEMORY);
    const cJSON *j;
    guint i;
    uint32_t line;
    while ((j = ev_iter_next(&it, &i, &line))) {
        Obj ev = tree_obj(j);
        if (strcmp(ev_name(ev), "[memory]") != 0)
            continue;
        Obj args = get_obj(ev, "args");
        if (arg_int(args, "Device Type", -1) != KINETO_DEVICE_CUDA ||
            arg_int(args, "Device Id", -1) != kn->device)
            continue;
        int64_t held = arg_int(args, "Total Reserved", -1);
        if (held < 0)
            held = arg_int(args, "Total Allocated", -1);
        int64_t pid = event_pid(ev);
        if (held < 0 || pid < 0)
            continue;
        n++;
        int64_t *p = g_hash_table_lookup(peak, &pid);
        if (!p) {
            p = g_new0(int64_t, 1);
            g_hash_table_insert(peak, g_memdup2(&pid, sizeof pid), p);
        }
        *p = MAX(*p, held);
    }
    ev_iter_end(&it);
    for (i = 0; i < kn->tr->processes->len; i++) {
        SimTraceProcess *p = g_ptr_array_index(kn->tr->processes, i);
        const int64_t *b = g_hash_table_lookup(peak, &p->pid);
        if (b && *b > 0) {
            p->mem_bytes = (uint64_t)*b;
            sim_trace_note(kn->tr,
                           "%s: process '%s': device memory %.1f MiB, the "
                           "peak the PyTorch allocator reserved ([memory] "
                           "events)",
                           kn->tr->path, p->name, (double)*b / 1048576.0);
        }
    }
    return n;
}

static int64_t base_time(const SimJsonDoc *doc)
{
    const cJSON *b = member(doc->root, "baseTimeNanoseconds");
    if (!cJSON_IsNumber(b))
        return 0;
    const char *key = strstr(doc->text, "\"baseTimeNanoseconds\"");
    if (key) {
        const char *p = strchr(key + 21, ':');
        if (p) {
            char *end = NULL;
            long long v = g_ascii_strtoll(p + 1, &end, 10);
            if (end != p + 1 && v > 0 && v <= SIM_TRACE_MAX_TIME)
                return v;
        }
    }
    if (b->valuedouble > 0 && b->valuedouble <= (double)SIM_TRACE_MAX_TIME)
        return (int64_t)b->valuedouble;
    return 0;
}

/* Streaming mode: the elements' places, and the document without them
 * (traceEvents emptied) parsed for the root's other fields.  False when
 * this path cannot vouch for the file (nothing is reported: the tree path
 * reports it). */
static bool stream_open(Kineto *kn, const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && (unsigned char)text[i] <= 32)
        i++;
    if (i == len || (text[i] != '{' && text[i] != '['))
        return false;
    /* The shape check of the whole text (sim_json_check_text) in two
     * parts: split_events refuses what it would refuse inside the
     * traceEvents array (nesting, raw control bytes in strings; both find
     * strings alike, and the array's brackets lie outside them), and
     * sim_json_doc_parse checks the rest.  UTF-8 is checked here. */
    GError *err = NULL;
    if (!sim_check_utf8(kn->tr->path, text, len, &err)) {
        g_error_free(err);
        return false;
    }
    kn->elems = g_array_new(FALSE, FALSE, sizeof(Elem));
    kn->recs = g_array_new(FALSE, FALSE, sizeof(GpuRec));
    size_t open = 0, close = 0;
    kn->text = text;
    if (!split_events(kn, len, text[i] == '[', &open, &close))
        return false;
    g_autoptr(GString) rest = g_string_new_len(text, (gssize)open + 1);
    g_string_append_len(rest, text + close, (gssize)(len - close));
    kn->doc = sim_json_doc_parse(kn->tr->path, rest->str, rest->len, &err);
    if (!kn->doc) {
        g_error_free(err);
        return false;
    }
    return true;
}

/* Test hooks (trace.h). */
static bool force_tree;
static _Atomic uint64_t tree_reads;

uint64_t sim_kineto_flat_reads(void)
{
    return atomic_load(&flat_reads);
}

void sim_kineto_force_tree(bool on)
{
    force_tree = on;
}

uint64_t sim_kineto_tree_reads(void)
{
    return atomic_load(&tree_reads);
}

/* Tree mode: the whole document parsed (the errors every malformed file
 * gets). */
static bool tree_open(Kineto *kn, const char *text, size_t len, GError **error)
{
    atomic_fetch_add(&tree_reads, 1);
    SimJsonDoc *doc = sim_json_doc_parse(kn->tr->path, text, len, error);
    if (!doc)
        return false;
    kn->doc = doc;
    const cJSON *events = doc->root;
    bool root_array = cJSON_IsArray(doc->root);
    if (!root_array) {
        if (!cJSON_IsObject(doc->root))
            return sim_json_fail(doc, doc->root, error,
                                 "expected a JSON object with "
                                 "'traceEvents'");
        events = member(doc->root, "traceEvents");
        if (!events)
            return sim_json_fail(doc, doc->root, error,
                                 "missing field 'traceEvents' (not a "
                                 "Kineto/Chrome trace)");
        if (!cJSON_IsArray(events))
            return sim_json_fail(doc, events, error,
                                 "field 'traceEvents': expected an array");
    }
    kn->events = events;
    kn->lines = element_lines(doc->text, doc->len, root_array);
    return true;
}

static void kineto_clear(Kineto *kn)
{
    sim_json_doc_free(kn->doc);
    if (kn->elems)
        g_array_free(kn->elems, TRUE);
    if (kn->lines)
        g_array_free(kn->lines, TRUE);
    if (kn->recs)
        g_array_free(kn->recs, TRUE);
    if (kn->api)
        g_hash_table_destroy(kn->api);
    sim_slab_clear(&kn->apis);
    if (kn->pnames)
        g_hash_table_destroy(kn->pnames);
    if (kn->records)
        g_hash_table_destroy(kn->records);
    if (kn->dev_count)
        g_hash_table_destroy(kn->dev_count);
    if (kn->pid_count)
        g_hash_table_destroy(kn->pid_count);
    flat_free(kn->flat);
    sim_json_arena_clear(&kn->scan_arena);
}

/* Device name and compute capability of the imported GPU, from the
 * root's "deviceProperties". */
static void device_properties(Kineto *kn)
{
    const cJSON *props = cJSON_IsObject(kn->doc->root)
                             ? member(kn->doc->root, "deviceProperties")
                             : NULL;
    const cJSON *d;
    cJSON_ArrayForEach(d, props)
    {
        Obj o = tree_obj(d);
        const char *name = get_str(o, "name");
        int64_t idv;
        if (json_id(get(o, "id"), &idv) && idv == kn->device) {
            if (name)
                kn->tr->gpu_name = g_strdup(name);
            kn->tr->cc_major = (int)arg_int(o, "computeMajor", 0);
            kn->tr->cc_minor = (int)arg_int(o, "computeMinor", 0);
        }
    }
}

/* Pass 2 over the GPU activity and syncs, then what only the whole
 * trace tells. */
static bool pass_gpu(Kineto *kn, const char *text, GError **error)
{
    EvIter it;
    ev_iter_init(&it, kn, text, USE_GPU);
    it.digested = true;
    const cJSON *j;
    guint i;
    uint32_t line;
    double ts_max = kn->recs_ts_max;
    bool any_gpu = false, ok = true;
    while (ok && (j = ev_iter_next(&it, &i, &line))) {
        if (j == DIGESTED) {
            guint r = g_array_index(kn->elems, Elem, i).rec;
            gpu_rec(kn, &g_array_index(kn->recs, GpuRec, r - 1));
            any_gpu = true;
            continue;
        }
        Obj ev = tree_obj(j);
        Cat c = category(ev);
        double ts;
        if (c == K_KERNEL || c == K_MEMCPY || c == K_MEMSET) {
            ok = gpu_event(kn, ev, c, line, error);
            any_gpu = true;
            if (val_num(get(ev, "ts"), &ts))
                ts_max = MAX(ts_max, ts);
        } else if (c == K_SYNC) {
            ok = sync_event(kn, ev, line, error);
        }
    }
    ev_iter_end(&it);
    if (!ok)
        return false;
    api_only_syncs(kn);
    memory_events(kn, text);
    SimTrace *tr = kn->tr;
    if (!any_gpu) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID,
                    "%s: no GPU events (kernel, gpu_memcpy, gpu_memset) in "
                    "'traceEvents'; was the profiler run with "
                    "ProfilerActivity.CUDA?",
                    tr->path);
        return false;
    }
    /* Epoch microseconds are > 1e14 (after 1973); relative times are
     * small.  Only the former can be aligned with other files. */
    tr->absolute = kn->base_ns != 0 || ts_max > 1e14;
    device_properties(kn);
    if (kn->n_other_device)
        sim_trace_note(tr,
                       "%s: %llu GPU events of other devices than "
                       "GPU %d skipped (hqsim simulates one GPU)",
                       tr->path, (unsigned long long)kn->n_other_device,
                       kn->device);
    if (kn->n_unlinked_syncs)
        sim_trace_note(tr,
                       "%s: %llu event syncs/waits skipped: the "
                       "trace does not say which record they wait for",
                       tr->path, (unsigned long long)kn->n_unlinked_syncs);
    return true;
}

/* 1: imported; 0: an error; -1 (streaming only): read it as a tree. */
static int import_events(SimTrace *tr, const char *text, size_t len,
                         bool stream, GError **error)
{
    Kineto kn;
    memset(&kn, 0, sizeof kn);
    kn.tr = tr;
    /* (pass 1's tables first: the streaming scan reads elements) */
    kn.api = g_hash_table_new(g_int64_hash, g_int64_equal);
    sim_slab_init(&kn.apis, sizeof(Api));
    kn.pnames =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    kn.records =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    kn.dev_count = g_hash_table_new(g_direct_hash, g_direct_equal);
    kn.pid_count =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    if (stream ? !stream_open(&kn, text, len)
               : !tree_open(&kn, text, len, error)) {
        kineto_clear(&kn);
        return stream ? -1 : 0;
    }
    kn.base_ns = base_time(kn.doc);
    int r = pass_api(&kn, text, error) ? (pass_gpu(&kn, text, error) ? 1 : 0)
            : kn.reparse               ? -1
                                       : 0;
    kineto_clear(&kn);
    return r;
}

bool sim_import_kineto(SimTrace *tr, const char *text, size_t len,
                       GError **error)
{
    int r = force_tree ? -1 : import_events(tr, text, len, true, error);
    if (r < 0)
        r = import_events(tr, text, len, false, error);
    return r > 0;
}

/* Any JSON that is not an hqsim scenario (the registry asks the native
 * format first): Kineto files have no fixed first key. */
bool sim_detect_kineto_json(const char *head, size_t len)
{
    (void)head;
    (void)len;
    return true;
}
