/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_fence orders puts to one PE: data puts, fence, flag put. The receiver waits
 * for the flag and must then see all the data of that iteration; it acknowledges
 * before the sender reuses the buffer. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ITERS 300
#define K 512

static long data[K], tail;
static long flag, ack;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long buf[K];

    for (long it = 1; it <= ITERS; it++) {
        for (int j = 0; j < K; j++)
            buf[j] = it * 100000 + me * 1000 + j;
        shmem_long_put(data, buf, K, right);          /* bulk */
        shmem_long_p(&tail, it * 7 + me, right);      /* single element */
        shmem_fence();
        shmem_long_p(&flag, it, right);

        shmem_long_wait_until(&flag, SHMEM_CMP_GE, it);
        CHECK(flag == it, "flag is %ld in iteration %ld", flag, it);
        for (int j = 0; j < K; j++)
            CHECK(data[j] == it * 100000 + left * 1000 + j, "iteration %ld: data[%d] is %ld, flag already set", it,
                  j, data[j]);
        CHECK(tail == it * 7 + left, "iteration %ld: tail is %ld, flag already set", it, tail);
        shmem_long_p(&ack, it, left);
        shmem_long_wait_until(&ack, SHMEM_CMP_GE, it); /* the right neighbour has read my data */
    }
    if (me == 0)
        printf("fence: %d iterations ok\n", ITERS);
    shmem_finalize();
    return 0;
}
