/* mpi_world.h -- the little of MPI a distributed sweep needs: who am I, did
 * every rank get this far, and gather everyone's bytes on rank 0.  (Not
 * "mpi.h": that name is Open MPI's own header.)
 *
 * MPI is entered only when the program was started by an MPI launcher
 * (mpirun sets OMPI_COMM_WORLD_SIZE; PMIx launchers set PMIX_RANK), so a
 * plain `hqsim sweep`, the tests, ASan and valgrind never initialise Open
 * MPI.  Without MPI at build time (no `pkg-config ompi-c`), the same API
 * reports a world of one, and refuses to run as one rank of several rather
 * than let every rank run the whole sweep and write the same files.
 *
 * Only the calling (main) thread may use this module: MPI is initialised
 * with MPI_THREAD_FUNNELED.
 */
#ifndef SIM_MPI_WORLD_H
#define SIM_MPI_WORLD_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    bool active;         /* MPI was initialised (finalize it) */
    int rank;            /* 0 when not active */
    int size;            /* 1 when not active */
    uint32_t local_size; /* ranks on this host (for thread defaults) */
} SimMpiWorld;

/* Whether this process was started by an MPI launcher. */
bool sim_mpi_launched(void);

/* Initialise MPI if launched by mpirun, else fill a world of one.  Fails
 * if launched as one of several ranks by a binary built without MPI. */
bool sim_mpi_init(SimMpiWorld *w, GError **error);

/* Finalize MPI if sim_mpi_init started it. */
void sim_mpi_finalize(SimMpiWorld *w);

/* Collective: TRUE if @ok on every rank (a logical AND).  Ranks that failed
 * locally call this too, so nobody waits forever in a later collective. */
bool sim_mpi_all(const SimMpiWorld *w, bool ok);

/* Collective: rank 0's @value on every rank. */
bool sim_mpi_root_bool(const SimMpiWorld *w, bool value);

/* Collective: every rank's @len bytes, concatenated in rank order, on rank
 * 0 (each prefixed by its length as a uint64_t); other ranks get an empty
 * array.  Returns: (transfer full) (nullable). */
GByteArray *sim_mpi_gather(const SimMpiWorld *w, const guint8 *data, size_t len,
                           GError **error);

#endif /* SIM_MPI_WORLD_H */
