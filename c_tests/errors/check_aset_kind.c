/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_barrier (PE 1 of {np}): collective arguments differ on the active set PE_start 0, logPE_stride 0, PE_size {np}: PE 1 calls shmem_barrier, PE 0 calls shmem_fcollect64
 * timeout: 30
 */
/* Checked collective arguments on an active set: PE 1 calls shmem_barrier
 * where the others call shmem_fcollect64 on the same set. Unchecked, the
 * calls meet on the pSync and corrupt each other; checked, the kinds differ. */
#include <shmem.h>
#include <stdio.h>

static long src[1], dst[16];
static long psync[SHMEM_COLLECT_SYNC_SIZE];

int main(void) {
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (me == 1)
        shmem_barrier(0, 0, n, psync);
    else
        shmem_fcollect64(dst, src, 1, 0, 0, n, psync);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
