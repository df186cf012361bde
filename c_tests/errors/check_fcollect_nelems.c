/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_int_fcollect (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes nelems 1, PE 0 passes nelems 2
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 gathers one int per PE, the others two.
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

static int src[2], dst[64];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_int_fcollect(SHMEM_TEAM_WORLD, dst, src, me == 1 ? 1 : 2);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
