/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_int_collect (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes elements of 4 bytes (shmem_int_collect), PE 0 passes elements of 8 bytes (shmem_long_collect)
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): collect's nelems may differ between PEs, its element type may not: PE 1 gathers ints,
 * the others longs.
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

static long src[2], dst[64];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (me == 1)
        shmem_int_collect(SHMEM_TEAM_WORLD, (int *)dst, (int *)src, 2);
    else
        shmem_long_collect(SHMEM_TEAM_WORLD, dst, src, 1);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
