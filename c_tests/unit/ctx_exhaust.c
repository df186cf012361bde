/* rshmem-test
 * np: 1 2
 */
/* Creating contexts until shmem_ctx_create reports that it cannot create more: the
 * failure is a non-zero return with *ctx set to SHMEM_CTX_INVALID (not a fatal error),
 * every context created before it works, and after destroying them all, creation
 * succeeds again. (A library without a limit passes by creating LIMIT contexts.) */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define LIMIT 20000

static shmem_ctx_t ctxs[LIMIT];
static long dst;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    int made = 0, rc = 0;
    shmem_ctx_t failed = SHMEM_CTX_DEFAULT;
    while (made < LIMIT) {
        shmem_ctx_t c = SHMEM_CTX_DEFAULT;
        rc = shmem_ctx_create(made % 2 ? SHMEM_CTX_SERIALIZED : 0, &c);
        if (rc != 0) {
            failed = c;
            break;
        }
        CHECK(c != SHMEM_CTX_INVALID && c != SHMEM_CTX_DEFAULT, "context %d: returned 0 but handle %p", made,
              (void *)c);
        ctxs[made++] = c;
    }
    if (made < LIMIT)
        CHECK(failed == SHMEM_CTX_INVALID, "shmem_ctx_create returned %d after %d contexts but set *ctx to %p, not "
              "SHMEM_CTX_INVALID", rc, made, (void *)failed);
    CHECK(made >= 100, "only %d contexts could be created", made);
    if (me == 0)
        printf("created %d contexts before failure\n", made);

    /* The last one created works. */
    dst = -1;
    shmem_barrier_all();
    shmem_ctx_long_p(ctxs[made - 1], &dst, 5L + me, right);
    shmem_ctx_quiet(ctxs[made - 1]);
    shmem_barrier_all();
    CHECK(dst == 5L + left, "put through the last context: %ld", dst);

    for (int i = 0; i < made; i++)
        shmem_ctx_destroy(ctxs[i]);
    shmem_ctx_t again = SHMEM_CTX_INVALID;
    rc = shmem_ctx_create(SHMEM_CTX_PRIVATE, &again);
    CHECK(rc == 0 && again != SHMEM_CTX_INVALID, "shmem_ctx_create after destroying all returned %d", rc);
    shmem_ctx_destroy(again);

    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
