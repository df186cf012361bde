/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_broadcast64 (PE 1 of {np}): nelems gives 16 bytes here but the root (PE 0) broadcasts 8 bytes on this pSync
 */
/* PEs that disagree on nelems: the root broadcasts one long, PE 1 expects two. An eager
 * broadcast's message carries its length, so PE 1 is told instead of taking a message
 * of another size (or waiting for bytes that never come). The other PEs agree with the
 * root and return. */
#include <shmem.h>
#include <stdio.h>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

static long psync[SHMEM_BCAST_SYNC_SIZE];
static long src[2], dst[2];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    src[0] = 41;
    src[1] = 42;
    shmem_barrier_all();
    shmem_broadcast64(dst, src, me == 1 ? 2 : 1, 0, 0, 0, shmem_n_pes(), psync);
    if (me == 1) {
        fprintf(stderr, "FAIL: PE 1 returned from a broadcast of another length (dst = %ld %ld)\n", dst[0], dst[1]);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
