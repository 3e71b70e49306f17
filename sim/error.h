/* error.h -- the GError domain shared by hqsim's modules.
 *
 * Errors are detected low (the loader that reads the bad field, the engine
 * that finds the deadlock), carried up as GError, and reported once, by
 * main().  Messages name the file, line and field when there is one:
 *     "scenario.json:14: process 'a' op 3: field 'grid': must be >= 1"
 * Bugs are not errors: they are g_assert()s.
 */
#ifndef SIM_ERROR_H
#define SIM_ERROR_H

#include <glib.h>

#define SIM_ERROR (sim_error_quark())
GQuark sim_error_quark(void);

typedef enum {
    SIM_ERROR_IO,          /* cannot read or write a file */
    SIM_ERROR_PARSE,       /* not well-formed: bad JSON, CSV, gzip, UTF-8 */
    SIM_ERROR_INVALID,     /* well-formed but wrong: missing, unknown or
                              out-of-range field */
    SIM_ERROR_UNSUPPORTED, /* valid but not something hqsim models */
    SIM_ERROR_DEADLOCK,    /* the scenario can never finish */
    SIM_ERROR_NOFIT,       /* a kernel fits on no SM */
    SIM_ERROR_USAGE,       /* bad command line */
    SIM_ERROR_LIMIT,       /* asks for more than a stated limit
                              (sim/bounds.h; --limit NAME=N raises it) */
    SIM_ERROR_CANCELLED,   /* stopped by its progress hook (the C API's
                              caller) */
} SimErrorCode;

#endif /* SIM_ERROR_H */
