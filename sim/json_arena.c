/* json_arena.c -- cJSON trees parsed into a bump arena (json_arena.h). */
#include "json_arena.h"

#include <glib.h>
#include <limits.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"

/* The first chunk holds a typical element many times over (a Kineto
 * kernel event is about 1 KB of nodes); a value larger than a chunk gets
 * a chunk of its own size. */
#define CHUNK_BYTES (64 * 1024)
#define ALIGN alignof(max_align_t)

struct SimJsonChunk {
    SimJsonChunk *next;
    size_t size; /* bytes of data */
    alignas(max_align_t) unsigned char data[];
};

/* The arena this thread parses into now, or NULL: set only inside
 * sim_json_arena_parse. */
static _Thread_local SimJsonArena *active;

/* A new chunk of at least @sz bytes, the newest (NULL if out of
 * memory). */
static void *arena_grow(SimJsonArena *a, size_t sz)
{
    const size_t size = sz > CHUNK_BYTES ? sz : CHUNK_BYTES;
    SimJsonChunk *c = malloc(sizeof *c + size);
    if (!c)
        return NULL; /* cJSON reports the parse as failed */
    c->next = a->chunks;
    c->size = size;
    a->chunks = c;
    a->used = sz;
    a->allocs++;
    return c->data;
}

static inline void *arena_alloc(SimJsonArena *a, size_t sz)
{
    sz = (sz + ALIGN - 1) / ALIGN * ALIGN;
    if (!a->chunks || a->chunks->size - a->used < sz)
        return arena_grow(a, sz);
    void *p = a->chunks->data + a->used;
    a->used += sz;
    a->allocs++;
    return p;
}

static void *hook_malloc(size_t sz)
{
    return active ? arena_alloc(active, sz) : malloc(sz);
}

/* While an arena is active the only frees are of its own nodes (cJSON
 * dropping a tree that failed to parse): the reset takes them back. */
static void hook_free(void *p)
{
    if (!active)
        free(p);
}

static gpointer install(gpointer data)
{
    (void)data;
    cJSON_Hooks hooks = {hook_malloc, hook_free};
    cJSON_InitHooks(&hooks);
    return NULL;
}

static void install_once(void)
{
    static GOnce once = G_ONCE_INIT;
    g_once(&once, install, NULL);
}

/* Before main, so that no thread uses cJSON while its hooks change. */
__attribute__((constructor)) static void install_at_start(void)
{
    install_once();
}

/* ------------------------------------------------------------------------
 * The common shape without cJSON
 *
 * cJSON's parse costs most of a Kineto import: a strtod (and a localeconv)
 * per number, two passes and a memset per string.  Most elements are
 * plain: strings without escapes, numbers of a dozen digits.  The parser
 * below builds, for such a value, the tree cJSON builds (the same fields
 * in the same nodes, arena-allocated) and refuses anything else -- an
 * escape, an exponent, a byte-order mark, a nesting beyond cJSON's limit,
 * anything that is not JSON -- by returning NULL; cJSON then parses the
 * text as before, so its answers (and failures) stay the reference.
 * ------------------------------------------------------------------------ */

typedef struct {
    SimJsonArena *a;
    const unsigned char *p, *end;
    unsigned depth;
} Fast;

static void fast_ws(Fast *f)
{
    while (f->p < f->end && *f->p <= 32) /* cJSON's whitespace */
        f->p++;
}

static cJSON *fast_node(Fast *f)
{
    cJSON *n = arena_alloc(f->a, sizeof *n);
    if (n)
        memset(n, 0, sizeof *n);
    return n;
}

/* A string without escapes at f->p (its opening quote): a copy in the
 * arena; NULL for anything else. */
static char *fast_string(Fast *f)
{
    static const bool stop[256] = {['"'] = true, ['\\'] = true};
    const unsigned char *s = f->p + 1, *q = s;
    while (q < f->end && !stop[*q])
        q++;
    if (q >= f->end || *q != '"')
        return NULL;
    const size_t n = (size_t)(q - s);
    char *out = arena_alloc(f->a, n + 1);
    if (!out)
        return NULL;
    memcpy(out, s, n);
    out[n] = '\0';
    f->p = q + 1;
    return out;
}

/* A number at @p: -?[0-9]+(.[0-9]+)? followed by none of cJSON's number
 * bytes ([0-9+-.eE]), whose digits (leading zeros aside) make an integer
 * m <= 2^53, with at most 22 after the point.  m and 10^k are then exact
 * doubles and their quotient, rounded once, is what strtod returns for
 * the text (Clinger's fast path), the value cJSON stores.  False for
 * anything else. */
bool sim_json_exact_number(const char *text, const char *stop, double *out,
                           const char **after)
{
    const unsigned char *p = (const unsigned char *)text;
    const unsigned char *end = (const unsigned char *)stop;
    const bool neg = p < end && *p == '-';
    p += neg;
    /* m gathers every digit; sig counts them from the first that is not
     * a leading zero on.  m < 10^sig, so m has not wrapped (unsigned) as
     * long as sig <= 19; past 19 the number is refused (the caller's slow
     * path).  Counting "m != 0" instead would miss a digit whenever m
     * wraps to exactly 0 (2^64 = 18446744073709551616). */
    uint64_t m = 0;
    unsigned sig = 0, frac = 0, digits = 0;
    bool started = false;
    for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
        started |= *p != '0';
        sig += started;
        m = m * 10 + (uint64_t)(*p - '0');
    }
    if (!digits)
        return false;
    if (p < end && *p == '.') {
        p++;
        for (; p < end && *p >= '0' && *p <= '9'; p++, frac++) {
            started |= *p != '0';
            sig += started;
            m = m * 10 + (uint64_t)(*p - '0');
        }
        if (!frac)
            return false;
    }
    if (sig > 19)
        return false;
    if (p - (const unsigned char *)text >= 63)
        return false; /* cJSON reads 63 bytes of a number at most */
    if (p < end &&
        (*p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-'))
        return false; /* more of a number than this path reads */
    if (!sim_decimal_fast(m, frac, neg, out))
        return false;
    *after = (const char *)p;
    return true;
}

/* A number at f->p (sim_json_exact_number) into @n, as cJSON sets it. */
static bool fast_number(Fast *f, cJSON *n)
{
    double d;
    const char *after;
    if (!sim_json_exact_number((const char *)f->p, (const char *)f->end, &d,
                               &after))
        return false;
    n->valuedouble = d;
    /* cJSON's saturation */
    n->valueint = d >= INT_MAX           ? INT_MAX
                  : d <= (double)INT_MIN ? INT_MIN
                                         : (int)d;
    n->type = cJSON_Number;
    f->p = (const unsigned char *)after;
    return true;
}

static bool fast_value(Fast *f, cJSON *n);

/* The members of an object or elements of an array at f->p (its opening
 * bracket), as cJSON links them: next pointers, prev of each but the
 * first, and the first's prev pointing at the last. */
static bool fast_container(Fast *f, cJSON *n, bool object)
{
    const unsigned char close = object ? '}' : ']';
    if (f->depth >= CJSON_NESTING_LIMIT)
        return false;
    f->depth++;
    f->p++;
    fast_ws(f);
    cJSON *head = NULL, *last = NULL;
    if (f->p < f->end && *f->p == close) {
        f->p++;
    } else {
        for (;;) {
            cJSON *c = fast_node(f);
            if (!c)
                return false;
            if (!head) {
                head = c;
            } else {
                last->next = c;
                c->prev = last;
            }
            last = c;
            if (object) {
                if (f->p >= f->end || *f->p != '"' ||
                    !(c->string = fast_string(f)))
                    return false;
                fast_ws(f);
                if (f->p >= f->end || *f->p != ':')
                    return false;
                f->p++;
                fast_ws(f);
            }
            if (!fast_value(f, c))
                return false;
            fast_ws(f);
            if (f->p < f->end && *f->p == ',') {
                f->p++;
                fast_ws(f);
                continue;
            }
            if (f->p >= f->end || *f->p != close)
                return false;
            f->p++;
            break;
        }
        head->prev = last;
    }
    f->depth--;
    n->type = object ? cJSON_Object : cJSON_Array;
    n->child = head;
    return true;
}

static bool fast_word(Fast *f, const char *w, size_t len)
{
    if ((size_t)(f->end - f->p) < len || memcmp(f->p, w, len) != 0)
        return false;
    f->p += len;
    return true;
}

/* The value at f->p (no whitespace before it) into @n. */
static bool fast_value(Fast *f, cJSON *n)
{
    if (f->p >= f->end)
        return false;
    switch (*f->p) {
    case '"':
        n->type = cJSON_String;
        return (n->valuestring = fast_string(f)) != NULL;
    case '{': return fast_container(f, n, true);
    case '[': return fast_container(f, n, false);
    case 'n': n->type = cJSON_NULL; return fast_word(f, "null", 4);
    case 'f': n->type = cJSON_False; return fast_word(f, "false", 5);
    case 't':
        n->type = cJSON_True;
        n->valueint = 1;
        return fast_word(f, "true", 4);
    default:
        return (*f->p == '-' || (*f->p >= '0' && *f->p <= '9')) &&
               fast_number(f, n);
    }
}

/* @text parsed by the common-shape parser into @a, or NULL (and @a as it
 * was) when it refuses. */
static cJSON *fast_parse(SimJsonArena *a, const char *text, size_t len,
                         const char **end)
{
    SimJsonChunk *const chunks = a->chunks;
    const size_t used = a->used, allocs = a->allocs;
    Fast f = {a, (const unsigned char *)text, (const unsigned char *)text + len,
              0};
    fast_ws(&f);
    cJSON *v = fast_node(&f);
    if (v && fast_value(&f, v)) {
        if (end)
            *end = (const char *)f.p;
        a->fast++;
        return v;
    }
    /* Refused: give back what it took, so that the arena holds what
     * cJSON alone would have left (and sim_json_arena_parse can tell
     * cJSON's own allocations apart). */
    while (a->chunks != chunks) {
        SimJsonChunk *c = a->chunks;
        a->chunks = c->next;
        free(c);
    }
    a->used = used;
    a->allocs = allocs;
    return NULL;
}

cJSON *sim_json_arena_parse(SimJsonArena *a, const char *text, size_t len,
                            const char **end)
{
    cJSON *v = fast_parse(a, text, len, end);
    if (v)
        return v;
    install_once();
    g_assert(!active); /* not reentrant: cJSON calls no user code */
    const size_t before = a->allocs;
    active = a;
    v = cJSON_ParseWithLengthOpts(text, len, end, 0);
    active = NULL;
    if (v && a->allocs == before) { /* other hooks than ours (header) */
        if (!a->foreign)
            a->foreign = g_ptr_array_new();
        g_ptr_array_add(a->foreign, v);
    }
    return v;
}

void sim_json_arena_reset(SimJsonArena *a)
{
    if (a->foreign) {
        for (guint i = 0; i < a->foreign->len; i++)
            cJSON_Delete(g_ptr_array_index(a->foreign, i));
        g_ptr_array_set_size(a->foreign, 0);
    }
    SimJsonChunk *c = a->chunks;
    if (!c)
        return;
    while (c->next) { /* keep the oldest: the first, usually CHUNK_BYTES */
        SimJsonChunk *next = c->next;
        free(c);
        c = next;
    }
    a->chunks = c;
    a->used = 0;
}

void sim_json_arena_clear(SimJsonArena *a)
{
    sim_json_arena_reset(a);
    free(a->chunks);
    a->chunks = NULL;
    a->used = 0;
    if (a->foreign)
        g_ptr_array_free(a->foreign, TRUE);
    a->foreign = NULL;
}

size_t sim_json_arena_capacity(const SimJsonArena *a)
{
    size_t n = 0;
    for (const SimJsonChunk *c = a->chunks; c; c = c->next)
        n += c->size;
    return n;
}
