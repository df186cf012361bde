/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_sem_post (PE 0 of {np}): argument #1 'sem' = 0x
 * stderr: is not a semaphore (one returned by shmemx_sem_alloc or shmemx_team_sem_alloc and not yet freed)
 */
/* Every PE frees a semaphore (collective), then PE 0 posts to it: a fatal error, not a
 * write into memory that no longer holds a semaphore. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    shmemx_sem_post(s, me);
    shmemx_sem_wait(s);
    shmemx_sem_free(s);
    if (me == 0) {
        shmemx_sem_post(s, 0);
        fprintf(stderr, "FAIL: PE 0: shmemx_sem_post on a freed semaphore returned\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
