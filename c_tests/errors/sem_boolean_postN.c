/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_sem_postN (PE 0 of {np}): argument #2 'n' is 2, but the semaphore is boolean
 */
/* postN with n = 2 on a boolean semaphore, by PE 0 to the last PE (at np 1, to itself),
 * after postN(1) and postN(0) were accepted: a fatal error on PE 0. The other PEs wait
 * in a barrier until the launcher ends the job. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_sem_t *b = shmemx_sem_alloc(SHMEMX_SEM_BOOLEAN);
    if (me == 0) {
        shmemx_sem_postN(b, 1, npes - 1);
        shmemx_sem_postN(b, 0, npes - 1);
        shmemx_sem_postN(b, 2, npes - 1);
        fprintf(stderr, "FAIL: PE 0: shmemx_sem_postN(boolean, 2) returned\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
