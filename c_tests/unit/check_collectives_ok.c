/* rshmem-test
 * np: 1 2 3 4
 * env: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * variant: SHMEM_BCAST_ALGORITHM=linear binomial
 * variant: SHMEM_COLLECT_ALGORITHM=linear ring
 * stdout: checked collectives ok
 */
/* Correct programs pass the argument check (SHMEM_CHECK_COLLECTIVES=1) and get the
 * right results, whatever the strategy: collect with a different nelems on every PE
 * (which the check must not compare), zero-length calls, shmem_barrier_all on some PEs
 * and shmem_sync_all on the others (one rendezvous), reductions and scans, fcollect,
 * alltoall(s) and broadcast on the world and on a split team (PEs outside it calling
 * the split too), every allocation routine, and many calls back to back (a member may
 * run into the next check while others still read this one's records). */
#include <shmem.h>
#include <stdio.h>

#include "../common.h"

static long src[64], dst[256];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    /* collect: PE k contributes k + 1 elements. */
    for (int i = 0; i < 64; i++) src[i] = me * 100 + i;
    shmem_barrier_all();
    shmem_long_collect(SHMEM_TEAM_WORLD, dst, src, (size_t)me + 1);
    size_t at = 0;
    for (int k = 0; k < npes; k++)
        for (int i = 0; i <= k; i++, at++) CHECK(dst[at] == k * 100 + i, "collect dst[%zu] = %ld", at, dst[at]);

    /* Zero-length calls, and both world barriers in one rendezvous. */
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 0, 0);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 0);
    if (me % 2)
        shmem_sync_all();
    else
        shmem_barrier_all();

    /* Back to back on the world and on a split team. */
    shmem_team_t half = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &half);
    CHECK(rc == 0, "split returned %d", rc);
    shmem_team_t teams[2] = {SHMEM_TEAM_WORLD, half};
    for (int t = 0; t < 2; t++) {
        shmem_team_t team = teams[t];
        if (team == SHMEM_TEAM_INVALID) continue;
        int n = shmem_team_n_pes(team), r = shmem_team_my_pe(team);
        for (int iter = 0; iter < 50; iter++) {
            src[0] = r + iter;
            shmem_long_sum_reduce(team, dst, src, 1);
            CHECK(dst[0] == (long)n * (n - 1) / 2 + (long)n * iter, "sum %ld (iteration %d)", dst[0], iter);
            shmem_long_broadcast(team, dst, src, 1, iter % n);
            CHECK(dst[0] == (iter % n) + iter, "broadcast %ld (iteration %d)", dst[0], iter);
            shmem_long_fcollect(team, dst, src, 1);
            for (int k = 0; k < n; k++) CHECK(dst[k] == k + iter, "fcollect dst[%d] = %ld", k, dst[k]);
            for (int k = 0; k < n; k++) src[k] = r * 1000 + k;
            shmem_long_alltoall(team, dst, src, 1);
            for (int k = 0; k < n; k++) CHECK(dst[k] == k * 1000 + r, "alltoall dst[%d] = %ld", k, dst[k]);
            shmem_long_alltoalls(team, dst, src, 1, 1, 1);
            shmem_long_sum_inscan(team, dst, src, 1);
            shmem_team_sync(team);
        }
    }
    if (half != SHMEM_TEAM_INVALID) shmem_team_destroy(half);

    /* The allocation routines with equal arguments. */
    long *a = shmem_malloc(64);
    long *b = shmem_calloc(8, sizeof(long));
    long *c = shmem_align(256, 64);
    long *d = shmem_malloc_with_hints(64, 0);
    CHECK(a && b && c && d, "an allocation failed");
    a = shmem_realloc(a, 128);
    CHECK(a != NULL, "realloc failed");
    shmem_free(d);
    shmem_free(c);
    shmem_free(b);
    shmem_free(a);
    shmem_free(NULL);

    shmem_team_t x, y;
    rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y);
    CHECK(rc == 0, "split_2d returned %d", rc);
    shmem_team_sync(x);
    shmem_team_sync(y);
    shmem_team_destroy(x);
    shmem_team_destroy(y);

    shmem_barrier_all();
    if (me == 0) printf("checked collectives ok\n");
    shmem_finalize();
    return 0;
}
