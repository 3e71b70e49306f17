/* perfetto_check.c -- trace_processor's import rules for the Chrome JSON
 * events hqsim writes.  See perfetto_check.h for the sources; each rule
 * below cites the function it restates.
 *
 * Stricter than trace_processor where hqsim never needs the leniency: only
 * the phases X, C, i and M; numbers, never numeric strings, for ts, dur,
 * pid, tid and counter values; the whole file must be one JSON value.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "json.h"
#include "perfetto_check.h"

#define MAX_PROBLEMS 50
/* SliceTracker::kMaxDepth (slice_tracker.h): deeper slices are dropped. */
#define MAX_DEPTH 512

typedef struct {
    GPtrArray *out;
    guint n; /* problems found, also those past MAX_PROBLEMS */
} Problems;

G_GNUC_PRINTF(2, 3)
static void problem(Problems *p, const char *fmt, ...)
{
    p->n++;
    if (p->n > MAX_PROBLEMS)
        return;
    va_list ap;
    va_start(ap, fmt);
    g_ptr_array_add(p->out, g_strdup_vprintf(fmt, ap));
    va_end(ap);
}

/* One event on a thread track: a slice or a thread-scoped instant. */
typedef struct {
    gint64 ts, dur; /* ns */
    guint idx;      /* position in traceEvents: the sorter's tie-break */
} Sl;

static int cmp_sl(const void *a, const void *b)
{
    const Sl *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* A counter track's earliest sample. */
typedef struct {
    gint64 ts;
    guint idx;
    double v;
} First;

typedef struct {
    Problems p;
    GHashTable *tracks;       /* (pid << 32 | tid) -> GArray of Sl */
    GHashTable *thread_names; /* same key -> name */
    GHashTable *counters;     /* "pid/name key" -> First */
    GHashTable *pids_used, *pids_named;
} Check;

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* json_trace_tokenizer.cc CoerceToTs: us to ns, whole numbers exactly,
 * others rounded (llround of us * 1000). */
static gint64 to_ns(double us)
{
    return us == trunc(us) ? (gint64)us * 1000 : (gint64)llround(us * 1000.0);
}

/* pid or tid: a whole number in [0, 2^32) (CoerceToUint32 turns anything
 * else into 0, silently merging tracks). */
static bool id_of(Check *c, guint i, const cJSON *e, const char *k,
                  guint32 *out)
{
    const cJSON *v = get(e, k);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
        v->valuedouble > 4294967295.0 ||
        v->valuedouble != trunc(v->valuedouble)) {
        problem(&c->p,
                "event %u: '%s' is not a whole number in [0, 2^32) "
                "(CoerceToUint32 reads it as 0)",
                i, k);
        return false;
    }
    *out = (guint32)v->valuedouble;
    return true;
}

static gint64 track_key(guint32 pid, guint32 tid)
{
    /* json_trace_tokenizer.cc: "Make the tid equal to the pid if tid is
     * not set" -- a tid of 0 with a non-zero pid is the pid's thread. */
    if (tid == 0 && pid != 0)
        tid = pid;
    return ((gint64)pid << 32) | tid;
}

static void add_to_track(Check *c, gint64 key, gint64 ts, gint64 dur, guint i)
{
    GArray *a = g_hash_table_lookup(c->tracks, &key);
    if (!a) {
        a = g_array_new(FALSE, FALSE, sizeof(Sl));
        g_hash_table_insert(c->tracks, g_memdup2(&key, sizeof key), a);
    }
    Sl s = {ts, dur, i};
    g_array_append_val(a, s);
}

/* json_trace_parser.cc case 'M': the four names it reads; a name must be a
 * non-empty string, a sort index a number (else json_parser_failure). */
static void check_meta(Check *c, guint i, const cJSON *e, guint32 pid,
                       guint32 tid)
{
    const cJSON *name = get(e, "name"), *args = get(e, "args");
    const char *n = cJSON_IsString(name) ? name->valuestring : "";
    bool is_name = !strcmp(n, "thread_name") || !strcmp(n, "process_name");
    bool is_sort =
        !strcmp(n, "thread_sort_index") || !strcmp(n, "process_sort_index");
    if (!is_name && !is_sort) {
        problem(&c->p,
                "event %u: metadata '%s' is ignored by trace_processor "
                "(only thread_name, process_name and *_sort_index)",
                i, n);
        return;
    }
    const cJSON *v = get(args, is_name ? "name" : "sort_index");
    if (is_sort) {
        if (!cJSON_IsNumber(v))
            problem(&c->p,
                    "event %u: %s without a numeric args.sort_index "
                    "(json_parser_failure)",
                    i, n);
        return;
    }
    if (!cJSON_IsString(v) || !*v->valuestring) {
        problem(&c->p,
                "event %u: %s without a non-empty args.name "
                "(json_parser_failure)",
                i, n);
        return;
    }
    if (!strcmp(n, "process_name")) {
        g_hash_table_add(c->pids_named, GUINT_TO_POINTER(pid));
        return;
    }
    /* hqsim: one name per track -- two names for one (pid, tid) mean two
     * tracks that trace_processor merges (e.g. tid 0 read as tid = pid). */
    gint64 key = track_key(pid, tid);
    const char *old = g_hash_table_lookup(c->thread_names, &key);
    if (old && strcmp(old, v->valuestring))
        problem(&c->p,
                "event %u: thread %u/%u named '%s' and '%s': two "
                "tracks merged into one",
                i, pid, tid, old, v->valuestring);
    else if (!old)
        g_hash_table_insert(c->thread_names, g_memdup2(&key, sizeof key),
                            g_strdup(v->valuestring));
}

/* json_trace_parser.cc case 'C': a non-empty args object whose values are
 * numbers (anything else: json_parser_failure); one process-scoped track
 * per "name key". */
static void check_counter(Check *c, guint i, const cJSON *e, guint32 pid,
                          gint64 ts)
{
    const cJSON *args = get(e, "args"), *name = get(e, "name");
    if (!cJSON_IsObject(args) || !args->child) {
        problem(&c->p, "event %u: counter without args (json_parser_failure)",
                i);
        return;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, args)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
            problem(&c->p,
                    "event %u: counter value '%s' is not a number "
                    "(json_parser_failure)",
                    i, v->string);
            continue;
        }
        char *key = g_strdup_printf(
            "%u/%s %s", pid, cJSON_IsString(name) ? name->valuestring : "",
            v->string);
        First *f = g_hash_table_lookup(c->counters, key);
        if (!f) {
            f = g_new(First, 1);
            *f = (First){ts, i, v->valuedouble};
            g_hash_table_insert(c->counters, key, f);
        } else {
            g_free(key);
            if (ts < f->ts)
                *f = (First){ts, i, v->valuedouble};
        }
    }
}

/* One event of traceEvents (json_trace_tokenizer.cc
 * ParseTraceEventContents, then json_trace_parser.cc ParseJsonPacket). */
static void check_event(Check *c, guint i, const cJSON *e)
{
    if (!cJSON_IsObject(e)) {
        problem(&c->p, "event %u: not an object (json_tokenizer_failure)", i);
        return;
    }
    if (!e->child) /* "{}": skipped silently (ParseTraceEventContents) */
        return;
    const cJSON *ph = get(e, "ph");
    if (!cJSON_IsString(ph) || !ph->valuestring[0]) {
        problem(&c->p, "event %u: no \"ph\" (json_tokenizer_failure)", i);
        return;
    }
    char phase = ph->valuestring[0];
    if (strlen(ph->valuestring) != 1 || !strchr("XCiM", phase)) {
        problem(&c->p, "event %u: phase '%s' is not one hqsim writes", i,
                ph->valuestring);
        return;
    }
    guint32 pid = 0, tid = 0;
    if (!id_of(c, i, e, "pid", &pid) || !id_of(c, i, e, "tid", &tid))
        return;
    g_hash_table_add(c->pids_used, GUINT_TO_POINTER(pid));
    if (phase == 'M') { /* the only phase without ts */
        check_meta(c, i, e, pid, tid);
        return;
    }
    const cJSON *ts = get(e, "ts"), *dur = get(e, "dur");
    if (!cJSON_IsNumber(ts)) {
        problem(&c->p, "event %u: no numeric ts (json_tokenizer_failure)", i);
        return;
    }
    if (dur && !cJSON_IsNumber(dur)) {
        problem(&c->p,
                "event %u: dur is not a number "
                "(json_tokenizer_failure)",
                i);
        return;
    }
    gint64 t = to_ns(ts->valuedouble);
    if (t < 0)
        problem(&c->p, "event %u: ts %.3f us before the trace start", i,
                ts->valuedouble);
    if (phase == 'C') {
        check_counter(c, i, e, pid, t);
    } else if (phase == 'X') {
        if (!dur) {
            problem(&c->p,
                    "event %u: complete event without dur "
                    "(json_parser_failure)",
                    i);
            return;
        }
        gint64 d = to_ns(dur->valuedouble);
        if (d < 0) {
            problem(&c->p, "event %u: negative dur (slice_negative_duration)",
                    i);
            return;
        }
        add_to_track(c, track_key(pid, tid), t, d, i);
    } else { /* 'i': thread scope (s "t" or none) is a slice of dur 0 */
        const cJSON *s = get(e, "s");
        if (s && !(cJSON_IsString(s) && strchr("tpg", s->valuestring[0]) &&
                   s->valuestring[0] && !s->valuestring[1])) {
            problem(&c->p, "event %u: instant scope is not t, p or g", i);
            return;
        }
        if (!s || !strcmp(s->valuestring, "t"))
            add_to_track(c, track_key(pid, tid), t, 0, i);
    }
}

/* slice_tracker.cc MaybeCloseStack, for one track's events in the sorter's
 * order (ts, then file position): open slices that ended before the new
 * one, or at its start unless both are instants, are closed; a slice that
 * starts inside the innermost open one but ends after it is "partially
 * overlapping" (slice_spill_overlapping_complete_event: moved to an
 * overflow track and counted as an error); deeper than kMaxDepth is
 * slice_max_depth_exceeded. */
static void check_nesting(Check *c, gint64 key, GArray *a)
{
    g_array_sort(a, cmp_sl);
    g_autoptr(GArray) stack = g_array_new(FALSE, FALSE, sizeof(Sl));
    for (guint k = 0; k < a->len; k++) {
        const Sl *s = &g_array_index(a, Sl, k);
        while (stack->len) {
            const Sl *top = &g_array_index(stack, Sl, stack->len - 1);
            gint64 end = top->ts + top->dur;
            if (end < s->ts ||
                (end == s->ts && !(top->dur == 0 && s->dur == 0)))
                g_array_set_size(stack, stack->len - 1);
            else
                break;
        }
        if (stack->len) {
            const Sl *top = &g_array_index(stack, Sl, stack->len - 1);
            gint64 end = top->ts + top->dur;
            if (s->ts < end && s->ts + s->dur > end) {
                problem(&c->p,
                        "event %u on thread %u/%u overlaps event %u "
                        "without nesting "
                        "(slice_spill_overlapping_complete_event)",
                        s->idx, (guint32)(key >> 32), (guint32)key, top->idx);
                continue;
            }
        }
        if (stack->len >= MAX_DEPTH) {
            problem(&c->p,
                    "event %u: nested deeper than %u "
                    "(slice_max_depth_exceeded)",
                    s->idx, MAX_DEPTH);
            continue;
        }
        g_array_append_val(stack, *s);
    }
}

/* json_trace_tokenizer.cc Parse / HandleDictionaryKey: an object with a
 * "traceEvents" array (or a bare array).  "displayTimeUnit" counts
 * json_display_time_unit, and the 2021 UI read "ns" as ts in ns. */
static const cJSON *events_of(Check *c, const cJSON *root)
{
    if (cJSON_IsArray(root))
        return root;
    if (!cJSON_IsObject(root)) {
        problem(&c->p, "the file is neither an object nor an array");
        return NULL;
    }
    if (get(root, "displayTimeUnit"))
        problem(&c->p, "displayTimeUnit present (json_display_time_unit; "
                       "ui: the 2021 UI reads \"ns\" as ts in ns)");
    const cJSON *ev = get(root, "traceEvents");
    if (!cJSON_IsArray(ev)) {
        problem(&c->p, "traceEvents is not an array");
        return NULL;
    }
    return ev;
}

/* The rules of the whole file once every event was read. */
static void check_totals(Check *c)
{
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, c->tracks);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        gint64 key = *(gint64 *)k;
        check_nesting(c, key, v);
        /* hqsim: every track with slices is named. */
        if (!g_hash_table_contains(c->thread_names, &key))
            problem(&c->p, "thread %u/%u has events but no thread_name",
                    (guint32)(key >> 32), (guint32)key);
    }
    /* ui: a counter starts with 0 at ts 0 (the 2021 UI fails an assertion
     * drawing one whose first bucket holds only a non-zero sample at 0). */
    g_hash_table_iter_init(&it, c->counters);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        const First *f = v;
        if (f->ts != 0 || f->v != 0)
            problem(&c->p,
                    "counter %s starts with %g at %" G_GINT64_FORMAT
                    " ns, not 0 at 0",
                    (const char *)k, f->v, f->ts);
    }
    /* hqsim: every process group is named. */
    g_hash_table_iter_init(&it, c->pids_used);
    while (g_hash_table_iter_next(&it, &k, NULL))
        if (!g_hash_table_contains(c->pids_named, k))
            problem(&c->p, "pid %u has no process_name", GPOINTER_TO_UINT(k));
}

GPtrArray *sim_perfetto_check_text(const char *text, size_t len)
{
    Check c = {
        {g_ptr_array_new_with_free_func(g_free), 0},
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                              (GDestroyNotify)g_array_unref),
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free),
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
        g_hash_table_new(g_direct_hash, g_direct_equal),
        g_hash_table_new(g_direct_hash, g_direct_equal)};
    /* The tokenizer stops at the first malformed event ("Failure parsing
     * JSON") and rejects data after the end: one JSON value, nothing else. */
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        problem(&c.p, "not JSON near byte %ld (Failure parsing JSON)",
                end ? (long)(end - text) : -1L);
    } else {
        while (end < text + len && g_ascii_isspace(*end))
            end++;
        if (end < text + len && *end)
            problem(&c.p,
                    "data after the end of the JSON value at byte %ld "
                    "(tried to parse data after EOF)",
                    (long)(end - text));
        const cJSON *events = events_of(&c, root);
        guint i = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, events) check_event(&c, i++, e);
        check_totals(&c);
    }
    if (c.p.n > MAX_PROBLEMS)
        g_ptr_array_add(c.p.out,
                        g_strdup_printf("... %u problems in all", c.p.n));
    cJSON_Delete(root);
    g_hash_table_destroy(c.tracks);
    g_hash_table_destroy(c.thread_names);
    g_hash_table_destroy(c.counters);
    g_hash_table_destroy(c.pids_used);
    g_hash_table_destroy(c.pids_named);
    return c.p.out;
}

GPtrArray *sim_perfetto_check_file(const char *path, GError **error)
{
    size_t len = 0;
    g_autofree char *text = sim_read_file(path, &len, error);
    if (!text)
        return NULL;
    return sim_perfetto_check_text(text, len);
}
