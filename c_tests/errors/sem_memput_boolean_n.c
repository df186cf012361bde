/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_memput_signal_async (PE 0 of {np}): argument #5 'n' is 2, but the semaphore is boolean
 */
/* shmemx_memput_signal_async with n = 2 on a boolean semaphore: the same refusal as
 * postN's, naming argument #5. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

static long buf[4];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmemx_sem_t *b = shmemx_sem_alloc(SHMEMX_SEM_BOOLEAN);
    if (me == 0) {
        long src[4] = {1, 2, 3, 4};
        shmemx_memput_signal_async(buf, src, sizeof src, b, 1, 0);
        shmem_quiet();
        shmemx_sem_wait(b);
        shmemx_memput_signal_async(buf, src, sizeof src, b, 2, 0);
        fprintf(stderr, "FAIL: PE 0: shmemx_memput_signal_async(n = 2) on a boolean semaphore returned\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
