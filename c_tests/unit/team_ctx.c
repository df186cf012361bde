/* rshmem-test
 * np: 1 2 4
 */
/* Contexts created from teams. shmem_ctx_get_team gives SHMEM_TEAM_WORLD for
 * SHMEM_CTX_DEFAULT and the team for a context made by shmem_team_create_ctx (world,
 * shared, even PEs, odd PEs). RMA and AMO through a team's context take PE numbers
 * relative to that team: on the odd PEs' team, shmem_ctx_int_p(ctx, .., 0) writes to world
 * PE 1 (the team's rank 0) and never to world PE 0; on the even PEs' team a ring of puts,
 * a get and a fetch-add land on the right world PEs. shmem_team_create_ctx on
 * SHMEM_TEAM_INVALID fails and gives SHMEM_CTX_INVALID. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define MAXPE 64

static int ring, counter, odd_slots[MAXPE], world_slot;

static shmem_ctx_t make_ctx(shmem_team_t team, long options, const char *what) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    int rc = shmem_team_create_ctx(team, options, &ctx);
    CHECK(rc == 0, "shmem_team_create_ctx(%s, %#lx) returned %d", what, options, rc);
    CHECK(ctx != SHMEM_CTX_INVALID, "shmem_team_create_ctx(%s, %#lx) gave SHMEM_CTX_INVALID", what, options);
    CHECK(ctx != SHMEM_CTX_DEFAULT, "shmem_team_create_ctx(%s, %#lx) gave SHMEM_CTX_DEFAULT", what, options);
    shmem_team_t t = SHMEM_TEAM_INVALID;
    rc = shmem_ctx_get_team(ctx, &t);
    CHECK(rc == 0, "shmem_ctx_get_team(context of %s) returned %d", what, rc);
    CHECK(t == team, "shmem_ctx_get_team(context of %s) gave %p, not the team %p", what, (void *)t, (void *)team);
    return ctx;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= 2 * MAXPE, "at most %d PEs", 2 * MAXPE);

    /* The default context belongs to the world team. */
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int rc = shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t);
    CHECK(rc == 0 && t == SHMEM_TEAM_WORLD, "shmem_ctx_get_team(SHMEM_CTX_DEFAULT) returned %d, team %p", rc,
          (void *)t);

    /* No context from SHMEM_TEAM_INVALID. */
    shmem_ctx_t bad = SHMEM_CTX_DEFAULT;
    rc = shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &bad);
    CHECK(rc != 0, "shmem_team_create_ctx(SHMEM_TEAM_INVALID) returned 0");
    CHECK(bad == SHMEM_CTX_INVALID, "shmem_team_create_ctx(SHMEM_TEAM_INVALID) gave %p, not SHMEM_CTX_INVALID",
          (void *)bad);

    /* World and shared team contexts: world numbering. */
    shmem_ctx_t cw = make_ctx(SHMEM_TEAM_WORLD, 0, "SHMEM_TEAM_WORLD");
    shmem_ctx_t cs = make_ctx(SHMEM_TEAM_SHARED, SHMEM_CTX_PRIVATE, "SHMEM_TEAM_SHARED");
    world_slot = -1;
    shmem_barrier_all();
    shmem_ctx_int_p(cw, &world_slot, 500 + me, (me + 1) % npes);
    shmem_ctx_quiet(cw);
    shmem_barrier_all();
    CHECK(world_slot == 500 + (me + npes - 1) % npes, "put through the world team's context: %d, want %d",
          world_slot, 500 + (me + npes - 1) % npes);
    shmem_barrier_all();
    int shared_right = (shmem_team_my_pe(SHMEM_TEAM_SHARED) + 1) % npes;
    shmem_ctx_int_p(cs, &world_slot, 700 + me, shared_right);
    shmem_ctx_quiet(cs);
    shmem_barrier_all();
    {
        int from = shmem_team_translate_pe(SHMEM_TEAM_SHARED,
                                           (shmem_team_my_pe(SHMEM_TEAM_SHARED) + npes - 1) % npes, SHMEM_TEAM_WORLD);
        CHECK(world_slot == 700 + from, "put through the shared team's context: %d, want %d", world_slot, 700 + from);
    }
    shmem_ctx_destroy(cw);
    shmem_ctx_destroy(cs);

    /* Even PEs, with room for two contexts. */
    shmem_team_config_t cfg = {.num_contexts = 2};
    shmem_team_t even = SHMEM_TEAM_WORLD;
    int ne = (npes + 1) / 2;
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, ne, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &even);
    CHECK(rc == 0, "even split returned %d", rc);
    CHECK((even != SHMEM_TEAM_INVALID) == (me % 2 == 0), "even split: handle %p on PE %d", (void *)even, me);
    shmem_ctx_t ce0 = SHMEM_CTX_INVALID, ce1 = SHMEM_CTX_INVALID;
    if (even != SHMEM_TEAM_INVALID) {
        ce0 = make_ctx(even, 0, "even team");
        ce1 = make_ctx(even, SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED, "even team (private, serialized)");
        CHECK(ce0 != ce1, "two contexts of the even team are the same handle");
    }
    ring = -1;
    counter = 0;
    shmem_barrier_all();
    if (even != SHMEM_TEAM_INVALID) {
        int r = me / 2;
        shmem_ctx_int_p(ce0, &ring, 100 + me, (r + 1) % ne); /* team rank r+1 is world PE 2(r+1) */
        shmem_ctx_quiet(ce0);
    }
    shmem_barrier_all();
    if (even != SHMEM_TEAM_INVALID) {
        int r = me / 2, left = 2 * ((r + ne - 1) % ne);
        CHECK(ring == 100 + left, "even team ring put: %d, want %d (from world PE %d)", ring, 100 + left, left);
        /* Team rank 0 is world PE 0, whose ring value came from the team's last rank. */
        int g = shmem_ctx_int_g(ce1, &ring, 0);
        CHECK(g == 100 + 2 * (ne - 1), "get of team rank 0 through the even team's context: %d, want %d", g,
              100 + 2 * (ne - 1));
        int old = shmem_ctx_int_atomic_fetch_add(ce1, &counter, 1, ne - 1);
        CHECK(old >= 0 && old < ne, "fetch-add on team rank %d fetched %d", ne - 1, old);
        shmem_ctx_quiet(ce1);
    } else {
        CHECK(ring == -1, "odd PE %d received %d from a put meant for team-relative PE numbers", me, ring);
    }
    shmem_barrier_all();
    {
        int want = me == 2 * (ne - 1) ? ne : 0;
        CHECK(counter == want, "counter on world PE %d is %d, want %d (fetch-adds to even team rank %d)", me, counter,
              want, ne - 1);
    }
    if (even != SHMEM_TEAM_INVALID) {
        shmem_ctx_destroy(ce1);
        shmem_ctx_destroy(ce0);
    }

    /* Odd PEs: rank 0 of the team is world PE 1. */
    if (npes >= 2) {
        int no = npes / 2;
        shmem_team_t odd = SHMEM_TEAM_WORLD;
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, no, NULL, 0, &odd);
        CHECK(rc == 0, "odd split returned %d", rc);
        CHECK((odd != SHMEM_TEAM_INVALID) == (me % 2 == 1), "odd split: handle %p on PE %d", (void *)odd, me);
        for (int i = 0; i < MAXPE; i++)
            odd_slots[i] = -1;
        shmem_barrier_all();
        shmem_ctx_t co = SHMEM_CTX_INVALID;
        if (odd != SHMEM_TEAM_INVALID) {
            co = make_ctx(odd, 0, "odd team");
            int r = shmem_team_my_pe(odd);
            CHECK(r == me / 2, "odd team rank is %d, want %d", r, me / 2);
            shmem_ctx_int_p(co, &odd_slots[r], 1000 + me, 0);
            shmem_ctx_quiet(co);
        }
        shmem_barrier_all();
        if (me == 1) {
            for (int r = 0; r < no; r++)
                CHECK(odd_slots[r] == 1000 + 2 * r + 1, "world PE 1 (odd team rank 0): slot %d is %d, want %d", r,
                      odd_slots[r], 1000 + 2 * r + 1);
        } else {
            for (int r = 0; r < MAXPE; r++)
                CHECK(odd_slots[r] == -1, "world PE %d got %d in slot %d: a put to odd team rank 0 went astray", me,
                      odd_slots[r], r);
        }
        if (odd != SHMEM_TEAM_INVALID) {
            /* A get of rank 0 through the context reads world PE 1's slots. */
            int g = shmem_ctx_int_g(co, &odd_slots[0], 0);
            CHECK(g == 1000 + 1, "get of odd team rank 0's slot 0: %d, want %d", g, 1001);
            shmem_ctx_destroy(co);
        }
        shmem_barrier_all();
        if (odd != SHMEM_TEAM_INVALID)
            shmem_team_destroy(odd);
    }

    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    shmem_barrier_all();
    if (me == 0)
        printf("team ctx ok\n");
    shmem_finalize();
    return 0;
}
