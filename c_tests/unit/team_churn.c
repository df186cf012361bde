/* rshmem-test
 * np: 2 4 8
 */
/* 10,000 teams created, synchronized on and destroyed, one round after another, cycling
 * through a stride-1 split of the world, a stride-2 split (even PEs) and a
 * shmem_team_split_2d pair (xrange 2): the sync memory is given back every time. Every
 * 1000 rounds shmemx_psync_footprint must report exactly the flag and scratch bytes it
 * reported right after shmem_init, and at the end the same number of teams holding sync
 * memory. shmemx_team_psync_footprint reports sync flags for a freshly created team of 2
 * or more PEs, and -1 for SHMEM_TEAM_INVALID. Under the pairwise strategies teams hold no
 * flags: the per-pair locations stay (at most one per other PE), and the traditional
 * baseline must come back instead. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define ROUNDS_DEFAULT 7500 /* 2500 x (1 + 1 + 2) = 10,000 teams */
/* RSHMEM_TEST_ITERS overrides the rounds (the MPI suite runs fewer over TCP) */
static int ROUNDS = ROUNDS_DEFAULT;

static shmemx_psync_footprint_t base;
static int pairwise;

static void check_footprint(int round) {
    shmemx_psync_footprint_t fp;
    int rc = shmemx_psync_footprint(&fp);
    CHECK(rc == 0, "round %d: shmemx_psync_footprint returned %d", round, rc);
    if (pairwise)
        CHECK(fp.flags_current <= base.flags_current + 8 * (size_t)(shmem_n_pes() - 1),
              "round %d: flags_current is %zu bytes: more than a location per other PE", round, fp.flags_current);
    else
        CHECK(fp.flags_current == base.flags_current,
              "round %d: flags_current is %zu bytes, %zu right after shmem_init (peak %zu)", round,
              fp.flags_current, base.flags_current, fp.flags_peak);
    CHECK(fp.baseline_current == base.baseline_current,
          "round %d: baseline_current is %zu bytes, %zu right after shmem_init", round, fp.baseline_current,
          base.baseline_current);
    CHECK(fp.scratch_current == base.scratch_current,
          "round %d: scratch_current is %zu bytes, %zu right after shmem_init (peak %zu)", round, fp.scratch_current,
          base.scratch_current, fp.scratch_peak);
    CHECK(fp.flags_peak >= fp.flags_current && fp.scratch_peak >= fp.scratch_current &&
              fp.teams_peak >= fp.teams_current,
          "round %d: a peak below its current value", round);
}

static void check_fresh(shmem_team_t t, int round, const char *what) {
    shmemx_psync_footprint_t tfp;
    int rc = shmemx_team_psync_footprint(t, &tfp);
    CHECK(rc == 0, "round %d: shmemx_team_psync_footprint(new %s team) returned %d", round, what, rc);
    if (pairwise)
        CHECK(tfp.flags_current == 0, "round %d: new %s team holds %zu bytes of flags under %s", round, what,
              tfp.flags_current, tfp.strategy);
    else if (shmem_team_n_pes(t) >= 2)
        CHECK(tfp.flags_current > 0, "round %d: new %s team of %d PEs has flags_current 0", round, what,
              shmem_team_n_pes(t));
    CHECK(tfp.baseline_current > 0, "round %d: new %s team has no traditional baseline", round, what);
}

static void sync_team(shmem_team_t t, int round, const char *what) {
    int rc = shmem_team_sync(t);
    CHECK(rc == 0, "round %d: shmem_team_sync(%s team) returned %d", round, what, rc);
}

int main(void) {
    shmem_init();
    if (getenv("RSHMEM_TEST_ITERS"))
        ROUNDS = atoi(getenv("RSHMEM_TEST_ITERS"));
    int rc = shmemx_psync_footprint(&base);
    CHECK(rc == 0, "shmemx_psync_footprint after shmem_init returned %d", rc);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(base.strategy != NULL && base.strategy[0] != '\0', "shmemx_psync_footprint gave no strategy name");
    pairwise = strncmp(base.strategy, "pairwise", 8) == 0;
    CHECK(base.flags_peak >= base.flags_current && base.scratch_peak >= base.scratch_current &&
              base.teams_peak >= base.teams_current,
          "after shmem_init: a peak below its current value");

    shmemx_psync_footprint_t tfp;
    rc = shmemx_team_psync_footprint(SHMEM_TEAM_INVALID, &tfp);
    CHECK(rc == -1, "shmemx_team_psync_footprint(SHMEM_TEAM_INVALID) returned %d, want -1", rc);
    rc = shmemx_team_psync_footprint(SHMEM_TEAM_WORLD, &tfp);
    CHECK(rc == 0, "shmemx_team_psync_footprint(SHMEM_TEAM_WORLD) returned %d", rc);

    long teams_made = 0;
    for (int round = 0; round < ROUNDS; round++) {
        /* Check the per-team footprint in the first rounds and then now and again. */
        int inspect = round < 30 || round % 997 == 0;
        switch (round % 3) {
        case 0: {
            shmem_team_t t = SHMEM_TEAM_INVALID;
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
            CHECK(rc == 0 && t != SHMEM_TEAM_INVALID, "round %d: stride-1 split returned %d", round, rc);
            if (inspect)
                check_fresh(t, round, "stride-1");
            sync_team(t, round, "stride-1");
            shmem_team_destroy(t);
            teams_made++;
            break;
        }
        case 1: {
            shmem_team_t t = SHMEM_TEAM_WORLD;
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &t);
            CHECK(rc == 0, "round %d: stride-2 split returned %d", round, rc);
            CHECK((t != SHMEM_TEAM_INVALID) == (me % 2 == 0), "round %d: stride-2 split: handle %p on PE %d", round,
                  (void *)t, me);
            if (t != SHMEM_TEAM_INVALID) {
                if (inspect)
                    check_fresh(t, round, "stride-2");
                sync_team(t, round, "stride-2");
                shmem_team_destroy(t);
            }
            teams_made++;
            break;
        }
        default: {
            shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
            rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt);
            CHECK(rc == 0 && xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID,
                  "round %d: shmem_team_split_2d(xrange 2) returned %d", round, rc);
            if (inspect) {
                check_fresh(xt, round, "x-axis");
                check_fresh(yt, round, "y-axis");
            }
            sync_team(xt, round, "x-axis");
            sync_team(yt, round, "y-axis");
            /* Destroy in the other order from creation every second time. */
            if (round % 2) {
                shmem_team_destroy(yt);
                shmem_team_destroy(xt);
            } else {
                shmem_team_destroy(xt);
                shmem_team_destroy(yt);
            }
            teams_made += 2;
            break;
        }
        }
        if (round % 1000 == 999)
            check_footprint(round);
    }

    check_footprint(ROUNDS);
    shmemx_psync_footprint_t fp;
    rc = shmemx_psync_footprint(&fp);
    CHECK(rc == 0, "final shmemx_psync_footprint returned %d", rc);
    CHECK(fp.teams_current == base.teams_current, "after %ld teams: teams_current is %zu, %zu right after shmem_init",
          teams_made, fp.teams_current, base.teams_current);
    CHECK(fp.teams_peak >= base.teams_current + 1, "teams_peak is %zu, never above the %zu after shmem_init",
          fp.teams_peak, base.teams_current);

    shmem_barrier_all();
    if (me == 0)
        printf("team churn ok: %ld teams, strategy %s, %zu flag bytes, %zu scratch bytes\n", teams_made, fp.strategy,
               fp.flags_current, fp.scratch_current);
    shmem_finalize();
    return 0;
}
