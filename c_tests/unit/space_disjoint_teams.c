/* rshmem-test
 * np: 2 3 4 8
 * timeout: 20
 * variant: SHMEM_PSYNC_STRATEGY=all
 */
/* Two disjoint teams (team A: the even PEs, team B: the odd PEs, from
 * shmem_team_split_strided) each create a space, attach it to their own team and then
 * run DIFFERENT sequences of allocations, frees, RMA and team collectives in it, with no
 * world-wide synchronisation between the splits and the final barrier. The two sequences
 * are chained by point-to-point flags in global memory so that the program deadlocks if
 * space allocation (or attach) synchronised the whole world instead of the space's team:
 *
 *   A: attach, 3 allocations, RMA ring, then WAIT for B's flag
 *   B: attach, 5 allocations (with an alltoall in between), then SET A's flag,
 *      then WAIT for A's flag
 *   A: 2 more allocations, fcollect and sum reduction, then SET B's flag, then free,
 *      allocate again, broadcast, free the rest, detach, destroy
 *   B: frees, a context of the space, collect, sum and max reductions, detach, destroy
 * After the second flag, A attaches, uses, detaches and destroys a second space while
 * B splits a sub-team, reduces on it and destroys it (both take arena memory).
 *
 * If allocations were world barriers, A's 3 allocations would pair with B's first 3 and
 * B's 4th would wait for an A that waits for B: the job would hang (and time out).
 * Every RMA and collective result is checked. Teams have different sizes at np 3. The
 * variants run it under every synchronisation-memory strategy. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

static long from_b; /* set to 1 on every A member by B's rank 0 after B's 5 allocations */
static long from_a; /* set to 1 on every B member by A's rank 0 after A's 5 allocations */

static int me, npes;

static void attach_new(shmemx_space_t *s, size_t size, int nctx, shmem_team_t team) {
    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = size;
    cfg.num_contexts = nctx;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_create(cfg, s);
    shmemx_space_attach_team(*s, team);
    shmem_team_t got = SHMEM_TEAM_INVALID;
    int rc = shmemx_space_get_team(*s, &got);
    CHECK(rc == 0 && got == team, "shmemx_space_get_team after attach_team returned %d, team %p (want %p)", rc,
          (void *)got, (void *)team);
}

/* ---- Team A: the even PEs ------------------------------------------------------- */

static void team_a(shmem_team_t ta) {
    int na = shmem_team_n_pes(ta), r = shmem_team_my_pe(ta);
    CHECK(na == (npes + 1) / 2 && r == me / 2, "team A: %d PEs, rank %d", na, r);
    int right = shmem_team_translate_pe(ta, (r + 1) % na, SHMEM_TEAM_WORLD);
    shmemx_space_t s;
    attach_new(&s, 1 << 20, 2, ta);

    /* 3 allocations. */
    int *a1 = shmemx_space_malloc(s, 64 * sizeof(int));
    long *a2 = shmemx_space_calloc(s, 7, 24); /* 168 bytes: 21 longs */
    char *a3 = shmemx_space_align(s, 4096, 3000);
    CHECK(a1 && a2 && a3, "team A: allocations gave %p %p %p", (void *)a1, (void *)a2, (void *)a3);
    CHECK((uintptr_t)a3 % 4096 == 0, "team A: shmemx_space_align(4096) gave %p", (void *)a3);
    for (int i = 0; i < 21; i++)
        CHECK(a2[i] == 0, "team A: calloc'd a2[%d] = %ld", i, a2[i]);

    /* RMA ring on a1: each rank puts its numbers into the next rank's copy. */
    int mine[64];
    for (int i = 0; i < 64; i++)
        mine[i] = 1000 * me + i;
    shmem_int_put(a1, mine, 64, right);
    memset(a3, 'a', 3000);
    shmem_quiet();
    CHECK(shmem_team_sync(ta) == 0, "team A: shmem_team_sync failed");
    int left_pe = shmem_team_translate_pe(ta, (r + na - 1) % na, SHMEM_TEAM_WORLD);
    for (int i = 0; i < 64; i++)
        CHECK(a1[i] == 1000 * left_pe + i, "team A: a1[%d] = %d, want %d (from PE %d)", i, a1[i],
              1000 * left_pe + i, left_pe);
    char g = shmem_char_g(a3 + 2999, right);
    CHECK(g == 'a', "team A: shmem_char_g of a3[2999] on PE %d gave %d", right, g);

    /* Wait for B's 5 allocations. */
    shmem_long_wait_until(&from_b, SHMEM_CMP_EQ, 1);

    /* 2 more allocations, then fcollect and a sum reduction in them. */
    int *a4 = shmemx_space_malloc(s, (size_t)na * 5 * sizeof(int));
    int *a5 = shmemx_space_malloc(s, 5 * sizeof(int));
    CHECK(a4 && a5, "team A: allocations 4 and 5 gave %p %p", (void *)a4, (void *)a5);
    for (int i = 0; i < 5; i++)
        a5[i] = 10 * me + i;
    CHECK(shmem_team_sync(ta) == 0, "team A: shmem_team_sync failed");
    CHECK(shmem_int_fcollect(ta, a4, a5, 5) == 0, "team A: shmem_int_fcollect failed");
    for (int k = 0; k < na; k++)
        for (int i = 0; i < 5; i++)
            CHECK(a4[5 * k + i] == 10 * (2 * k) + i, "team A: fcollect a4[%d] = %d, want %d", 5 * k + i,
                  a4[5 * k + i], 10 * (2 * k) + i);
    long *src = a2, *dst = a2 + 10; /* within the calloc'd block */
    for (int i = 0; i < 10; i++)
        src[i] = me + i;
    CHECK(shmem_team_sync(ta) == 0, "team A: shmem_team_sync failed");
    CHECK(shmem_long_sum_reduce(ta, dst, src, 10) == 0, "team A: shmem_long_sum_reduce failed");
    long sum_pe = 0;
    for (int k = 0; k < na; k++)
        sum_pe += 2 * k;
    for (int i = 0; i < 10; i++)
        CHECK(dst[i] == sum_pe + (long)na * i, "team A: sum_reduce dst[%d] = %ld, want %ld", i, dst[i],
              sum_pe + (long)na * i);
    CHECK(a2[20] == 0, "team A: the reduction wrote past its 10 elements (a2[20] = %ld)", a2[20]);

    /* Tell B. */
    if (r == 0) {
        for (int p = 1; p < npes; p += 2)
            shmem_long_atomic_set(&from_a, 1, p);
        shmem_quiet();
    }

    /* While B splits a sub-team (which takes arena memory on B's PEs), a second space of
     * A's team: attached, used, detached and destroyed. */
    shmemx_space_t s2;
    attach_new(&s2, 32 << 10, 0, ta);
    long *x = shmemx_space_malloc(s2, 100 * sizeof(long));
    CHECK(x != NULL, "team A: allocation in the second space gave NULL");
    CHECK(shmemx_space_malloc(s2, 32 << 10) == NULL, "team A: 32 KiB more fit in the second 32 KiB space");
    shmem_long_p(&x[99], -me, right);
    shmem_quiet();
    CHECK(shmem_team_sync(ta) == 0, "team A: shmem_team_sync failed");
    CHECK(x[99] == -left_pe, "team A: second space x[99] = %ld, want %d", x[99], -left_pe);
    shmem_free(x);
    shmemx_space_detach_team(s2, ta);
    shmemx_space_destroy(s2);

    /* Free one, allocate again, broadcast into it from the last rank. */
    shmemx_space_free(s, a3);
    char *a6 = shmemx_space_malloc(s, 2000);
    CHECK(a6 != NULL, "team A: allocation after a free gave NULL");
    char *bsrc = shmemx_space_malloc(s, 2000);
    CHECK(bsrc != NULL, "team A: allocation of the broadcast source gave NULL");
    for (int i = 0; i < 2000; i++) {
        bsrc[i] = (char)(me * 7 + i);
        a6[i] = 0;
    }
    CHECK(shmem_team_sync(ta) == 0, "team A: shmem_team_sync failed");
    CHECK(shmem_broadcastmem(ta, a6, bsrc, 2000, na - 1) == 0, "team A: shmem_broadcastmem failed");
    int root = 2 * (na - 1);
    for (int i = 0; i < 2000; i++)
        CHECK(a6[i] == (char)(root * 7 + i), "team A: broadcast a6[%d] = %d, want %d", i, a6[i],
              (char)(root * 7 + i));

    shmemx_space_free(s, bsrc);
    shmemx_space_free(s, a6);
    shmem_free(a5);
    shmem_free(a4);
    shmemx_space_free(s, a2);
    shmem_free(a1);
    shmemx_space_detach_team(s, ta);
    shmem_team_t got = SHMEM_TEAM_WORLD;
    CHECK(shmemx_space_get_team(s, &got) != 0 && got == SHMEM_TEAM_INVALID,
          "team A: shmemx_space_get_team after detach_team gave team %p", (void *)got);
    shmemx_space_destroy(s);
}

/* ---- Team B: the odd PEs -------------------------------------------------------- */

static void team_b(shmem_team_t tb) {
    int nb = shmem_team_n_pes(tb), r = shmem_team_my_pe(tb);
    CHECK(nb == npes / 2 && r == me / 2, "team B: %d PEs, rank %d", nb, r);
    shmemx_space_t s;
    attach_new(&s, 64 << 10, 1, tb);

    /* 5 allocations, an alltoall in the middle. */
    long *b1 = shmemx_space_malloc(s, (size_t)nb * 3 * sizeof(long));
    long *b2 = shmemx_space_align(s, 256, (size_t)nb * 3 * sizeof(long));
    CHECK(b1 && b2, "team B: allocations 1 and 2 gave %p %p", (void *)b1, (void *)b2);
    CHECK((uintptr_t)b2 % 256 == 0, "team B: shmemx_space_align(256) gave %p", (void *)b2);
    for (int k = 0; k < nb; k++)
        for (int i = 0; i < 3; i++) {
            b1[3 * k + i] = 100000L * me + 100 * k + i; /* for rank k */
            b2[3 * k + i] = -1;
        }
    CHECK(shmem_team_sync(tb) == 0, "team B: shmem_team_sync failed");
    CHECK(shmem_long_alltoall(tb, b2, b1, 3) == 0, "team B: shmem_long_alltoall failed");
    for (int k = 0; k < nb; k++)
        for (int i = 0; i < 3; i++) {
            long want = 100000L * (2 * k + 1) + 100 * r + i;
            CHECK(b2[3 * k + i] == want, "team B: alltoall b2[%d] = %ld, want %ld", 3 * k + i, b2[3 * k + i],
                  want);
        }
    int *b3 = shmemx_space_calloc(s, (size_t)nb, sizeof(int));
    int *b4 = shmemx_space_malloc(s, 128 * sizeof(int));
    int *b5 = shmemx_space_malloc(s, (size_t)nb * (nb + 1) / 2 * sizeof(int));
    CHECK(b3 && b4 && b5, "team B: allocations 3-5 gave %p %p %p", (void *)b3, (void *)b4, (void *)b5);
    for (int i = 0; i < nb; i++)
        CHECK(b3[i] == 0, "team B: calloc'd b3[%d] = %d", i, b3[i]);

    /* Tell A, then wait for A's 5 allocations. */
    if (r == 0) {
        for (int p = 0; p < npes; p += 2)
            shmem_long_atomic_set(&from_b, 1, p);
        shmem_quiet();
    }
    shmem_long_wait_until(&from_a, SHMEM_CMP_EQ, 1);

    /* A sub-team of B (its first half), split and used while A attaches a second space;
     * a sum reduction of it on B's space memory. */
    int half = (nb + 1) / 2;
    shmem_team_t sub = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(tb, 0, 1, half, NULL, 0, &sub) == 0, "team B: sub-team split failed");
    CHECK((sub != SHMEM_TEAM_INVALID) == (r < half), "team B: sub-team handle %p at rank %d", (void *)sub, r);
    if (sub != SHMEM_TEAM_INVALID) {
        long *red = b1 + 1; /* b1 is no longer needed after the alltoall */
        CHECK(shmem_long_sum_reduce(sub, red, b1, 1) == 0, "team B: sub-team sum_reduce failed");
        long want = 0;
        for (int k = 0; k < half; k++)
            want += 100000L * (2 * k + 1); /* b1[0] of rank k */
        CHECK(*red == want, "team B: sub-team sum_reduce gave %ld, want %ld", *red, want);
        shmem_team_destroy(sub);
    }
    CHECK(shmem_team_sync(tb) == 0, "team B: shmem_team_sync failed");

    /* Every rank writes its world PE into slot r of every member's b3, through a
     * context of the space (team ranks). */
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK(shmemx_space_create_ctx(s, 0, &ctx) == 0, "team B: shmemx_space_create_ctx failed");
    for (int k = 0; k < nb; k++)
        shmem_ctx_int_p(ctx, &b3[r], me, k);
    shmem_ctx_quiet(ctx);
    CHECK(shmem_team_sync(tb) == 0, "team B: shmem_team_sync failed");
    for (int k = 0; k < nb; k++)
        CHECK(b3[k] == 2 * k + 1, "team B: b3[%d] = %d, want %d", k, b3[k], 2 * k + 1);
    shmem_ctx_destroy(ctx);

    shmemx_space_free(s, b1);
    shmemx_space_free(s, b2);

    /* collect: rank k contributes k + 1 values. */
    for (int i = 0; i <= r; i++)
        b4[i] = 1000 * me + i;
    CHECK(shmem_team_sync(tb) == 0, "team B: shmem_team_sync failed");
    CHECK(shmem_int_collect(tb, b5, b4, (size_t)r + 1) == 0, "team B: shmem_int_collect failed");
    int at = 0;
    for (int k = 0; k < nb; k++)
        for (int i = 0; i <= k; i++, at++)
            CHECK(b5[at] == 1000 * (2 * k + 1) + i, "team B: collect b5[%d] = %d, want %d", at, b5[at],
                  1000 * (2 * k + 1) + i);

    /* sum and max reductions of 32 ints. */
    int *rdst = shmemx_space_malloc(s, 32 * sizeof(int));
    CHECK(rdst != NULL, "team B: allocation of the reduction result gave NULL");
    for (int i = 0; i < 32; i++)
        b4[i] = (i % 2 ? -1 : 1) * (me * 3 + i);
    CHECK(shmem_team_sync(tb) == 0, "team B: shmem_team_sync failed");
    CHECK(shmem_int_sum_reduce(tb, rdst, b4, 32) == 0, "team B: shmem_int_sum_reduce failed");
    for (int i = 0; i < 32; i++) {
        int want = 0;
        for (int k = 0; k < nb; k++)
            want += (i % 2 ? -1 : 1) * ((2 * k + 1) * 3 + i);
        CHECK(rdst[i] == want, "team B: sum_reduce rdst[%d] = %d, want %d", i, rdst[i], want);
    }
    CHECK(shmem_int_max_reduce(tb, rdst, b4, 32) == 0, "team B: shmem_int_max_reduce failed");
    for (int i = 0; i < 32; i++) {
        int want = i % 2 ? -(1 * 3 + i) : ((2 * (nb - 1) + 1) * 3 + i);
        CHECK(rdst[i] == want, "team B: max_reduce rdst[%d] = %d, want %d", i, rdst[i], want);
    }

    shmemx_space_free(s, rdst);
    shmem_free(b5);
    shmemx_space_free(s, b4);
    shmemx_space_free(s, b3);
    shmemx_space_detach_team(s, tb);
    shmemx_space_destroy(s);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes >= 2, "needs at least 2 PEs");
    shmem_team_t ta = SHMEM_TEAM_INVALID, tb = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &ta);
    CHECK(rc == 0, "split of the even PEs returned %d", rc);
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &tb);
    CHECK(rc == 0, "split of the odd PEs returned %d", rc);
    CHECK((ta != SHMEM_TEAM_INVALID) == (me % 2 == 0) && (tb != SHMEM_TEAM_INVALID) == (me % 2 == 1),
          "team membership wrong: A %p, B %p", (void *)ta, (void *)tb);

    /* No world-wide synchronisation from here to the final barrier. */
    if (me % 2 == 0) {
        team_a(ta);
        shmem_team_destroy(ta);
    } else {
        team_b(tb);
        shmem_team_destroy(tb);
    }
    CHECK(from_a == (me % 2) && from_b == (me % 2 == 0), "flags: from_a %ld, from_b %ld", from_a, from_b);

    shmem_barrier_all();
    if (me == 0)
        printf("disjoint team spaces ok\n");
    shmem_finalize();
    return 0;
}
