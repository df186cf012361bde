/* rshmem-test
 * np: 3 4
 * exit: 1
 * stderr: rshmem: shmem_int_broadcast (PE 2 of {np}): root is 1 here but team PE 0 gives root 0
 * timeout: 30
 */
/* Without SHMEM_CHECK_COLLECTIVES: PE 2 names PE 1 as the root, everybody else PE 0.
 * PE 1 receives from PE 0 and goes on to a barrier, so nothing ever comes from PE 1 and
 * PE 2 would wait for it until the hang report. A waiting receiver looks now and then
 * at the next message from every other member in its inbox: PE 2 finds PE 0's, a
 * broadcast of this call from another root, and is told. */
#include <shmem.h>
#include <stdio.h>

static int src[4], dst[4];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    src[0] = 100 + me;
    shmem_barrier_all();
    shmem_int_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, me == 2 ? 1 : 0);
    if (me == 2) {
        fprintf(stderr, "FAIL: PE 2 returned from a broadcast whose root differs (dst = %d)\n", dst[0]);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier after a broadcast whose root differs\n", me);
    return 2;
}
