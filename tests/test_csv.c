/* test_csv.c -- the CSV field splitter and number reader of import/csv.c:
 * sim_csv_parse_double gives, bit for bit, what strtod gives on the same
 * text (its exact path without strtod included), and sim_csv_split splits
 * plain, quoted and empty fields and refuses broken quotes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "csv.h"

/* What sim_csv_parse_double is specified to return, through strtod
 * alone: blanks around and thousands separators dropped, only decimal
 * characters, the whole text consumed, a finite result. */
static bool reference(const char *s, double *out)
{
    char tmp[64];
    size_t n = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    for (; *s; s++) {
        if (*s == ',')
            continue;
        if (n + 1 >= sizeof tmp)
            return false;
        tmp[n++] = *s;
    }
    while (n > 0 && (tmp[n - 1] == ' ' || tmp[n - 1] == '\t'))
        n--;
    tmp[n] = '\0';
    if (n == 0 || strspn(tmp, "0123456789+-.eE") != n)
        return false;
    char *end = NULL;
    double d = g_ascii_strtod(tmp, &end);
    if (end != tmp + n || !isfinite(d))
        return false;
    *out = d;
    return true;
}

static void check_same(const char *s)
{
    double a = 12345, b = 12345;
    bool ra = sim_csv_parse_double(s, &a);
    bool rb = reference(s, &b);
    if (ra != rb || (ra && memcmp(&a, &b, sizeof a) != 0))
        fail_msg("'%s': %d %.17g, strtod %d %.17g", s, ra, a, rb, b);
}

static void test_parse_double_fixed_cases(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "0",
        "-0",
        "+0",
        "0.0",
        "-0.000",
        "1",
        "1.",
        ".5",
        "-.5",
        "+.5",
        ".",
        "-",
        "+",
        "",
        " ",
        "1.2.3",
        "--1",
        "+-1",
        "1-",
        "007",
        "00.100",
        "0.1",
        "0.2",
        "0.3",
        "123.456",
        "1000.125",
        "20.000",
        "199.000",
        "9007199254740992",
        "9007199254740993",
        "9007199254740991.5",
        "18446744073709551615",
        "123456789012345678901234567890",
        "0.0000000000000000000001",
        "0.00000000000000000000001",
        "1234567890123456789",
        "12345678901234567890",
        "1e5",
        "1E-3",
        "2.5e+10",
        "1e",
        "e5",
        "1e400",
        " 12 ",
        "\t3.25\t",
        "1,234.5",
        "\"1\"",
        "0x10",
        "inf",
        "nan",
        "1 2",
        "1.7976931348623157e308",
        "4.9406564584124654e-324",
        "1700000000123.456",
        "1700000000123.4567",
        "999999999999999.999",
        "0.30000000000000004",
        "000000000000000000000000000000000000000000000000000000000001",
        "0000000000000000000000000000000000000000000000000000000000000001",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_same(cases[i]);
}

/* Random decimal texts of every shape the fast path takes or refuses:
 * signs, leading zeros, up to 26 digits, a point anywhere or none,
 * sometimes an exponent. */
static void test_parse_double_random_matches_strtod(void **state)
{
    (void)state;
    GRand *r = g_rand_new_with_seed(12);
    for (int k = 0; k < 200000; k++) {
        char s[48];
        size_t n = 0;
        int sign = g_rand_int_range(r, 0, 4);
        if (sign == 1)
            s[n++] = '-';
        else if (sign == 2)
            s[n++] = '+';
        int digits = g_rand_int_range(r, 1, 27);
        int point = g_rand_int_range(r, -1, digits + 1);
        int zeros =
            g_rand_int_range(r, 0, 4) == 0 ? g_rand_int_range(r, 0, 6) : 0;
        for (int i = 0; i < digits; i++) {
            if (i == point)
                s[n++] = '.';
            s[n++] = i < zeros ? '0' : (char)('0' + g_rand_int_range(r, 0, 10));
        }
        if (point == digits)
            s[n++] = '.';
        if (g_rand_int_range(r, 0, 10) == 0)
            n += (size_t)g_snprintf(s + n, sizeof s - n, "e%d",
                                    g_rand_int_range(r, -30, 30));
        s[n] = '\0';
        check_same(s);
    }
    g_rand_free(r);
}

static void test_split_fields(void **state)
{
    (void)state;
    static const char line[] = "a,,\"b,c\",\"d\"\"e\",12.5,";
    SimCsv csv;
    sim_csv_init(&csv, "t.csv", line, sizeof line - 1);
    g_autoptr(SimCsvRow) row = sim_csv_row_new();
    GError *error = NULL;
    assert_true(
        sim_csv_split(&csv, line, sizeof line - 1, 3, row, NULL, &error));
    assert_int_equal(row->n, 6);
    assert_int_equal(row->line, 3);
    assert_string_equal(sim_csv_field(row, 0), "a");
    assert_string_equal(sim_csv_field(row, 1), "");
    assert_string_equal(sim_csv_field(row, 2), "b,c");
    assert_string_equal(sim_csv_field(row, 3), "d\"e");
    assert_string_equal(sim_csv_field(row, 4), "12.5");
    assert_string_equal(sim_csv_field(row, 5), "");
    assert_string_equal(sim_csv_field(row, 6), "");
    /* The row is reused: a shorter line leaves nothing of the last. */
    assert_true(sim_csv_split(&csv, "x", 1, 4, row, NULL, &error));
    assert_int_equal(row->n, 1);
    assert_string_equal(sim_csv_field(row, 0), "x");
    assert_true(sim_csv_split(&csv, "", 0, 5, row, NULL, &error));
    assert_int_equal(row->n, 1);
    assert_string_equal(sim_csv_field(row, 0), "");
}

static void test_split_broken_quotes(void **state)
{
    (void)state;
    SimCsv csv;
    sim_csv_init(&csv, "t.csv", "", 0);
    g_autoptr(SimCsvRow) row = sim_csv_row_new();
    GError *error = NULL;
    assert_false(sim_csv_split(&csv, "1,\"ab", 5, 7, row, NULL, &error));
    assert_non_null(strstr(error->message, "t.csv:7: field 2: unterminated"));
    g_clear_error(&error);
    assert_false(sim_csv_split(&csv, "\"ab\"x,1", 7, 8, row, NULL, &error));
    assert_non_null(strstr(error->message, "t.csv:8: field 1: unexpected"));
    g_clear_error(&error);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_double_fixed_cases),
        cmocka_unit_test(test_parse_double_random_matches_strtod),
        cmocka_unit_test(test_split_fields),
        cmocka_unit_test(test_split_broken_quotes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
