/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_ctx_destroy (PE 0 of {np}): argument #1 'ctx'
 * stderr: the default context cannot be destroyed
 */
/* PE 0 destroys SHMEM_CTX_DEFAULT; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
        fprintf(stderr, "FAIL: shmem_ctx_destroy(SHMEM_CTX_DEFAULT) returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
