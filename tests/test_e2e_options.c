/* test_e2e_options.c -- one table of options (plan/options.h) behind
 * `hqsim run|compare|sweep|import|replay|validate --help`, the man page (doc/man.sh, generated
 * from --help) and the bash completion (contrib/hqsim.bash, from --help
 * at completion time): each lists exactly the table's long options for
 * the command (GOption's own --help aside), and --help shows each row's
 * help text.
 *
 * Runs the binary named by $HQSIM (set by `make check`); skipped without it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "e2e.h"
#include "options.h"

static const struct {
    const char *name;
    PlanCommand command;
} commands[] = {
    {"run", PLAN_CMD_RUN},       {"compare", PLAN_CMD_COMPARE},
    {"sweep", PLAN_CMD_SWEEP},   {"import", PLAN_CMD_IMPORT},
    {"replay", PLAN_CMD_REPLAY}, {"validate", PLAN_CMD_VALIDATE},
};

/* g_ptr_array_sort passes pointers to the elements; sort(1) in the C
 * locale orders bytes as strcmp does. */
static gint by_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The table's long options for @command, sorted, on one line. */
static char *table_names(PlanCommand command)
{
    size_t n = 0;
    const PlanOption *rows = plan_opt_table(&n);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; i < n; i++)
        if (rows[i].commands & command)
            g_ptr_array_add(names, g_strdup_printf("--%s", rows[i].name));
    g_ptr_array_sort(names, by_name);
    g_ptr_array_add(names, NULL);
    return g_strjoinv(" ", (char **)names->pdata);
}

/* Run bash @script with $HQSIM and $CMD set; its stdout. */
static char *bash(const char *script, const char *cmd)
{
    const char *bin = g_getenv("HQSIM");
    if (!bin || !*bin)
        skip();
    g_autofree char *abs = g_canonicalize_filename(bin, NULL);
    const char *argv[] = {"bash", "-c", script, "bash", abs, cmd, NULL};
    g_autofree char *err = NULL;
    char *out = NULL;
    int wait = 0;
    g_autoptr(GError) e = NULL;
    if (!g_spawn_sync(HQSIM_SOURCE_DIR, (char **)argv, NULL,
                      G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &wait, &e))
        fail_msg("bash: %s", e->message);
    if (!g_spawn_check_wait_status(wait, NULL))
        fail_msg("bash failed: %s", err);
    return g_strstrip(out);
}

/* The long options each source lists for $2 (the binary is $1), sorted,
 * on one line each: --help, the man page's section, the completion. */
static const char help_names[] =
    "\"$1\" \"$2\" --help | grep -oE '^  (-[a-z], )?--[a-z0-9-]+' | "
    "grep -oE -- '--[a-z0-9-]+' | grep -vx -- --help | sort -u | "
    "tr '\\n' ' '";
static const char man_names[] =
    "bash doc/man.sh \"$1\" | sed -n \"/^\\.SS hqsim $2\\$/,/^\\.S[SH]"
    " [^h]/p\" | sed -n '2,$p' | sed '/^\\.S[SH] /,$d' | "
    "grep -E '^\\.B \\\\-' | grep -oE '\\\\-\\\\-[a-z0-9\\\\-]+' | "
    "sed 's/\\\\//g' | sort -u | tr '\\n' ' '";
static const char completion_names[] =
    "source contrib/hqsim.bash; COMP_WORDS=(\"$1\" \"$2\" --); "
    "COMP_CWORD=2; _hqsim; printf '%s\\n' \"${COMPREPLY[@]}\" | "
    "grep -E '^--' | grep -vx -- --help | sort -u | tr '\\n' ' '";

static void test_e2e_options_help_man_completion_match_table(void **state)
{
    (void)state;
    const char *const scripts[] = {help_names, man_names, completion_names};
    const char *const what[] = {"--help", "man page", "completion"};
    for (size_t c = 0; c < G_N_ELEMENTS(commands); c++) {
        g_autofree char *want = table_names(commands[c].command);
        for (size_t k = 0; k < G_N_ELEMENTS(scripts); k++) {
            g_autofree char *got = bash(scripts[k], commands[c].name);
            if (strcmp(got, want))
                fail_msg("hqsim %s, %s:\n  lists %s\n  table %s",
                         commands[c].name, what[k], got, want);
        }
    }
}

/* --help shows every row's help text (its first words, before GOption
 * wraps the line). */
static void test_e2e_options_help_text_from_table(void **state)
{
    (void)state;
    size_t n = 0;
    const PlanOption *rows = plan_opt_table(&n);
    for (size_t c = 0; c < G_N_ELEMENTS(commands); c++) {
        Run r = run_hqsim(commands[c].name, "--help", NULL);
        assert_int_equal(r.status, 0);
        for (size_t i = 0; i < n; i++) {
            if (!(rows[i].commands & commands[c].command))
                continue;
            g_autofree char *help = plan_opt_help(&rows[i]);
            g_autofree char *line = g_strdup_printf(
                "--%s%s%s", rows[i].name, rows[i].arg ? "=" : "",
                rows[i].arg ? rows[i].arg : "");
            assert_contains(r.out, line);
            help[MIN(strlen(help), 30)] = 0;
            assert_contains(r.out, help);
        }
        run_clear(&r);
    }
}

/* A short option's value may follow it in the same word (-n4, -mmps,
 * sweep -j1) or in the next; both read the same.  After "--" a word is
 * an input, not an option. */
static void test_e2e_options_short_value_attached(void **state)
{
    (void)state;
    static const struct {
        const char *joined, *apart;
    } pairs[] = {
        {"run -n4 -mmps traces/default.json",
         "run -n 4 -m mps traces/default.json"},
        {"compare -n2 -mtimeslice,mps traces/default.json",
         "compare -n 2 -m timeslice,mps traces/default.json"},
        {"sweep -j1 -n1-2 traces/default.json",
         "sweep -j 1 -n 1-2 traces/default.json"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++) {
        g_autofree char *a = bash("\"$1\" $2", pairs[i].joined);
        g_autofree char *b = bash("\"$1\" $2", pairs[i].apart);
        assert_true(strlen(a) > 100);
        assert_string_equal(a, b);
    }
    g_autofree char *after =
        bash("\"$1\" run -q traces/default.json -- -n4 2>&1; echo rc=$?", "");
    assert_contains(after, "-n4");
    assert_contains(after, "rc=1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e2e_options_help_man_completion_match_table),
        cmocka_unit_test(test_e2e_options_help_text_from_table),
        cmocka_unit_test(test_e2e_options_short_value_attached),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
