/* rshmem-test
 * np: 2 4
 * exit: nonzero
 * timeout: 30
 * stdout-not: left the job
 */
/* A PE killed after its last shmem_finalize, before it exits: the job still ends,
 * non-zero, and no PE is left waiting. Under an MPI launcher the engine to other nodes
 * and MPI stay open past the last finalize (a later shmem_init needs them: MPI cannot
 * be initialised twice) and end collectively at exit, so the PEs that exit normally
 * wait there for the killed one until the launcher ends them. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_barrier_all();
    shmem_finalize();
    if (me == npes - 1)
        kill(getpid(), SIGKILL);
    if (me == 0) {
        /* past the killed PE's death: its peers exit normally after it */
        struct timespec ts = {0, 300 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return 0;
}
