/* (c) The program starts OpenSHMEM first. The spec's interoperability annex
 * asks a hybrid program to initialise MPI with MPI_Init and finalize it with
 * MPI_Finalize, in any order with shmem_init/shmem_finalize; since MPI_Init
 * may be called only once, a program that starts OpenSHMEM first guards it
 * with MPI_Initialized, and MPI_Finalize with MPI_Finalized (as OSHMPI's
 * tests do). With rshmem under an MPI launcher, shmem_init has started MPI
 * (so the guard skips MPI_Init) and shmem_finalize ends it (so the guard
 * skips MPI_Finalize): the library that started MPI finalizes it. */
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
    CHECK(down, "shmem_finalize left MPI running, but rshmem started it");
    if (!down) MPI_OK(MPI_Finalize());
    if (me == 0) printf("shmem_first: ok %d\n", size);
    return 0;
}
