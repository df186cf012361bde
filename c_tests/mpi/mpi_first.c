/* (a) The program starts MPI, then OpenSHMEM, uses both, and ends them in
 * the opposite order: rshmem uses the program's MPI and leaves MPI_Finalize
 * to it. */
#include "mixed.h"

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    shmem_init();
    mixed_exchange();
    shmem_finalize();
    int down = 0;
    MPI_OK(MPI_Finalized(&down));
    CHECK(!down, "shmem_finalize finalized the program's MPI");
    /* MPI still works after shmem_finalize. */
    int rank = -1, one = 1, sum = 0, size = 0;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size, "MPI_Allreduce after shmem_finalize gave %d", sum);
    MPI_OK(MPI_Finalize());
    if (rank == 0) printf("mpi_first: ok %d\n", size);
    return 0;
}
