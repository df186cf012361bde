/* rshmem-test
 * np: 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_team_split_2d (PE 1 of 4): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes xrange 1, PE 0 passes xrange 2
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 splits into rows of one PE, the others into rows of two.
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_team_t x, y;
    shmem_team_split_2d(SHMEM_TEAM_WORLD, me == 1 ? 1 : 2, NULL, 0, &x, NULL, 0, &y);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
