/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_team_split_2d (PE 1 of {np}): xrange is 1 here but parent team PE 0 passes xrange 2
 * timeout: 30
 */
/* Without SHMEM_CHECK_COLLECTIVES: PE 1 splits into rows of one PE, the others into rows
 * of two, so the PEs would disagree on who is in which row and column. The members
 * compare xrange with the parent's rank 0's at the split's agreement step: PE 1 reports
 * both values and ends the job. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_team_t x, y;
    shmem_team_split_2d(SHMEM_TEAM_WORLD, me == 1 ? 1 : 2, NULL, 0, &x, NULL, 0, &y);
    if (me == 1) {
        fprintf(stderr, "FAIL: PE 1 returned from a split whose arguments differ\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier after a split whose arguments differ\n", me);
    return 2;
}
