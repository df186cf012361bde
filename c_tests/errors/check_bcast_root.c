/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stderr: rshmem: shmem_long_broadcast (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes PE_root 1, PE 0 passes PE_root 0
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 names another root than the others. Unchecked, PE 1 waits for a root that does not
 * send (or the two roots overwrite each other's dest).
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

static long src[4], dst[4];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 2, me == 1 ? 1 : 0);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
