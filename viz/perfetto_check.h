/* perfetto_check.h -- does a Chrome Trace Event JSON file import into
 * Perfetto with zero errors?  A strict, offline re-statement of the rules
 * Perfetto's trace_processor applies to the JSON events hqsim writes
 * (viz/perfetto.c), so that `make check` can test every export without the
 * trace processor or a browser (CI has neither).  Each problem names the
 * trace_processor stat the event would count.  Sources, at Perfetto commit
 * ec5d16b14b74 (2026-08-22), src/trace_processor/:
 *   importers/json/json_trace_tokenizer.cc  top level, ph, ts, dur, pid, tid
 *   importers/json/json_trace_parser.cc     X, C, i, M events
 *   importers/common/slice_tracker.cc       nesting (MaybeCloseStack)
 *   sorter/trace_sorter.h                   order: ts, then file position
 * plus two rules of hqsim's own (marked "hqsim:") and two of the 2021
 * Perfetto UI (viz/perfetto-ui-check/README.md, marked "ui:").
 */
#ifndef SIM_PERFETTO_CHECK_H
#define SIM_PERFETTO_CHECK_H

#include <glib.h>

/* The problems in @text (@len bytes; need not be NUL-terminated), one
 * line each, at most 50 then a count; empty when the trace imports with
 * zero errors.  Returns: (transfer full). */
GPtrArray *sim_perfetto_check_text(const char *text, size_t len);

/* The same for a file, plain or gzip.  Returns: (transfer full)
 * (nullable): NULL with @error when it cannot be read. */
GPtrArray *sim_perfetto_check_file(const char *path, GError **error);

#endif /* SIM_PERFETTO_CHECK_H */
