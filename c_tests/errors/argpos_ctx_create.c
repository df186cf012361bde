/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_ctx_create (PE 0 of {np}): argument #2 'ctx' is NULL
 */
/* Argument positions come from the prototype: shmem_ctx_create(options, ctx) has two
 * arguments, and a NULL ctx is argument #2 (a "shmem_ctx_" name does not mean that a
 * context comes first). PE 0 passes NULL; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        int rc = shmem_ctx_create(0, NULL);
        fprintf(stderr, "FAIL: shmem_ctx_create(0, NULL) returned %d\n", rc);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
