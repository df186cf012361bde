/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_broadcastmem (PE
 * stderr: here but team PE
 * timeout: 30
 */
/* Without SHMEM_CHECK_COLLECTIVES: as agree_bcast_root.c, but the two roots (PE 0 and
 * PE 1) enter at once. Each pushes its message into the other's inbox, then (after a
 * fence) looks in its own, so at least one of them sees the other's message and says
 * "root is X here but team PE Y gives root Y"; which one depends on the timing. A root
 * that saw nothing returns and waits in a barrier until the job ends. */
#include <shmem.h>
#include <stdio.h>

static char src[8], dst[8];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, sizeof src, me == 1 ? 1 : 0);
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier after a broadcast whose root differs\n", me);
    return 2;
}
