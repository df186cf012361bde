/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_ctx_long_atomic_fetch_add (PE 0 of {np}):
 * stderr: argument #1 'ctx' is SHMEM_CTX_INVALID
 */
/* PE 0 does an atomic on SHMEM_CTX_INVALID; the other PEs wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

static long word;

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        long v = shmem_ctx_long_atomic_fetch_add(SHMEM_CTX_INVALID, &word, 1, 0);
        fprintf(stderr, "FAIL: an atomic on SHMEM_CTX_INVALID returned %ld\n", v);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
