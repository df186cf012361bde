/* rshmem-test
 * np: 1 2 4 8
 */
/* Ring exchange: every PE puts a block to its right neighbour and gets one from its
 * left; then a token goes around the ring several times, each PE waiting for it with
 * shmem_long_wait_until, adding one and passing it on. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define K 256
#define LAPS 50

static int block[K];
static int mine[K];
static long token;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    for (int i = 0; i < K; i++)
        mine[i] = me * K + i;
    shmem_barrier_all();
    shmem_int_put(block, mine, K, right);
    int got[K];
    shmem_int_get(got, mine, K, left);
    shmem_barrier_all();
    for (int i = 0; i < K; i++) {
        CHECK(block[i] == left * K + i, "put from the left: element %d is %d", i, block[i]);
        CHECK(got[i] == left * K + i, "get from the left: element %d is %d", i, got[i]);
    }

    /* In lap l, PE p receives l*n + p and passes on l*n + p + 1. */
    for (long lap = 0; lap < LAPS; lap++) {
        if (me != 0 || lap > 0) {
            shmem_long_wait_until(&token, SHMEM_CMP_EQ, lap * n + me);
            CHECK(token == lap * n + me, "lap %ld: token is %ld", lap, token);
        }
        shmem_long_p(&token, lap * n + me + 1, right);
    }
    if (me == 0) {
        shmem_long_wait_until(&token, SHMEM_CMP_EQ, (long)LAPS * n);
        printf("ring: %d laps of %d PEs ok\n", LAPS, n);
    }
    shmem_finalize();
    return 0;
}
