/* rshmem-test
 * np: 1 2 4
 */
/* shmem_ctx_create with every option combination, shmem_ctx_get_team for the default,
 * created and invalid contexts, shmem_ctx_destroy(SHMEM_CTX_INVALID) as a no-op, and
 * creating/destroying 20000 contexts one after another and 100 held at once. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define HELD 100
#define CYCLES 20000

static long dst[HELD];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* Default context: world team. */
    shmem_team_t team = SHMEM_TEAM_INVALID;
    int rc = shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team);
    CHECK(rc == 0, "shmem_ctx_get_team(SHMEM_CTX_DEFAULT) returned %d", rc);
    CHECK(team == SHMEM_TEAM_WORLD, "shmem_ctx_get_team(SHMEM_CTX_DEFAULT) gave %p, not SHMEM_TEAM_WORLD",
          (void *)team);

    /* Invalid context: non-zero and SHMEM_TEAM_INVALID. */
    team = SHMEM_TEAM_WORLD;
    rc = shmem_ctx_get_team(SHMEM_CTX_INVALID, &team);
    CHECK(rc != 0, "shmem_ctx_get_team(SHMEM_CTX_INVALID) returned 0");
    CHECK(team == SHMEM_TEAM_INVALID, "shmem_ctx_get_team(SHMEM_CTX_INVALID) gave %p, not SHMEM_TEAM_INVALID",
          (void *)team);

    /* Destroying SHMEM_CTX_INVALID does nothing. */
    shmem_ctx_destroy(SHMEM_CTX_INVALID);

    /* Every combination of the three options. */
    static const long opts[] = {0,
                                SHMEM_CTX_PRIVATE,
                                SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    shmem_ctx_t ctxs[8];
    for (int k = 0; k < nopts; k++) {
        ctxs[k] = SHMEM_CTX_INVALID;
        rc = shmem_ctx_create(opts[k], &ctxs[k]);
        CHECK(rc == 0, "shmem_ctx_create(%#lx) returned %d", opts[k], rc);
        CHECK(ctxs[k] != SHMEM_CTX_INVALID, "shmem_ctx_create(%#lx) gave SHMEM_CTX_INVALID", opts[k]);
        CHECK(ctxs[k] != SHMEM_CTX_DEFAULT, "shmem_ctx_create(%#lx) gave SHMEM_CTX_DEFAULT", opts[k]);
        for (int j = 0; j < k; j++)
            CHECK(ctxs[j] != ctxs[k], "contexts %d and %d (both live) are the same handle", j, k);
        team = SHMEM_TEAM_INVALID;
        rc = shmem_ctx_get_team(ctxs[k], &team);
        CHECK(rc == 0, "shmem_ctx_get_team(created ctx, options %#lx) returned %d", opts[k], rc);
        CHECK(team == SHMEM_TEAM_WORLD, "shmem_ctx_get_team(created ctx, options %#lx) gave %p, not SHMEM_TEAM_WORLD",
              opts[k], (void *)team);
    }
    /* Each context works: a put through each, then its quiet. */
    for (int k = 0; k < HELD; k++)
        dst[k] = -1;
    shmem_barrier_all();
    for (int k = 0; k < nopts; k++) {
        shmem_ctx_long_p(ctxs[k], &dst[k], 1000L * me + k, right);
        shmem_ctx_quiet(ctxs[k]);
    }
    shmem_barrier_all();
    for (int k = 0; k < nopts; k++)
        CHECK(dst[k] == 1000L * left + k, "put through context with options %#lx: dst[%d] is %ld, want %ld", opts[k],
              k, dst[k], 1000L * left + k);
    for (int k = 0; k < nopts; k++)
        shmem_ctx_destroy(ctxs[k]);

    /* Create and destroy many contexts one after another: slots are reused. */
    for (int i = 0; i < CYCLES; i++) {
        shmem_ctx_t c = SHMEM_CTX_INVALID;
        rc = shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &c);
        CHECK(rc == 0, "shmem_ctx_create in cycle %d returned %d", i, rc);
        CHECK(c != SHMEM_CTX_INVALID, "shmem_ctx_create in cycle %d gave SHMEM_CTX_INVALID", i);
        if (i % 1000 == 0) {
            team = SHMEM_TEAM_INVALID;
            CHECK(shmem_ctx_get_team(c, &team) == 0 && team == SHMEM_TEAM_WORLD,
                  "shmem_ctx_get_team in cycle %d", i);
        }
        shmem_ctx_destroy(c);
    }

    /* Hold 100 at once, all distinct and all usable, then destroy them. */
    static shmem_ctx_t held[HELD];
    for (int k = 0; k < HELD; k++) {
        rc = shmem_ctx_create(k % 3 == 0 ? SHMEM_CTX_SERIALIZED : 0, &held[k]);
        CHECK(rc == 0, "shmem_ctx_create of held context %d returned %d", k, rc);
        CHECK(held[k] != SHMEM_CTX_INVALID, "held context %d is SHMEM_CTX_INVALID", k);
    }
    for (int k = 0; k < HELD; k++)
        for (int j = k + 1; j < HELD; j++)
            CHECK(held[j] != held[k], "held contexts %d and %d are the same handle", k, j);
    for (int k = 0; k < HELD; k++)
        dst[k] = -1;
    shmem_barrier_all();
    for (int k = 0; k < HELD; k++)
        shmem_ctx_long_p(held[k], &dst[k], 7L * me + k, right);
    for (int k = 0; k < HELD; k++)
        shmem_ctx_quiet(held[k]);
    shmem_barrier_all();
    for (int k = 0; k < HELD; k++)
        CHECK(dst[k] == 7L * left + k, "put through held context %d: %ld, want %ld", k, dst[k], 7L * left + k);
    for (int k = HELD - 1; k >= 0; k--)
        shmem_ctx_destroy(held[k]);

    /* And again after destroying: the freed slots serve new contexts. */
    for (int k = 0; k < HELD; k++) {
        rc = shmem_ctx_create(SHMEM_CTX_NOSTORE, &held[k]);
        CHECK(rc == 0, "re-creating held context %d returned %d", k, rc);
    }
    for (int k = 0; k < HELD; k++)
        shmem_ctx_destroy(held[k]);

    shmem_barrier_all();
    if (me == 0)
        printf("ctx create ok\n");
    shmem_finalize();
    return 0;
}
