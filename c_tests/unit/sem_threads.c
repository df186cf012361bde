/* rshmem-test
 * np: 1 2 3 4 8
 * timeout: 60
 * cflags: -pthread
 */
/* Several consumer threads on one semaphore: no unit lost or taken twice.
 *
 * First, PE 0 fills its copy to FILL = 60000 and NCONS threads race with try/tryN(k)
 * until it is empty: the counts sum to exactly 60000. Done for `units` with try and
 * tryN, and with try only for a semaphore of a team of PE 0 alone.
 *
 * Then, under SHMEM_THREAD_MULTIPLE, PE 0 runs NCONS consumer threads taking from its
 * copy of `units` with a mix of wait, waitN, try and tryN, while every other PE and a
 * producer thread of PE 0 post known numbers of units (post and postN). Each producer
 * posts to `done` on PE 0 after its last unit; PE 0's main thread waits for all of
 * them (so every unit has been posted) and until the threads have taken all but POISON
 * of them (at most PATIENCE seconds: a FAIL, not a hang, if units were lost), then
 * sets a stop flag and posts POISON more units: enough to complete any take a consumer
 * started before it saw the flag (each thread has at most one in flight, of at most
 * MAXN units). Consumers stop taking when they see the flag. After joining them, PE 0
 * drains what is left with try: then
 *     sum of the threads' counts + left over == total + POISON
 * exactly (a unit taken twice makes it larger, a lost one smaller), and the semaphore
 * is empty. ROUNDS rounds.
 *
 * Last, no lost wake-up: NCONS threads of PE 0 block in waitN (1, 2, 1, 2 units) for
 * 0.3 s, long enough to go to sleep; one postN(6) from the last PE (at np 1, PE 0's main
 * thread) must wake every one of them (within PATIENCE seconds: a FAIL, not a hang).
 * Twice. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../common.h"

#define NCONS 4
#define MAXN 3
#define POISON (NCONS * MAXN)
#define FILL 60000
#define ROUNDS 5
#define PATIENCE 20 /* seconds */

static shmemx_sem_t *units, *done;
static atomic_int stop;
static atomic_long taken; /* sum of the threads' counts, for PE 0's main thread to watch */
static long self_quota;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long quota(int p) {
    return 5000 + 100L * p; /* np 8: 5000..5700 from each PE, 37800 in all */
}

struct cons {
    int t;
    long count;
};

static void *consumer(void *p) {
    struct cons *c = p;
    for (long k = c->t;; k++) {
        if (atomic_load_explicit(&stop, memory_order_acquire))
            break;
        size_t m = 1 + (size_t)(k % MAXN);
        switch (k % 5) {
        case 0:
            shmemx_sem_wait(units);
            c->count += 1;
            atomic_fetch_add(&taken, 1);
            break;
        case 1:
            shmemx_sem_waitN(units, m);
            c->count += (long)m;
            atomic_fetch_add(&taken, (long)m);
            break;
        case 2:
            if (shmemx_sem_try(units)) {
                c->count += 1;
                atomic_fetch_add(&taken, 1);
            }
            break;
        case 3:
            if (shmemx_sem_tryN(units, m)) {
                c->count += (long)m;
                atomic_fetch_add(&taken, (long)m);
            }
            break;
        default:
            if (shmemx_sem_tryN(units, 1)) {
                c->count += 1;
                atomic_fetch_add(&taken, 1);
            } else {
                sched_yield();
            }
            break;
        }
    }
    return NULL;
}

/* Posts q units to pe in a mix of forms. */
static void produce(long q, int pe, long seed) {
    long sent = 0;
    for (long k = seed; sent < q; k++) {
        long m = 1 + k % 7;
        if (m > q - sent)
            m = q - sent;
        if (k % 2) {
            shmemx_sem_postN(units, (size_t)m, pe);
        } else {
            for (long i = 0; i < m; i++)
                shmemx_sem_post(units, pe);
        }
        sent += m;
        if (k % 16 == 0)
            sched_yield();
    }
    CHECK(sent == q, "posted %ld, want %ld", sent, q);
    shmemx_sem_post(done, 0);
}

static void *self_producer(void *p) {
    (void)p;
    produce(self_quota, 0, 5);
    return NULL;
}

static atomic_int woke;

static void *sleeper(void *p) {
    size_t n = (size_t)(uintptr_t)p;
    shmemx_sem_waitN(units, n);
    atomic_fetch_add(&woke, 1);
    return NULL;
}

/* NCONS threads of PE 0 wait (1, 2, 1, 2 units: 6) long enough to fall asleep; then
 * one postN(6) from the last PE must wake them all. */
static void sleepers(int me, int npes, int round) {
    const size_t want[NCONS] = {1, 2, 1, 2};
    pthread_t th[NCONS];
    shmem_barrier_all();
    if (me == 0) {
        atomic_store(&woke, 0);
        for (int t = 0; t < NCONS; t++)
            CHECK(pthread_create(&th[t], NULL, sleeper, (void *)(uintptr_t)want[t]) == 0, "pthread_create failed");
    }
    shmem_barrier_all();
    if (me == npes - 1) {
        struct timespec pause = {0, 300 * 1000 * 1000};
        nanosleep(&pause, NULL);
        shmemx_sem_postN(units, 6, 0);
    }
    if (me == 0) {
        double t0 = now();
        while (atomic_load(&woke) < NCONS) {
            CHECK(now() - t0 < PATIENCE, "sleepers round %d: %d of %d waiters woke in %d s after one postN(6)", round,
                  atomic_load(&woke), NCONS, PATIENCE);
            sched_yield();
        }
        for (int t = 0; t < NCONS; t++)
            CHECK(pthread_join(th[t], NULL) == 0, "pthread_join failed");
        CHECK(shmemx_sem_try(units) == 0, "sleepers round %d: a unit is left over", round);
    }
    shmem_barrier_all();
}

struct racer {
    shmemx_sem_t *s;
    int t, try_only;
    long count;
};

static void *racer(void *p) {
    struct racer *r = p;
    for (long k = r->t; ; k++) {
        size_t m = r->try_only ? 1 : 1 + (size_t)(k % 5);
        int ok = m == 1 && k % 2 ? shmemx_sem_try(r->s) : shmemx_sem_tryN(r->s, m);
        if (ok) {
            r->count += (long)m;
        } else if (m == 1) {
            break; /* nothing left: only this thread's peers' tries could take more */
        }
    }
    return NULL;
}

static void race(shmemx_sem_t *s, int try_only, const char *what) {
    shmemx_sem_postN(s, FILL, 0);
    struct racer r[NCONS];
    pthread_t th[NCONS];
    for (int t = 0; t < NCONS; t++) {
        r[t] = (struct racer){s, t, try_only, 0};
        CHECK(pthread_create(&th[t], NULL, racer, &r[t]) == 0, "pthread_create failed");
    }
    long sum = 0;
    for (int t = 0; t < NCONS; t++) {
        CHECK(pthread_join(th[t], NULL) == 0, "pthread_join failed");
        sum += r[t].count;
    }
    CHECK(sum == FILL, "%s: %d threads took %ld units in all (%ld + %ld + %ld + %ld) from %d", what, NCONS, sum,
          r[0].count, r[1].count, r[2].count, r[3].count, FILL);
    CHECK(shmemx_sem_try(s) == 0, "%s: units left after the threads emptied it", what);
}

int main(void) {
    int provided = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "shmem_init_thread failed");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided thread level %d, want SHMEM_THREAD_MULTIPLE", provided);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    units = shmemx_sem_alloc(0);
    done = shmemx_sem_alloc(0);
    CHECK(units != NULL && done != NULL, "shmemx_sem_alloc gave NULL");
    self_quota = 8000;
    long total = self_quota;
    for (int p = 1; p < npes; p++)
        total += quota(p);

    shmem_team_t solo = SHMEM_TEAM_INVALID; /* PE 0 alone */
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &solo) == 0, "split failed");
    if (me == 0) {
        race(units, 0, "integer, try/tryN");
        shmemx_sem_t *sc = shmemx_team_sem_alloc(solo, 0);
        CHECK(sc != NULL, "shmemx_team_sem_alloc on a team of one PE gave NULL");
        race(sc, 1, "semaphore of a one-PE team, try");
        shmemx_sem_free(sc);
        shmem_team_destroy(solo);
    }
    shmem_barrier_all();
    for (int round = 0; round < ROUNDS; round++) {
        if (me == 0) {
            atomic_store(&stop, 0);
            atomic_store(&taken, 0);
            struct cons c[NCONS];
            pthread_t th[NCONS], prod;
            for (int t = 0; t < NCONS; t++) {
                c[t] = (struct cons){t, 0};
                CHECK(pthread_create(&th[t], NULL, consumer, &c[t]) == 0, "pthread_create failed");
            }
            CHECK(pthread_create(&prod, NULL, self_producer, NULL) == 0, "pthread_create failed");
            shmemx_sem_waitN(done, (size_t)npes); /* every producer, this PE's thread included */
            CHECK(pthread_join(prod, NULL) == 0, "pthread_join failed");
            /* let the threads take all but the last few (they cannot get stuck with more than
             * MAXN - 1 there, and taking the last ones may need the poison) */
            double t0 = now();
            while (atomic_load(&taken) < total - POISON) {
                CHECK(now() - t0 < PATIENCE, "round %d: after %d s the threads have taken %ld of %ld units (lost?)",
                      round, PATIENCE, atomic_load(&taken), total);
                sched_yield();
            }
            atomic_store_explicit(&stop, 1, memory_order_release);
            shmemx_sem_postN(units, POISON, 0);
            long sum = 0;
            for (int t = 0; t < NCONS; t++) {
                CHECK(pthread_join(th[t], NULL) == 0, "pthread_join failed");
                sum += c[t].count;
            }
            long left = 0;
            while (shmemx_sem_try(units))
                left++;
            CHECK(left <= 2 * POISON, "round %d: %ld units left over, more than 2 x the %d posted after the stop",
                  round, left, POISON);
            CHECK(sum + left == total + POISON,
                  "round %d: threads took %ld (%ld + %ld + %ld + %ld) and %ld were left: %ld, want %ld posted + %d "
                  "after the stop",
                  round, sum, c[0].count, c[1].count, c[2].count, c[3].count, left, sum + left, total, POISON);
            CHECK(shmemx_sem_tryN(units, 1) == 0 && shmemx_sem_try(done) == 0, "units or done left over");
        } else {
            produce(quota(me), 0, me + round);
        }
        shmem_barrier_all();
    }

    for (int round = 0; round < 2; round++)
        sleepers(me, npes, round);

    shmemx_sem_free(done);
    shmemx_sem_free(units);
    if (me == 0)
        printf("sem threads ok\n");
    shmem_finalize();
    return 0;
}
