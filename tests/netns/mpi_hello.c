/* Validates the two-namespace setup before rshmem is involved: each rank says
 * where it runs and how many ranks share its node (MPI_COMM_TYPE_SHARED). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int rank, size, local;
    char host[256] = "";
    MPI_Comm node;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    gethostname(host, sizeof host - 1);
    printf("rank %d of %d on %s with %d on the node\n", rank, size, host, local);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
