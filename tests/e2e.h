/* e2e.h -- running the hqsim binary from cmocka tests (header-only).
 *
 * run_hqsim() runs "$HQSIM ARGS..." (the binary `make check` names; the test
 * is skipped without it) and captures its exit status and output;
 * run_hqsim_json() additionally parses the JSON it wrote to stdout.  Paths
 * to bundled inputs come from source_path(), relative to the source tree.
 * e2e_tmpdir_setup/teardown give a test a private temporary folder.
 * Include after <cmocka.h>.
 */
#ifndef HQSIM_E2E_H
#define HQSIM_E2E_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>

typedef struct {
    int status; /* exit status (128 if killed by a signal) */
    char *out;
    char *err;
} Run;

static inline Run run_hqsim_v(const char *first, va_list ap)
{
    Run r = {-1, NULL, NULL};
    const char *bin = g_getenv("HQSIM");
    if (!bin || !*bin)
        skip();
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    g_ptr_array_add(argv, (gpointer)bin);
    for (const char *a = first; a; a = va_arg(ap, const char *))
        g_ptr_array_add(argv, (gpointer)a);
    g_ptr_array_add(argv, NULL);
    g_autoptr(GError) error = NULL;
    int wait = 0;
    if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL,
                      NULL, &r.out, &r.err, &wait, &error))
        fail_msg("cannot run %s: %s", bin, error->message);
    r.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : 128;
    return r;
}

/* Run "$HQSIM ARGS..." (NULL-terminated). */
static inline Run run_hqsim(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    Run r = run_hqsim_v(first, ap);
    va_end(ap);
    return r;
}

static inline void run_clear(Run *r)
{
    g_free(r->out);
    g_free(r->err);
}

static inline void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        fail_msg("'%s' not found in:\n%s", needle, haystack);
}

/* Run with ARGS (which should include "--json -" and "-q"), expect exit 0,
 * and return the parsed JSON (cJSON_Delete it). */
static inline cJSON *run_hqsim_json(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    Run r = run_hqsim_v(first, ap);
    va_end(ap);
    if (r.status != 0)
        fail_msg("hqsim exited %d: %s", r.status, r.err);
    cJSON *j = cJSON_Parse(r.out);
    if (!j)
        fail_msg("not JSON: %s", r.out);
    run_clear(&r);
    return j;
}

/* A path inside the source tree (transfer full). */
static inline char *source_path(const char *rel)
{
    return g_build_filename(HQSIM_SOURCE_DIR, rel, NULL);
}

/* j["a"]["b"]... as a number; fails the test if absent. */
static inline double jnum(const cJSON *j, const char *path)
{
    g_auto(GStrv) parts = g_strsplit(path, ".", -1);
    const cJSON *cur = j;
    for (int i = 0; parts[i]; i++) {
        char *end = NULL;
        long idx = strtol(parts[i], &end, 10);
        /* A key with dots in it (nvidia-smi's "utilization.gpu") matches
         * the whole rest of the path. */
        g_autofree char *rest = g_strjoinv(".", parts + i);
        const cJSON *whole = cJSON_IsObject(cur)
                                 ? cJSON_GetObjectItemCaseSensitive(cur, rest)
                                 : NULL;
        if (whole && parts[i + 1]) {
            cur = whole;
            break;
        }
        if (end && *end == 0 && cJSON_IsArray(cur))
            cur = cJSON_GetArrayItem(cur, (int)idx);
        else
            cur = cJSON_GetObjectItemCaseSensitive(cur, parts[i]);
        if (!cur)
            fail_msg("no '%s' in JSON (at '%s')", path, parts[i]);
    }
    if (!cJSON_IsNumber(cur))
        fail_msg("'%s' is not a number", path);
    return cur->valuedouble;
}

/* A test's private temporary folder (cmocka setup/teardown: *state is an
 * E2eTmpdir), so concurrent test runs never share a path.  The folder
 * holds plain files only; teardown removes them and it. */
typedef struct {
    char *dir;
} E2eTmpdir;

static inline int e2e_tmpdir_setup(void **state)
{
    E2eTmpdir *t = g_new0(E2eTmpdir, 1);
    t->dir = g_dir_make_tmp("hqsim-e2e-XXXXXX", NULL);
    assert_non_null(t->dir);
    *state = t;
    return 0;
}

static inline int e2e_tmpdir_teardown(void **state)
{
    E2eTmpdir *t = *state;
    g_autoptr(GDir) d = g_dir_open(t->dir, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
        g_autofree char *p = g_build_filename(t->dir, name, NULL);
        g_unlink(p);
    }
    g_rmdir(t->dir);
    g_free(t->dir);
    g_free(t);
    return 0;
}

#endif /* HQSIM_E2E_H */
