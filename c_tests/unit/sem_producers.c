/* rshmem-test
 * np: 1 2 3 4 8
 * timeout: 60
 */
/* Counting semaphores, every unit accounted for.
 *
 * Many producers, one consumer: every PE but 0 posts quota(p) units to PE 0's copy of
 * `units`, in batches of varying size (post one by one, or postN of the whole batch, or
 * postN of all but one then post). PE 0 takes them with a mix of wait, waitN, try and
 * tryN until it has exactly the total (blocking only for units already granted, below,
 * so a missing unit hangs and the timeout reports it). A producer may only post units
 * it holds credits for: PE 0 grants credits on each producer's copy of `credit` (postN,
 * GRANT at a time) and keeps granted - consumed <= LIMIT, so PE 0's value stays at most
 * LIMIT < SHMEMX_SEM_MAXVALUE although the total (168000 at np 8) is larger. At the
 * end PE 0's tryN(1) is 0, every producer's credit is used up (tryN(1) is 0), and what
 * the producers say they posted (gathered with an atomic add) equals the total.
 *
 * One producer, many consumers: PE 0 posts rev(p) units to every other PE with a mix of
 * post and postN (interleaved over the PEs), and each PE takes exactly that many with
 * wait/waitN/try/tryN; then its tryN(1) is 0.
 *
 * np 1 instead: PE 0 posts to itself in 400 batches and takes each batch back with the
 * same mix; then try is 0.
 *
 * At every np each PE also fills its own copy of a fresh semaphore to exactly
 * SHMEMX_SEM_MAXVALUE (allowed) and takes it in one tryN(65535), then again with
 * waitN(65535); the value is then 0. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define LIMIT 20000 /* granted but not yet consumed units, at most */
#define GRANT 700   /* credits granted to one producer at a time, at most */

static long posted_total; /* on PE 0: sum of what the producers say they posted */

static long quota(int p) {
    return 20000 + 1000L * p; /* 7 producers at np 8: 168000 units in all */
}

static long rev(int p) {
    return 2000 + 300L * p;
}

/* Batch sizes the producers cycle through. */
static const long batch_sizes[] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 1, 89, 144, 4, 233};
#define NBATCH (sizeof batch_sizes / sizeof batch_sizes[0])

/* Posts m units to pe, in the form chosen by k. */
static void post_units(shmemx_sem_t *s, long m, int pe, long k) {
    switch (k % 3) {
    case 0:
        for (long i = 0; i < m; i++)
            shmemx_sem_post(s, pe);
        break;
    case 1:
        shmemx_sem_postN(s, (size_t)m, pe);
        break;
    default:
        if (m > 1)
            shmemx_sem_postN(s, (size_t)(m - 1), pe);
        shmemx_sem_post(s, pe);
        break;
    }
}

/* Takes at most `avail` units from the caller's copy, which will receive at least that
 * many (so a blocking take of up to `avail` cannot hang). Returns how many it took;
 * may be 0 (a failed try). k picks the form. */
static long take_some(shmemx_sem_t *s, long avail, long k) {
    long m = 1 + k % 17;
    if (m > avail)
        m = avail;
    switch (k % 5) {
    case 0:
        shmemx_sem_wait(s);
        return 1;
    case 1:
        shmemx_sem_waitN(s, (size_t)m);
        return m;
    case 2:
        return shmemx_sem_try(s) ? 1 : 0;
    case 3:
        return shmemx_sem_tryN(s, (size_t)m) ? m : 0;
    default: {
        /* try first, then block for the same amount */
        if (shmemx_sem_tryN(s, (size_t)m))
            return m;
        shmemx_sem_waitN(s, (size_t)m);
        return m;
    }
    }
}

static void consumer(shmemx_sem_t *units, shmemx_sem_t *credit, int npes) {
    long total = 0, granted = 0, consumed = 0;
    long *given = calloc((size_t)npes, sizeof(long));
    CHECK(given != NULL, "calloc failed");
    for (int p = 1; p < npes; p++)
        total += quota(p);
    int next = 1; /* producer to grant to next, round robin */
    long k = 0;
    while (consumed < total) {
        /* grant while there is room under LIMIT and someone still needs credits */
        for (int tries = 0; tries < npes && granted - consumed < LIMIT; tries++) {
            int p = next;
            next = next + 1 < npes ? next + 1 : 1;
            long g = quota(p) - given[p];
            if (g > GRANT)
                g = GRANT;
            if (g > LIMIT - (granted - consumed))
                g = LIMIT - (granted - consumed);
            if (g <= 0)
                continue;
            shmemx_sem_postN(credit, (size_t)g, p);
            given[p] += g;
            granted += g;
        }
        long avail = granted - consumed; /* units that will arrive: all granted credits get posted */
        CHECK(avail > 0, "nothing granted and not done: granted %ld, consumed %ld of %ld", granted, consumed, total);
        consumed += take_some(units, avail, k++);
    }
    CHECK(consumed == total, "consumed %ld units, want exactly %ld", consumed, total);
    CHECK(granted == total, "granted %ld credits, want %ld", granted, total);
    for (int p = 1; p < npes; p++)
        CHECK(given[p] == quota(p), "granted %ld credits to PE %d, want %ld", given[p], p, quota(p));
    CHECK(shmemx_sem_tryN(units, 1) == 0, "a unit is left after consuming all %ld", total);
    free(given);
}

static void producer(shmemx_sem_t *units, shmemx_sem_t *credit, int me) {
    long left = quota(me), posted = 0, k = (long)me;
    while (left > 0) {
        long want = batch_sizes[k % NBATCH];
        if (want > left)
            want = left;
        /* one credit, blocking; then as many more as are there, up to want */
        shmemx_sem_wait(credit);
        long have = 1;
        while (have < want) {
            long m = want - have;
            if (shmemx_sem_tryN(credit, (size_t)m))
                have += m;
            else if (shmemx_sem_try(credit))
                have += 1;
            else
                break;
        }
        post_units(units, have, 0, k);
        posted += have;
        left -= have;
        k++;
    }
    CHECK(posted == quota(me), "posted %ld units, want %ld", posted, quota(me));
    shmem_long_atomic_add(&posted_total, posted, 0);
}

static void self_only(void) {
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    CHECK(s != NULL, "shmemx_sem_alloc(0) gave NULL");
    long k = 0;
    for (int round = 0; round < 400; round++) {
        long m = batch_sizes[round % NBATCH] + round;
        post_units(s, m, 0, round);
        long got = 0;
        while (got < m) {
            long t = take_some(s, m - got, k++);
            CHECK(t >= 0 && t <= m - got, "took %ld with %ld left in the batch", t, m - got);
            got += t;
        }
        CHECK(shmemx_sem_try(s) == 0, "round %d: a unit is left after taking the batch of %ld", round, m);
    }
    shmemx_sem_free(s);
}

static void reverse(int me, int npes) {
    shmemx_sem_t *s = shmemx_sem_alloc(SHMEMX_SEM_INTEGER);
    CHECK(s != NULL, "shmemx_sem_alloc gave NULL");
    if (me == 0) {
        long *sent = calloc((size_t)npes, sizeof(long));
        CHECK(sent != NULL, "calloc failed");
        int busy = 1;
        for (long k = 0; busy; k++) {
            busy = 0;
            for (int p = 1; p < npes; p++) {
                long m = batch_sizes[(k + p) % NBATCH];
                if (m > rev(p) - sent[p])
                    m = rev(p) - sent[p];
                if (m <= 0)
                    continue;
                post_units(s, m, p, k + p);
                sent[p] += m;
                busy = 1;
            }
        }
        for (int p = 1; p < npes; p++)
            CHECK(sent[p] == rev(p), "posted %ld to PE %d, want %ld", sent[p], p, rev(p));
        free(sent);
    } else {
        long got = 0, k = 3 * me;
        while (got < rev(me)) {
            long t = take_some(s, rev(me) - got, k++);
            got += t;
        }
        CHECK(got == rev(me), "took %ld units from PE 0, want %ld", got, rev(me));
        CHECK(shmemx_sem_tryN(s, 1) == 0, "a unit is left after taking %ld", got);
    }
    shmem_barrier_all();
    CHECK(shmemx_sem_try(s) == 0, "a unit appeared after the barrier");
    shmemx_sem_free(s);
}

/* Every PE fills its own copy to exactly SHMEMX_SEM_MAXVALUE: a value at the maximum is
 * allowed; it is taken back in one tryN. */
static void to_the_max(int me) {
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    CHECK(s != NULL, "shmemx_sem_alloc gave NULL");
    shmemx_sem_postN(s, SHMEMX_SEM_MAXVALUE - 5, me);
    for (int i = 0; i < 5; i++)
        shmemx_sem_post(s, me);
    CHECK(shmemx_sem_tryN(s, SHMEMX_SEM_MAXVALUE) == 1, "tryN(%d) on a full semaphore failed",
          SHMEMX_SEM_MAXVALUE);
    CHECK(shmemx_sem_try(s) == 0, "the semaphore is not empty after tryN(%d)", SHMEMX_SEM_MAXVALUE);
    shmemx_sem_postN(s, SHMEMX_SEM_MAXVALUE, me);
    shmemx_sem_waitN(s, SHMEMX_SEM_MAXVALUE);
    CHECK(shmemx_sem_try(s) == 0, "the semaphore is not empty after waitN(%d)", SHMEMX_SEM_MAXVALUE);
    shmemx_sem_free(s);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    if (npes == 1) {
        self_only();
    } else {
        shmemx_sem_t *units = shmemx_sem_alloc(0);
        shmemx_sem_t *credit = shmemx_sem_alloc(0);
        CHECK(units != NULL && credit != NULL && units != credit, "shmemx_sem_alloc gave %p and %p", (void *)units,
              (void *)credit);
        if (me == 0)
            consumer(units, credit, npes);
        else
            producer(units, credit, me);
        shmem_barrier_all();
        if (me == 0) {
            long want = 0;
            for (int p = 1; p < npes; p++)
                want += quota(p);
            CHECK(posted_total == want, "producers posted %ld units in all, want %ld", posted_total, want);
        } else {
            CHECK(shmemx_sem_tryN(credit, 1) == 0, "a credit is left over");
        }
        CHECK(shmemx_sem_tryN(units, 1) == 0, "a unit is left over after the barrier");
        shmemx_sem_free(credit);
        shmemx_sem_free(units);
        reverse(me, npes);
    }
    to_the_max(me);

    shmem_barrier_all();
    if (me == 0)
        printf("sem producers ok\n");
    shmem_finalize();
    return 0;
}
