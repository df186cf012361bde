/* rshmem-test
 * np: 2 3 5 8
 * variant: SHMEM_BARRIER_ALGORITHM=dissemination tree linear complete
 * variant: SHMEM_BCAST_ALGORITHM=linear binomial
 * variant: SHMEM_REDUCE_ALGORITHM=linear recursive-doubling ring scatter-gather
 * variant: SHMEM_COLLECT_ALGORITHM=linear ring
 * variant: SHMEM_TEAM_SCRATCH_SIZE=1K
 * timeout: 120
 */
/* Every collective algorithm, back to back with no barrier in between, on the
 * world team, on a stride-2 team (a reversed one too) and on an active set with
 * alternating pSync arrays; every result checked. Sizes cross the scratch
 * chunk size so chunked reductions run more than one chunk.
 *
 * The active-set broadcast has a dest of its own: a broadcast's dest must be
 * ready on every PE before any PE calls it, and its root may write into the
 * others' dest while they are still in the reduction before it (rshmem's root
 * pushes small broadcasts, as SOS's and Open MPI's do). The sum_to_all after
 * it keeps the next broadcast out of bdst until every PE has checked it. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ITERS 300
#define BIG 3000

static long src[BIG], dst[BIG * 8], wrk[BIG], bdst[2];
static long psync[2][SHMEM_REDUCE_SYNC_SIZE];

static void check_team(shmem_team_t t, int it) {
    int r = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    int root = it % n;
    size_t len = (size_t)(1 + it % 7) * (it % 5 == 0 ? 400 : 1);
    for (size_t i = 0; i < len; i++) src[i] = (long)(r * 1000 + it + (long)i);
    CHECK(shmem_long_broadcast(t, dst, src, len, root) == 0, "broadcast rc");
    for (size_t i = 0; i < len; i++)
        CHECK(dst[i] == root * 1000 + it + (long)i, "bcast it %d i %zu: %ld", it, i, dst[i]);
    CHECK(shmem_long_sum_reduce(t, dst, src, len) == 0, "reduce rc");
    for (size_t i = 0; i < len; i++) {
        long want = 0;
        for (int k = 0; k < n; k++) want += k * 1000 + it + (long)i;
        CHECK(dst[i] == want, "sum it %d i %zu: %ld != %ld", it, i, dst[i], want);
    }
    /* In place. */
    for (size_t i = 0; i < len; i++) dst[i] = r + 1 + (long)i;
    shmem_long_max_reduce(t, dst, dst, len);
    for (size_t i = 0; i < len; i++) CHECK(dst[i] == n + (long)i, "max in place it %d", it);
    size_t f = 1 + it % 3;
    for (size_t i = 0; i < f; i++) src[i] = r * 10 + (long)i;
    shmem_long_fcollect(t, dst, src, f);
    for (int k = 0; k < n; k++)
        for (size_t i = 0; i < f; i++) CHECK(dst[k * f + i] == k * 10 + (long)i, "fcollect it %d", it);
    size_t mine = (size_t)((r + it) % 3);
    for (size_t i = 0; i < mine; i++) src[i] = r * 100 + (long)i;
    shmem_long_collect(t, dst, src, mine);
    size_t at = 0;
    for (int k = 0; k < n; k++)
        for (size_t i = 0; i < (size_t)((k + it) % 3); i++, at++)
            CHECK(dst[at] == k * 100 + (long)i, "collect it %d k %d", it, k);
    for (int k = 0; k < n; k++) src[k] = r * 100 + k;
    shmem_long_alltoall(t, dst, src, 1);
    for (int k = 0; k < n; k++) CHECK(dst[k] == k * 100 + r, "alltoall it %d", it);
    src[0] = r + 1;
    shmem_long_sum_inscan(t, dst, src, 1);
    CHECK(dst[0] == (long)(r + 1) * (r + 2) / 2, "inscan it %d: %ld", it, dst[0]);
    if (it % 11 == 0) shmem_team_sync(t);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) psync[0][i] = psync[1][i] = SHMEM_SYNC_VALUE;
    shmem_team_t even, rev;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev);
    CHECK(shmem_team_my_pe(rev) == npes - 1 - me, "reversed rank");
    shmem_barrier_all();
    for (int it = 0; it < ITERS; it++) {
        check_team(SHMEM_TEAM_WORLD, it);
        if (even != SHMEM_TEAM_INVALID) check_team(even, it);
        if (it % 3 == 0) check_team(rev, it);
        /* Active set of all PEs: sum_to_all with alternating pSync. */
        size_t len = it % 4 == 0 ? BIG : 3;
        for (size_t i = 0; i < len; i++) src[i] = me + (long)i;
        shmem_long_sum_to_all(dst, src, (int)len, 0, 0, npes, wrk, psync[it % 2]);
        for (size_t i = 0; i < len; i++)
            CHECK(dst[i] == (long)npes * (npes - 1) / 2 + (long)npes * (long)i, "to_all it %d", it);
        shmem_broadcast64(bdst, src, 2, it % npes, 0, 0, npes, psync[(it + 1) % 2]);
        if (me != it % npes) CHECK(bdst[1] == it % npes + 1, "broadcast64 it %d", it);
    }
    shmem_barrier_all();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        CHECK(psync[0][i] == SHMEM_SYNC_VALUE && psync[1][i] == SHMEM_SYNC_VALUE, "pSync[%d] not restored", i);
    if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
    shmem_team_destroy(rev);
    if (me == 0) printf("ok\n");
    shmem_finalize();
    return 0;
}
