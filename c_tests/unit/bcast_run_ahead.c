/* rshmem-test
 * np: 2 3 4
 * stdout: broadcast run-ahead ok
 */
/* One root broadcasting small messages back to back while its receivers are slow: the
 * root runs ahead of them by as many messages as the library lets it buffer, then must
 * wait for room, never overwrite a message not yet taken, and never lose one. Across
 * nodes the root cannot see the receivers' inboxes and has to ask for the room (the
 * place a wrong count of free cells shows up); on one node the receiver's cells say it.
 *   1. 3000 8-byte broadcasts from PE 0 on the world team; every receiver sleeps 50 ms
 *      before the first and again every 700 calls, and checks every value as it returns.
 *   2. The same with 40-byte messages (shmem_broadcastmem), from the last PE. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CALLS 3000
#define PAUSE_EVERY 700

static long src[5], dst[5];

static int run(int root, size_t nelems) {
    int me = shmem_my_pe(), bad = 0;
    for (long i = 0; i < CALLS; i++) {
        if (me != root && i % PAUSE_EVERY == 0) usleep(50000);
        for (size_t j = 0; j < nelems; j++) src[j] = me == root ? i * 7 + (long)j + 1 : -1;
        for (size_t j = 0; j < nelems; j++) dst[j] = -2;
        int ret = nelems == 1 ? shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, root)
                              : shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, nelems * sizeof(long), root);
        if (ret != 0) {
            printf("PE %d: broadcast %ld returned %d\n", me, i, ret);
            return 1;
        }
        for (size_t j = 0; j < nelems; j++)
            if (dst[j] != i * 7 + (long)j + 1 && bad++ < 5)
                printf("PE %d: broadcast %ld from PE %d: element %zu is %ld, expected %ld\n", me, i, root, j,
                       dst[j], i * 7 + (long)j + 1);
    }
    return bad != 0;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int bad = run(0, 1);
    shmem_barrier_all();
    bad |= run(npes - 1, 5);
    shmem_barrier_all();
    static int all_bad;
    shmem_int_atomic_add(&all_bad, bad, 0);
    shmem_barrier_all();
    if (me == 0) {
        if (all_bad == 0)
            printf("broadcast run-ahead ok\n");
        else
            printf("broadcast run-ahead FAILED\n");
    }
    shmem_finalize();
    return all_bad != 0;
}
