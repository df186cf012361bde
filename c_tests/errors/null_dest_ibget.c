/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_ctx_long_ibget (PE 0 of {np}): argument #2 'dest' is NULL: a NULL pointer where the routine needs a buffer
 */
/* A block-strided get into a NULL destination with blocks to move is a named error. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static long src[8];

int main(void) {
    shmem_init();
    int pe = (shmem_my_pe() + 1) % shmem_n_pes();
    /* NULL with nothing to move is legal (and moves nothing). */
    shmem_ctx_long_ibget(SHMEM_CTX_DEFAULT, NULL, src, 2, 2, 1, 0, pe);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        shmem_ctx_long_ibget(SHMEM_CTX_DEFAULT, NULL, src, 2, 2, 1, 3, pe);
        fprintf(stderr, "FAIL: shmem_ctx_long_ibget with a NULL local buffer returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
