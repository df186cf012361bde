/* rshmem-test
 * np: 1 2 3 4
 * stdout: team node ok
 */
/* SHMEMX_TEAM_NODE (shmemx.h, Sandia OpenSHMEM's predefined team of the PEs that share
 * memory with the caller): on one node it holds every PE in world order, under a handle
 * of its own, and works wherever a predefined team does:
 *  - a valid handle, distinct from SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and
 *    SHMEM_TEAM_INVALID; shmem_team_my_pe / shmem_team_n_pes / shmem_team_get_config;
 *  - shmem_team_translate_pe to and from the world and shared teams; shmem_team_ptr;
 *  - collectives on it (team sync, broadcast, sum reduction, fcollect), also right after a
 *    collective on SHMEM_TEAM_WORLD;
 *  - shmem_team_split_strided from it (the PEs at odd node ranks, reversed) with a
 *    reduction on the new team, and shmem_team_split_2d from it;
 *  - shmem_team_create_ctx on it (shmem_ctx_get_team gives SHMEMX_TEAM_NODE back) and
 *    puts through that context. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

static int global_var;
static long bcast_src[4], bcast_dst[4], red_src[2], red_dst[2], fc_src, fc_dst[64];
static long via_ctx;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= 64, "this test handles at most 64 PEs");

    CHECK(SHMEMX_TEAM_NODE != SHMEM_TEAM_INVALID, "SHMEMX_TEAM_NODE is SHMEM_TEAM_INVALID");
    CHECK(SHMEMX_TEAM_NODE != SHMEM_TEAM_WORLD, "SHMEMX_TEAM_NODE is the SHMEM_TEAM_WORLD handle");
    CHECK(SHMEMX_TEAM_NODE != SHMEM_TEAM_SHARED, "SHMEMX_TEAM_NODE is the SHMEM_TEAM_SHARED handle");
    int node_me = shmem_team_my_pe(SHMEMX_TEAM_NODE), node_n = shmem_team_n_pes(SHMEMX_TEAM_NODE);
    CHECK(node_n == npes, "shmem_team_n_pes(SHMEMX_TEAM_NODE) is %d, want %d (one node)", node_n, npes);
    CHECK(node_me == me, "shmem_team_my_pe(SHMEMX_TEAM_NODE) is %d, want %d", node_me, me);
    shmem_team_config_t cfg = {.num_contexts = -1};
    CHECK(shmem_team_get_config(SHMEMX_TEAM_NODE, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0,
          "shmem_team_get_config(SHMEMX_TEAM_NODE) failed");
    CHECK(cfg.num_contexts >= 0, "shmem_team_get_config(SHMEMX_TEAM_NODE) num_contexts is %d", cfg.num_contexts);
    for (int pe = 0; pe < npes; pe++) {
        int n = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEMX_TEAM_NODE);
        CHECK(n == pe, "translate_pe(WORLD, %d, NODE) is %d", pe, n);
        CHECK(shmem_team_translate_pe(SHMEMX_TEAM_NODE, n, SHMEM_TEAM_WORLD) == pe, "translate_pe(NODE, %d, WORLD)",
              n);
        int s = shmem_team_translate_pe(SHMEMX_TEAM_NODE, n, SHMEM_TEAM_SHARED);
        CHECK(s == shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED),
              "translate_pe(NODE, %d, SHARED) is %d", n, s);
        void *p = shmem_team_ptr(SHMEMX_TEAM_NODE, &global_var, n);
        CHECK(p != NULL && p == shmem_ptr(&global_var, pe), "shmem_team_ptr(NODE, &global_var, %d) = %p", n, p);
    }
    CHECK(shmem_team_translate_pe(SHMEMX_TEAM_NODE, npes, SHMEM_TEAM_WORLD) == -1,
          "translate_pe(NODE, npes, WORLD) is not -1");

    /* Collectives on the node team, interleaved with the world team's. */
    for (int round = 0; round < 3; round++) {
        CHECK(shmem_team_sync(SHMEMX_TEAM_NODE) == 0, "shmem_team_sync(SHMEMX_TEAM_NODE) failed");
        int root = (round + 1) % npes;
        for (int i = 0; i < 4; i++) {
            bcast_src[i] = 100L * me + 10L * round + i;
            bcast_dst[i] = -1;
        }
        red_src[0] = me + round;
        red_src[1] = -(long)me;
        fc_src = 3L * me + round;
        shmem_barrier_all();
        CHECK(shmem_long_broadcast(SHMEMX_TEAM_NODE, bcast_dst, bcast_src, 4, root) == 0, "broadcast on NODE failed");
        for (int i = 0; i < 4; i++)
            CHECK(bcast_dst[i] == 100L * root + 10L * round + i, "broadcast on NODE: dst[%d] = %ld", i, bcast_dst[i]);
        CHECK(shmem_long_sum_reduce(SHMEMX_TEAM_NODE, red_dst, red_src, 2) == 0, "sum_reduce on NODE failed");
        long want0 = (long)npes * (npes - 1) / 2 + (long)npes * round, want1 = -(long)npes * (npes - 1) / 2;
        CHECK(red_dst[0] == want0 && red_dst[1] == want1, "sum_reduce on NODE: %ld %ld, want %ld %ld", red_dst[0],
              red_dst[1], want0, want1);
        CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "shmem_team_sync(WORLD) failed");
        CHECK(shmem_long_fcollect(SHMEMX_TEAM_NODE, fc_dst, &fc_src, 1) == 0, "fcollect on NODE failed");
        for (int pe = 0; pe < npes; pe++)
            CHECK(fc_dst[pe] == 3L * pe + round, "fcollect on NODE: dst[%d] = %ld", pe, fc_dst[pe]);
        shmem_barrier_all();
    }

    /* A strided split of the node team: odd node ranks, highest first. */
    int odd = npes / 2;
    shmem_team_t odds;
    int start = odd > 0 ? 2 * odd - 1 : 0, size = odd > 0 ? odd : 1;
    int rc = shmem_team_split_strided(SHMEMX_TEAM_NODE, start, -2, size, NULL, 0, &odds);
    CHECK(rc == 0, "shmem_team_split_strided(SHMEMX_TEAM_NODE) returned %d", rc);
    int in_odds = odd > 0 ? me % 2 == 1 : me == 0;
    CHECK((odds != SHMEM_TEAM_INVALID) == in_odds, "PE %d %s the split team", me,
          odds != SHMEM_TEAM_INVALID ? "is in" : "is not in");
    if (odds != SHMEM_TEAM_INVALID) {
        int r = shmem_team_my_pe(odds);
        CHECK(r == (start - me) / 2, "rank in the split team is %d, want %d", r, (start - me) / 2);
        CHECK(shmem_team_translate_pe(odds, r, SHMEMX_TEAM_NODE) == me, "translate_pe(split, %d, NODE)", r);
        red_src[0] = me;
        CHECK(shmem_long_max_reduce(odds, red_dst, red_src, 1) == 0, "max_reduce on the split failed");
        CHECK(red_dst[0] == start, "max_reduce on the split is %ld, want %d", red_dst[0], start);
        shmem_team_destroy(odds);
    }
    shmem_team_t xaxis, yaxis;
    int xr = npes >= 2 ? 2 : 1;
    rc = shmem_team_split_2d(SHMEMX_TEAM_NODE, xr, NULL, 0, &xaxis, NULL, 0, &yaxis);
    CHECK(rc == 0, "shmem_team_split_2d(SHMEMX_TEAM_NODE) returned %d", rc);
    CHECK(shmem_team_my_pe(xaxis) == me % xr, "x rank is %d, want %d", shmem_team_my_pe(xaxis), me % xr);
    CHECK(shmem_team_my_pe(yaxis) == me / xr, "y rank is %d, want %d", shmem_team_my_pe(yaxis), me / xr);
    shmem_team_destroy(xaxis);
    shmem_team_destroy(yaxis);

    /* A context on the node team. */
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(SHMEMX_TEAM_NODE, 0, &ctx) == 0, "shmem_team_create_ctx(SHMEMX_TEAM_NODE) failed");
    shmem_team_t back = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == SHMEMX_TEAM_NODE,
          "shmem_ctx_get_team does not give SHMEMX_TEAM_NODE back");
    int right = (node_me + 1) % node_n;
    shmem_ctx_long_p(ctx, &via_ctx, 1000L + me, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    int left = (me + npes - 1) % npes;
    CHECK(via_ctx == 1000L + left, "put through the node team's context: %ld, want %ld", via_ctx, 1000L + left);
    shmem_ctx_destroy(ctx);

    shmem_barrier_all();
    if (me == 0)
        printf("team node ok\n");
    shmem_finalize();
    return 0;
}
