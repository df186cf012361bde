/* rshmem-test
 * np: 2 4
 */
/* 200 teams alive at once on every PE: 150 world-sized splits (alternately in world order
 * and reversed) and 50 one-PE teams per PE (rounds of npes splits of size 1, one per PE).
 * All handles are distinct; each team answers its rank and size, synchronizes, and sums
 * with shmem_int_sum_reduce. They are destroyed in reverse order of creation; then
 * created again, used, and destroyed in a third order. Afterwards shmemx_psync_footprint
 * reports what it did right after shmem_init. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define NLIVE 200

static int src[NLIVE], dst[NLIVE];
static shmem_team_t teams[NLIVE];
static int me, npes;

/* Team i is a one-PE team when i % 4 == 3, else a world-sized one (reversed when i % 4 == 1). */
static int is_single(int i) { return i % 4 == 3; }
static int is_reversed(int i) { return i % 4 == 1; }

static void create_all(int phase) {
    for (int i = 0; i < NLIVE; i++) {
        int rc;
        if (is_single(i)) {
            teams[i] = SHMEM_TEAM_INVALID;
            for (int k = 0; k < npes; k++) {
                shmem_team_t t = SHMEM_TEAM_WORLD;
                rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, k, 1, 1, NULL, 0, &t);
                CHECK(rc == 0, "phase %d team %d: split of PE %d alone returned %d", phase, i, k, rc);
                if (k == me) {
                    CHECK(t != SHMEM_TEAM_INVALID, "phase %d team %d: PE alone got SHMEM_TEAM_INVALID", phase, i);
                    teams[i] = t;
                } else {
                    CHECK(t == SHMEM_TEAM_INVALID, "phase %d team %d: split of PE %d alone gave this PE a team",
                          phase, i, k);
                }
            }
        } else {
            teams[i] = SHMEM_TEAM_INVALID;
            if (is_reversed(i))
                rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &teams[i]);
            else
                rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &teams[i]);
            CHECK(rc == 0 && teams[i] != SHMEM_TEAM_INVALID, "phase %d team %d: split returned %d (%d live)", phase,
                  i, rc, i);
        }
    }
    for (int i = 0; i < NLIVE; i++)
        for (int j = i + 1; j < NLIVE; j++)
            CHECK(teams[i] != teams[j], "phase %d: live teams %d and %d have the same handle", phase, i, j);
}

static void use_all(int phase) {
    for (int i = 0; i < NLIVE; i++) {
        int want_rank = is_single(i) ? 0 : is_reversed(i) ? npes - 1 - me : me;
        int want_n = is_single(i) ? 1 : npes;
        CHECK(shmem_team_my_pe(teams[i]) == want_rank, "phase %d team %d: my_pe is %d, want %d", phase, i,
              shmem_team_my_pe(teams[i]), want_rank);
        CHECK(shmem_team_n_pes(teams[i]) == want_n, "phase %d team %d: n_pes is %d, want %d", phase, i,
              shmem_team_n_pes(teams[i]), want_n);
        CHECK(shmem_team_translate_pe(teams[i], want_rank, SHMEM_TEAM_WORLD) == me,
              "phase %d team %d: translate_pe(team, %d, WORLD) is %d", phase, i, want_rank,
              shmem_team_translate_pe(teams[i], want_rank, SHMEM_TEAM_WORLD));
        src[i] = me + 10 * i + phase;
        dst[i] = -1;
    }
    for (int i = 0; i < NLIVE; i++) {
        int rc = shmem_team_sync(teams[i]);
        CHECK(rc == 0, "phase %d team %d: shmem_team_sync returned %d", phase, i, rc);
        rc = shmem_int_sum_reduce(teams[i], &dst[i], &src[i], 1);
        CHECK(rc == 0, "phase %d team %d: shmem_int_sum_reduce returned %d", phase, i, rc);
        int want = is_single(i) ? me + 10 * i + phase : npes * (npes - 1) / 2 + npes * (10 * i + phase);
        CHECK(dst[i] == want, "phase %d team %d: sum is %d, want %d", phase, i, dst[i], want);
    }
}

static void check_footprint(const shmemx_psync_footprint_t *base, const char *when) {
    shmemx_psync_footprint_t fp;
    int rc = shmemx_psync_footprint(&fp);
    CHECK(rc == 0, "%s: shmemx_psync_footprint returned %d", when, rc);
    CHECK(fp.teams_current == base->teams_current, "%s: teams_current is %zu, %zu after shmem_init", when,
          fp.teams_current, base->teams_current);
    if (strncmp(fp.strategy, "pairwise", 8) == 0) /* per-pair locations stay: at most one per other PE */
        CHECK(fp.flags_current <= base->flags_current + 8 * (size_t)(npes - 1),
              "%s: flags_current is %zu: more than a location per other PE", when, fp.flags_current);
    else
        CHECK(fp.flags_current == base->flags_current, "%s: flags_current is %zu, %zu after shmem_init", when,
              fp.flags_current, base->flags_current);
    CHECK(fp.baseline_current == base->baseline_current, "%s: baseline_current is %zu, %zu after shmem_init",
          when, fp.baseline_current, base->baseline_current);
    CHECK(fp.scratch_current == base->scratch_current, "%s: scratch_current is %zu, %zu after shmem_init", when,
          fp.scratch_current, base->scratch_current);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmemx_psync_footprint_t base;
    CHECK(shmemx_psync_footprint(&base) == 0, "shmemx_psync_footprint failed");

    /* Phase 1: destroy in reverse order of creation. */
    create_all(1);
    use_all(1);
    {
        shmemx_psync_footprint_t fp;
        CHECK(shmemx_psync_footprint(&fp) == 0, "shmemx_psync_footprint failed");
        CHECK(fp.teams_current >= base.teams_current + NLIVE * 3 / 4,
              "with %d teams live (%d of them of %d PEs), teams_current is %zu (%zu after shmem_init)", NLIVE,
              NLIVE * 3 / 4, npes, fp.teams_current, base.teams_current);
    }
    for (int i = NLIVE - 1; i >= 0; i--)
        shmem_team_destroy(teams[i]);
    check_footprint(&base, "after destroying phase 1's teams");

    /* Phase 2: destroy every third team ascending, then the next third descending, then
     * the rest ascending, checking the others still work halfway. */
    create_all(2);
    use_all(2);
    for (int i = 0; i < NLIVE; i += 3) {
        shmem_team_destroy(teams[i]);
        teams[i] = SHMEM_TEAM_INVALID;
    }
    for (int i = 0; i < NLIVE; i++) {
        if (teams[i] == SHMEM_TEAM_INVALID)
            continue;
        int rc = shmem_team_sync(teams[i]);
        CHECK(rc == 0, "phase 2 team %d: shmem_team_sync after others were destroyed returned %d", i, rc);
    }
    for (int i = NLIVE - 1; i >= 0; i--)
        if (i % 3 == 1)
            shmem_team_destroy(teams[i]);
    for (int i = 0; i < NLIVE; i++)
        if (i % 3 == 2)
            shmem_team_destroy(teams[i]);
    check_footprint(&base, "after destroying phase 2's teams");

    shmem_barrier_all();
    if (me == 0)
        printf("team many live ok\n");
    shmem_finalize();
    return 0;
}
