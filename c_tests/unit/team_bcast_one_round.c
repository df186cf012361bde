/* rshmem-test
 * np: 2 3 4 8
 * timeout: 30
 * variant: SHMEM_PSYNC_STRATEGY=traditional extra-sync barrier-unlock pairwise-rd pairwise-tree
 */
/* Small team broadcasts complete in one round: the root pushes the message into every
 * member's team inbox and returns without waiting for anybody.
 *
 * First the property itself: on a team of all PEs, the root broadcasts 8 bytes and only
 * then tells the others (with a put) that they may enter the broadcast. A root that
 * waited for its receivers would wait for ever (the test's timeout); a pushed broadcast
 * returns, and every member then finds the value.
 *
 * Then back to back: ROUNDS broadcasts on the world team and on a team of the odd PEs,
 * with the root and the size (8 bytes to 2 KiB, the eager sizes, and 4 KiB, which goes
 * the pulling way) changing every call and the root's source rewritten at once after
 * each call; PE 0 stalls now and then, so roots run ahead of it by several messages.
 * Every member checks every message (and the root its own dest). */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <string.h>
#include <time.h>

#include "../common.h"

#define ROUNDS 600
#define MAXB 4096

static long go;
static unsigned char src[MAXB], dst[MAXB];

static size_t size_of_round(int r) {
    static const size_t sizes[] = {8, 24, 64, 200, 512, 1024, 2048, 4096, 8};
    return sizes[r % 9];
}

static void fill(unsigned char *p, size_t n, int r, int root) {
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(r * 31 + root * 7 + (int)i);
}

static void rounds(shmem_team_t team, int me) {
    int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
    for (int r = 0; r < ROUNDS; r++) {
        int root = (r * 5) % tn;
        size_t n = size_of_round(r);
        if (tme == root)
            fill(src, n, r, root);
        memset(dst, 0xee, n);
        if (me == 0 && r % 97 == 0) {
            struct timespec pause = {0, 2000000};
            nanosleep(&pause, NULL);
        }
        CHECK(shmem_broadcastmem(team, dst, src, n, root) == 0, "round %d", r);
        if (tme == root)
            memset(src, 0x55, n); /* the source may change once the root has returned */
        unsigned char want[MAXB];
        fill(want, n, r, root);
        CHECK(memcmp(dst, want, n) == 0, "round %d (root %d, %zu bytes): dst[0] = %d, want %d", r, root, n,
              dst[0], want[0]);
    }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    static long v, mine = 4242;
    if (me == 0) {
        shmem_long_broadcast(SHMEM_TEAM_WORLD, &v, &mine, 1, 0);
        for (int pe = 1; pe < npes; pe++)
            shmem_long_p(&go, 1, pe);
    } else {
        shmem_long_wait_until(&go, SHMEM_CMP_EQ, 1);
        shmem_long_broadcast(SHMEM_TEAM_WORLD, &v, &mine, 1, 0);
    }
    CHECK(v == 4242, "one-round broadcast gave %ld", v);
    shmem_barrier_all();

    rounds(SHMEM_TEAM_WORLD, me);
    shmem_team_t odd;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID) {
        rounds(odd, me);
        shmem_team_destroy(odd);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
