/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_iput64 (PE 0 of {np}): argument #2 'source' is NULL: a NULL pointer where the routine needs a buffer
 */
/* A strided put from a NULL source with elements to move is a named error. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t dst[4];

int main(void) {
    shmem_init();
    int pe = (shmem_my_pe() + 1) % shmem_n_pes();
    /* NULL with nothing to move is legal (and moves nothing). */
    shmem_iput64(dst, NULL, 1, 1, 0, pe);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        shmem_iput64(dst, NULL, 1, 1, 2, pe);
        fprintf(stderr, "FAIL: shmem_iput64 with a NULL local buffer returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
