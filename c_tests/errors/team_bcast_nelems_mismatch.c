/* rshmem-test
 * np: 2 4
 * exit: 1
 * variant: SHMEM_PSYNC_STRATEGY=traditional extra-sync pairwise-rd
 * stderr: rshmem: shmem_long_broadcast (PE 1 of {np}): nelems gives 16 bytes here but the root (team PE 0) broadcasts 8 bytes on this team
 */
/* Team members that disagree on nelems: the root broadcasts one long, PE 1 expects two.
 * A small team broadcast is pushed into the team's inbox with its length, so PE 1 is
 * told instead of taking a message of another size (or waiting for bytes that never
 * come), under every pSync strategy. */
#include <shmem.h>
#include <stdio.h>

static long src[2], dst[2];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    src[0] = 41;
    src[1] = 42;
    shmem_barrier_all();
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, me == 1 ? 2 : 1, 0);
    if (me == 1) {
        fprintf(stderr, "FAIL: PE 1 returned from a broadcast of another length (dst = %ld %ld)\n", dst[0], dst[1]);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
