/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_float_sum_reduce (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 calls shmem_float_sum_reduce, PE 0 calls shmem_int_sum_reduce
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 sums floats, the others ints of the same size: unchecked, the sums are garbage.
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

static int src[4], dst[4];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (me == 1)
        shmem_float_sum_reduce(SHMEM_TEAM_WORLD, (float *)dst, (float *)src, 4);
    else
        shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
