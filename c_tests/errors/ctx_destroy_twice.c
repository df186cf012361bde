/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_ctx_destroy (PE 0 of {np}): argument #1 'ctx' = 0x
 * stderr: is not a valid context
 */
/* PE 0 destroys the same context twice; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmem_ctx_t ctx;
        if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
            fprintf(stderr, "FAIL: shmem_ctx_create failed\n");
            return 2;
        }
        shmem_ctx_destroy(ctx);
        shmem_ctx_destroy(ctx);
        fprintf(stderr, "FAIL: destroying a context twice returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
