/* rshmem-test
 * np: 1 2 3 4 8
 * variant: RSHMEM_NBC_THREAD=on off
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stdout: nbc order ok
 * timeout: 120
 */
/* Order and completion of the non-blocking collectives (issue 36):
 *  1. one team, several outstanding: K collectives of different kinds initiated on the
 *     world team, then completed in an order that differs by PE and by round (a rotation of
 *     wait and test calls), results checked;
 *  2. overlapping teams, waits in a PE-dependent order: collectives initiated on every team
 *     of coll.h in the same order everywhere, then waited for team by team starting at a
 *     team that depends on the PE (so a PE may wait for the world's collective while its
 *     partner waits for their 2D team's): the draft lets a program complete requests in any
 *     order, so this must not deadlock, with or without the worker threads;
 *  3. a blocking collective between initiation and wait, on the same team: it must see the
 *     queued ones done first (a broadcast whose source is the dest of an fcollect_nb, a
 *     reduction of the dest of a sum_reduce_nb; the requests then test done at once), and
 *     on an overlapping team (a world request outstanding while the PEs run a blocking
 *     collective on their 2D team);
 *  4. return values: SHMEM_REQ_INVALID (-1, SIZE_MAX), a request still pending (1: a PE
 *     starts a team sync whose partner joins 300 ms later; seen when the worker runs it,
 *     RSHMEM_NBC_THREAD=on), and a handle reused after completion for a new request. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../coll.h"
#include "../nbc.h"

#define K 7
#define N 6 /* elements per PE */

static long src[K][8 * N], dst[K][8 * N], chk[8 * N];

static long v(int pe, int i, int round, int k) {
    return 1000L * pe + 10L * i + round * 7 + k;
}

/* Fills src[k] and dst[k] for round: before a sync of the team, so that no member writes
 * into dst[k] before it is filled. */
static void fill_k(int k, int round) {
    int pe = shmem_my_pe();
    for (int i = 0; i < 8 * N; i++) {
        src[k][i] = v(pe, i, round, k);
        dst[k][i] = -1;
    }
}

/* Initiates collective k of a round on team t (kinds by k), from src[k] into dst[k]. */
static void start_k(const struct coll_team *t, int k, int round, shmem_req_h *r) {
    int ret = 0;
    switch (k % 7) {
    case 0: ret = shmem_long_sum_reduce_nb(t->team, dst[k], src[k], N, r); break;
    case 1: ret = shmem_long_fcollect_nb(t->team, dst[k], src[k], N, r); break;
    case 2: ret = shmem_long_broadcast_nb(t->team, dst[k], src[k], N, round % t->size, r); break;
    case 3: ret = shmem_long_alltoall_nb(t->team, dst[k], src[k], N, r); break;
    case 4: ret = shmem_team_sync_nb(t->team, r); break;
    case 5: ret = shmem_long_sum_exscan_nb(t->team, dst[k], src[k], N, r); break;
    case 6: ret = shmem_long_max_reduce_nb(t->team, dst[k], src[k], N, r); break;
    }
    CHECK(ret == 0 && *r != SHMEM_REQ_INVALID, "kind %d team %s: initiation returned %d", k % 7, t->name, ret);
}

static void check_k(const struct coll_team *t, int k, int round) {
    int n = t->size, me = t->me;
    for (int i = 0; i < 8 * N; i++) {
        long want = -1;
        switch (k % 7) {
        case 0:
        case 5:
        case 6:
            if (i < N) {
                int last = k % 7 == 5 ? me - 1 : n - 1;
                want = 0;
                for (int q = 0; q <= last; q++)
                    want = k % 7 == 6 ? (q == 0 || v(coll_pe(t, q), i, round, k) > want ? v(coll_pe(t, q), i, round, k) : want)
                                      : want + v(coll_pe(t, q), i, round, k);
            }
            break;
        case 1:
            if (i < n * N)
                want = v(coll_pe(t, i / N), i % N, round, k);
            break;
        case 2:
            if (i < N)
                want = v(coll_pe(t, round % n), i, round, k);
            break;
        case 3:
            if (i < n * N)
                want = v(coll_pe(t, i / N), me * N + i % N, round, k);
            break;
        }
        CHECK(dst[k][i] == want, "kind %d team %s rank %d round %d: dest[%d] is %ld, want %ld", k % 7, t->name, me,
              round, i, dst[k][i], want);
    }
}

/* Part 1: the world team, K outstanding, completed in an order that depends on PE and round. */
static void part1(void) {
    const struct coll_team *w = &coll_teams[0];
    int me = shmem_my_pe();
    for (int round = 0; round < 40; round++) {
        shmem_req_h r[K];
        for (int k = 0; k < K; k++)
            fill_k(k, round);
        coll_sync(w);
        for (int k = 0; k < K; k++)
            start_k(w, k, round, &r[k]);
        int rot = (me * 3 + round) % K, mode = (round + me) % 3;
        for (int j = 0; j < K; j++) {
            int k = (rot + (mode == 2 ? K - j : j)) % K;
            if (mode == 1) { /* test until done */
                int ret;
                while ((ret = shmem_req_test(&r[k])) == 1)
                    ;
                CHECK(ret == 0, "part 1: shmem_req_test returned %d", ret);
            } else {
                CHECK(shmem_req_wait(&r[k]) == 0, "part 1: shmem_req_wait failed");
            }
            CHECK(r[k] == SHMEM_REQ_INVALID, "part 1: request %d not invalid after completion", k);
            check_k(w, k, round);
        }
    }
}

/* Part 2: one collective on each team (overlapping), waited for from a PE-dependent team. */
static void part2(void) {
    int me = shmem_my_pe();
    for (int round = 0; round < 20; round++) {
        shmem_req_h r[COLL_MAX_TEAMS];
        int ks[COLL_MAX_TEAMS];
        static const int kinds[6] = {0, 1, 2, 3, 5, 6}; /* with a result; one per team */
        for (int ti = 0; ti < coll_nteams; ti++) {
            ks[ti] = kinds[(ti + round) % 6];
            fill_k(ks[ti], round);
        }
        for (int ti = 0; ti < coll_nteams; ti++)
            if (coll_teams[ti].me >= 0)
                coll_sync(&coll_teams[ti]);
        for (int ti = 0; ti < coll_nteams; ti++) {
            r[ti] = SHMEM_REQ_INVALID;
            if (coll_teams[ti].me >= 0)
                start_k(&coll_teams[ti], ks[ti], round, &r[ti]);
        }
        for (int j = 0; j < coll_nteams; j++) {
            int ti = (me + round + j) % coll_nteams;
            if (coll_teams[ti].me < 0)
                continue;
            CHECK(shmem_req_wait(&r[ti]) == 0, "part 2: shmem_req_wait on team %s failed", coll_teams[ti].name);
            check_k(&coll_teams[ti], ks[ti], round);
        }
    }
}

/* Part 3: blocking collectives between initiation and wait. */
static void part3(void) {
    const struct coll_team *w = &coll_teams[0];
    int n = w->size;
    for (int round = 0; round < 10; round++) {
        shmem_req_h r[2];
        fill_k(0, round);
        fill_k(1, round);
        fill_k(3, round);
        coll_sync(w);
        start_k(w, 1, round, &r[0]); /* fcollect into dst[1] */
        start_k(w, 0, round, &r[1]); /* sum_reduce into dst[0] */
        /* The blocking broadcast reads the root's dst[1]: the fcollect's result only if the
         * fcollect ran first on the root. */
        for (int i = 0; i < 8 * N; i++)
            chk[i] = -2;
        int ret = shmem_long_broadcast(SHMEM_TEAM_WORLD, chk, dst[1], (size_t)n * N, round % n);
        CHECK(ret == 0, "part 3: shmem_long_broadcast returned %d", ret);
        for (int i = 0; i < n * N; i++)
            CHECK(chk[i] == v(i / N, i % N, round, 1), "part 3 round %d: the blocking broadcast of the fcollect_nb's "
                  "dest gave [%d] = %ld, want %ld: it ran before the queued fcollect", round, i, chk[i],
                  v(i / N, i % N, round, 1));
        static long sum2[N];
        ret = shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sum2, dst[0], N);
        CHECK(ret == 0, "part 3: shmem_long_sum_reduce returned %d", ret);
        for (int i = 0; i < N; i++) {
            long s = 0;
            for (int q = 0; q < n; q++)
                s += v(q, i, round, 0);
            CHECK(sum2[i] == (long)n * s, "part 3 round %d: a blocking sum of the sum_reduce_nb's dest gave %ld, "
                  "want %ld", round, sum2[i], (long)n * s);
        }
        for (int k = 0; k < 2; k++) {
            ret = shmem_req_test(&r[k]);
            CHECK(ret == 0, "part 3: request %d tests %d after a blocking collective on its team, want 0", k, ret);
        }
        check_k(w, 1, round);
        check_k(w, 0, round);
        /* A world request outstanding across a blocking collective of the 2D team. */
        const struct coll_team *x = &coll_teams[coll_nteams - 2];
        start_k(w, 3, round, &r[0]);
        static long xs[1], xd[1];
        xs[0] = 1;
        ret = shmem_long_sum_reduce(x->team, xd, xs, 1);
        CHECK(ret == 0 && xd[0] == x->size, "part 3: blocking sum on %s: %d, %ld", x->name, ret, xd[0]);
        CHECK(shmem_req_wait(&r[0]) == 0, "part 3: wait failed");
        check_k(w, 3, round);
    }
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Part 4: return values. */
static void part4(void) {
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_req_h bad[3] = {SHMEM_REQ_INVALID, SHMEM_REQ_INVALID, SHMEM_REQ_INVALID};
    size_t idx[3];
    CHECK(shmem_req_test(&bad[0]) == -1, "shmem_req_test(SHMEM_REQ_INVALID) is not -1");
    CHECK(shmem_req_wait(&bad[0]) == -1, "shmem_req_wait(SHMEM_REQ_INVALID) is not -1");
    CHECK(shmemx_req_wait_all(bad, 3) == -1, "shmemx_req_wait_all of invalid requests is not -1");
    CHECK(shmemx_req_test_all(bad, 3) == -1, "shmemx_req_test_all of invalid requests is not -1");
    CHECK(shmemx_req_wait_any(bad, 3) == SIZE_MAX, "shmemx_req_wait_any of invalid requests is not SIZE_MAX");
    CHECK(shmemx_req_test_some(bad, 3, idx) == SIZE_MAX, "shmemx_req_test_some of invalid requests is not SIZE_MAX");
    /* invalid entries among valid ones are skipped */
    shmem_req_h mix[3] = {SHMEM_REQ_INVALID, SHMEM_REQ_INVALID, SHMEM_REQ_INVALID};
    CHECK(shmem_team_sync_nb(SHMEM_TEAM_WORLD, &mix[1]) == 0, "shmem_team_sync_nb failed");
    size_t i = shmemx_req_wait_any(mix, 3);
    CHECK(i == 1 && mix[1] == SHMEM_REQ_INVALID, "shmemx_req_wait_any returned %zu, want 1", i);
    CHECK(shmem_sync_nb(SHMEM_TEAM_WORLD, &mix[2]) == 0, "shmem_sync_nb failed");
    CHECK(shmemx_req_wait_all(mix, 3) == 0 && mix[2] == SHMEM_REQ_INVALID, "shmemx_req_wait_all failed");
    /* pending: PE 0 tests a world sync that PE 1 joins 300 ms later */
    const char *th = getenv("RSHMEM_NBC_THREAD");
    shmem_barrier_all();
    shmem_req_h s = SHMEM_REQ_INVALID;
    if (me == 1)
        sleep_ms(300);
    CHECK(shmem_team_sync_nb(SHMEM_TEAM_WORLD, &s) == 0, "shmem_team_sync_nb failed");
    long pending = 0;
    int ret;
    while ((ret = shmem_req_test(&s)) == 1)
        pending++;
    CHECK(ret == 0 && s == SHMEM_REQ_INVALID, "shmem_req_test ended with %d", ret);
    if (me == 0 && n > 1 && th && strcmp(th, "on") == 0)
        CHECK(pending > 0, "shmem_req_test never returned 1 (pending) for a sync a PE joined 300 ms late");
    if (th && strcmp(th, "off") == 0)
        CHECK(pending == 0, "without a worker shmem_req_test returned 1 %ld times", pending);
    /* a handle variable reused for new requests once completed */
    for (int round = 0; round < 50; round++) {
        CHECK(s == SHMEM_REQ_INVALID, "reused handle not invalid");
        fill_k(round % 2 ? 0 : 3, round);
        coll_sync(&coll_teams[0]);
        start_k(&coll_teams[0], round % 2 ? 0 : 3, round, &s);
        CHECK(shmem_req_wait(&s) == 0, "wait failed");
        check_k(&coll_teams[0], round % 2 ? 0 : 3, round);
    }
}

int main(void) {
    shmem_init();
    coll_teams_create();
    part1();
    shmem_barrier_all();
    part2();
    shmem_barrier_all();
    part3();
    shmem_barrier_all();
    part4();
    shmem_barrier_all();
    coll_teams_destroy();
    if (shmem_my_pe() == 0)
        printf("nbc order ok\n");
    shmem_finalize();
    return 0;
}
