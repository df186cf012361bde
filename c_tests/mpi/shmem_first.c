/* (c) The program starts OpenSHMEM first. The spec's interoperability annex
 * asks a hybrid program to initialise MPI with MPI_Init and finalize it with
 * MPI_Finalize, in any order with shmem_init/shmem_finalize; since MPI_Init
 * may be called only once, a program that starts OpenSHMEM first guards it
 * with MPI_Initialized, and MPI_Finalize with MPI_Finalized (as OSHMPI's
 * tests do). With rshmem under an MPI launcher, shmem_init has started MPI
 * (so the guard skips MPI_Init). shmem_finalize leaves it running: OpenSHMEM
 * 1.6 lets a program call shmem_init again, and MPI cannot be initialised
 * twice in a process. Here the program initialises OpenSHMEM a second time
 * (MPI still works in between), and its guarded MPI_Finalize ends MPI, rshmem
 * ending its own use of MPI first, inside that MPI_Finalize; a program that
 * does not call it has MPI finalized by rshmem at exit. */
#include "mixed.h"

int main(int argc, char **argv) {
    shmem_init();
    int up = 0;
    MPI_OK(MPI_Initialized(&up));
    CHECK(up, "MPI_Initialized is false after shmem_init under an MPI launcher");
    if (!up) MPI_OK(MPI_Init(&argc, &argv));
    int level = -1;
    MPI_OK(MPI_Query_thread(&level));
    CHECK(level >= MPI_THREAD_SERIALIZED, "MPI thread level %d", level);
    mixed_exchange();
    int size = 0;
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int me = shmem_my_pe();
    shmem_finalize();
    int down = 0;
    MPI_OK(MPI_Finalized(&down));
    CHECK(!down, "shmem_finalize ended MPI: a later shmem_init could not start again");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    shmem_init();
    CHECK(shmem_my_pe() == me, "PE %d after shmem_init again, was %d", shmem_my_pe(), me);
    mixed_counter = 0;
    shmem_barrier_all();
    mixed_exchange();
    shmem_finalize();
    MPI_OK(MPI_Finalized(&down));
    if (!down) MPI_OK(MPI_Finalize());
    MPI_OK(MPI_Finalized(&down));
    CHECK(down, "MPI_Finalize left MPI running");
    if (me == 0) printf("shmem_first: ok %d\n", size);
    return 0;
}
