/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_memput_signal (PE 0 of {np}): argument #1 'dest' = 0x
 * stderr: is not symmetric
 */
/* The semaphore object is opaque and is not memory RMA may write: shmemx_memput_signal
 * with the semaphore itself as the destination is a fatal error (not a write over its
 * count). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    if (me == 0) {
        unsigned long long big = 60000;
        shmemx_memput_signal(s, &big, sizeof big, s, 1, 0);
        fprintf(stderr, "FAIL: PE 0: shmemx_memput_signal onto the semaphore returned (tryN(60000) = %d)\n",
                shmemx_sem_tryN(s, 60000));
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
