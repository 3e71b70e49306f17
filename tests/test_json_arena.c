/* test_json_arena.c -- cJSON trees parsed into a bump arena
 * (sim/json_arena.c): the same trees as cJSON's own parse, valid until a
 * reset, chunks grown for large values and given back by a reset, failed
 * parses, and cJSON used outside an arena (malloc and free) unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_arena.h"

static const char *const docs[] = {
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kern0\", \"ts\": "
    "1000.125, \"dur\": 20, \"args\": {\"grid\": [33, 1, 1], \"stream\": 7}}",
    "[1, -2.5e-3, true, false, null, \"a\\u00e9\\n\", {}, []]",
    "\"just a string\"",
    "12345678901234567890",
};

/* The same text parsed by cJSON alone and into an arena: equal trees, and
 * the first tree is intact after more parses into the arena. */
static void test_arena_parse_matches_cjson(void **state)
{
    (void)state;
    SimJsonArena a = SIM_JSON_ARENA_INIT;
    cJSON *kept[4];
    for (int i = 0; i < 4; i++) {
        const char *end = NULL;
        kept[i] = sim_json_arena_parse(&a, docs[i], strlen(docs[i]), &end);
        assert_non_null(kept[i]);
        assert_ptr_equal(end, docs[i] + strlen(docs[i]));
    }
    for (int i = 0; i < 4; i++) {
        cJSON *ref = cJSON_Parse(docs[i]);
        assert_non_null(ref);
        assert_true(cJSON_Compare(ref, kept[i], 1));
        char *a_txt = cJSON_PrintUnformatted(kept[i]);
        char *r_txt = cJSON_PrintUnformatted(ref);
        assert_string_equal(a_txt, r_txt);
        cJSON_free(a_txt);
        cJSON_free(r_txt);
        cJSON_Delete(ref);
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(kept[0], "name");
    assert_string_equal(name->valuestring, "kern0");
    sim_json_arena_clear(&a);
    assert_int_equal(sim_json_arena_capacity(&a), 0);
}

/* A value larger than a chunk gets one of its own; a reset keeps only the
 * first chunk; many small parses without a reset take more chunks. */
static void test_arena_chunks_grow_and_reset(void **state)
{
    (void)state;
    SimJsonArena a = SIM_JSON_ARENA_INIT;
    const char *small = docs[0];
    assert_non_null(sim_json_arena_parse(&a, small, strlen(small), NULL));
    const size_t first = sim_json_arena_capacity(&a);
    assert_true(first >= 64 * 1024);

    const size_t n = 300 * 1024;
    char *big = malloc(n + 3);
    big[0] = '"';
    memset(big + 1, 'x', n);
    big[n + 1] = '"';
    big[n + 2] = 0;
    cJSON *v = sim_json_arena_parse(&a, big, n + 2, NULL);
    assert_non_null(v);
    assert_true(cJSON_IsString(v));
    assert_int_equal(strlen(v->valuestring), n);
    assert_true(sim_json_arena_capacity(&a) >= first + n);
    free(big);

    sim_json_arena_reset(&a);
    assert_int_equal(sim_json_arena_capacity(&a), first);

    for (int i = 0; i < 2000; i++)
        assert_non_null(sim_json_arena_parse(&a, small, strlen(small), NULL));
    assert_true(sim_json_arena_capacity(&a) > first);
    sim_json_arena_reset(&a);
    assert_int_equal(sim_json_arena_capacity(&a), first);
    /* reused after a reset */
    cJSON *again = sim_json_arena_parse(&a, small, strlen(small), NULL);
    assert_true(cJSON_IsObject(again));
    sim_json_arena_clear(&a);
}

/* A parse that fails gives NULL (cJSON drops its partial tree: a no-op
 * here) and the arena stays usable; cJSON outside an arena still
 * allocates with malloc and frees with free (ASan/valgrind would see a
 * mix-up). */
static void test_arena_failed_parse_and_outside_use(void **state)
{
    (void)state;
    SimJsonArena a = SIM_JSON_ARENA_INIT;
    const char *bad = "{\"a\": [1, 2, \"unterminated";
    assert_null(sim_json_arena_parse(&a, bad, strlen(bad), NULL));
    cJSON *ok = sim_json_arena_parse(&a, docs[1], strlen(docs[1]), NULL);
    assert_int_equal(cJSON_GetArraySize(ok), 8);

    cJSON *outside = cJSON_CreateObject();
    cJSON_AddStringToObject(outside, "k", "v");
    cJSON_AddNumberToObject(outside, "n", 2.5);
    char *txt = cJSON_PrintUnformatted(outside);
    assert_string_equal(txt, "{\"k\":\"v\",\"n\":2.5}");
    cJSON_free(txt);
    cJSON_Delete(outside);
    sim_json_arena_clear(&a);
    sim_json_arena_clear(&a); /* twice: empty, harmless */
}

/* A program that sets cJSON's hooks itself (here: back to malloc and
 * free) turns the arena off: its trees are then cJSON's own, deleted at
 * the reset (valgrind and ASan check that nothing leaks).  Last: the
 * hooks stay so. */
static void test_arena_off_under_other_hooks(void **state)
{
    (void)state;
    cJSON_InitHooks(NULL);
    SimJsonArena a = SIM_JSON_ARENA_INIT;
    cJSON *v = sim_json_arena_parse(&a, docs[0], strlen(docs[0]), NULL);
    assert_true(cJSON_IsObject(v));
    assert_int_equal(sim_json_arena_capacity(&a), 0);
    assert_int_equal(a.foreign->len, 1);
    cJSON *w = sim_json_arena_parse(&a, docs[1], strlen(docs[1]), NULL);
    assert_int_equal(cJSON_GetArraySize(w), 8);
    assert_int_equal(a.foreign->len, 2);
    sim_json_arena_reset(&a);
    assert_int_equal(a.foreign->len, 0);
    assert_non_null(sim_json_arena_parse(&a, docs[2], strlen(docs[2]), NULL));
    sim_json_arena_clear(&a); /* deletes the third */
    assert_null(a.foreign);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_parse_matches_cjson),
        cmocka_unit_test(test_arena_chunks_grow_and_reset),
        cmocka_unit_test(test_arena_failed_parse_and_outside_use),
        cmocka_unit_test(test_arena_off_under_other_hooks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
