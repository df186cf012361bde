/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_ctx_long_put (PE 0 of {np}): argument #1 'ctx' = 0x
 * stderr: is not a valid context
 */
/* PE 0 puts through a context it has destroyed; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

static long dst[4], src[4] = {1, 2, 3, 4};

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmem_ctx_t ctx;
        if (shmem_ctx_create(0, &ctx) != 0) {
            fprintf(stderr, "FAIL: shmem_ctx_create failed\n");
            return 2;
        }
        shmem_ctx_long_put(ctx, dst, src, 4, shmem_n_pes() - 1);
        shmem_ctx_quiet(ctx);
        shmem_ctx_destroy(ctx);
        shmem_ctx_long_put(ctx, dst, src, 4, shmem_n_pes() - 1);
        fprintf(stderr, "FAIL: a put through a destroyed context returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
