/* json_arena.c -- cJSON trees parsed into a bump arena (json_arena.h). */
#include "json_arena.h"

#include <glib.h>
#include <stdalign.h>
#include <stdlib.h>

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

static void *arena_alloc(SimJsonArena *a, size_t sz)
{
    sz = (sz + ALIGN - 1) / ALIGN * ALIGN;
    if (!a->chunks || a->chunks->size - a->used < sz) {
        const size_t size = sz > CHUNK_BYTES ? sz : CHUNK_BYTES;
        SimJsonChunk *c = malloc(sizeof *c + size);
        if (!c)
            return NULL; /* cJSON reports the parse as failed */
        c->next = a->chunks;
        c->size = size;
        a->chunks = c;
        a->used = 0;
    }
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

cJSON *sim_json_arena_parse(SimJsonArena *a, const char *text, size_t len,
                            const char **end)
{
    install_once();
    g_assert(!active); /* not reentrant: cJSON calls no user code */
    const size_t before = a->allocs;
    active = a;
    cJSON *v = cJSON_ParseWithLengthOpts(text, len, end, 0);
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
