/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_ctx_create (PE 0 of {np}): argument #1 'options' is 0x401: has bits other than
 */
/* PE 0 creates a context with options SHMEM_CTX_PRIVATE | 1<<10, a bit the
 * specification does not define; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        int rc = shmem_ctx_create(SHMEM_CTX_PRIVATE | (1L << 10), &ctx);
        fprintf(stderr, "FAIL: shmem_ctx_create with an unknown option bit returned %d\n", rc);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
