/* rshmem-test
 * np: 1 2 3 4 8
 * timeout: 30
 */
/* The semantics of the semaphore routines, one rule at a time:
 * - a new semaphore is 0 (try is 0, tryN(0) is 1); live semaphores are distinct and
 *   independent (units posted to one are not seen by another, freeing some leaves the
 *   others' units alone); a semaphore allocated after a free starts at 0 even if the
 *   freed one held units. (Pointers are not compared between PEs: like shmem_malloc's,
 *   they are symmetric addresses, which differ from PE to PE here.) shmemx_sem_free(NULL)
 *   does nothing;
 * - boolean: posting twice (post, postN(1), from one PE or from every PE) leaves 1:
 *   try is 1 once, then 0; wait after a remote post; the N forms with n 0 and 1 work;
 * - integer: postN(3) then tryN(4) is 0 and leaves 3 (tryN(4) is 0 again, then tryN(2)
 *   and tryN(1) succeed), tryN(3) after postN(3) is 1; posts from every PE add up;
 * - try on 0 returns 0 at once, many times (timed); waitN(0) and tryN(0) succeed at once
 *   and leave the value alone; postN(0), local and remote, changes nothing;
 * - flags: 0, BOOLEAN alone, SPRODUCER|SCONSUMER and other combinations allocate, and
 *   behave as boolean exactly when SHMEMX_SEM_BOOLEAN is set;
 * - team semaphores: on the even PEs' team (stride 2) members post to other members with
 *   world PE numbers from shmem_team_translate_pe, around the team's ring (postN, post,
 *   waitN, wait); at the same time the odd PEs' team allocates a different number of
 *   semaphores and does the same, so allocation must only synchronise the team (a world
 *   synchronisation deadlocks, and the short timeout ends it); a semaphore of
 *   SHMEM_TEAM_WORLD from shmemx_team_sem_alloc works like shmemx_sem_alloc. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../common.h"

static int me, npes;

static double now(void) {
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void fresh(void) {
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    CHECK(s != NULL, "shmemx_sem_alloc(0) gave NULL");
    CHECK(shmemx_sem_try(s) == 0, "a new semaphore is not 0");
    CHECK(shmemx_sem_tryN(s, 0) == 1, "tryN(0) on a new semaphore is not 1");
    shmem_barrier_all();
    shmemx_sem_free(s);
    shmemx_sem_free(NULL); /* does nothing, like shmem_free(NULL) */
}

static void boolean(void) {
    shmemx_sem_t *b = shmemx_sem_alloc(SHMEMX_SEM_BOOLEAN);
    CHECK(b != NULL, "shmemx_sem_alloc(BOOLEAN) gave NULL");
    /* post twice to myself */
    shmemx_sem_post(b, me);
    shmemx_sem_post(b, me);
    CHECK(shmemx_sem_try(b) == 1, "boolean: try after two posts is not 1");
    CHECK(shmemx_sem_try(b) == 0, "boolean: a second try after two posts succeeded");
    /* postN(1) twice, tryN(1) */
    shmemx_sem_postN(b, 1, me);
    shmemx_sem_postN(b, 1, me);
    CHECK(shmemx_sem_tryN(b, 1) == 1, "boolean: tryN(1) after two postN(1) is not 1");
    CHECK(shmemx_sem_tryN(b, 1) == 0, "boolean: a second tryN(1) succeeded");
    /* n = 0 forms */
    shmemx_sem_postN(b, 0, me);
    CHECK(shmemx_sem_try(b) == 0, "boolean: postN(0) set the semaphore");
    CHECK(shmemx_sem_tryN(b, 0) == 1, "boolean: tryN(0) is not 1");
    shmemx_sem_waitN(b, 0);
    shmemx_sem_post(b, me);
    shmemx_sem_waitN(b, 1);
    CHECK(shmemx_sem_try(b) == 0, "boolean: waitN(1) left something");

    /* every PE posts twice to PE 0 */
    shmem_barrier_all();
    shmemx_sem_post(b, 0);
    shmemx_sem_postN(b, 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmemx_sem_try(b) == 1, "boolean: try after %d posts from every PE is not 1", 2 * npes);
        CHECK(shmemx_sem_try(b) == 0, "boolean: posts from %d PEs left more than 1", npes);
    } else {
        CHECK(shmemx_sem_try(b) == 0, "boolean: PE %d's copy changed by posts to PE 0", me);
    }
    shmem_barrier_all();

    /* a remote post wakes a blocking wait: one token goes around the ring 200 times */
    int right = (me + 1) % npes;
    for (int i = 0; i < 200; i++) {
        if (me == 0) {
            shmemx_sem_post(b, right);
            shmemx_sem_wait(b);
        } else {
            shmemx_sem_wait(b);
            shmemx_sem_post(b, right);
        }
    }
    shmem_barrier_all();
    CHECK(shmemx_sem_try(b) == 0, "boolean: left set after 200 rounds of the token");
    shmem_barrier_all();
    shmemx_sem_free(b);
}

static void integer(void) {
    shmemx_sem_t *s = shmemx_sem_alloc(SHMEMX_SEM_INTEGER);
    CHECK(s != NULL, "shmemx_sem_alloc(INTEGER) gave NULL");
    shmemx_sem_postN(s, 3, me);
    CHECK(shmemx_sem_tryN(s, 3) == 1, "integer: tryN(3) after postN(3) is not 1");
    CHECK(shmemx_sem_try(s) == 0, "integer: tryN(3) left something of 3");

    shmemx_sem_postN(s, 3, me);
    CHECK(shmemx_sem_tryN(s, 4) == 0, "integer: tryN(4) on 3 succeeded");
    CHECK(shmemx_sem_tryN(s, 4) == 0, "integer: tryN(4) on 3 succeeded the second time");
    CHECK(shmemx_sem_tryN(s, 2) == 1, "integer: tryN(2) on 3 (after a failed tryN(4)) failed");
    CHECK(shmemx_sem_tryN(s, 2) == 0, "integer: tryN(2) on 1 succeeded");
    CHECK(shmemx_sem_tryN(s, 1) == 1, "integer: tryN(1) on 1 failed");
    CHECK(shmemx_sem_try(s) == 0, "integer: 3 - 2 - 1 is not 0");

    /* try never blocks */
    double t0 = now();
    for (int i = 0; i < 20000; i++)
        CHECK(shmemx_sem_try(s) == 0, "try %d on 0 succeeded", i);
    for (int i = 0; i < 20000; i++)
        CHECK(shmemx_sem_tryN(s, 1 + (size_t)i % 100) == 0, "tryN(%d) on 0 succeeded", 1 + i % 100);
    double dt = now() - t0;
    CHECK(dt < 5.0, "40000 tries on an empty semaphore took %.2f s", dt);

    /* n = 0 */
    shmemx_sem_waitN(s, 0);
    CHECK(shmemx_sem_tryN(s, 0) == 1, "tryN(0) on 0 is not 1");
    shmemx_sem_post(s, me);
    shmemx_sem_waitN(s, 0);
    CHECK(shmemx_sem_tryN(s, 0) == 1, "tryN(0) on 1 is not 1");
    shmemx_sem_postN(s, 0, me);
    CHECK(shmemx_sem_tryN(s, 2) == 0, "postN(0) or waitN(0)/tryN(0) changed 1 to 2 or more");
    CHECK(shmemx_sem_tryN(s, 1) == 1, "waitN(0) or tryN(0) took the unit");
    CHECK(shmemx_sem_try(s) == 0, "left something");

    /* postN(0) from every PE to every PE */
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        shmemx_sem_postN(s, 0, pe);
    shmem_barrier_all();
    CHECK(shmemx_sem_try(s) == 0, "remote postN(0) changed the value");

    /* every PE posts me+1 to every PE: n(n+1)/2 each */
    shmem_barrier_all();
    for (int k = 0; k < npes; k++) {
        int pe = (me + k) % npes;
        if (me % 2)
            shmemx_sem_postN(s, (size_t)me + 1, pe);
        else
            for (int i = 0; i <= me; i++)
                shmemx_sem_post(s, pe);
    }
    shmem_barrier_all();
    size_t sum = (size_t)npes * (size_t)(npes + 1) / 2;
    CHECK(shmemx_sem_tryN(s, sum + 1) == 0, "integer: more than %zu after posts from every PE", sum);
    CHECK(shmemx_sem_tryN(s, sum) == 1, "integer: less than %zu after posts from every PE", sum);
    CHECK(shmemx_sem_try(s) == 0, "integer: left something");
    shmem_barrier_all();
    shmemx_sem_free(s);
}

static void flags(void) {
    static const int cases[] = {0,
                                SHMEMX_SEM_BOOLEAN,
                                SHMEMX_SEM_INTEGER,
                                SHMEMX_SEM_SPRODUCER | SHMEMX_SEM_SCONSUMER,
                                SHMEMX_SEM_SPRODUCER,
                                SHMEMX_SEM_MCONSUMER,
                                SHMEMX_SEM_BOOLEAN | SHMEMX_SEM_SPRODUCER | SHMEMX_SEM_SCONSUMER,
                                SHMEMX_SEM_BOOLEAN | SHMEMX_SEM_MPRODUCER | SHMEMX_SEM_SCONSUMER,
                                SHMEMX_SEM_INTEGER | SHMEMX_SEM_MPRODUCER | SHMEMX_SEM_MCONSUMER,
                                SHMEMX_SEM_INTEGER | SHMEMX_SEM_SPRODUCER | SHMEMX_SEM_MCONSUMER};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int f = cases[c];
        shmemx_sem_t *s = shmemx_sem_alloc(f);
        CHECK(s != NULL, "shmemx_sem_alloc(%#x) gave NULL", f);
        shmemx_sem_post(s, me);
        shmemx_sem_post(s, me);
        if (f & SHMEMX_SEM_BOOLEAN) {
            CHECK(shmemx_sem_tryN(s, 1) == 1 && shmemx_sem_try(s) == 0, "flags %#x: not boolean", f);
        } else {
            CHECK(shmemx_sem_tryN(s, 2) == 1, "flags %#x: two posts did not make 2 (not an integer semaphore)", f);
            CHECK(shmemx_sem_try(s) == 0, "flags %#x: more than 2", f);
        }
        shmemx_sem_free(s);
    }
}

static void many_live(void) {
    enum { NSEM = 16 };
    shmemx_sem_t *s[NSEM];
    for (int i = 0; i < NSEM; i++) {
        s[i] = shmemx_sem_alloc(0);
        CHECK(s[i] != NULL, "semaphore %d: NULL", i);
        for (int j = 0; j < i; j++)
            CHECK(s[i] != s[j], "semaphores %d and %d are both %p", i, j, (void *)s[i]);
    }
    int right = (me + 1) % npes;
    for (int i = 0; i < NSEM; i++)
        shmemx_sem_postN(s[i], (size_t)i + 1, right);
    shmem_barrier_all();
    for (int i = 0; i < NSEM; i++) {
        CHECK(shmemx_sem_tryN(s[i], (size_t)i + 2) == 0, "semaphore %d holds more than %d", i, i + 1);
        CHECK(shmemx_sem_tryN(s[i], (size_t)i + 1) == 1, "semaphore %d holds less than %d", i, i + 1);
        CHECK(shmemx_sem_try(s[i]) == 0, "semaphore %d is not empty", i);
    }
    shmem_barrier_all();
    /* free the odd ones while the even ones hold units, which they keep */
    for (int i = 0; i < NSEM; i += 2)
        shmemx_sem_postN(s[i], 7, me);
    for (int i = 1; i < NSEM; i += 2)
        shmemx_sem_free(s[i]);
    for (int i = 0; i < NSEM; i += 2) {
        CHECK(shmemx_sem_tryN(s[i], 7) == 1, "semaphore %d lost its units when others were freed", i);
        CHECK(shmemx_sem_try(s[i]) == 0, "semaphore %d is not empty", i);
    }
    /* free a semaphore holding units: the next one starts at 0 */
    shmemx_sem_postN(s[0], 5, me);
    shmemx_sem_free(s[0]);
    shmemx_sem_t *again = shmemx_sem_alloc(0);
    CHECK(again != NULL, "shmemx_sem_alloc after a free gave NULL");
    CHECK(shmemx_sem_try(again) == 0, "a semaphore allocated after freeing one that held 5 is not 0 (%s address)",
          again == s[0] ? "same" : "other");
    shmemx_sem_free(again);
    for (int i = NSEM - 2; i >= 2; i -= 2)
        shmemx_sem_free(s[i]);
}

/* Ring exchanges of a team's semaphores: members are world PEs w(0..n-1). */
static void team_ring(shmem_team_t team, const char *name, int nsems) {
    int n = shmem_team_n_pes(team), r = shmem_team_my_pe(team);
    CHECK(n > 0 && r >= 0 && r < n, "%s: %d members, rank %d", name, n, r);
    shmemx_sem_t *s[8];
    for (int i = 0; i < nsems; i++) {
        s[i] = shmemx_team_sem_alloc(team, i % 2 ? SHMEMX_SEM_INTEGER : 0);
        CHECK(s[i] != NULL, "%s: shmemx_team_sem_alloc %d gave NULL", name, i);
    }
    shmemx_sem_t *bs = shmemx_team_sem_alloc(team, SHMEMX_SEM_BOOLEAN);
    CHECK(bs != NULL, "%s: boolean team semaphore is NULL", name);
    int right = shmem_team_translate_pe(team, (r + 1) % n, SHMEM_TEAM_WORLD);
    int left_rank = (r + n - 1) % n;
    CHECK(right >= 0 && right < npes, "%s: translate_pe gave %d", name, right);
    for (int round = 0; round < 50; round++) {
        /* two boolean posts, then the units: all of them are in when the units are */
        shmemx_sem_post(bs, right);
        shmemx_sem_postN(bs, 1, right);
        for (int i = 0; i < nsems; i++) {
            size_t give = (size_t)(r + 1 + i + round % 3);
            if (round % 2)
                shmemx_sem_postN(s[i], give, right);
            else
                for (size_t k = 0; k < give; k++)
                    shmemx_sem_post(s[i], right);
        }
        for (int i = nsems - 1; i >= 0; i--) {
            size_t want = (size_t)(left_rank + 1 + i + round % 3);
            if (round % 3 == 0)
                shmemx_sem_waitN(s[i], want);
            else
                for (size_t k = 0; k < want; k++)
                    shmemx_sem_wait(s[i]);
        }
        shmemx_sem_wait(bs);
        /* the left member posted bs twice before its units, which are all in: one
         * boolean unit was all there was */
        CHECK(shmemx_sem_try(bs) == 0, "%s round %d: boolean team semaphore held more than 1", name, round);
        shmem_team_sync(team);
    }
    for (int i = 0; i < nsems; i++)
        CHECK(shmemx_sem_try(s[i]) == 0, "%s: team semaphore %d not empty", name, i);
    shmem_team_sync(team);
    shmemx_sem_free(bs);
    for (int i = 0; i < nsems; i++)
        shmemx_sem_free(s[i]);
}

static void teams(void) {
    shmem_team_t even = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0, "even split failed");
    if (npes > 1)
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd) == 0, "odd split failed");
    /* no world synchronisation from here until both teams are done */
    if (me % 2 == 0) {
        CHECK(even != SHMEM_TEAM_INVALID, "no even team handle");
        team_ring(even, "even team", 3);
    } else {
        CHECK(odd != SHMEM_TEAM_INVALID, "no odd team handle");
        team_ring(odd, "odd team", 6);
        /* and once more: the odd team allocates and frees 7 + 8 more in all */
        team_ring(odd, "odd team again", 1);
    }
    shmem_barrier_all();
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    if (odd != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odd);

    /* shmemx_team_sem_alloc on the world team */
    shmemx_sem_t *w = shmemx_team_sem_alloc(SHMEM_TEAM_WORLD, 0);
    CHECK(w != NULL, "shmemx_team_sem_alloc(SHMEM_TEAM_WORLD) gave NULL");
    for (int pe = 0; pe < npes; pe++)
        shmemx_sem_postN(w, 2, pe);
    shmemx_sem_waitN(w, 2 * (size_t)npes);
    shmem_barrier_all();
    CHECK(shmemx_sem_try(w) == 0, "world team semaphore: more than 2 x %d", npes);
    shmemx_sem_free(w);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    fresh();
    boolean();
    integer();
    flags();
    many_live();
    teams();
    shmem_barrier_all();
    if (me == 0)
        printf("sem semantics ok\n");
    shmem_finalize();
    return 0;
}
