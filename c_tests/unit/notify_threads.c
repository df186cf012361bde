/* rshmem-test
 * np: 1 2 4
 * timeout: 60
 * cflags: -pthread
 */
/* Several consumer threads on one notification set (SHMEM_THREAD_MULTIPLE): each
 * notification is consumed by exactly one thread, none is lost, and threads asleep in
 * wait_any are woken.
 *
 * Each round, NCONS threads of every PE consume from the PE's arrival set with a mix of
 * wait_any, wait_some and test_any (or, every fourth round, wait on the indices each
 * thread owns), while every PE (its main
 * thread) sends FLAGS messages to its right neighbour with shmemx_notify_put_nbi, each
 * carrying the round and the index, and sets FLAGS local flags of a second set with
 * shmemx_notify_set (the seed's send-ready flags). A consumer checks the data of every
 * message it takes and counts it in taken[index]; after the round every count is exactly
 * 1 (a notification taken twice makes one 2, a lost one leaves a 0 and the round never
 * ends: a FAIL after PATIENCE seconds, not a hang). Rounds alternate between a fast
 * producer and one that waits 2 ms first, so consumers are asleep when it starts. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdatomic.h>
#include <time.h>

#include "../common.h"

#define NCONS 4
#define FLAGS 48
#define ROUNDS 40
#define WORDS 64
#define PATIENCE 20.0

static long inbox[2][FLAGS][WORDS];
static shmemx_notify_t *arrive[2], *local_set;
static atomic_int taken[2][FLAGS], local_taken[FLAGS], done_count;
static pthread_barrier_t start, finish;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void take(int r, int b, size_t i) {
    CHECK(i < FLAGS, "index %zu", i);
    for (int k = 0; k < WORDS; k++)
        CHECK(inbox[b][i][k] == r * 100000L + (long)i * 100 + k, "round %d flag %zu word %d: %ld", r, i, k,
              inbox[b][i][k]);
    atomic_fetch_add(&taken[b][i], 1);
    atomic_fetch_add(&done_count, 1);
}

static void *consumer(void *arg) {
    int id = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        pthread_barrier_wait(&start);
        int b = r & 1;
        double t0 = now();
        /* Local send-ready flags: test_any until all FLAGS have been taken by someone. */
        for (;;) {
            size_t i = shmemx_notify_test_any(local_set);
            if (i != SHMEMX_NOTIFY_NONE) {
                atomic_fetch_add(&local_taken[i], 1);
                continue;
            }
            int sum = 0;
            for (int j = 0; j < FLAGS; j++)
                sum += atomic_load(&local_taken[j]);
            CHECK(sum <= FLAGS, "round %d: a local flag was taken twice (%d takes)", r, sum);
            if (sum == FLAGS)
                break;
            CHECK(now() - t0 < PATIENCE, "round %d: local flags lost (%d taken)", r, sum);
        }
        /* Arrivals: each thread takes its share of FLAGS / NCONS, by its own method. */
        for (int n = 0; n < FLAGS / NCONS;) {
            size_t idx[4];
            /* Every fourth round each thread waits for the flags it owns (no thread may then
             * take another's); otherwise the threads mix wait_any, wait_some and test_any. */
            switch (r % 4 == 3 ? 3 : (id + r) % 3) {
            case 0:
                take(r, b, shmemx_notify_wait_any(arrive[b]));
                n++;
                break;
            case 1: {
                size_t want = (size_t)(FLAGS / NCONS - n) < 4 ? (size_t)(FLAGS / NCONS - n) : 4;
                size_t got = shmemx_notify_wait_some(arrive[b], idx, want);
                for (size_t q = 0; q < got; q++)
                    take(r, b, idx[q]);
                n += (int)got;
                break;
            }
            case 2: {
                size_t i = shmemx_notify_test_any(arrive[b]);
                if (i != SHMEMX_NOTIFY_NONE) {
                    take(r, b, i);
                    n++;
                }
                CHECK(now() - t0 < PATIENCE, "round %d: arrivals lost", r);
                break;
            }
            default:
                /* The flags this thread owns: id, id + NCONS, ... */
                shmemx_notify_wait(arrive[b], (size_t)(id + n * NCONS));
                take(r, b, (size_t)(id + n * NCONS));
                n++;
            }
        }
        pthread_barrier_wait(&finish);
    }
    return NULL;
}

int main(void) {
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    arrive[0] = shmemx_notify_alloc(FLAGS);
    arrive[1] = shmemx_notify_alloc(FLAGS);
    local_set = shmemx_notify_alloc(FLAGS);
    pthread_barrier_init(&start, NULL, NCONS + 1);
    pthread_barrier_init(&finish, NULL, NCONS + 1);
    pthread_t th[NCONS];
    for (int t = 0; t < NCONS; t++)
        pthread_create(&th[t], NULL, consumer, (void *)(intptr_t)t);
    static long out[FLAGS][WORDS];
    for (int r = 0; r < ROUNDS; r++) {
        int b = r & 1;
        for (int i = 0; i < FLAGS; i++) {
            atomic_store(&taken[b][i], 0);
            atomic_store(&local_taken[i], 0);
            for (int k = 0; k < WORDS; k++)
                out[i][k] = r * 100000L + i * 100L + k;
        }
        atomic_store(&done_count, 0);
        shmem_barrier_all(); /* every PE's counters are reset before anyone sends */
        pthread_barrier_wait(&start);
        if (r % 2) {
            struct timespec pause = {0, 2000000};
            nanosleep(&pause, NULL);
        }
        for (int i = FLAGS - 1; i >= 0; i--) {
            shmemx_notify_set(local_set, (size_t)i);
            shmemx_notify_put_nbi(arrive[b], (size_t)i, inbox[b][i], out[i], sizeof out[i], (me + 1) % npes);
        }
        shmem_quiet();
        pthread_barrier_wait(&finish);
        for (int i = 0; i < FLAGS; i++) {
            CHECK(atomic_load(&taken[b][i]) == 1, "round %d: arrival %d taken %d times", r, i,
                  atomic_load(&taken[b][i]));
            CHECK(atomic_load(&local_taken[i]) == 1, "round %d: local flag %d taken %d times", r, i,
                  atomic_load(&local_taken[i]));
        }
        CHECK(shmemx_notify_test_any(arrive[b]) == SHMEMX_NOTIFY_NONE, "round %d: extra arrival", r);
    }
    for (int t = 0; t < NCONS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    shmemx_notify_free(local_set);
    shmemx_notify_free(arrive[1]);
    shmemx_notify_free(arrive[0]);
    shmem_finalize();
    return 0;
}
