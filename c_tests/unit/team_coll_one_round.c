/* rshmem-test
 * np: 2 3 4 8
 * timeout: 60
 * variant: SHMEM_PEER_TABLES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 */
/* Small team fcollects, alltoalls and reductions complete in one round through the team's
 * inbox (every member pushes its block to every other and takes the others' from its own
 * inbox), mixed with broadcasts, which go through the same per-pair rings.
 *
 * ROUNDS rounds on the world team and on a team of the odd PEs, back to back with no
 * barrier: each round is either a burst of three broadcasts from one root (so the root runs
 * ahead of its receivers and may fill their rings), or an fcollect, an alltoall or a
 * reduction (long sum, in place every third time; int max; double sum), with the size
 * changing every round (1 to 600 elements: the eager sizes and larger ones, which go the
 * pulling way with the strategy's sync memory). Every source is rewritten as soon as the
 * call returns and every dest is poisoned before the next call; PE 0 and the last PE stall
 * now and then so that the others run ahead. Every member checks every result.
 *
 * Then teams whose memory is reused: teams of n - 1 PEs split in turn from PE 0 and from PE
 * 1, each making an odd number of small fcollects and then destroyed, so that the next team
 * (likely in the same region) has a member that made none of the old team's calls; every
 * member must still pick the same slab of the team's inbox. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <string.h>
#include <time.h>

#include "../common.h"

#define ROUNDS 400
#define MAXN 600
#define MAXPES 8

static long lsrc[MAXN * MAXPES], ldst[MAXN * MAXPES];
static int isrc[MAXN], idst[MAXN];
static double dsrc[MAXN], ddst[MAXN];

static size_t nelems_of_round(int r) {
    static const size_t sizes[] = {1, 3, 8, 32, 64, 100, 256, 600, 1, 2};
    return sizes[r % 10];
}

static void stall(int me, int npes, int r) {
    if ((me == 0 && r % 41 == 0) || (me == npes - 1 && r % 53 == 7)) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
}

static long val(int from, int to, int r, size_t i) {
    return (long)from * 100000 + (long)to * 1000 + r * 7 + (long)i;
}

static void rounds(shmem_team_t team, int me, int npes) {
    int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
    for (int r = 0; r < ROUNDS; r++) {
        size_t n = nelems_of_round(r);
        stall(me, npes, r);
        switch (r % 5) {
        case 0: { /* a burst of broadcasts from one root */
            int root = (r / 5) % tn;
            for (int b = 0; b < 3; b++) {
                if (tme == root)
                    for (size_t i = 0; i < n; i++) lsrc[i] = val(root, b, r, i);
                for (size_t i = 0; i < n; i++) ldst[i] = -1;
                CHECK(shmem_long_broadcast(team, ldst, lsrc, n, root) == 0, "broadcast rc round %d", r);
                if (tme == root) memset(lsrc, 0x55, n * sizeof *lsrc);
                for (size_t i = 0; i < n; i++)
                    CHECK(ldst[i] == val(root, b, r, i), "round %d broadcast %d (root %d, %zu longs): [%zu] = %ld",
                          r, b, root, n, i, ldst[i]);
            }
            break;
        }
        case 1: /* fcollect */
            for (size_t i = 0; i < n; i++) lsrc[i] = val(tme, 0, r, i);
            for (size_t i = 0; i < n * (size_t)tn; i++) ldst[i] = -1;
            CHECK(shmem_long_fcollect(team, ldst, lsrc, n) == 0, "fcollect rc round %d", r);
            memset(lsrc, 0x55, n * sizeof *lsrc);
            for (int k = 0; k < tn; k++)
                for (size_t i = 0; i < n; i++)
                    CHECK(ldst[k * n + i] == val(k, 0, r, i), "round %d fcollect (%zu longs): block %d [%zu] = %ld",
                          r, n, k, i, ldst[k * n + i]);
            for (size_t i = 0; i < n; i++) isrc[i] = tme * 3 + (int)i + r;
            if (n * (size_t)tn <= MAXN) {
                for (size_t i = 0; i < n * (size_t)tn; i++) idst[i] = -1;
                CHECK(shmem_int_fcollect(team, idst, isrc, n) == 0, "int fcollect rc round %d", r);
                for (int k = 0; k < tn; k++)
                    for (size_t i = 0; i < n; i++)
                        CHECK(idst[k * n + i] == k * 3 + (int)i + r, "round %d int fcollect: block %d [%zu] = %d", r,
                              k, i, idst[k * n + i]);
            }
            break;
        case 2: /* alltoall */
            for (int k = 0; k < tn; k++)
                for (size_t i = 0; i < n; i++) lsrc[k * n + i] = val(tme, k, r, i);
            for (size_t i = 0; i < n * (size_t)tn; i++) ldst[i] = -1;
            CHECK(shmem_long_alltoall(team, ldst, lsrc, n) == 0, "alltoall rc round %d", r);
            memset(lsrc, 0x55, n * (size_t)tn * sizeof *lsrc);
            for (int k = 0; k < tn; k++)
                for (size_t i = 0; i < n; i++)
                    CHECK(ldst[k * n + i] == val(k, tme, r, i), "round %d alltoall (%zu longs): block %d [%zu] = %ld",
                          r, n, k, i, ldst[k * n + i]);
            break;
        case 3: { /* long sum, in place every third time */
            int in_place = (r / 5) % 3 == 0;
            long *dst = in_place ? lsrc : ldst;
            for (size_t i = 0; i < n; i++) lsrc[i] = val(tme, 0, r, i);
            if (!in_place)
                for (size_t i = 0; i < n; i++) ldst[i] = -1;
            CHECK(shmem_long_sum_reduce(team, dst, lsrc, n) == 0, "sum rc round %d", r);
            for (size_t i = 0; i < n; i++) {
                long want = 0;
                for (int k = 0; k < tn; k++) want += val(k, 0, r, i);
                CHECK(dst[i] == want, "round %d sum (%zu longs%s): [%zu] = %ld, want %ld", r, n,
                      in_place ? ", in place" : "", i, dst[i], want);
            }
            memset(lsrc, 0x55, n * sizeof *lsrc);
            break;
        }
        default: /* int max and double sum */
            for (size_t i = 0; i < n; i++) {
                isrc[i] = (tme * 37 + (int)i * 11 + r) % 101;
                dsrc[i] = tme + 0.5 * (double)i;
                idst[i] = -1;
                ddst[i] = -1;
            }
            CHECK(shmem_int_max_reduce(team, idst, isrc, n) == 0, "max rc round %d", r);
            CHECK(shmem_double_sum_reduce(team, ddst, dsrc, n) == 0, "double sum rc round %d", r);
            for (size_t i = 0; i < n; i++) {
                int want = -1;
                double dwant = 0;
                for (int k = 0; k < tn; k++) {
                    int v = (k * 37 + (int)i * 11 + r) % 101;
                    if (v > want) want = v;
                    dwant += k + 0.5 * (double)i;
                }
                CHECK(idst[i] == want, "round %d max (%zu ints): [%zu] = %d, want %d", r, n, i, idst[i], want);
                CHECK(ddst[i] == dwant, "round %d double sum (%zu): [%zu] = %g, want %g", r, n, i, ddst[i], dwant);
            }
            break;
        }
    }
}

static void reused_regions(void) {
    int npes = shmem_n_pes();
    if (npes < 3) return;
    for (int round = 0; round < 6; round++) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, round % 2, 1, npes - 1, NULL, 0, &t);
        if (t != SHMEM_TEAM_INVALID) {
            int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
            for (int k = 0; k < 3; k++) {
                lsrc[0] = val(tme, round, k, 0);
                for (int i = 0; i < tn; i++) ldst[i] = -1;
                CHECK(shmem_long_fcollect(t, ldst, lsrc, 1) == 0, "reused region rc");
                for (int i = 0; i < tn; i++)
                    CHECK(ldst[i] == val(i, round, k, 0), "reused region round %d call %d: [%d] = %ld", round, k,
                          i, ldst[i]);
            }
            shmem_team_destroy(t);
        }
        shmem_barrier_all();
    }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "at most %d PEs", MAXPES);
    rounds(SHMEM_TEAM_WORLD, me, npes);
    shmem_team_t odd;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID) {
        rounds(odd, me, npes);
        shmem_team_destroy(odd);
    }
    shmem_barrier_all();
    reused_regions();
    shmem_finalize();
    return 0;
}
