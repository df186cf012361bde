/* rshmem-test
 * np: 1 2 3 4 7 8
 * variant: SHMEM_PEER_TABLES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stdout: back-to-back collectives ok
 */
/* Thousands of team collectives in a row with no barrier between them, each result checked
 * as soon as it returns: the place where a library that reuses its synchronisation memory
 * too early (a late PE's signal for one collective taken for the next) goes wrong.
 *   1. 1000 broadcasts on the world team, the root moving on every call (long and mem
 *      forms alternate, nelems 1..8); then 1000 the same way on the team of even PEs.
 *   2. 1000 shmem_long_sum_reduce on the world team.
 *   3. 2000 steps alternating between the world team and the even-PE team, cycling through
 *      broadcast (rotating root), reduction (long sum or int max), fcollect, alltoall and
 *      shmem_team_sync (after a put to the next member and shmem_quiet, so the sync must
 *      order it).
 * The test itself needs no barrier: step k uses buffer slot k % R, and R is chosen so that
 * between two uses of a slot there is a collective that no member can finish before every
 * member has checked (and reset) the slot's previous result: a reduction, fcollect,
 * alltoall or sync on a team containing both, or in part 1 a broadcast from each PE.
 * A barrier separates the parts. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

#define SLOT 80      /* longs per buffer slot */
#define MAXSLOTS 12  /* ring length, at most */
#define GUARD (-1L)  /* dest elements not (yet) written */
#define NG 4         /* guard elements checked past each result */

static long *src, *dst; /* [MAXSLOTS][SLOT] each, symmetric */
static long *flag;      /* [MAXSLOTS], symmetric: written by the previous member before a sync */
static long done;

static long *slot(long *base, long k, int ring) {
    return base + (k % ring) * SLOT;
}

/* Checks dest[n .. n+NG) still hold GUARD, then resets dest[0 .. n+NG) to GUARD. */
static void guard_and_reset(long *d, size_t n, const char *what, const struct coll_team *t, long k) {
    for (size_t i = n; i < n + NG; i++)
        CHECK(d[i] == GUARD, "step %ld %s team %s rank %d: dest[%zu] past the result is %ld, expected untouched %ld",
              k, what, t->name, t->me, i, d[i], GUARD);
    for (size_t i = 0; i < n + NG; i++)
        d[i] = GUARD;
}

static void do_broadcast(const struct coll_team *t, long k, int ring, int root, int mem) {
    int me = shmem_my_pe(), from = coll_pe(t, root);
    size_t n = 1 + (size_t)(k % 8);
    long *s = slot(src, k, ring), *d = slot(dst, k, ring);
    for (size_t i = 0; i < n; i++)
        s[i] = k * 1000 + me * 16 + (long)i;
    int ret = mem ? shmem_broadcastmem(t->team, d, s, n * sizeof(long), root)
                  : shmem_long_broadcast(t->team, d, s, n, root);
    const char *what = mem ? "shmem_broadcastmem" : "shmem_long_broadcast";
    CHECK(ret == 0, "step %ld %s team %s root %d returned %d", k, what, t->name, root, ret);
    for (size_t i = 0; i < n; i++)
        CHECK(d[i] == k * 1000 + from * 16 + (long)i,
              "step %ld %s team %s root %d (world PE %d) nelems %zu, rank %d: dest[%zu] = %ld, expected %ld", k,
              what, t->name, root, from, n, t->me, i, d[i], k * 1000 + from * 16 + (long)i);
    guard_and_reset(d, n, what, t, k);
    done++;
}

static void do_reduce(const struct coll_team *t, long k, int ring, int use_max) {
    int me = shmem_my_pe();
    size_t n = 1 + (size_t)(k % 4);
    long *s = slot(src, k, ring), *d = slot(dst, k, ring);
    int ret;
    const char *what = use_max ? "shmem_int_max_reduce" : "shmem_long_sum_reduce";
    if (use_max) {
        int *si = (int *)s, *di = (int *)d;
        for (size_t i = 0; i < n; i++)
            si[i] = (int)(k * 100 + (me * 5 + (long)i * 3) % 11);
        for (size_t i = 0; i < n + 2 * NG; i++)
            di[i] = (int)GUARD;
        ret = shmem_int_max_reduce(t->team, di, si, n);
        CHECK(ret == 0, "step %ld %s team %s returned %d", k, what, t->name, ret);
        for (size_t i = 0; i < n; i++) {
            int want = INT_MIN;
            for (int r = 0; r < t->size; r++) {
                int v = (int)(k * 100 + (coll_pe(t, r) * 5 + (long)i * 3) % 11);
                want = v > want ? v : want;
            }
            CHECK(di[i] == want, "step %ld %s team %s nreduce %zu, rank %d: dest[%zu] = %d, expected %d", k, what,
                  t->name, n, t->me, i, di[i], want);
        }
        for (size_t i = n; i < n + NG; i++)
            CHECK(di[i] == (int)GUARD, "step %ld %s team %s rank %d: dest[%zu] past nreduce is %d, expected %d", k,
                  what, t->name, t->me, i, di[i], (int)GUARD);
        for (size_t i = 0; i < n + 2 * NG; i++)
            di[i] = (int)GUARD;
    } else {
        for (size_t i = 0; i < n; i++)
            s[i] = k + me * (long)(i + 1);
        ret = shmem_long_sum_reduce(t->team, d, s, n);
        CHECK(ret == 0, "step %ld %s team %s returned %d", k, what, t->name, ret);
        for (size_t i = 0; i < n; i++) {
            long want = 0;
            for (int r = 0; r < t->size; r++)
                want += k + coll_pe(t, r) * (long)(i + 1);
            CHECK(d[i] == want, "step %ld %s team %s nreduce %zu, rank %d: dest[%zu] = %ld, expected %ld", k, what,
                  t->name, n, t->me, i, d[i], want);
        }
        guard_and_reset(d, n, what, t, k);
    }
    done++;
}

static void do_fcollect(const struct coll_team *t, long k, int ring) {
    int me = shmem_my_pe();
    size_t n = 2;
    long *s = slot(src, k, ring), *d = slot(dst, k, ring);
    for (size_t i = 0; i < n; i++)
        s[i] = k * 1000 + me * 16 + (long)i;
    int ret = shmem_long_fcollect(t->team, d, s, n);
    CHECK(ret == 0, "step %ld shmem_long_fcollect team %s returned %d", k, t->name, ret);
    for (int r = 0; r < t->size; r++)
        for (size_t i = 0; i < n; i++) {
            long want = k * 1000 + coll_pe(t, r) * 16 + (long)i;
            CHECK(d[(size_t)r * n + i] == want,
                  "step %ld shmem_long_fcollect team %s, rank %d: dest[%zu] (element %zu of rank %d) = %ld, expected %ld",
                  k, t->name, t->me, (size_t)r * n + i, i, r, d[(size_t)r * n + i], want);
        }
    guard_and_reset(d, (size_t)t->size * n, "shmem_long_fcollect", t, k);
    done++;
}

static void do_alltoall(const struct coll_team *t, long k, int ring) {
    int me = shmem_my_pe();
    size_t n = 1 + (size_t)(k % 3);
    long *s = slot(src, k, ring), *d = slot(dst, k, ring);
    for (int j = 0; j < t->size; j++)
        for (size_t e = 0; e < n; e++)
            s[(size_t)j * n + e] = k * 1000 + me * 64 + j * 4 + (long)e;
    int ret = shmem_long_alltoall(t->team, d, s, n);
    CHECK(ret == 0, "step %ld shmem_long_alltoall team %s returned %d", k, t->name, ret);
    for (int i = 0; i < t->size; i++)
        for (size_t e = 0; e < n; e++) {
            long want = k * 1000 + coll_pe(t, i) * 64 + t->me * 4 + (long)e;
            CHECK(d[(size_t)i * n + e] == want,
                  "step %ld shmem_long_alltoall team %s nelems %zu, rank %d: dest[%zu] (from rank %d) = %ld, expected %ld",
                  k, t->name, n, t->me, (size_t)i * n + e, i, d[(size_t)i * n + e], want);
        }
    guard_and_reset(d, (size_t)t->size * n, "shmem_long_alltoall", t, k);
    done++;
}

/* Put k to the next member, complete it, sync, and find k from the previous member. */
static void do_sync(const struct coll_team *t, long k, int ring) {
    int next = coll_pe(t, (t->me + 1) % t->size);
    shmem_long_p(&flag[k % ring], k, next);
    shmem_quiet();
    int ret = shmem_team_sync(t->team);
    CHECK(ret == 0, "step %ld shmem_team_sync team %s returned %d", k, t->name, ret);
    CHECK(flag[k % ring] == k, "step %ld shmem_team_sync team %s, rank %d: the previous member's put of %ld "
          "before the sync is not visible after it (found %ld)", k, t->name, t->me, k, flag[k % ring]);
    done++;
}

int main(void) {
    shmem_init();
    int npes = shmem_n_pes();
    CHECK(npes <= 8, "sized for at most 8 PEs");
    src = shmem_malloc(MAXSLOTS * SLOT * sizeof(long));
    dst = shmem_malloc(MAXSLOTS * SLOT * sizeof(long));
    flag = shmem_malloc(MAXSLOTS * sizeof(long));
    CHECK(src && dst && flag, "shmem_malloc failed");
    for (int i = 0; i < MAXSLOTS * SLOT; i++)
        src[i] = dst[i] = GUARD;
    for (int i = 0; i < MAXSLOTS; i++)
        flag[i] = -1;

    coll_nteams = 0;
    coll_add(SHMEM_TEAM_WORLD, 0, "world", 0, 1, npes, 0);
    shmem_team_t even = SHMEM_TEAM_INVALID;
    int ret = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    coll_add(even, ret, "split", 0, 2, (npes + 1) / 2, 1);
    const struct coll_team *W = &coll_teams[0], *E = &coll_teams[1];
    shmem_barrier_all();

    /* 1. rotating-root broadcasts: a ring longer than the team, so that each PE is a root
     * between two uses of a slot */
    const struct coll_team *bteams[2] = {W, E};
    for (int b = 0; b < 2; b++) {
        const struct coll_team *t = bteams[b];
        if (t->me >= 0)
            for (long k = 0; k < 1000; k++)
                do_broadcast(t, k, t->size + 2, (int)(k % t->size), (int)(k % 2));
        shmem_barrier_all();
    }

    /* 2. reductions only */
    for (long k = 0; k < 1000; k++)
        do_reduce(W, k, 3, 0);
    shmem_barrier_all();

    /* 3. the mix */
    const int ring = 6;
    for (long k = 0; k < 2000; k++) {
        const struct coll_team *t = k % 2 == 0 ? W : E;
        if (t->me < 0)
            continue;
        switch (k % 5) {
        case 0:
            do_broadcast(t, k, ring, (int)((k / 10) % t->size), (int)((k / 10) % 2));
            break;
        case 1:
            do_reduce(t, k, ring, (int)((k / 10) % 2));
            break;
        case 2:
            do_fcollect(t, k, ring);
            break;
        case 3:
            do_alltoall(t, k, ring);
            break;
        default:
            do_sync(t, k, ring);
            break;
        }
    }
    shmem_barrier_all();

    long want = 1000 + 1000 + (E->me >= 0 ? 1000 + 1000 : 0) + 1000;
    CHECK(done == want, "ran %ld collectives, expected %ld", done, want);
    coll_teams_destroy();
    shmem_free(flag);
    shmem_free(dst);
    shmem_free(src);
    printf("PE %d: %ld back-to-back collectives ok\n", shmem_my_pe(), done);
    shmem_finalize();
    return 0;
}
