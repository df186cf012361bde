/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_memput_signal (PE 0 of {np}): argument #1 'dest' = 0x
 * stderr: is not symmetric (neither in the symmetric heap nor in the program's global data) for the 64 bytes accessed
 */
/* shmemx_memput_signal to a stack buffer, which no other PE has: a fatal error before
 * anything is written or posted (a put to a heap buffer just before is fine). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    char *heap = shmem_malloc(64);
    if (me == 0) {
        char src[64], dest[64];
        memset(src, 7, sizeof src);
        shmemx_memput_signal(heap, src, sizeof src, s, 1, npes - 1);
        shmemx_memput_signal(dest, src, sizeof src, s, 1, npes - 1);
        fprintf(stderr, "FAIL: PE 0: shmemx_memput_signal to a stack buffer returned (dest[0] = %d)\n", dest[0]);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
