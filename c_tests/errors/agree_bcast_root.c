/* rshmem-test
 * np: 2 4
 * exit: 1
 * variant: SHMEM_PSYNC_STRATEGY=traditional pairwise-rd
 * stderr: rshmem: shmem_long_broadcast (PE 1 of {np}): root is 1 here but team PE 0 gives root 0
 * timeout: 30
 */
/* Without SHMEM_CHECK_COLLECTIVES: PE 1 names itself as the root, the others PE 0. A
 * small team broadcast goes through the team's inbox in one round, and both roots would
 * push and return with their own data. The root travels in each message's header, and
 * a root looks, after its pushes, at what the others pushed into its own inbox: PE 1,
 * which enters only once PE 0 has returned, finds PE 0's message and is told. PE 0 and
 * the receivers that agree with it return; they wait in a barrier that PE 1 never
 * reaches until the job ends. */
#include <shmem.h>
#include <stdio.h>

static long src[2], dst[2], go;

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    src[0] = 40 + me;
    shmem_barrier_all();
    if (me == 1) shmem_long_wait_until(&go, SHMEM_CMP_EQ, 1);
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, me == 1 ? 1 : 0);
    if (me == 0) shmem_long_p(&go, 1, 1);
    if (me == 1) {
        fprintf(stderr, "FAIL: PE 1 returned from a broadcast whose root differs (dst = %ld)\n", dst[0]);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier after a broadcast whose root differs\n", me);
    return 2;
}
