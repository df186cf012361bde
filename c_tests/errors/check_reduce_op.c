/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stderr: rshmem: shmem_int_max_reduce (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes operation max (shmem_int_max_reduce), PE 0 passes operation sum (shmem_int_sum_reduce)
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 takes the maximum, the others the sum: unchecked, both return, with wrong results.
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

static int src[4], dst[4];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (me == 1)
        shmem_int_max_reduce(SHMEM_TEAM_WORLD, dst, src, 4);
    else
        shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
