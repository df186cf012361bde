/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_sem_try (PE 0 of {np}): argument #1 'sem' = 0x
 * stderr: is not a semaphore
 */
/* A semaphore allocated before shmem_finalize is gone after a second shmem_init: using
 * its old pointer is a fatal error (nothing was allocated in the new initialisation,
 * so no new semaphore sits at the old address). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    shmemx_sem_post(s, shmem_my_pe());
    shmem_finalize();

    shmem_init();
    int me = shmem_my_pe();
    if (me == 0) {
        int r = shmemx_sem_try(s);
        fprintf(stderr, "FAIL: PE 0: shmemx_sem_try on a semaphore of the earlier initialisation returned %d\n", r);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
