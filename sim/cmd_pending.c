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

PENDING(sim_cmd_import, "import")
PENDING(sim_cmd_validate, "validate")

#include "viz.h"
#include "error.h"
gboolean sim_viz_perfetto(SimResult *const *runs, uint32_t n,
                          const GpuModel *m, const SimScenario *sc,
                          const char *path, GError **error)
{
    (void)runs; (void)n; (void)m; (void)sc; (void)path;
    g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                "--perfetto is not implemented yet");
    return FALSE;
}
gboolean sim_viz_report(SimResult *const *runs, uint32_t n, const GpuModel *m,
                        const SimScenario *sc, const char *path,
                        GError **error)
{
    (void)runs; (void)n; (void)m; (void)sc; (void)path;
    g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                "--report is not implemented yet");
    return FALSE;
}
