/* rshmem-test
 * np: 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stderr: rshmem: shmem_int_sum_reduce (PE 2 of 4): collective arguments differ on team 0x
 * stderr: (world PEs 0 + i * 2, i < 2): team PE 1 (PE 2) calls shmem_int_sum_reduce, team PE 0 (PE 0) calls shmem_team_sync
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): On the team of the even PEs, PE 2 (team PE 1) reduces while PE 0 synchronises the team.
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

static int src[4], dst[4];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_team_t even;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, 2, NULL, 0, &even) != 0) return 3;
    if (me == 2)
        shmem_int_sum_reduce(even, dst, src, 4);
    else if (me == 0)
        shmem_team_sync(even);
    else
        return 0;
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
