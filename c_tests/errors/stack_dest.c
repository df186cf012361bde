/* rshmem-test
 * np: 1 2 4 8
 * exit: 1
 * stderr: rshmem: shmem_long_put (PE 0 of {np}): argument #1 'dest' = 0x
 * stderr: is not symmetric
 */
/* PE 0 uses a stack array as the destination of a put: it has no counterpart on the
 * other PEs, which is a fatal usage error (the message shows its address). */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (me == 0) {
        long dest[4] = {0};
        long src[4] = {1, 2, 3, 4};
        shmem_long_put(dest, src, 4, (me + 1) % shmem_n_pes());
        fprintf(stderr, "FAIL: a put to a stack array returned (%ld)\n", dest[0]);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
