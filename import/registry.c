/* registry.c -- the importers' table (registry.h).
 *
 * Order matters for detection only: the native scenario is asked before
 * Kineto (both JSON), nvprof before nsys-csv (a quoted "Start", header
 * could satisfy both).
 */
#include <string.h>

#include "import.h"
#include "registry.h"

/* The native format: an object with "hqsim_scenario" near its start. */
static bool hqsim_json(const char *head, size_t len)
{
    return g_strstr_len(head, (gssize)len, "\"hqsim_scenario\"") != NULL;
}

const SimImporter sim_importers[] = {
    {.name = "hqsim",
     .detect_json = hqsim_json,
     .read_native = sim_scenario_load},
    {.name = "nvprof",
     .detect_line = sim_detect_nvprof_line,
     .read_text = sim_import_nvprof},
    {.name = "nsys-csv",
     .detect_line = sim_detect_nsys_csv_line,
     .read_text = sim_import_nsys_csv},
    {.name = "nsys-sqlite",
     .magic = "SQLite format 3", /* with its NUL: 16 bytes */
     .magic_len = 16,
     .detect_file = sim_detect_nsys_sqlite_file,
     .read_path = sim_import_nsys_sqlite},
    {.name = "ncu",
     .detect_line = sim_detect_ncu_line,
     .read_text = sim_import_ncu},
    {.name = "kineto",
     .detect_json = sim_detect_kineto_json,
     .read_text = sim_import_kineto},
};
const size_t sim_n_importers = G_N_ELEMENTS(sim_importers);

const SimImporter *sim_importer_find(const char *name)
{
    for (size_t i = 0; i < sim_n_importers; i++)
        if (strcmp(sim_importers[i].name, name) == 0)
            return &sim_importers[i];
    return NULL;
}

const char *const *sim_import_formats(void)
{
    static const char *names[G_N_ELEMENTS(sim_importers) + 1];
    static gsize done = 0;
    if (g_once_init_enter(&done)) {
        for (size_t i = 0; i < sim_n_importers; i++)
            names[i] = sim_importers[i].name;
        g_once_init_leave(&done, 1);
    }
    return names;
}
