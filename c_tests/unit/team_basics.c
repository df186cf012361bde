/* rshmem-test
 * np: 1 2 3 4 7 8
 */
/* The predefined teams: SHMEM_TEAM_WORLD numbers PEs as shmem_my_pe/shmem_n_pes do;
 * SHMEM_TEAM_SHARED holds every PE (one node), and shmem_team_translate_pe maps world
 * numbers onto it one to one and back; SHMEM_TEAM_INVALID answers -1 to shmem_team_my_pe,
 * shmem_team_n_pes and shmem_team_translate_pe, NULL to shmem_team_ptr, nonzero to
 * shmem_team_get_config, and shmem_team_destroy(SHMEM_TEAM_INVALID) does nothing;
 * shmem_team_get_config with mask 0 writes nothing and takes a NULL config (1.6);
 * shmem_team_translate_pe answers -1 for a src_pe outside the source team. */
#include <limits.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

static int global_var;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *heap_var = shmem_malloc(sizeof(int));
    CHECK(heap_var != NULL, "shmem_malloc(sizeof(int)) failed");

    /* SHMEM_TEAM_WORLD. */
    CHECK(SHMEM_TEAM_WORLD != SHMEM_TEAM_INVALID, "SHMEM_TEAM_WORLD compares equal to SHMEM_TEAM_INVALID");
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me, "shmem_team_my_pe(SHMEM_TEAM_WORLD) is %d, shmem_my_pe is %d",
          shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes, "shmem_team_n_pes(SHMEM_TEAM_WORLD) is %d, shmem_n_pes is %d",
          shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    for (int pe = 0; pe < npes; pe++) {
        int t = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_WORLD);
        CHECK(t == pe, "shmem_team_translate_pe(WORLD, %d, WORLD) is %d", pe, t);
        void *p = shmem_team_ptr(SHMEM_TEAM_WORLD, &global_var, pe);
        CHECK(p == shmem_ptr(&global_var, pe), "shmem_team_ptr(WORLD, &global_var, %d) = %p, shmem_ptr gives %p", pe,
              p, shmem_ptr(&global_var, pe));
        p = shmem_team_ptr(SHMEM_TEAM_WORLD, heap_var, pe);
        CHECK(p == shmem_ptr(heap_var, pe), "shmem_team_ptr(WORLD, heap_var, %d) = %p, shmem_ptr gives %p", pe, p,
              shmem_ptr(heap_var, pe));
    }
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, &global_var, me) == (void *)&global_var,
          "shmem_team_ptr(WORLD, &global_var, me) is not &global_var");

    /* SHMEM_TEAM_SHARED: every PE is on this node. */
    CHECK(SHMEM_TEAM_SHARED != SHMEM_TEAM_INVALID, "SHMEM_TEAM_SHARED compares equal to SHMEM_TEAM_INVALID");
    int shared_me = shmem_team_my_pe(SHMEM_TEAM_SHARED), shared_n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(shared_n == npes, "shmem_team_n_pes(SHMEM_TEAM_SHARED) is %d, want %d (one node)", shared_n, npes);
    CHECK(shared_me >= 0 && shared_me < npes, "shmem_team_my_pe(SHMEM_TEAM_SHARED) is %d", shared_me);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, SHMEM_TEAM_SHARED) == shared_me,
          "translate_pe(WORLD, me=%d, SHARED) is %d, shmem_team_my_pe(SHARED) is %d", me,
          shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, SHMEM_TEAM_SHARED), shared_me);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, shared_me, SHMEM_TEAM_WORLD) == me,
          "translate_pe(SHARED, %d, WORLD) is %d, want %d", shared_me,
          shmem_team_translate_pe(SHMEM_TEAM_SHARED, shared_me, SHMEM_TEAM_WORLD), me);
    {
        int *seen = calloc((size_t)npes, sizeof(int));
        CHECK(seen != NULL, "calloc failed");
        for (int pe = 0; pe < npes; pe++) {
            int s = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED);
            CHECK(s >= 0 && s < npes, "translate_pe(WORLD, %d, SHARED) is %d, outside [0, %d)", pe, s, npes);
            CHECK(!seen[s], "translate_pe(WORLD, ., SHARED) gives %d twice", s);
            seen[s] = 1;
            int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, s, SHMEM_TEAM_WORLD);
            CHECK(w == pe, "translate_pe(SHARED, %d, WORLD) is %d, want %d", s, w, pe);
            void *p = shmem_team_ptr(SHMEM_TEAM_SHARED, &global_var, s);
            CHECK(p != NULL, "shmem_team_ptr(SHARED, &global_var, %d) is NULL on one node", s);
            CHECK(p == shmem_ptr(&global_var, pe), "shmem_team_ptr(SHARED, &global_var, %d) = %p, shmem_ptr(.., %d) = %p",
                  s, p, pe, shmem_ptr(&global_var, pe));
        }
        free(seen);
    }

    /* SHMEM_TEAM_INVALID. */
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "shmem_team_my_pe(SHMEM_TEAM_INVALID) is %d",
          shmem_team_my_pe(SHMEM_TEAM_INVALID));
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "shmem_team_n_pes(SHMEM_TEAM_INVALID) is %d",
          shmem_team_n_pes(SHMEM_TEAM_INVALID));
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, &global_var, 0) == NULL, "shmem_team_ptr(SHMEM_TEAM_INVALID) is not NULL");
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no operation */

    /* shmem_team_get_config. */
    shmem_team_config_t cfg = {.num_contexts = -77};
    int rc = shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg);
    CHECK(rc == 0, "shmem_team_get_config(WORLD, SHMEM_TEAM_NUM_CONTEXTS) returned %d", rc);
    CHECK(cfg.num_contexts >= 0, "shmem_team_get_config(WORLD) num_contexts is %d", cfg.num_contexts);
    cfg.num_contexts = -55;
    rc = shmem_team_get_config(SHMEM_TEAM_WORLD, 0, &cfg);
    CHECK(rc == 0, "shmem_team_get_config(WORLD, mask 0) returned %d", rc);
    CHECK(cfg.num_contexts == -55, "shmem_team_get_config(WORLD, mask 0) wrote num_contexts %d", cfg.num_contexts);
    /* 1.6: with mask 0, config may be NULL and nothing happens. */
    rc = shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL);
    CHECK(rc == 0, "shmem_team_get_config(WORLD, 0, NULL) returned %d", rc);
    rc = shmem_team_get_config(SHMEM_TEAM_SHARED, SHMEM_TEAM_NUM_CONTEXTS, &cfg);
    CHECK(rc == 0, "shmem_team_get_config(SHARED, SHMEM_TEAM_NUM_CONTEXTS) returned %d", rc);
    rc = shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg);
    CHECK(rc != 0, "shmem_team_get_config(SHMEM_TEAM_INVALID) returned 0");

    /* shmem_team_translate_pe: invalid teams and PE numbers outside the source team. */
    static const int bad_pes[] = {-1, -2, INT_MIN, INT_MAX};
    shmem_team_t teams[2];
    teams[0] = SHMEM_TEAM_WORLD;
    teams[1] = SHMEM_TEAM_SHARED;
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 2; b++) {
            int t;
            for (unsigned k = 0; k < sizeof bad_pes / sizeof bad_pes[0]; k++) {
                t = shmem_team_translate_pe(teams[a], bad_pes[k], teams[b]);
                CHECK(t == -1, "translate_pe(team %d, %d, team %d) is %d, want -1", a, bad_pes[k], b, t);
            }
            t = shmem_team_translate_pe(teams[a], npes, teams[b]);
            CHECK(t == -1, "translate_pe(team %d, npes=%d, team %d) is %d, want -1", a, npes, b, t);
            t = shmem_team_translate_pe(teams[a], npes + 5, teams[b]);
            CHECK(t == -1, "translate_pe(team %d, npes+5, team %d) is %d, want -1", a, b, t);
        }
        for (int pe = 0; pe < npes; pe++) {
            int t = shmem_team_translate_pe(teams[a], pe, SHMEM_TEAM_INVALID);
            CHECK(t == -1, "translate_pe(team %d, %d, SHMEM_TEAM_INVALID) is %d, want -1", a, pe, t);
            t = shmem_team_translate_pe(SHMEM_TEAM_INVALID, pe, teams[a]);
            CHECK(t == -1, "translate_pe(SHMEM_TEAM_INVALID, %d, team %d) is %d, want -1", pe, a, t);
        }
    }
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_INVALID) == -1,
          "translate_pe(INVALID, 0, INVALID) is not -1");

    /* The predefined teams synchronize. */
    for (int i = 0; i < 10; i++) {
        rc = shmem_team_sync(SHMEM_TEAM_WORLD);
        CHECK(rc == 0, "shmem_team_sync(SHMEM_TEAM_WORLD) returned %d", rc);
        rc = shmem_team_sync(SHMEM_TEAM_SHARED);
        CHECK(rc == 0, "shmem_team_sync(SHMEM_TEAM_SHARED) returned %d", rc);
    }

    shmem_free(heap_var);
    shmem_barrier_all();
    if (me == 0)
        printf("team basics ok\n");
    shmem_finalize();
    return 0;
}
