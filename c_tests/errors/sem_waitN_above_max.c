/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_sem_waitN (PE 0 of {np}): argument #2 'n' is 70000, above SHMEMX_SEM_MAXVALUE (65535)
 */
/* waitN for more than SHMEMX_SEM_MAXVALUE units can never succeed: a fatal error at
 * once, not a wait forever (the semaphore holds 5, and waitN(5) before it was fine). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    if (me == 0) {
        shmemx_sem_postN(s, 10, 0);
        shmemx_sem_waitN(s, 5);
        shmemx_sem_waitN(s, 70000);
        fprintf(stderr, "FAIL: PE 0: shmemx_sem_waitN(70000) returned\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
