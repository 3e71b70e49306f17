/* test_json_arena.c -- cJSON trees parsed into a bump arena
 * (sim/json_arena.c): the same trees as cJSON's own parse, valid until a
 * reset, chunks grown for large values and given back by a reset, failed
 * parses, and cJSON used outside an arena (malloc and free) unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
 * free) turns the arena off for what cJSON parses (docs[1] has escapes
 * and docs[3] 20 digits, which the arena's own parser leaves to cJSON):
 * those trees are cJSON's own, deleted at the reset (valgrind and ASan
 * check that nothing leaks).  Last: the hooks stay so. */
static void test_arena_off_under_other_hooks(void **state)
{
    (void)state;
    cJSON_InitHooks(NULL);
    SimJsonArena a = SIM_JSON_ARENA_INIT;
    cJSON *v = sim_json_arena_parse(&a, docs[1], strlen(docs[1]), NULL);
    assert_int_equal(cJSON_GetArraySize(v), 8);
    assert_int_equal(sim_json_arena_capacity(&a), 0);
    assert_int_equal(a.foreign->len, 1);
    cJSON *w = sim_json_arena_parse(&a, docs[3], strlen(docs[3]), NULL);
    assert_true(cJSON_IsNumber(w));
    assert_int_equal(a.foreign->len, 2);
    /* The arena's own parser does not use the hooks. */
    cJSON *x = sim_json_arena_parse(&a, docs[0], strlen(docs[0]), NULL);
    assert_true(cJSON_IsObject(x));
    assert_true(sim_json_arena_capacity(&a) > 0);
    assert_int_equal(a.foreign->len, 2);
    sim_json_arena_reset(&a);
    assert_int_equal(a.foreign->len, 0);
    assert_non_null(sim_json_arena_parse(&a, docs[1], strlen(docs[1]), NULL));
    sim_json_arena_clear(&a); /* deletes the third */
    assert_null(a.foreign);
}

/* Field by field, bit for bit: the same nodes, linked the same way
 * (cJSON_Compare would not see prev links, valueint or -0.0). */
static void same_list(const cJSON *x, const cJSON *y)
{
    const cJSON *px = NULL, *py = NULL;
    for (; x || y; px = x, py = y, x = x->next, y = y->next) {
        assert_non_null(x);
        assert_non_null(y);
        if (px) {
            assert_ptr_equal(x->prev, px);
            assert_ptr_equal(y->prev, py);
        }
        assert_int_equal(x->type, y->type);
        assert_int_equal(x->valueint, y->valueint);
        assert_memory_equal(&x->valuedouble, &y->valuedouble, sizeof(double));
        assert_int_equal(!x->string, !y->string);
        if (x->string)
            assert_string_equal(x->string, y->string);
        assert_int_equal(!x->valuestring, !y->valuestring);
        if (x->valuestring)
            assert_string_equal(x->valuestring, y->valuestring);
        assert_int_equal(!x->child, !y->child);
        if (x->child) {
            same_list(x->child, y->child);
            const cJSON *lx = x->child, *ly = y->child;
            while (lx->next)
                lx = lx->next;
            while (ly->next)
                ly = ly->next;
            assert_ptr_equal(x->child->prev, lx); /* the first's prev: */
            assert_ptr_equal(y->child->prev, ly); /* the last */
        }
    }
}

static const char *const pieces[] = {
    "0",
    "-0",
    "7",
    "-12",
    "007",
    "1.5",
    "-0.25",
    "1000.125",
    "2.",
    ".5",
    "-",
    "1e3",
    "2.5E-4",
    "1e400",
    "0.1",
    "123456789012345678",
    "9007199254740993",
    "12345678901234567890",
    "2147483647",
    "2147483648",
    "-2147483649",
    "1700000000123.456",
    "1234567890123456.789",
    "9007199254740993.25",
    "0.1234567890123456789",
    "0.0000000000000000000000001",
    "1-2",
    "1.2.3",
    "\"\"",
    "\"kern0\"",
    "\"a b\"",
    "\"tab\there\"",
    "\"q\\\"q\"",
    "\"\\u00e9\"",
    "\"\x01raw\"",
    "\"unterminated",
    "true",
    "false",
    "null",
    "tru",
    "nul",
    "truex",
    "[]",
    "{}",
    "[1,]",
    "{\"a\":}",
    "{\"a\" 1}",
    "\xef\xbb\xbf"
    "1",
};

/* Numbers whose digits do not fit 64 bits, some wrapping m to exactly 0
 * (2^64, 2^65, 2^64 / 10 with a point): sim_json_exact_number refuses
 * them or gives strtod's value, and the arena's tree is cJSON's, node for
 * node.  A miscount of significant digits once took 2^64 as 0. */
static void test_exact_number_wide_digits(void **state)
{
    (void)state;
    static const char *const nums[] = {
        "18446744073709551616",     "36893488147419103232",
        "1844674407370955161.6",    "-18446744073709551616",
        "184467440737095516160",    "0.18446744073709551616",
        "000018446744073709551616", "18446744073709551615",
        "9999999999999999999",      "10000000000000000000",
        "1000000000000000000.0",    "9007199254740992",
    };
    SimJsonArena a = SIM_JSON_ARENA_INIT;
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        const char *t = nums[i], *after = NULL;
        double d = 0;
        if (sim_json_exact_number(t, t + strlen(t), &d, &after)) {
            const double ref = strtod(t, NULL);
            assert_memory_equal(&d, &ref, sizeof d);
            assert_ptr_equal(after, t + strlen(t));
        }
        const cJSON *x = sim_json_arena_parse(&a, t, strlen(t), NULL);
        cJSON *y = cJSON_Parse(t);
        assert_non_null(x);
        assert_non_null(y);
        same_list(x, y);
        assert_true(x->valuedouble > 1e15 || x->valuedouble < -1e15 ||
                    (x->valuedouble > 0.1 && x->valuedouble < 1));
        cJSON_Delete(y);
    }
    /* 2^64 and 2^65 are refused: they are not exact in 64 bits. */
    double d;
    const char *after;
    assert_false(sim_json_exact_number(nums[0], nums[0] + 20, &d, &after));
    assert_false(sim_json_exact_number(nums[1], nums[1] + 20, &d, &after));
    assert_false(sim_json_exact_number(nums[2], nums[2] + 21, &d, &after));
    sim_json_arena_clear(&a);
}

/* A random JSON-ish text: containers of pieces, with whitespace (every
 * byte <= 32 is whitespace to cJSON) and duplicate keys. */
static void gen(GRand *r, GString *o, int depth)
{
    static const char *const ws[] = {"", " ", "\n", "\t ", "\x01", "\r\n"};
    static const char *const keys[] = {"ts", "dur", "name", "args", "", "a b"};
    const int k = g_rand_int_range(r, 0, depth < 4 ? 10 : 6);
    g_string_append(o, ws[g_rand_int_range(r, 0, 6)]);
    if (k < 6) {
        g_string_append(o,
                        pieces[g_rand_int_range(
                            r, 0, (gint32)(sizeof pieces / sizeof *pieces))]);
    } else {
        const bool obj = k < 8;
        g_string_append_c(o, obj ? '{' : '[');
        const int n = g_rand_int_range(r, 0, 5);
        for (int i = 0; i < n; i++) {
            if (i)
                g_string_append_c(o, ',');
            if (obj)
                g_string_append_printf(
                    o, "%s\"%s\"%s:", ws[g_rand_int_range(r, 0, 6)],
                    keys[g_rand_int_range(r, 0, 6)],
                    ws[g_rand_int_range(r, 0, 6)]);
            gen(r, o, depth + 1);
        }
        g_string_append(o, ws[g_rand_int_range(r, 0, 6)]);
        g_string_append_c(o, obj ? '}' : ']');
    }
    g_string_append(o, ws[g_rand_int_range(r, 0, 6)]);
}

/* The arena's parse gives what cJSON gives, on random texts, some cut
 * short: the same tree or both NULL, and the same end. */
static void test_arena_parse_matches_cjson_random(void **state)
{
    (void)state;
    GRand *r = g_rand_new_with_seed(7);
    SimJsonArena a = SIM_JSON_ARENA_INIT;
    GString *o = g_string_new(NULL);
    for (int k = 0; k < 20000; k++) {
        g_string_truncate(o, 0);
        gen(r, o, 0);
        size_t len = o->len;
        if (g_rand_int_range(r, 0, 8) == 0)
            len = (size_t)g_rand_int_range(r, 0, (gint32)len + 1);
        const char *e1 = NULL, *e2 = NULL;
        const cJSON *x = sim_json_arena_parse(&a, o->str, len, &e1);
        cJSON *y = cJSON_ParseWithLengthOpts(o->str, len, &e2, 0);
        assert_int_equal(!x, !y);
        if (y) {
            assert_ptr_equal(e1, e2);
            assert_null(x->prev);
            same_list(x, y);
            cJSON_Delete(y);
        }
        if (k % 64 == 0)
            sim_json_arena_reset(&a);
    }
    assert_true(a.fast > 2000);  /* the arena's own parser took many */
    assert_true(a.fast < 18000); /* and left many to cJSON */
    g_string_free(o, TRUE);
    sim_json_arena_clear(&a);
    g_rand_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_parse_matches_cjson),
        cmocka_unit_test(test_arena_chunks_grow_and_reset),
        cmocka_unit_test(test_arena_failed_parse_and_outside_use),
        cmocka_unit_test(test_arena_parse_matches_cjson_random),
        cmocka_unit_test(test_exact_number_wide_digits),
        cmocka_unit_test(test_arena_off_under_other_hooks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
