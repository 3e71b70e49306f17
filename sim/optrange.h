/* optrange.h -- the one table of command-line option ranges.
 *
 * Every numeric option of every command (and every number in a list option
 * such as `sweep --processes 1-8` or `--mem-mib NAME=MIB`) is parsed and
 * checked here, against its row: a value outside the row's range -- 0
 * processes, 0 connections, a thread percentage of 0, inf, nan, a number
 * too large for its type -- is a usage error naming the option, the value
 * and the range; `--help` shows the same range (sim_cli_parse appends it).
 * A numeric option without a row is a programming error that
 * sim_cli_parse reports at once (tests/test_e2e_options.c runs every
 * command's --help).
 */
#ifndef SIM_OPTRANGE_H
#define SIM_OPTRANGE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    const char *name; /* long option name, without "--" */
    double min, max;  /* inclusive, except min when min_open */
    bool min_open;    /* min itself is outside the range */
    bool integer;     /* whole numbers only */
} SimOptRange;

/* The row of option @name, or NULL.  Returns: (transfer none). */
const SimOptRange *sim_opt_range(const char *name);

/* "1-4096", "(0, 100]", "0-1e+06": the range as --help and errors show it.
 * Returns: (transfer full). */
char *sim_opt_range_text(const SimOptRange *r);

/* Parse @s (the whole string, surrounding blanks allowed) as a value of
 * option @name and check it against its row.  Fails with SIM_ERROR_USAGE
 * naming the option, the value and the range. */
bool sim_opt_parse_double(const char *name, const char *s, double *out,
                          GError **error);
bool sim_opt_parse_int64(const char *name, const char *s, int64_t *out,
                         GError **error);

/* The rows, for tests and documentation.  Returns: (transfer none). */
const SimOptRange *sim_opt_ranges(size_t *n);

#endif /* SIM_OPTRANGE_H */
