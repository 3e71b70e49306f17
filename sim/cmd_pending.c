/* cmd_pending.c -- TEMPORARY: commands whose implementation has not landed
 * yet.  Each is deleted from here when its real file arrives. */
#include <stdio.h>

#include "commands.h"

#define PENDING(fn, name)                                                     \
    int fn(int argc, char **argv)                                             \
    {                                                                         \
        (void)argc;                                                           \
        (void)argv;                                                           \
        fprintf(stderr, "hqsim: '%s' is not implemented yet\n", name);        \
        return 1;                                                             \
    }

PENDING(sim_cmd_sweep, "sweep")
