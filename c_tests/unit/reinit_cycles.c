/* rshmem-test
 * np: 1 2 4
 * timeout: 60
 * variant: SHMEM_PSYNC_STRATEGY=all
 */
/* shmem_finalize then shmem_init again, twice (OpenSHMEM 1.6 allows it): every
 * initialisation starts from a clean process state and works in full.
 * In each of the three rounds:
 * - the synchronisation footprint starts over: no collective counted but the
 *   start-up's, the same teams as in round 0 holding sync memory (the world's,
 *   and across nodes SHMEM_TEAM_SHARED's);
 * Across nodes (tests/mpi_suite.rs) the engine and MPI stay open from one round to
 * the next: MPI cannot be initialised twice in a process.
 * - handles of the previous round are stale: its team and its space are not valid
 *   any more (shmem_team_n_pes gives -1, shmemx_space_get_team non-zero);
 * - shmem_malloc, a split into the even PEs (stride 2), and on the world team and on
 *   that team (traditional by default, every other strategy as a variant): sync, broadcast, collect, fcollect, alltoall, alltoalls, sum and max
 *   reductions, inscan and exscan, each checked;
 * - the active-set forms on the world (barrier, sync, broadcast64, collect64,
 *   fcollect64, alltoall64, long_sum_to_all), each checked;
 * - a space attached to the world (malloc, put around the ring, free) and a
 *   semaphore (post to the right neighbour, wait);
 * - the team is destroyed and the space and the semaphore stay alive into
 *   shmem_finalize: the next shmem_init must forget them. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

#include "../common.h"

#define N 4
#define ROUNDS 3

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

/* Every collective kind on `team` (nt members, this PE at rank r), checked, on
 * symmetric buffers src (N * 4 longs) and dst (N * 16 longs). */
static void team_collectives(shmem_team_t team, int nt, int r, int round, long *src, long *dst) {
    shmem_team_sync(team);

    for (int i = 0; i < N; i++)
        src[i] = r == nt - 1 ? 100 * round + i : -1;
    shmem_long_broadcast(team, dst, src, N, nt - 1);
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == 100 * round + i, "round %d: broadcast dst[%d] = %ld", round, i, dst[i]);

    for (int i = 0; i < N; i++)
        src[i] = 1000 * r + i;
    shmem_long_fcollect(team, dst, src, N);
    for (int k = 0; k < nt * N; k++)
        CHECK(dst[k] == 1000 * (k / N) + k % N, "round %d: fcollect dst[%d] = %ld", round, k, dst[k]);

    /* rank k contributes k + 1 elements */
    shmem_long_collect(team, dst, src, (size_t)r + 1);
    for (int k = 0, at = 0; k < nt; k++)
        for (int i = 0; i <= k; i++, at++)
            CHECK(dst[at] == 1000 * k + i, "round %d: collect dst[%d] = %ld", round, at, dst[at]);

    for (int k = 0; k < nt; k++)
        src[k] = 10 * r + k;
    shmem_long_alltoall(team, dst, src, 1);
    for (int k = 0; k < nt; k++)
        CHECK(dst[k] == 10 * k + r, "round %d: alltoall dst[%d] = %ld", round, k, dst[k]);
    shmem_long_alltoalls(team, dst, src, 2, 1, 1);
    for (int k = 0; k < nt; k++)
        CHECK(dst[2 * k] == 10 * k + r, "round %d: alltoalls dst[%d] = %ld", round, 2 * k, dst[2 * k]);

    for (int i = 0; i < N; i++)
        src[i] = r + i + round;
    shmem_long_sum_reduce(team, dst, src, N);
    for (int i = 0; i < N; i++) {
        long want = (long)nt * (nt - 1) / 2 + (long)nt * (i + round);
        CHECK(dst[i] == want, "round %d: sum_reduce dst[%d] = %ld, want %ld", round, i, dst[i], want);
    }
    shmem_long_max_reduce(team, dst, src, N);
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == nt - 1 + i + round, "round %d: max_reduce dst[%d] = %ld", round, i, dst[i]);

    src[0] = r + 1;
    shmem_long_sum_inscan(team, dst, src, 1);
    CHECK(dst[0] == (long)(r + 1) * (r + 2) / 2, "round %d: inscan = %ld", round, dst[0]);
    shmem_long_sum_exscan(team, dst, src, 1);
    if (r > 0)
        CHECK(dst[0] == (long)r * (r + 1) / 2, "round %d: exscan = %ld", round, dst[0]);

    shmem_team_sync(team);
}

/* The active-set forms over the whole world. */
static void active_set(int me, int npes, int round) {
    static long a[N * 8], b[N * 8];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    shmem_barrier(0, 0, npes, psync);
    shmem_sync(0, 0, npes, psync);

    for (int i = 0; i < N; i++)
        a[i] = me == 0 ? 7 * round + i : -1;
    shmem_broadcast64(b, a, N, 0, 0, 0, npes, psync);
    shmem_barrier_all();
    if (me != 0)
        for (int i = 0; i < N; i++)
            CHECK(b[i] == 7 * round + i, "round %d: broadcast64 b[%d] = %ld", round, i, b[i]);

    for (int i = 0; i < N; i++)
        a[i] = 100 * me + i;
    shmem_fcollect64(b, a, N, 0, 0, npes, psync);
    shmem_barrier_all();
    for (int k = 0; k < npes * N; k++)
        CHECK(b[k] == 100 * (k / N) + k % N, "round %d: fcollect64 b[%d] = %ld", round, k, b[k]);
    shmem_collect64(b, a, 1, 0, 0, npes, psync);
    shmem_barrier_all();
    for (int k = 0; k < npes; k++)
        CHECK(b[k] == 100 * k, "round %d: collect64 b[%d] = %ld", round, k, b[k]);

    for (int k = 0; k < npes; k++)
        a[k] = 10 * me + k;
    shmem_alltoall64(b, a, 1, 0, 0, npes, psync);
    shmem_barrier_all();
    for (int k = 0; k < npes; k++)
        CHECK(b[k] == 10 * k + me, "round %d: alltoall64 b[%d] = %ld", round, k, b[k]);

    a[0] = me + round;
    shmem_long_sum_to_all(b, a, 1, 0, 0, npes, pwrk, psync);
    shmem_barrier_all();
    CHECK(b[0] == (long)npes * (npes - 1) / 2 + (long)npes * round, "round %d: sum_to_all = %ld", round, b[0]);
}

int main(void) {
    unsigned long long start_collectives = 0;
    size_t start_teams = 0;
    shmem_team_t old_team = SHMEM_TEAM_INVALID;
    shmemx_space_t old_space = NULL;
    for (int round = 0; round < ROUNDS; round++) {
        shmem_init();
        int me = shmem_my_pe(), npes = shmem_n_pes();

        shmemx_psync_footprint_t fp;
        CHECK(shmemx_psync_footprint(&fp) == 0, "round %d: footprint failed", round);
        /* what start-up itself counts (across nodes: SHMEM_TEAM_SHARED's creation) */
        if (round == 0) {
            start_collectives = fp.collectives;
            start_teams = fp.teams_current;
        }
        CHECK(fp.collectives == start_collectives, "round %d: %llu collectives counted before any (round 0: %llu)",
              round, fp.collectives, start_collectives);
        CHECK(fp.teams_current == start_teams, "round %d: %zu teams hold sync memory at start (round 0: %zu)", round,
              fp.teams_current, start_teams);
        int one_node = shmem_team_n_pes(SHMEM_TEAM_SHARED) == npes;
        CHECK(one_node ? start_teams == 1 && start_collectives == 0 : start_teams <= 2 && start_collectives <= 1,
              "round %d: start-up counted %llu collectives, %zu teams (%s)", round, start_collectives, start_teams,
              one_node ? "one node" : "across nodes");
        if (round > 0) {
            CHECK(shmem_team_n_pes(old_team) == -1 || old_team == SHMEM_TEAM_INVALID,
                  "round %d: the previous round's team is still valid", round);
            shmem_team_t t;
            CHECK(shmemx_space_get_team(old_space, &t) != 0, "round %d: the previous round's space is still valid",
                  round);
        }

        /* the world, then the even PEs (shmem_malloc is collective over the world) */
        long *src = shmem_malloc(sizeof(long) * N * 4);
        long *dst = shmem_malloc(sizeof(long) * N * 16);
        CHECK(src && dst, "round %d: shmem_malloc failed", round);
        team_collectives(SHMEM_TEAM_WORLD, npes, me, round, src, dst);
        shmem_team_t even;
        int ne = (npes + 1) / 2;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, ne, NULL, 0, &even) == 0, "round %d: split failed",
              round);
        if (me % 2 == 0) {
            CHECK(shmem_team_my_pe(even) == me / 2, "round %d: rank %d in the even team", round,
                  shmem_team_my_pe(even));
            team_collectives(even, ne, me / 2, round, src, dst);
        }
        shmem_free(dst);
        shmem_free(src);
        active_set(me, npes, round);

        /* a space and a semaphore, left alive into shmem_finalize */
        shmemx_space_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.sheap_size = 1 << 16;
        cfg.num_contexts = 1;
        shmemx_space_t space;
        shmemx_space_create(cfg, &space);
        shmemx_space_attach(space);
        long *w = shmemx_space_malloc(space, sizeof(long));
        CHECK(w != NULL, "round %d: space malloc failed", round);
        *w = -1;
        shmem_barrier_all();
        shmem_long_p(w, 1000 * round + me, (me + 1) % npes);
        shmem_barrier_all();
        CHECK(*w == 1000 * round + (me + npes - 1) % npes, "round %d: space word = %ld", round, *w);
        shmemx_sem_t *sem = shmemx_sem_alloc(0);
        CHECK(sem != NULL, "round %d: semaphore alloc failed", round);
        shmemx_sem_post(sem, (me + 1) % npes);
        shmemx_sem_wait(sem);

        if (me % 2 == 0)
            shmem_team_destroy(even);
        CHECK(shmemx_psync_footprint(&fp) == 0 && fp.collectives > 0, "round %d: no collective counted", round);
        old_team = even;
        old_space = space;
        shmem_finalize();
    }
    if (old_team != SHMEM_TEAM_INVALID || old_space != NULL)
        printf("PE done after %d rounds\n", ROUNDS);
    return 0;
}
