/* rshmem-test
 * np: 1 2 4 8
 */
/* A pipeline along the ring: in each round every PE adds the sum of its local data to
 * the running total it receives from its left neighbour (put + fence + flag, waited for
 * with shmem_long_wait_until) and passes it on; the last PE puts the total to every PE.
 * Rounds overlap: PE 0 starts round r+1 while later PEs still work on round r. Every PE
 * checks every round's total against a serial computation. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ROUNDS 40
#define M 2000

static int64_t incoming[ROUNDS]; /* running total from the left neighbour, per round */
static long arrived;             /* rounds whose incoming value is in place */
static int64_t total[ROUNDS];    /* final totals, from the last PE */
static long done;                /* rounds whose total is in place */

/* The data PE pe holds in round r. */
static int64_t datum(int pe, int r, int i) {
    uint32_t x = (uint32_t)pe * 2654435761u ^ (uint32_t)r * 40503u ^ (uint32_t)i * 9973u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    return (int64_t)(x % 2000001) - 1000000; /* in [-1e6, 1e6] */
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();

    for (int r = 0; r < ROUNDS; r++) {
        int64_t partial = 0;
        for (int i = 0; i < M; i++)
            partial += datum(me, r, i);
        int64_t running = partial;
        if (me > 0) {
            shmem_long_wait_until(&arrived, SHMEM_CMP_GE, r + 1);
            running += incoming[r];
        }
        if (me < n - 1) {
            shmem_int64_p(&incoming[r], running, me + 1);
            shmem_fence();
            shmem_long_p(&arrived, r + 1, me + 1);
        } else {
            for (int pe = 0; pe < n; pe++)
                shmem_int64_p(&total[r], running, pe);
            shmem_fence();
            for (int pe = 0; pe < n; pe++)
                shmem_long_p(&done, r + 1, pe);
        }
    }
    shmem_long_wait_until(&done, SHMEM_CMP_EQ, ROUNDS);

    for (int r = 0; r < ROUNDS; r++) {
        int64_t serial = 0;
        for (int pe = 0; pe < n; pe++)
            for (int i = 0; i < M; i++)
                serial += datum(pe, r, i);
        CHECK(total[r] == serial, "round %d: pipeline total %lld, serial %lld", r, (long long)total[r],
              (long long)serial);
    }
    if (me == 0)
        printf("pipeline sum: %d rounds over %d PEs ok (last total %lld)\n", ROUNDS, n, (long long)total[ROUNDS - 1]);
    shmem_finalize();
    return 0;
}
