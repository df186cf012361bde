/* rshmem-test
 * np: 2 4 8
 * timeout: 120
 */
/* Mutual exclusion of shmem_set_lock / shmem_clear_lock: every PE takes the lock ITER
 * times; inside, it checks and sets an "inside" flag on PE 0 (which must read 0) and does
 * a non-atomic read-modify-write of a counter on PE 0 (shmem_long_g then shmem_long_p).
 * After a barrier the counter is exactly npes * ITER. Done with a lock in the program's
 * global data and then with one in the symmetric heap. */
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ITER 300

static long global_lock; /* a static global, zero-initialised */
static int inside;
static long counter;

static void critical(long *lock, const char *what, int me, int it) {
    shmem_set_lock(lock);
    int in = shmem_int_g(&inside, 0);
    CHECK(in == 0, "%s: iteration %d: entered the lock while PE %d is inside (flag %d)", what, it, in - 1, in);
    shmem_int_p(&inside, me + 1, 0);
    shmem_quiet();
    long c = shmem_long_g(&counter, 0);
    if (it % 4 == 0)
        sched_yield(); /* widen the window in which a second PE could get in */
    shmem_long_p(&counter, c + 1, 0);
    shmem_quiet();
    in = shmem_int_g(&inside, 0);
    CHECK(in == me + 1, "%s: iteration %d: inside flag changed to %d while PE %d held the lock", what, it, in, me);
    shmem_int_p(&inside, 0, 0);
    shmem_clear_lock(lock);
}

static void run(long *lock, const char *what, int me, int npes) {
    counter = 0;
    inside = 0;
    shmem_barrier_all();
    for (int it = 0; it < ITER; it++)
        critical(lock, what, me, it);
    shmem_barrier_all();
    long got = shmem_long_g(&counter, 0);
    CHECK(got == (long)npes * ITER, "%s: counter is %ld, want %ld (lost updates: mutual exclusion failed)", what,
          got, (long)npes * ITER);
    CHECK(shmem_int_g(&inside, 0) == 0, "%s: inside flag left set", what);
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    run(&global_lock, "static global lock", me, npes);

    long *heap_lock = shmem_calloc(1, sizeof(long));
    CHECK(heap_lock != NULL, "shmem_calloc");
    shmem_barrier_all();
    run(heap_lock, "symmetric heap lock", me, npes);

    /* The global lock again after the heap lock was used: both are reusable. */
    run(&global_lock, "static global lock (second run)", me, npes);

    shmem_barrier_all();
    shmem_free(heap_lock);
    if (me == 0)
        printf("lock mutex ok\n");
    shmem_finalize();
    return 0;
}
