/* The program ends MPI before OpenSHMEM: the spec's interoperability annex
 * allows the finalization calls in any order. rshmem finalizes itself inside
 * MPI_Finalize, so the later shmem_finalize has nothing left to do. It starts
 * MPI first, or with the argument `shmem-first` lets shmem_init start it
 * (guarding MPI_Init with MPI_Initialized), and MPI_Finalize is then the
 * program's: rshmem leaves it to the call under way. */
#include <string.h>

#include "mixed.h"

int main(int argc, char **argv) {
    int shmem_first = argc > 1 && strcmp(argv[1], "shmem-first") == 0, up = 0;
    if (shmem_first) shmem_init();
    MPI_OK(MPI_Initialized(&up));
    CHECK(up == shmem_first, "MPI_Initialized is %d", up);
    if (!up) MPI_OK(MPI_Init(&argc, &argv));
    if (!shmem_first) shmem_init();
    mixed_exchange();
    int me = shmem_my_pe(), n = shmem_n_pes();
    MPI_OK(MPI_Finalize());
    shmem_finalize();
    int down = 0;
    MPI_OK(MPI_Finalized(&down));
    CHECK(down, "MPI_Finalized is false after MPI_Finalize");
    if (me == 0) printf("mpi_ends_first: ok %d\n", n);
    return 0;
}
