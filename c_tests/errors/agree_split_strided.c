/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_team_split_strided (PE 1 of {np}): size is 1 here but parent team PE 0 passes size {np}
 * timeout: 30
 */
/* Without SHMEM_CHECK_COLLECTIVES: PE 1 splits off a team of itself alone, the others a
 * team of every PE: PE 0 would get a team that PE 1 is not in, and PE 1 a team of its
 * own, silently. Every PE of the parent publishes its start, stride and size before the
 * split's first barrier, and compares them with the parent's rank 0's after it (the
 * split's agreement step): PE 1 reports both values and ends the job; the PEs that
 * agree with rank 0 go on and wait in a barrier until it ends. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, me == 1 ? 1 : npes, NULL, 0, &t);
    if (me == 1) {
        fprintf(stderr, "FAIL: PE 1 returned from a split whose arguments differ\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier after a split whose arguments differ\n", me);
    return 2;
}
