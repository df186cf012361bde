/* rshmem-test
 * np: 1 2 4
 */
/* OpenSHMEM 1.6 shmem_pe_quiet / shmem_ctx_pe_quiet: after non-blocking puts (32 KiB each)
 * to the PEs of a list, pe_quiet on that list completes them: only then does the sender
 * write a flag with shmem_long_p, and the target, once it sees every flag it expects
 * (shmem_long_wait_until_all with a status array), finds all the data. Lists: every PE,
 * every PE in reverse order, the right neighbour alone; on the default context, on
 * SHMEM_CTX_DEFAULT through shmem_ctx_pe_quiet and on a created context. Non-blocking
 * gets are completed by pe_quiet on the source PE too. Empty lists (NULL and a real
 * array with npes 0) return and change nothing. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define BLK 4096 /* longs: 32 KiB */
#define ROUNDS 6

static long flags[64];

static long val(int from, int to, int r, size_t i) {
    return ((long)r << 40) ^ ((long)from << 32) ^ ((long)to << 24) ^ (long)(i * 2654435761u % 16777213u);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    CHECK(npes <= 64, "too many PEs");
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
    long *dest = shmem_malloc((size_t)npes * BLK * sizeof(long));
    long *src = malloc((size_t)npes * BLK * sizeof(long));
    long *got = malloc(BLK * sizeof(long));
    int *all = malloc((size_t)npes * sizeof(int)), *rev = malloc((size_t)npes * sizeof(int));
    int *status = malloc((size_t)npes * sizeof(int));
    CHECK(dest && src && got && all && rev && status, "allocation failed");
    for (int p = 0; p < npes; p++) {
        all[p] = p;
        rev[p] = npes - 1 - p;
    }
    static const char *const names[ROUNDS] = {
        "shmem_pe_quiet(all PEs)", "shmem_pe_quiet(all PEs, reversed)", "shmem_ctx_pe_quiet(created ctx, all PEs)",
        "shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, all PEs)", "shmem_pe_quiet(right neighbour)",
        "shmem_ctx_pe_quiet(created ctx, right neighbour)"};

    for (int r = 1; r <= ROUNDS; r++) {
        const char *name = names[r - 1];
        int only_right = r >= 5;
        memset(dest, 0, (size_t)npes * BLK * sizeof(long));
        memset(flags, 0, sizeof flags);
        for (int t = 0; t < npes; t++)
            for (size_t i = 0; i < BLK; i++)
                src[(size_t)t * BLK + i] = val(me, t, r, i);
        shmem_barrier_all();
        for (int k = 0; k < npes; k++) {
            int t = only_right ? right : (me + k) % npes;
            if (r == 3 || r == 6)
                shmem_ctx_long_put_nbi(ctx, dest + (size_t)me * BLK, src + (size_t)t * BLK, BLK, t);
            else if (r == 4)
                shmem_ctx_long_put_nbi(SHMEM_CTX_DEFAULT, dest + (size_t)me * BLK, src + (size_t)t * BLK, BLK, t);
            else
                shmem_long_put_nbi(dest + (size_t)me * BLK, src + (size_t)t * BLK, BLK, t);
            if (only_right)
                break;
        }
        switch (r) {
        case 1: shmem_pe_quiet(all, (size_t)npes); break;
        case 2: shmem_pe_quiet(rev, (size_t)npes); break;
        case 3: shmem_ctx_pe_quiet(ctx, all, (size_t)npes); break;
        case 4: shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, rev, (size_t)npes); break;
        case 5: shmem_pe_quiet(&right, 1); break;
        default: shmem_ctx_pe_quiet(ctx, &right, 1); break;
        }
        /* the puts are complete: the sources may change and the flags may go */
        memset(src, 0x5A, (size_t)npes * BLK * sizeof(long));
        for (int k = 0; k < npes; k++) {
            int t = only_right ? right : (me + k) % npes;
            shmem_long_p(&flags[me], r, t);
            if (only_right)
                break;
        }
        for (int p = 0; p < npes; p++)
            status[p] = only_right ? p != left : 0;
        shmem_long_wait_until_all(flags, (size_t)npes, status, SHMEM_CMP_EQ, r);
        for (int p = 0; p < npes; p++) {
            int sent = only_right ? p == left : 1;
            for (size_t i = 0; i < BLK; i++) {
                long want = sent ? val(p, me, r, i) : 0;
                CHECK(dest[(size_t)p * BLK + i] == want, "%s: element %zu of the block from PE %d is 0x%lx, expected 0x%lx",
                      name, i, p, dest[(size_t)p * BLK + i], want);
            }
        }
        shmem_barrier_all();
        /* non-blocking get of the left neighbour's block (which holds what left received) */
        memset(got, 0, BLK * sizeof(long));
        int from = only_right ? (left + npes - 1) % npes : me;
        if (r % 2)
            shmem_long_get_nbi(got, dest + (size_t)from * BLK, BLK, left);
        else
            shmem_ctx_long_get_nbi(ctx, got, dest + (size_t)from * BLK, BLK, left);
        if (r % 2)
            shmem_pe_quiet(&left, 1);
        else
            shmem_ctx_pe_quiet(ctx, all, (size_t)npes);
        for (size_t i = 0; i < BLK; i++)
            CHECK(got[i] == val(from, left, r, i), "%s: get_nbi + pe_quiet: element %zu is 0x%lx, expected 0x%lx", name,
                  i, got[i], val(from, left, r, i));
        shmem_barrier_all();
    }

    /* empty lists */
    long one = 7 + me;
    dest[0] = 0;
    shmem_barrier_all();
    shmem_pe_quiet(NULL, 0);
    shmem_pe_quiet(all, 0);
    shmem_ctx_pe_quiet(ctx, NULL, 0);
    shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, all, 0);
    shmem_long_put_nbi(dest, &one, 1, right);
    shmem_pe_quiet(NULL, 0);
    shmem_ctx_pe_quiet(ctx, all, 0);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(dest[0] == 7 + left, "put_nbi around empty pe_quiet lists: got %ld", dest[0]);

    shmem_ctx_destroy(ctx);
    free(status); free(rev); free(all); free(got); free(src);
    shmem_free(dest);
    if (me == 0)
        printf("pe_quiet ok\n");
    shmem_finalize();
    return 0;
}
