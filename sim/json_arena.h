/* json_arena.h -- cJSON trees parsed into a bump arena, dropped all at once.
 *
 * A reader that parses many small JSON values one at a time, uses each and
 * drops it (import/kineto.c: the elements of a traceEvents array) pays
 * cJSON a malloc per node and string and a free per node on the walk of
 * cJSON_Delete: about a quarter of importing a Kineto trace.  Parsed here,
 * a tree's nodes and strings come from the arena's chunks and a reset
 * drops every tree parsed since, without a walk.
 *
 * Most values are parsed without cJSON: a parser of the common shape
 * (strings without escapes, numbers that convert exactly without strtod:
 * json_arena.c) builds the same tree, node for node, and leaves anything
 * else to cJSON, so cJSON's answers and failures stay the reference.
 *
 * How (cJSON): cJSON's allocation hooks (global) are set once, at program start,
 * to functions that allocate from this thread's active arena while
 * sim_json_arena_parse runs and call malloc/free otherwise, so every other
 * use of cJSON (any thread) is unchanged.  A free while an arena is active
 * is cJSON dropping part of a tree that failed to parse: a no-op.
 *
 * A program that sets cJSON's hooks itself after libhqsim is loaded
 * turns the arena off for what cJSON parses: such a parse that took nothing from the arena is
 * remembered and given to cJSON_Delete at the reset instead.
 *
 * Ownership: the arena owns every tree parsed into it; never pass one to
 * cJSON_Delete.  Trees stay valid until the next reset or
 * sim_json_arena_clear.  An arena is used by one thread at a time.
 */
#ifndef SIM_JSON_ARENA_H
#define SIM_JSON_ARENA_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct SimJsonChunk SimJsonChunk;

typedef struct {
    SimJsonChunk *chunks; /* newest first (owned) */
    size_t used;          /* bytes taken from the newest chunk */
    size_t allocs;        /* allocations taken from the arena, ever */
    size_t fast;          /* parses done without cJSON, ever (tests) */
    GPtrArray *foreign;   /* cJSON* parsed by other hooks (owned) */
} SimJsonArena;

#define SIM_JSON_ARENA_INIT                                                    \
    {                                                                          \
        NULL, 0, 0, 0, NULL                                                    \
    }

/* cJSON_ParseWithLengthOpts(@text, @len, @end, false) into @a.
 * Returns: (transfer none) (nullable): owned by @a. */
cJSON *sim_json_arena_parse(SimJsonArena *a, const char *text, size_t len,
                            const char **end);

/* The JSON number at @text (before @stop) when it converts exactly
 * without strtod, as the arena's parser reads it: its value and the byte
 * after it.  False for any other number (cJSON's strtod is then the
 * reference) and for what is not a number. */
bool sim_json_exact_number(const char *text, const char *stop, double *out,
                           const char **after);

/* Drop every tree parsed into @a; keeps its first chunk for reuse. */
void sim_json_arena_reset(SimJsonArena *a);

/* Free all of @a's memory (it may be used again, empty). */
void sim_json_arena_clear(SimJsonArena *a);

/* Bytes @a holds in its chunks (for tests). */
size_t sim_json_arena_capacity(const SimJsonArena *a);

#endif
