/* rshmem-test
 * np: 2 4 8
 * exit: 5
 * stdout-not: left a barrier
 * stderr: exited with status 5 before shmem_finalize
 */
/* The last PE calls exit(5) without shmem_finalize while the others wait in a barrier:
 * the job ends with that status and the launcher says why. The exiting PE must not
 * complete the others' barrier on its way out. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == shmem_n_pes() - 1)
        exit(5);
    shmem_barrier_all();
    printf("FAIL: PE %d left a barrier the exited PE never entered\n", shmem_my_pe());
    shmem_finalize();
    return 2;
}
