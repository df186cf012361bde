/* rshmem-test
 * np: 2 4 8
 * exit: 137
 * stderr: killed by signal 9 (SIGKILL) before shmem_finalize
 * stdout-not: left a barrier
 */
/* kill -9 of one PE while the others wait in a barrier: oshrun names the PE and the
 * signal, ends the others, exits 128+9, and nothing is left in /dev/shm (the harness
 * checks after every run). */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_barrier_all();
    if (me == npes / 2)
        kill(getpid(), SIGKILL);
    shmem_barrier_all();
    printf("PE %d left a barrier it should never leave\n", me);
    shmem_finalize();
    return 0;
}
