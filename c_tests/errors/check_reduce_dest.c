/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_long_sum_reduce (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes dest at symmetric offset 0x
 * stderr: , PE 0 passes dest at symmetric offset 0x
 * timeout: 30
 */
/* OpenSHMEM 1.6 requires a reduction's dest (and source) to be the same symmetric object
 * on every PE; with SHMEM_CHECK_COLLECTIVES=1 the offsets are compared. PE 1 reduces into
 * the second half of the destination array, the others into the first: the first PE that
 * differs from PE 0 reports both offsets and nobody returns. */
#include <shmem.h>
#include <stdio.h>

static long src[4], dst[8];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, me == 1 ? dst + 4 : dst, src, 4);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
