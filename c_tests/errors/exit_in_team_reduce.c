/* rshmem-test
 * np: 4
 * exit: 1
 * timeout: 20
 * stdout-not: reduced
 * stderr: the job can never finish: PE 2 is in shmem_finalize (at exit); PE 3 is in shmem_finalize; PEs 0, 1 are in shmem_int_sum_reduce
 */
/* A reduction on a team of PEs 0, 1 and 2: PE 2 returns from main instead, and PE 3 (not
 * a member) calls shmem_finalize. PEs 0 and 1 can never finish their reduction: the job
 * ends with one message naming every PE and where it is. */
#include <shmem.h>
#include <stdio.h>

static int src, dst;

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_team_t team;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 3, NULL, 0, &team);
    if (me == 2)
        return 0;
    if (me == 3) {
        shmem_finalize();
        return 0;
    }
    src = me + 1;
    shmem_int_sum_reduce(team, &dst, &src, 1);
    printf("FAIL: PE %d reduced %d without PE 2\n", me, dst);
    return 0;
}
