/* rshmem-test
 * np: 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_sem_postN (PE 1 of {np}): posting 65535 raised the semaphore on PE 0 to 131070, above SHMEMX_SEM_MAXVALUE (65535)
 */
/* PE 1 posts SHMEMX_SEM_MAXVALUE units twice to PE 0, which never waits (it sits in a
 * barrier): the first post fills PE 0's copy exactly to the maximum, which is allowed;
 * the second raises it above: a fatal error on the posting PE. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    if (me == 1) {
        shmemx_sem_postN(s, SHMEMX_SEM_MAXVALUE, 0);
        shmemx_sem_postN(s, SHMEMX_SEM_MAXVALUE, 0);
        fprintf(stderr, "FAIL: PE 1: a second shmemx_sem_postN(65535) to PE 0 returned\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
