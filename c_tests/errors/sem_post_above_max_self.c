/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_sem_post (PE 0 of {np}): posting 1 raised the semaphore on PE 0 to 65536, above SHMEMX_SEM_MAXVALUE (65535)
 */
/* PE 0 fills its own copy to SHMEMX_SEM_MAXVALUE with postN (allowed), then one post:
 * a fatal error, by shmemx_sem_post this time. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    if (me == 0) {
        shmemx_sem_postN(s, SHMEMX_SEM_MAXVALUE - 1, 0);
        shmemx_sem_post(s, 0);
        shmemx_sem_post(s, 0);
        fprintf(stderr, "FAIL: PE 0: a post to a semaphore at SHMEMX_SEM_MAXVALUE returned\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
