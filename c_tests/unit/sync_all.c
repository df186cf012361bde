/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_sync_all synchronises every PE without completing puts, so the writer quiets
 * first: put, quiet, sync_all, then the reader checks. Alternating buffers, many rounds;
 * also interleaved with shmem_barrier_all. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ROUNDS 1000

static long box[2][4];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    int far = (me + npes / 2) % npes, from_far = (me + npes - npes / 2) % npes;

    for (long r = 1; r <= ROUNDS; r++) {
        long *b = box[r % 2];
        shmem_long_p(&b[0], r * 10 + me, right);
        shmem_long_p(&b[1], -r * 10 - me, far);
        shmem_quiet();
        if (r % 10 == 0)
            shmem_barrier_all();
        else
            shmem_sync_all();
        CHECK(b[0] == r * 10 + left, "round %ld: from the left %ld", r, b[0]);
        CHECK(b[1] == -r * 10 - from_far, "round %ld: from PE %d %ld", r, from_far, b[1]);
    }
    if (me == 0)
        printf("sync_all: %d rounds ok\n", ROUNDS);
    shmem_finalize();
    return 0;
}
