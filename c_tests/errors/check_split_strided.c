/* rshmem-test
 * np: 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_team_split_strided (PE 1 of 4): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes stride 1, PE 0 passes stride 2
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 splits with stride 1, the others with stride 2 (PEs 1 and 3 join no team, but call
 * the split with the same arguments all the same).
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, me == 1 ? 1 : 2, 2, NULL, 0, &t);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
