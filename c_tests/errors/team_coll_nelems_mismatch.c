/* rshmem-test
 * np: 2 4
 * exit: 1
 * variant: COLL=fcollect alltoall reduce
 * variant: SHMEM_PSYNC_STRATEGY=traditional pairwise-rd
 * stderr: bytes here but team PE
 * stderr: bytes on this team
 */
/* Team members that disagree on nelems in a small fcollect, alltoall or reduction (COLL):
 * PE 1 passes two elements, the others one. These go in one round through the team's
 * inbox, every block with its length, so a member is told instead of taking a block of
 * another size (or waiting for bytes that never come), under every pSync strategy. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long src[16], dst[32];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    const char *coll = getenv("COLL");
    size_t n = me == 1 ? 2 : 1;
    shmem_barrier_all();
    if (coll && strcmp(coll, "alltoall") == 0)
        shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, n);
    else if (coll && strcmp(coll, "reduce") == 0)
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n);
    else
        shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, n);
    fprintf(stderr, "FAIL: PE %d returned from a %s whose members disagree on nelems\n", me, coll ? coll : "fcollect");
    shmem_barrier_all();
    shmem_finalize();
    return 2;
}
