/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stderr: rshmem: shmem_long_broadcast (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 calls shmem_long_broadcast, PE 0 calls shmem_barrier_all
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 broadcasts while the others meet in shmem_barrier_all: unchecked, the job hangs.
 * Checked, both kinds first gather the same record, so they are told apart.
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

static long src[4], dst[4];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (me == 1)
        shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 2, 0);
    else
        shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
