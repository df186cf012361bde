/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_quiet completes outstanding puts (blocking and non-blocking): after quiet the
 * data is visible at the target, so a flag put after it implies the data, and a get of
 * the same location returns the new values. shmem_ctx_quiet on the default context too. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ITERS 200
#define K 1024

static int data[K];
static long flag, ack;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    static int buf[K]; /* a put_nbi source must not change before quiet */

    for (long it = 1; it <= ITERS; it++) {
        for (int j = 0; j < K; j++)
            buf[j] = (int)(it * 10000 + me * 100 + j % 100);
        shmem_int_put_nbi(data, buf, K / 2, right);
        shmem_int_put(data + K / 2, buf + K / 2, K / 2, right);
        if (it % 2)
            shmem_quiet();
        else
            shmem_ctx_quiet(SHMEM_CTX_DEFAULT);

        /* Read back from the target: the puts are complete there. */
        int back[3];
        shmem_int_get(back, data, 1, right);
        shmem_int_get(back + 1, data + K / 2, 1, right);
        back[2] = shmem_int_g(data + K - 1, right);
        CHECK(back[0] == buf[0] && back[1] == buf[K / 2] && back[2] == buf[K - 1],
              "iteration %ld: read back %d %d %d after quiet", it, back[0], back[1], back[2]);

        shmem_long_p(&flag, it, right);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, it);
        for (int j = 0; j < K; j++)
            CHECK(data[j] == (int)(it * 10000 + left * 100 + j % 100), "iteration %ld: data[%d] is %d", it, j,
                  data[j]);
        shmem_long_p(&ack, it, left);
        shmem_long_wait_until(&ack, SHMEM_CMP_EQ, it);
    }
    if (me == 0)
        printf("quiet: %d iterations ok\n", ITERS);
    shmem_finalize();
    return 0;
}
