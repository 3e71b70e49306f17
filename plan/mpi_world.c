/* mpi_world.c -- MPI for distributed sweeps, entered only under mpirun.
 * See mpi_world.h.  HQSIM_HAVE_MPI is set by the Makefile when `pkg-config ompi-c`
 * finds Open MPI. */
#include "mpi_world.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#ifndef HQSIM_HAVE_MPI
#define HQSIM_HAVE_MPI 0
#endif
#if HQSIM_HAVE_MPI
#include <mpi.h>
#endif

static const char *const launcher_vars[] = {"OMPI_COMM_WORLD_SIZE",
                                            "PMIX_RANK"};

bool sim_mpi_launched(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(launcher_vars); i++)
        if (g_getenv(launcher_vars[i]))
            return true;
    return false;
}

static uint32_t env_u32(const char *name, uint32_t dflt)
{
    const char *s = g_getenv(name);
    guint64 v = 0;
    if (s && g_ascii_string_to_unsigned(s, 10, 1, 1u << 20, &v, NULL))
        return (uint32_t)v;
    return dflt;
}

#if HQSIM_HAVE_MPI

static void mpi_error(GError **error, const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "MPI: %s: %s", what, msg);
}

bool sim_mpi_init(SimMpiWorld *w, GError **error)
{
    memset(w, 0, sizeof *w);
    w->size = 1;
    w->local_size = 1;
    if (!sim_mpi_launched())
        return true;
    int provided = 0;
    int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO,
                    "MPI: initialisation failed (%d)", rc);
        return false;
    }
    w->active = true;
    /* Return errors instead of aborting the job, so messages say what. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);
    w->local_size = env_u32("OMPI_COMM_WORLD_LOCAL_SIZE", 1);
    return true;
}

void sim_mpi_finalize(SimMpiWorld *w)
{
    if (w->active)
        MPI_Finalize();
    w->active = false;
}

bool sim_mpi_all(const SimMpiWorld *w, bool ok)
{
    if (!w->active)
        return ok;
    int mine = ok ? 1 : 0, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        return false;
    return all != 0;
}

bool sim_mpi_root_bool(const SimMpiWorld *w, bool value)
{
    if (!w->active)
        return value;
    int v = value ? 1 : 0;
    if (MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return false;
    return v != 0;
}

GByteArray *sim_mpi_gather(const SimMpiWorld *w, const guint8 *data, size_t len,
                           GError **error)
{
    GByteArray *out = g_byte_array_new();
    if (!w->active) {
        uint64_t n = len;
        g_byte_array_append(out, (const guint8 *)&n, sizeof n);
        g_byte_array_append(out, data, (guint)len);
        return out;
    }
    /* MPI counts are ints.  A rank's share of a sweep is far below 2 GiB
     * (a row is a few hundred bytes), but say so rather than wrap: a rank
     * over the limit sends -1, and rank 0 calls the gather off for all. */
    int mine = len <= INT_MAX ? (int)len : -1;
    int *counts = NULL, *displs = NULL;
    if (w->rank == 0) {
        counts = g_new0(int, w->size);
        displs = g_new0(int, w->size);
    }
    int rc =
        MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int go = rc == MPI_SUCCESS;
    uint64_t total = 0;
    if (w->rank == 0 && go) {
        for (int r = 0; r < w->size; r++) {
            if (counts[r] < 0)
                go = 0;
            displs[r] = (int)MIN(total, (uint64_t)INT_MAX);
            total += (uint64_t)MAX(counts[r], 0);
        }
        if (total > INT_MAX)
            go = 0;
    }
    if (MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        go = 0;
    guint8 *buf = w->rank == 0 && go ? g_malloc(MAX(total, 1)) : NULL;
    if (go)
        rc = MPI_Gatherv(data, mine, MPI_BYTE, buf, counts, displs, MPI_BYTE, 0,
                         MPI_COMM_WORLD);
    if (!go || rc != MPI_SUCCESS) {
        if (rc != MPI_SUCCESS)
            mpi_error(error, "gathering sweep results", rc);
        else
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                        "MPI: the sweep's results exceed 2 GiB; split the "
                        "sweep");
        g_free(buf);
        g_free(counts);
        g_free(displs);
        g_byte_array_unref(out);
        return NULL;
    }
    for (int r = 0; w->rank == 0 && r < w->size; r++) {
        uint64_t n = (uint64_t)counts[r];
        g_byte_array_append(out, (const guint8 *)&n, sizeof n);
        g_byte_array_append(out, buf + displs[r], (guint)counts[r]);
    }
    g_free(buf);
    g_free(counts);
    g_free(displs);
    return out;
}

#else /* !HQSIM_HAVE_MPI */

bool sim_mpi_init(SimMpiWorld *w, GError **error)
{
    memset(w, 0, sizeof *w);
    w->size = 1;
    w->local_size = 1;
    if (sim_mpi_launched() && env_u32("OMPI_COMM_WORLD_SIZE", 1) > 1) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "started by mpirun, but this hqsim was built without "
                    "MPI (install libopenmpi-dev and rebuild)");
        return false;
    }
    return true;
}

void sim_mpi_finalize(SimMpiWorld *w)
{
    w->active = false;
}

bool sim_mpi_all(const SimMpiWorld *w, bool ok)
{
    (void)w;
    return ok;
}

bool sim_mpi_root_bool(const SimMpiWorld *w, bool value)
{
    (void)w;
    return value;
}

GByteArray *sim_mpi_gather(const SimMpiWorld *w, const guint8 *data, size_t len,
                           GError **error)
{
    (void)w;
    (void)error;
    GByteArray *out = g_byte_array_new();
    uint64_t n = len;
    g_byte_array_append(out, (const guint8 *)&n, sizeof n);
    g_byte_array_append(out, data, (guint)len);
    return out;
}

#endif /* HQSIM_HAVE_MPI */
