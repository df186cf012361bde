/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_long_alltoalls (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes sst 2, PE 0 passes sst 1
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 reads its source with stride 2, the others with stride 1 (the strides must agree).
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

static long src[64], dst[64];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_long_alltoalls(SHMEM_TEAM_WORLD, dst, src, 1, me == 1 ? 2 : 1, 2);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
