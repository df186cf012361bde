/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_ctx_int_put (PE 0 of {np}): argument #1 'ctx' is SHMEM_CTX_INVALID
 */
/* PE 0 puts through SHMEM_CTX_INVALID; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

static int dst[2], src[2] = {5, 6};

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmem_ctx_int_put(SHMEM_CTX_INVALID, dst, src, 2, shmem_n_pes() - 1);
        fprintf(stderr, "FAIL: a put through SHMEM_CTX_INVALID returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
