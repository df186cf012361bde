/* rshmem-test
 * np: 2 3 4 8
 * timeout: 30
 * variant: SHMEM_PSYNC_STRATEGY=all
 */
/* Communication on the memory of a space attached to a team: the even PEs attach one
 * space to their stride-2 team, the odd PEs another to theirs, and both teams run the
 * same checks at the same time, each in its own space (at np 2 every team has 1 PE, at
 * np 3 the teams have 2 and 1):
 * - put/get/p/g/iput/iget on the default context, with world PE numbers from
 *   shmem_team_translate_pe;
 * - the same on a context of the team (shmem_team_create_ctx) and on a context of the
 *   space (shmemx_space_create_ctx), both with team ranks; shmem_ctx_get_team of the
 *   space's context is the space's team;
 * - shmem_int_atomic_fetch_add by every member ITERS times on one word of rank 0 (exact
 *   total; every member's fetched values increase), shmem_long_atomic_add on a space
 *   context (exact total), shmem_int_atomic_compare_swap by every member on one word
 *   (exactly one winner, whose rank the word holds);
 * - shmem_int_put_signal + shmem_signal_wait_until around the ring (SET on the default
 *   context, ADD on the space context), and shmem_int_wait_until on space words
 *   (a gather of increments to rank 0, then a release from rank 0);
 * - shmem_ptr, shmem_team_ptr and shmem_addr_accessible: the copy of every member is
 *   reachable (and is its copy: written through the pointer, read back with g), PEs
 *   outside the team get NULL / 0;
 * - broadcast, fcollect, collect, alltoall, sum and max reductions of the team on space
 *   buffers, and a sum reduction on a sub-team (the first half of the team).
 * Everything is freed, the contexts destroyed, the spaces detached and destroyed. The
 * variants run it under every synchronisation-memory strategy. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define N 32
#define ITERS 200

static int me, npes;

struct tm {
    shmem_team_t team;
    const char *name;
    int n, r;
};

static int world_of(const struct tm *t, int rank) {
    return shmem_team_translate_pe(t->team, rank, SHMEM_TEAM_WORLD);
}

static void sync_team(const struct tm *t) {
    CHECK(shmem_team_sync(t->team) == 0, "%s: shmem_team_sync failed", t->name);
}

static void *alloc(shmemx_space_t s, const struct tm *t, size_t bytes) {
    void *p = shmemx_space_malloc(s, bytes);
    CHECK(p != NULL, "%s: shmemx_space_malloc(%zu) gave NULL", t->name, bytes);
    return p;
}

/* The value rank-of-world-PE pe puts at index i in round k. */
static int val(int k, int pe, int i) {
    return 100000 * k + 1000 * pe + i;
}

/* put/p/iput to the right neighbour and get/g/iget from it on ctx, round k; the PE
 * argument is the neighbour's world PE if use_world (default context), its team rank
 * otherwise (team and space contexts). */
static void rma_round(shmem_ctx_t ctx, int k, const char *what, const struct tm *t, int *src, int *dst, int *got,
                      int use_world) {
    int n = t->n, r = t->r;
    int rr = (r + 1) % n, lr = (r + n - 1) % n;
    int right = use_world ? world_of(t, rr) : rr;
    int wright = world_of(t, rr), wleft = world_of(t, lr);
    for (int i = 0; i < N; i++) {
        src[i] = val(k, me, i);
        dst[i] = -1;
    }
    sync_team(t);
    /* put the first half, p the third quarter, iput every second of the rest. */
    shmem_ctx_int_put(ctx, dst, src, N / 2, right);
    for (int i = N / 2; i < 3 * N / 4; i++)
        shmem_ctx_int_p(ctx, &dst[i], src[i], right);
    shmem_ctx_int_iput(ctx, &dst[3 * N / 4], &src[3 * N / 4], 2, 2, N / 8, right);
    shmem_ctx_quiet(ctx);
    sync_team(t);
    for (int i = 0; i < N; i++) {
        int want = (i < 3 * N / 4 || (i - 3 * N / 4) % 2 == 0) ? val(k, wleft, i) : -1;
        CHECK(dst[i] == want, "%s %s: dst[%d] = %d after put/p/iput from PE %d, want %d", t->name, what, i, dst[i],
              wleft, want);
    }
    /* get the neighbour's src, g one word, iget every third. */
    for (int i = 0; i < N; i++)
        got[i] = -2;
    shmem_ctx_int_get(ctx, got, src, N / 2, right);
    int g = shmem_ctx_int_g(ctx, &src[N - 1], right);
    shmem_ctx_int_iget(ctx, &got[N / 2], &src[N / 2], 1, 3, 5, right);
    for (int i = 0; i < N / 2; i++)
        CHECK(got[i] == val(k, wright, i), "%s %s: get got[%d] = %d from PE %d, want %d", t->name, what, i, got[i],
              wright, val(k, wright, i));
    CHECK(g == val(k, wright, N - 1), "%s %s: g = %d from PE %d, want %d", t->name, what, g, wright,
          val(k, wright, N - 1));
    for (int j = 0; j < 5; j++)
        CHECK(got[N / 2 + j] == val(k, wright, N / 2 + 3 * j), "%s %s: iget got[%d] = %d, want %d", t->name, what,
              N / 2 + j, got[N / 2 + j], val(k, wright, N / 2 + 3 * j));
    sync_team(t);
}

static void exercise(shmemx_space_t s, const struct tm *t) {
    int n = t->n, r = t->r;
    int *src = alloc(s, t, N * sizeof(int));
    int *dst = alloc(s, t, N * sizeof(int));
    int *got = malloc(N * sizeof(int));
    CHECK(got != NULL, "malloc failed");

    /* RMA on three kinds of context. */
    rma_round(SHMEM_CTX_DEFAULT, 1, "default ctx", t, src, dst, got, 1);
    shmem_ctx_t tctx = SHMEM_CTX_INVALID, sctx = SHMEM_CTX_INVALID;
    CHECK(shmem_team_create_ctx(t->team, 0, &tctx) == 0, "%s: shmem_team_create_ctx failed", t->name);
    rma_round(tctx, 2, "team ctx", t, src, dst, got, 0);
    CHECK(shmemx_space_create_ctx(s, 0, &sctx) == 0, "%s: shmemx_space_create_ctx failed", t->name);
    shmem_team_t ct = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(sctx, &ct) == 0 && ct == t->team, "%s: shmem_ctx_get_team of the space's context gave %p",
          t->name, (void *)ct);
    rma_round(sctx, 3, "space ctx", t, src, dst, got, 0);

    /* Atomics. */
    int *counter = shmemx_space_calloc(s, 1, sizeof(int));
    long *lcounter = shmemx_space_calloc(s, 1, sizeof(long));
    int *word = alloc(s, t, sizeof(int));
    CHECK(counter && lcounter, "%s: calloc gave NULL", t->name);
    *word = -1;
    sync_team(t);
    int root = world_of(t, 0);
    int prev = -1;
    for (int i = 0; i < ITERS; i++) {
        int f = shmem_int_atomic_fetch_add(counter, 1, root);
        CHECK(f > prev && f < n * ITERS, "%s: fetch_add %d returned %d after %d", t->name, i, f, prev);
        prev = f;
        shmem_ctx_long_atomic_add(sctx, lcounter, 3, 0);
    }
    int old = shmem_int_atomic_compare_swap(word, -1, r, root);
    CHECK(old == -1 || (old >= 0 && old < n), "%s: compare_swap returned %d", t->name, old);
    shmem_ctx_quiet(sctx);
    shmem_quiet();
    sync_team(t);
    if (r == 0) {
        CHECK(*counter == n * ITERS, "%s: counter is %d after %d x %d fetch_adds", t->name, *counter, n, ITERS);
        CHECK(*lcounter == 3L * n * ITERS, "%s: long counter is %ld after %d x %d adds of 3 on the space ctx",
              t->name, *lcounter, n, ITERS);
    }
    int *won = alloc(s, t, sizeof(int)), *winners = alloc(s, t, sizeof(int));
    *won = old == -1;
    sync_team(t);
    CHECK(shmem_int_sum_reduce(t->team, winners, won, 1) == 0, "%s: sum_reduce failed", t->name);
    CHECK(*winners == 1, "%s: %d PEs won the compare_swap", t->name, *winners);
    int final = shmem_int_g(word, root);
    CHECK((final == r) == (old == -1), "%s: compare_swap word is %d, this rank %d %s", t->name, final, r,
          old == -1 ? "won" : "lost");

    /* put_signal around the ring, then wait_until. */
    uint64_t *sig = shmemx_space_calloc(s, 2, sizeof(uint64_t));
    CHECK(sig != NULL, "%s: calloc of signals gave NULL", t->name);
    int rr = (r + 1) % n, lr = (r + n - 1) % n;
    for (int i = 0; i < N; i++)
        src[i] = val(4, me, i);
    sync_team(t);
    shmem_int_put_signal(dst, src, N / 2, &sig[0], (uint64_t)me + 1, SHMEM_SIGNAL_SET, world_of(t, rr));
    shmem_ctx_int_put_signal(sctx, &dst[N / 2], &src[N / 2], N / 2, &sig[1], 5, SHMEM_SIGNAL_ADD, rr);
    uint64_t sv = shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, (uint64_t)world_of(t, lr) + 1);
    CHECK(sv == (uint64_t)world_of(t, lr) + 1, "%s: signal_wait_until returned %llu", t->name, (unsigned long long)sv);
    sv = shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, 5);
    CHECK(sv == 5, "%s: ADD signal is %llu, want 5", t->name, (unsigned long long)sv);
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == val(4, world_of(t, lr), i), "%s: put_signal dst[%d] = %d, want %d", t->name, i, dst[i],
              val(4, world_of(t, lr), i));

    int *flag = shmemx_space_calloc(s, 2, sizeof(int));
    CHECK(flag != NULL, "%s: calloc of flags gave NULL", t->name);
    if (r != 0)
        shmem_int_atomic_add(&flag[0], 1, root);
    if (r == 0) {
        shmem_int_wait_until(&flag[0], SHMEM_CMP_EQ, n - 1);
        for (int k = 1; k < n; k++)
            shmem_int_p(&flag[1], 7, world_of(t, k));
        shmem_quiet();
    } else {
        shmem_int_wait_until(&flag[1], SHMEM_CMP_EQ, 7);
    }
    sync_team(t);

    /* Pointers and accessibility. */
    for (int pe = 0; pe < npes; pe++) {
        int rank = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, t->team);
        int acc = shmem_addr_accessible(&dst[3], pe);
        int *p = shmem_ptr(&dst[3], pe);
        if (rank < 0) {
            CHECK(acc == 0, "%s: space memory is accessible on PE %d, outside the team", t->name, pe);
            CHECK(p == NULL, "%s: shmem_ptr of space memory on PE %d, outside the team, is %p", t->name, pe,
                  (void *)p);
            continue;
        }
        CHECK(acc == 1, "%s: space memory is not accessible on member PE %d", t->name, pe);
        CHECK(p != NULL, "%s: shmem_ptr of space memory on member PE %d is NULL", t->name, pe);
        void *tp = shmem_team_ptr(t->team, &dst[3], rank);
        CHECK(tp == (void *)p, "%s: shmem_team_ptr(rank %d) = %p, shmem_ptr(PE %d) = %p", t->name, rank, tp, pe,
              (void *)p);
        if (pe == me)
            CHECK(p == &dst[3], "%s: shmem_ptr to my own copy is %p, not %p", t->name, (void *)p, (void *)&dst[3]);
    }
    sync_team(t);
    /* Write my slot of every member's copy through the pointers. */
    int *slots = shmemx_space_calloc(s, (size_t)n, sizeof(int));
    CHECK(slots != NULL, "%s: calloc of slots gave NULL", t->name);
    for (int k = 0; k < n; k++) {
        int *p = shmem_ptr(&slots[r], world_of(t, k));
        *p = 50 + me;
    }
    sync_team(t);
    for (int k = 0; k < n; k++)
        CHECK(slots[k] == 50 + world_of(t, k), "%s: slot %d written through shmem_ptr is %d, want %d", t->name, k,
              slots[k], 50 + world_of(t, k));
    sync_team(t);

    /* Collectives of the team on space buffers. */
    int *big = alloc(s, t, (size_t)n * N * sizeof(int));
    for (int i = 0; i < N; i++) {
        src[i] = val(5, me, i);
        dst[i] = -1;
    }
    sync_team(t);
    CHECK(shmem_int_broadcast(t->team, dst, src, N, n - 1) == 0, "%s: broadcast failed", t->name);
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == val(5, world_of(t, n - 1), i), "%s: broadcast dst[%d] = %d, want %d", t->name, i, dst[i],
              val(5, world_of(t, n - 1), i));
    CHECK(shmem_int_fcollect(t->team, big, src, 4) == 0, "%s: fcollect failed", t->name);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 4; i++)
            CHECK(big[4 * k + i] == val(5, world_of(t, k), i), "%s: fcollect big[%d] = %d, want %d", t->name,
                  4 * k + i, big[4 * k + i], val(5, world_of(t, k), i));
    CHECK(shmem_int_collect(t->team, big, src, (size_t)r + 1) == 0, "%s: collect failed", t->name);
    for (int k = 0, at = 0; k < n; k++)
        for (int i = 0; i <= k; i++, at++)
            CHECK(big[at] == val(5, world_of(t, k), i), "%s: collect big[%d] = %d, want %d", t->name, at, big[at],
                  val(5, world_of(t, k), i));
    int *a2a_src = alloc(s, t, (size_t)n * 3 * sizeof(int));
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 3; i++)
            a2a_src[3 * k + i] = 1000 * me + 10 * k + i;
    sync_team(t);
    CHECK(shmem_int_alltoall(t->team, big, a2a_src, 3) == 0, "%s: alltoall failed", t->name);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 3; i++)
            CHECK(big[3 * k + i] == 1000 * world_of(t, k) + 10 * r + i, "%s: alltoall big[%d] = %d, want %d",
                  t->name, 3 * k + i, big[3 * k + i], 1000 * world_of(t, k) + 10 * r + i);
    for (int i = 0; i < N; i++)
        src[i] = (i % 3 - 1) * (me + 1) * (i + 1);
    sync_team(t);
    CHECK(shmem_int_sum_reduce(t->team, dst, src, N) == 0, "%s: sum_reduce failed", t->name);
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int k = 0; k < n; k++)
            want += (i % 3 - 1) * (world_of(t, k) + 1) * (i + 1);
        CHECK(dst[i] == want, "%s: sum_reduce dst[%d] = %d, want %d", t->name, i, dst[i], want);
    }
    CHECK(shmem_int_max_reduce(t->team, dst, src, N) == 0, "%s: max_reduce failed", t->name);
    for (int i = 0; i < N; i++) {
        int want = INT32_MIN;
        for (int k = 0; k < n; k++) {
            int v = (i % 3 - 1) * (world_of(t, k) + 1) * (i + 1);
            want = v > want ? v : want;
        }
        CHECK(dst[i] == want, "%s: max_reduce dst[%d] = %d, want %d", t->name, i, dst[i], want);
    }

    /* A sub-team: the first half of the team, reducing on space buffers. */
    int half = (n + 1) / 2;
    shmem_team_t sub = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(t->team, 0, 1, half, NULL, 0, &sub) == 0, "%s: sub-team split failed", t->name);
    CHECK((sub != SHMEM_TEAM_INVALID) == (r < half), "%s: sub-team handle %p at rank %d", t->name, (void *)sub, r);
    if (sub != SHMEM_TEAM_INVALID) {
        CHECK(shmem_int_sum_reduce(sub, dst, src, N) == 0, "%s: sub-team sum_reduce failed", t->name);
        for (int i = 0; i < N; i++) {
            int want = 0;
            for (int k = 0; k < half; k++)
                want += (i % 3 - 1) * (world_of(t, k) + 1) * (i + 1);
            CHECK(dst[i] == want, "%s: sub-team sum_reduce dst[%d] = %d, want %d", t->name, i, dst[i], want);
        }
        shmem_team_destroy(sub);
    }

    shmem_ctx_destroy(tctx);
    shmem_ctx_destroy(sctx);
    shmemx_space_free(s, a2a_src);
    shmemx_space_free(s, big);
    shmemx_space_free(s, slots);
    shmem_free(flag);
    shmem_free(sig);
    shmemx_space_free(s, winners);
    shmemx_space_free(s, won);
    shmemx_space_free(s, word);
    shmemx_space_free(s, lcounter);
    shmemx_space_free(s, counter);
    shmemx_space_free(s, dst);
    shmemx_space_free(s, src);
    free(got);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes >= 2, "needs at least 2 PEs");
    shmem_team_t even = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0, "even split failed");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd) == 0, "odd split failed");
    struct tm t;
    t.team = me % 2 ? odd : even;
    t.name = me % 2 ? "odd team" : "even team";
    CHECK(t.team != SHMEM_TEAM_INVALID, "%s: no handle", t.name);
    t.n = shmem_team_n_pes(t.team);
    t.r = shmem_team_my_pe(t.team);
    CHECK(t.n == (me % 2 ? npes / 2 : (npes + 1) / 2) && t.r == me / 2, "%s: %d PEs, rank %d", t.name, t.n, t.r);

    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = 256 << 10;
    cfg.num_contexts = 1;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t s;
    shmemx_space_create(cfg, &s);
    shmemx_space_attach_team(s, t.team);
    exercise(s, &t);
    shmemx_space_detach_team(s, t.team);
    shmemx_space_destroy(s);
    shmem_team_destroy(t.team);

    shmem_barrier_all();
    if (me == 0)
        printf("space team ops ok\n");
    shmem_finalize();
    return 0;
}
