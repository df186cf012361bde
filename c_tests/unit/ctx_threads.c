/* rshmem-test
 * np: 1 2 4
 * cflags: -pthread
 */
/* Under SHMEM_THREAD_MULTIPLE, 4 threads of every PE each create a SHMEM_CTX_PRIVATE
 * context, put a disjoint slice to the right neighbour through it (put, put_nbi, p and an
 * atomic add), quiet and destroy their context; the data is checked after a barrier.
 * Done for several rounds so contexts are created and destroyed concurrently. */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define NTHREADS 4
#define SLICE 64
#define ROUNDS 20

static long slots[NTHREADS * 3 * SLICE];
static long adds;

struct arg {
    int t, round, failed;
    char why[200];
};

static long val(int pe, int round, int k) { return 1000000L * (pe + 1) + 10000L * round + k; }

static void *worker(void *p) {
    struct arg *a = p;
    int me = shmem_my_pe(), right = (me + 1) % shmem_n_pes();
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    int rc = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx);
    if (rc != 0 || ctx == SHMEM_CTX_INVALID) {
        a->failed = 1;
        snprintf(a->why, sizeof a->why, "thread %d: shmem_ctx_create(SHMEM_CTX_PRIVATE) returned %d", a->t, rc);
        return NULL;
    }
    shmem_team_t team = SHMEM_TEAM_INVALID;
    if (shmem_ctx_get_team(ctx, &team) != 0 || team != SHMEM_TEAM_WORLD) {
        a->failed = 1;
        snprintf(a->why, sizeof a->why, "thread %d: shmem_ctx_get_team of its context", a->t);
    }
    long buf[SLICE];
    long *base = slots + a->t * 3 * SLICE;
    for (int i = 0; i < SLICE; i++)
        buf[i] = val(me, a->round, a->t * 3 * SLICE + i);
    shmem_ctx_long_put(ctx, base, buf, SLICE, right);
    for (int i = 0; i < SLICE; i++)
        buf[i] = val(me, a->round, a->t * 3 * SLICE + SLICE + i);
    shmem_ctx_long_put_nbi(ctx, base + SLICE, buf, SLICE, right);
    shmem_ctx_quiet(ctx); /* buf is reused below */
    for (int i = 0; i < SLICE; i++)
        shmem_ctx_long_p(ctx, base + 2 * SLICE + i, val(me, a->round, a->t * 3 * SLICE + 2 * SLICE + i), right);
    shmem_ctx_long_atomic_add(ctx, &adds, a->t + 1, right);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void) {
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(rc == 0, "shmem_init_thread returned %d", rc);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d, wanted SHMEM_THREAD_MULTIPLE (%d)", provided,
          SHMEM_THREAD_MULTIPLE);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int left = (me + npes - 1) % npes;

    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < NTHREADS * 3 * SLICE; k++)
            slots[k] = -1;
        adds = 0;
        shmem_barrier_all();
        pthread_t th[NTHREADS];
        struct arg args[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            args[t] = (struct arg){.t = t, .round = round};
            CHECK(pthread_create(&th[t], NULL, worker, &args[t]) == 0, "pthread_create %d", t);
        }
        for (int t = 0; t < NTHREADS; t++) {
            pthread_join(th[t], NULL);
            CHECK(!args[t].failed, "round %d: %s", round, args[t].why);
        }
        shmem_barrier_all();
        for (int k = 0; k < NTHREADS * 3 * SLICE; k++)
            CHECK(slots[k] == val(left, round, k), "round %d: slot %d is %ld, want %ld", round, k, slots[k],
                  val(left, round, k));
        long want = NTHREADS * (NTHREADS + 1) / 2;
        CHECK(adds == want, "round %d: atomic adds gave %ld, want %ld", round, adds, want);
        shmem_barrier_all();
    }
    if (me == 0)
        printf("ctx threads ok\n");
    shmem_finalize();
    return 0;
}
