/* rshmem-test
 * np: 4
 * exit: 1
 * stderr: rshmem: shmem_team_split_strided (PE 1 of 4): stride is 1 here but parent team PE 0 passes stride 2
 * timeout: 30
 */
/* Without SHMEM_CHECK_COLLECTIVES: PE 1 splits with stride 1, the others with stride 2
 * (PEs 1 and 3 join no team, but call the split all the same): PE 1 would join a team
 * {0, 1} that nobody else has. It is told at the split's agreement step, where the
 * members compare their arguments with the parent's rank 0's. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, me == 1 ? 1 : 2, 2, NULL, 0, &t);
    if (me == 1) {
        fprintf(stderr, "FAIL: PE 1 returned from a split whose arguments differ\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier after a split whose arguments differ\n", me);
    return 2;
}
