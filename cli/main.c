/* main.c -- the hqsim command line: dispatch to a subcommand.
 *
 * Every subcommand lives in its own file and is listed in commands[] below;
 * `hqsim help` prints the table.  Errors are reported here (or by the command
 * itself through sim_cli_report_error), once.
 */
#include <locale.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "bounds.h"
#include "commands.h"
#include "error.h"
#include "optrange.h"
#include "cli_common.h"
#include "options.h"

static const SimCommand commands[] = {
    {"run", "simulate a scenario or profiler trace", sim_cmd_run},
    {"compare",
     "run one workload under several sharing modes (before/after "
     "MPS)",
     sim_cmd_compare},
    {"sweep",
     "capacity planning: sweep processes, modes, thread "
     "percentages, connections, GPUs; answer SLO questions",
     sim_cmd_sweep},
    {"import", "convert a profiler trace into a native scenario",
     sim_cmd_import},
    {"replay", "identity replay: simulate traces as recorded and compare",
     sim_cmd_replay},
    {"occupancy", "blocks per SM and the limiting resource for a kernel",
     sim_cmd_occupancy},
    {"models", "list GPU models, or show one with its sources", sim_cmd_models},
    {"validate", "replay measured experiments and print the accuracy table",
     sim_cmd_validate},
    {"gen", "generate a synthetic workload (benchmarks)", sim_cmd_gen},
    {"calibrate",
     "measure this machine's NVIDIA GPU and fit a model file "
     "(or --fit earlier data)",
     sim_cmd_calibrate},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: hqsim COMMAND [OPTIONS...]\n\n"
               "Simulates how an NVIDIA GPU schedules concurrent work: "
               "Hyper-Q queues,\nblock dispatch, SM sharing, time-slicing "
               "between processes, and MPS.\n\nCommands:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'hqsim COMMAND --help' describes a command's options.\n");
    g_autofree char *limits = sim_limits_describe();
    fprintf(f,
            "\nEvery command takes --limit NAME=N (repeatable) to raise one "
            "of the limits\non the work an input may ask for "
            "(NAME, default, meaning):\n%s"
            "Limits bound memory and absurd expansion, not real work: a run "
            "that takes\nlonger than 10 s says where it stands on stderr "
            "(a status line every 30 s\nwhen stderr is not a terminal; -q "
            "hides them).\n",
            limits);
}

/* Take every "--limit NAME=N" / "--limit=NAME=N" before a "--" out of
 * argv (any command takes them; they are set before the command runs and
 * never change afterwards, see bounds.h).  Returns false on a bad one. */
static bool take_limits(int *argc, char **argv)
{
    int out = 0, i = 0;
    for (; i < *argc && strcmp(argv[i], "--"); i++) {
        const char *val = NULL;
        if (!strncmp(argv[i], "--limit=", 8))
            val = argv[i] + 8;
        else if (!strcmp(argv[i], "--limit")) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "hqsim: --limit needs NAME=N\n");
                return false;
            }
            val = argv[++i];
        }
        if (!val) {
            argv[out++] = argv[i];
            continue;
        }
        g_autoptr(GError) error = NULL;
        if (!sim_limit_set_arg(val, &error)) {
            fprintf(stderr, "hqsim: %s\n", error->message);
            return false;
        }
    }
    for (; i < *argc; i++) /* "--" and what follows, unchanged */
        argv[out++] = argv[i];
    *argc = out;
    argv[out] = NULL;
    return true;
}

int sim_cli_report_error(const GError *error)
{
    fprintf(stderr, "hqsim: %s\n", error->message);
    return error->domain == SIM_ERROR && error->code == SIM_ERROR_USAGE ? 2 : 1;
}

/* Numeric options go through the range table (sim/optrange.h): each is
 * parsed by a callback that checks the value and stores it where the
 * command's entry said, so an option left out keeps the command's default
 * and one given outside its range is an error naming the range. */
typedef struct {
    const GOptionEntry *orig; /* the command's entries */
    PlanSettings *settings;   /* the simulate commands' (options.h) */
    PlanCommand command;
} CliParse;

static const GOptionEntry *cli_find(const CliParse *cp, const char *opt)
{
    for (const GOptionEntry *e = cp->orig; e->long_name; e++)
        if ((opt[1] == '-' && !strcmp(opt + 2, e->long_name)) ||
            (opt[1] != '-' && e->short_name && opt[1] == e->short_name &&
             !opt[2]))
            return e;
    return NULL;
}

static gboolean cli_numeric_cb(const gchar *opt, const gchar *value,
                               gpointer data, GError **error)
{
    const GOptionEntry *e = cli_find(data, opt);
    g_return_val_if_fail(e, FALSE);
    if (e->arg == G_OPTION_ARG_DOUBLE)
        return sim_opt_parse_double(e->long_name, value, e->arg_data, error);
    int64_t v = 0;
    if (!sim_opt_parse_int64(e->long_name, value, &v, error))
        return FALSE;
    if (e->arg == G_OPTION_ARG_INT64)
        *(gint64 *)e->arg_data = v;
    else
        *(int *)e->arg_data = (int)v; /* rows of int options fit an int */
    return TRUE;
}

static bool cli_numeric(GOptionArg a)
{
    return a == G_OPTION_ARG_INT || a == G_OPTION_ARG_INT64 ||
           a == G_OPTION_ARG_DOUBLE;
}

/* @entries with numeric options turned into range-checked callbacks and
 * their ranges appended to the help text (strings kept in @keep). */
static GArray *cli_wrap(const GOptionEntry *entries, CliParse *cp,
                        GPtrArray *keep)
{
    GArray *out = g_array_new(TRUE, TRUE, sizeof(GOptionEntry));
    for (const GOptionEntry *e = entries; e->long_name; e++) {
        GOptionEntry w = *e;
        const SimOptRange *r = sim_opt_range(e->long_name);
        if (cli_numeric(e->arg) && !r)
            g_error("option --%s has no row in sim/optrange.c", e->long_name);
        /* A list option (sweep -n 1-8, --mem-mib NAME=MIB) checks each
         * item against its row. */
        if (r && (cli_numeric(e->arg) || e->arg == G_OPTION_ARG_STRING)) {
            g_autofree char *range = sim_opt_range_text(r);
            char *d =
                g_strdup_printf("%s [%s%s]", e->description,
                                cli_numeric(e->arg) ? "" : "each ", range);
            g_ptr_array_add(keep, d);
            w.description = d;
        }
        if (cli_numeric(e->arg)) {
            w.arg = G_OPTION_ARG_CALLBACK;
            w.arg_data = (gpointer)cli_numeric_cb;
        }
        g_array_append_val(out, w);
    }
    cp->orig = entries;
    return out;
}

/* A row of plan/options.h's table, from its command line spelling. */
static gboolean cli_setting_cb(const gchar *opt, const gchar *value,
                               gpointer data, GError **error)
{
    const CliParse *cp = data;
    size_t n = 0;
    const PlanOption *rows = plan_opt_table(&n);
    for (size_t i = 0; i < n; i++) {
        const PlanOption *r = &rows[i];
        if ((r->commands & cp->command) &&
            (opt[1] == '-' ? !strcmp(opt + 2, r->name)
                           : r->short_name && opt[1] == r->short_name))
            return plan_opt_set(cp->settings, r, value, error);
    }
    g_return_val_if_reached(FALSE);
}

/* GOptionEntry rows for @command's options (texts kept in @keep), before
 * @own. */
static GArray *cli_settings_entries(PlanCommand command,
                                    const GOptionEntry *own, GPtrArray *keep)
{
    GArray *out = g_array_new(TRUE, TRUE, sizeof(GOptionEntry));
    size_t n = 0;
    const PlanOption *rows = plan_opt_table(&n);
    for (size_t i = 0; i < n; i++) {
        const PlanOption *r = &rows[i];
        if (!(r->commands & command))
            continue;
        char *help = plan_opt_help(r);
        g_ptr_array_add(keep, help);
        GOptionEntry e = {r->name,
                          r->short_name,
                          r->type == PLAN_ARG_FLAG ? G_OPTION_FLAG_NO_ARG
                          : r->type == PLAN_ARG_FILE ||
                                  r->type == PLAN_ARG_FILES
                              ? G_OPTION_FLAG_FILENAME
                              : 0,
                          G_OPTION_ARG_CALLBACK,
                          (gpointer)cli_setting_cb,
                          help,
                          r->arg};
        g_array_append_val(out, e);
    }
    for (const GOptionEntry *e = own; e && e->long_name; e++)
        g_array_append_val(out, *e);
    return out;
}

/* True when @e is a short option that takes a value (-j 4). */
static bool cli_short_takes_value(const GOptionEntry *e, char c)
{
    return e->short_name == c && e->arg != G_OPTION_ARG_NONE &&
           !(e->flags & (G_OPTION_FLAG_NO_ARG | G_OPTION_FLAG_OPTIONAL_ARG));
}

/* GOption reads the value of a short option only from the next word, so
 * "-j4" would be an error: a copy of @argv (pointers into its words; the
 * split-off "-X" strings are owned by @keep) where every "-Xvalue" of a
 * short option X that takes a value reads "-X" "value".  Words after "--"
 * are left as they are. */
static GPtrArray *cli_split_short(const GOptionEntry *entries, int argc,
                                  char **argv, GPtrArray *keep)
{
    GPtrArray *out = g_ptr_array_new();
    bool rest = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const GOptionEntry *hit = NULL;
        rest = rest || !strcmp(a, "--");
        if (!rest && i > 0 && a[0] == '-' && a[1] && a[1] != '-' && a[2])
            for (const GOptionEntry *e = entries; e->long_name && !hit; e++)
                hit = cli_short_takes_value(e, a[1]) ? e : NULL;
        if (!hit) {
            g_ptr_array_add(out, argv[i]);
            continue;
        }
        char *flag = g_strndup(a, 2);
        g_ptr_array_add(keep, flag);
        g_ptr_array_add(out, flag);
        g_ptr_array_add(out, (char *)a + 2);
    }
    g_ptr_array_add(out, NULL);
    return out;
}

/* Parse with @cp's entries (and its settings' rows); see sim_cli_parse. */
static gboolean cli_parse(CliParse *cp, const char *command, const char *params,
                          const char *description, const GOptionEntry *entries,
                          int *argc, char ***argv, int *status)
{
    /* The program name already reads "hqsim COMMAND" (main sets argv[0]):
     * the usage line only adds the parameters. */
    g_autoptr(GOptionContext) ctx = g_option_context_new(params);
    if (description)
        g_option_context_set_description(ctx, description);
    g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) all =
        cp->settings ? cli_settings_entries(cp->command, entries, keep) : NULL;
    g_autoptr(GArray) wrapped =
        cli_wrap(all ? (const GOptionEntry *)all->data : entries, cp, keep);
    GOptionGroup *main_group = g_option_group_new(NULL, NULL, NULL, cp, NULL);
    g_option_group_add_entries(main_group, (GOptionEntry *)wrapped->data);
    g_option_context_set_main_group(ctx, main_group);
    g_autoptr(GPtrArray) split = cli_split_short(
        (const GOptionEntry *)wrapped->data, *argc, *argv, keep);
    char **words = (char **)split->pdata;
    int nwords = (int)split->len - 1;
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &nwords, &words, &error)) {
        fprintf(stderr, "hqsim %s: %s\n(see 'hqsim %s --help')\n", command,
                error->message, command);
        *status = 2;
        return FALSE;
    }
    /* What is left are words of @argv itself (a split value is always
     * taken by its option), so it fits back in place. */
    g_assert(nwords <= *argc);
    for (int i = 0; i < nwords; i++)
        (*argv)[i] = words[i];
    (*argv)[nwords] = NULL;
    *argc = nwords;
    return TRUE;
}

gboolean sim_cli_parse(const char *command, const char *params,
                       const char *description, const GOptionEntry *entries,
                       int *argc, char ***argv, int *status)
{
    CliParse cp = {NULL, NULL, 0};
    return cli_parse(&cp, command, params, description, entries, argc, argv,
                     status);
}

gboolean sim_cli_parse_settings(const char *command, const char *params,
                                const char *description, PlanSettings *s,
                                PlanCommand which, char ***files, int *argc,
                                char ***argv, int *status)
{
    const GOptionEntry rest[] = {{G_OPTION_REMAINING, 0, 0,
                                  G_OPTION_ARG_FILENAME_ARRAY, files, NULL,
                                  NULL},
                                 G_OPTION_ENTRY_NULL};
    CliParse cp = {NULL, s, which};
    return cli_parse(&cp, command, params, description, rest, argc, argv,
                     status);
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "C");
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!take_limits(&argc, argv))
        return 2;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") ||
        !strcmp(name, "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "--version")) {
        printf("hqsim 0.1\n");
        return 0;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        if (!strcmp(name, commands[i].name)) {
            /* argv[1] becomes the program name the command parses. */
            g_autofree char *prog = g_strdup_printf("hqsim %s", name);
            argv[1] = prog;
            return commands[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "hqsim: unknown command '%s'\n\n", name);
    usage(stderr);
    return 2;
}
