/* rshmem-test
 * np: 1 2 3 4 7 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 */
/* shmem_team_split_2d of SHMEM_TEAM_WORLD and of a reversed team (stride -1) with xrange
 * 1, 2, 3, npes and npes + 1. With X = min(xrange, parent size), the PE of parent rank r
 * sits at x = r % X, y = r / X; its x-axis team is the PEs with the same y, numbered by x,
 * and its y-axis team the PEs with the same x, numbered by y. Every PE checks both teams'
 * ranks, sizes and shmem_team_translate_pe to and from the world and the parent, the
 * translation between its two axis teams, shmem_team_sync on both, and the num_contexts
 * configuration of each axis. xrange 0 and -1 fail, leaving both handles
 * SHMEM_TEAM_INVALID. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define MAXPE 64

static int me, npes;

/* Checks team h (as this PE sees it) against members[0..n) (world PEs), where this PE is
 * rank r of the team. */
static void check_axis(shmem_team_t h, const int *members, int n, int r, const char *what, int xrange,
                       const char *parent_name) {
    CHECK(h != SHMEM_TEAM_INVALID, "%s xrange %d: %s team is SHMEM_TEAM_INVALID", parent_name, xrange, what);
    CHECK(shmem_team_my_pe(h) == r, "%s xrange %d: %s team: shmem_team_my_pe is %d, want %d", parent_name, xrange,
          what, shmem_team_my_pe(h), r);
    CHECK(shmem_team_n_pes(h) == n, "%s xrange %d: %s team: shmem_team_n_pes is %d, want %d", parent_name, xrange,
          what, shmem_team_n_pes(h), n);
    for (int i = 0; i < n; i++) {
        int w = shmem_team_translate_pe(h, i, SHMEM_TEAM_WORLD);
        CHECK(w == members[i], "%s xrange %d: %s team: translate_pe(team, %d, WORLD) is %d, want %d", parent_name,
              xrange, what, i, w, members[i]);
        int b = shmem_team_translate_pe(SHMEM_TEAM_WORLD, members[i], h);
        CHECK(b == i, "%s xrange %d: %s team: translate_pe(WORLD, %d, team) is %d, want %d", parent_name, xrange, what,
              members[i], b, i);
    }
    for (int pe = 0; pe < npes; pe++) {
        int member = 0;
        for (int i = 0; i < n; i++)
            member |= members[i] == pe;
        if (!member) {
            int b = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, h);
            CHECK(b == -1, "%s xrange %d: %s team: translate_pe(WORLD, %d, team) is %d for a non-member", parent_name,
                  xrange, what, pe, b);
        }
    }
    CHECK(shmem_team_translate_pe(h, n, SHMEM_TEAM_WORLD) == -1, "%s xrange %d: %s team: translate_pe(team, n) is %d",
          parent_name, xrange, what, shmem_team_translate_pe(h, n, SHMEM_TEAM_WORLD));
}

/* parent: handle; pmembers: world PE of each parent rank; pn: parent size. */
static void run(shmem_team_t parent, const int *pmembers, int pn, int xrange, const char *parent_name, int with_cfg) {
    int pr = -1;
    for (int i = 0; i < pn; i++)
        if (pmembers[i] == me)
            pr = i;
    CHECK(pr >= 0, "test bug: PE not in parent");
    int X = xrange < pn ? xrange : pn;
    int x = pr % X, y = pr / X;

    int xm[MAXPE], xn = 0, ym[MAXPE], yn = 0;
    for (int k = 0; k < X && y * X + k < pn; k++)
        xm[xn++] = pmembers[y * X + k];
    for (int j = 0; x + j * X < pn; j++)
        ym[yn++] = pmembers[x + j * X];

    shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
    shmem_team_config_t xc = {.num_contexts = 2}, yc = {.num_contexts = 3};
    int rc;
    if (with_cfg)
        rc = shmem_team_split_2d(parent, xrange, &xc, SHMEM_TEAM_NUM_CONTEXTS, &xt, &yc, 0, &yt);
    else
        rc = shmem_team_split_2d(parent, xrange, NULL, 0, &xt, NULL, 0, &yt);
    CHECK(rc == 0, "%s: shmem_team_split_2d(xrange %d) returned %d", parent_name, xrange, rc);

    check_axis(xt, xm, xn, x, "x-axis", xrange, parent_name);
    check_axis(yt, ym, yn, y, "y-axis", xrange, parent_name);

    /* Translation to the parent, and between the two axis teams: the only PE in both is
     * this one. */
    for (int i = 0; i < xn; i++) {
        int p = shmem_team_translate_pe(xt, i, parent);
        CHECK(p == y * X + i, "%s xrange %d: translate_pe(x-team, %d, parent) is %d, want %d", parent_name, xrange, i,
              p, y * X + i);
        int o = shmem_team_translate_pe(xt, i, yt);
        int want = i == x ? y : -1;
        CHECK(o == want, "%s xrange %d: translate_pe(x-team, %d, y-team) is %d, want %d", parent_name, xrange, i, o,
              want);
    }
    for (int j = 0; j < yn; j++) {
        int p = shmem_team_translate_pe(yt, j, parent);
        CHECK(p == x + j * X, "%s xrange %d: translate_pe(y-team, %d, parent) is %d, want %d", parent_name, xrange, j,
              p, x + j * X);
        int o = shmem_team_translate_pe(yt, j, xt);
        int want = j == y ? x : -1;
        CHECK(o == want, "%s xrange %d: translate_pe(y-team, %d, x-team) is %d, want %d", parent_name, xrange, j, o,
              want);
    }

    shmem_team_config_t got = {.num_contexts = -1};
    rc = shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &got);
    CHECK(rc == 0, "%s xrange %d: get_config(x-team) returned %d", parent_name, xrange, rc);
    CHECK(got.num_contexts == (with_cfg ? 2 : 0), "%s xrange %d: x-team num_contexts is %d, want %d", parent_name,
          xrange, got.num_contexts, with_cfg ? 2 : 0);
    got.num_contexts = -1;
    rc = shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &got);
    CHECK(rc == 0, "%s xrange %d: get_config(y-team) returned %d", parent_name, xrange, rc);
    CHECK(got.num_contexts == 0, "%s xrange %d: y-team (mask 0) num_contexts is %d, want 0", parent_name, xrange,
          got.num_contexts);

    /* Both work as teams: x first, then y, on every PE. */
    rc = shmem_team_sync(xt);
    CHECK(rc == 0, "%s xrange %d: shmem_team_sync(x-team) returned %d", parent_name, xrange, rc);
    rc = shmem_team_sync(yt);
    CHECK(rc == 0, "%s xrange %d: shmem_team_sync(y-team) returned %d", parent_name, xrange, rc);

    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPE, "at most %d PEs", MAXPE);

    int world[MAXPE], rev[MAXPE];
    for (int i = 0; i < npes; i++) {
        world[i] = i;
        rev[i] = npes - 1 - i;
    }
    shmem_team_t rteam = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rteam);
    CHECK(rc == 0 && rteam != SHMEM_TEAM_INVALID, "reversed split returned %d", rc);

    const int xranges[] = {1, 2, 3, npes, npes + 1};
    for (unsigned k = 0; k < sizeof xranges / sizeof xranges[0]; k++) {
        run(SHMEM_TEAM_WORLD, world, npes, xranges[k], "WORLD", 0);
        run(rteam, rev, npes, xranges[k], "reversed", (int)(k % 2));
    }
    run(SHMEM_TEAM_WORLD, world, npes, 2, "WORLD", 1);

    /* xrange <= 0: failure, both handles SHMEM_TEAM_INVALID. */
    const int bad[] = {0, -1};
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
        rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, bad[k], NULL, 0, &xt, NULL, 0, &yt);
        CHECK(rc != 0, "shmem_team_split_2d(xrange %d) returned 0", bad[k]);
        CHECK(xt == SHMEM_TEAM_INVALID, "shmem_team_split_2d(xrange %d): x-axis handle is %p, not SHMEM_TEAM_INVALID",
              bad[k], (void *)xt);
        CHECK(yt == SHMEM_TEAM_INVALID, "shmem_team_split_2d(xrange %d): y-axis handle is %p, not SHMEM_TEAM_INVALID",
              bad[k], (void *)yt);
    }
    /* A parent of SHMEM_TEAM_INVALID: failure, both SHMEM_TEAM_INVALID. */
    {
        shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
        rc = shmem_team_split_2d(SHMEM_TEAM_INVALID, 2, NULL, 0, &xt, NULL, 0, &yt);
        CHECK(rc != 0, "shmem_team_split_2d(SHMEM_TEAM_INVALID) returned 0");
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID,
              "shmem_team_split_2d(SHMEM_TEAM_INVALID) left a handle that is not SHMEM_TEAM_INVALID");
    }
    /* The library still splits after the failures. */
    run(SHMEM_TEAM_WORLD, world, npes, 3, "WORLD after failures", 0);

    shmem_team_destroy(rteam);
    shmem_barrier_all();
    if (me == 0)
        printf("team split 2d ok\n");
    shmem_finalize();
    return 0;
}
