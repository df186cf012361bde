/* rshmem-test
 * np: 2 4 8
 * timeout: 180
 */
/* One lock hammered by every PE at once, with no pause between turns: inside, a
 * non-atomic read-modify-write of a counter on PE 0 (get, add, put, quiet) and of one on
 * the last PE; both end at exactly npes * ITER. Then shmem_test_lock against a held lock
 * with PEs queued behind it (it fails and does not join the queue), mixed with
 * shmem_set_lock under contention. Afterwards every PE's copy of the lock is 0 again,
 * as the program initialised it, so the same memory serves as a fresh lock. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ITER 400

static long lock;
static long count_first, count_last;
static int queued;

static void check_lock_is_zero(const char *when, int me) {
    shmem_barrier_all();
    long v = lock; /* this PE's own copy; every PE is out of the lock */
    CHECK(v == 0, "%s: PE %d's copy of the lock is %#lx, want 0", when, me, (unsigned long)v);
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;

    /* Hammer: every PE, back to back. */
    shmem_barrier_all();
    for (int it = 0; it < ITER; it++) {
        shmem_set_lock(&lock);
        long c = shmem_long_g(&count_first, 0);
        shmem_long_p(&count_first, c + 1, 0);
        shmem_quiet();
        c = shmem_long_g(&count_last, last);
        shmem_long_p(&count_last, c + 1, last);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    long want = (long)npes * ITER;
    long got = shmem_long_g(&count_first, 0);
    CHECK(got == want, "hammer: counter on PE 0 is %ld, want %ld (mutual exclusion failed)", got, want);
    got = shmem_long_g(&count_last, last);
    CHECK(got == want, "hammer: counter on PE %d is %ld, want %ld (mutual exclusion failed)", last, got, want);
    check_lock_is_zero("after the hammer", me);

    /* The last PE holds the lock and the PEs between the first and the last queue behind
     * it with set_lock, while PE 0 polls with test_lock: that fails while the lock is
     * held (and must not join the queue), and succeeds once the queue has drained. */
    if (me == last)
        shmem_set_lock(&lock);
    shmem_barrier_all();
    if (me == 0) {
        for (int i = 0; i < 20; i++) {
            int r = shmem_test_lock(&lock);
            CHECK(r == 1, "test_lock on a lock held by PE %d returned %d (try %d)", last, r, i);
        }
        shmem_int_atomic_add(&queued, 1, last); /* the holder may release now */
        while (shmem_test_lock(&lock) != 0)
            ;
        shmem_long_atomic_inc(&count_first, 0);
        shmem_clear_lock(&lock);
    } else if (me == last) {
        shmem_int_wait_until(&queued, SHMEM_CMP_EQ, 1);
        shmem_long_atomic_inc(&count_first, 0);
        shmem_clear_lock(&lock);
    } else {
        shmem_set_lock(&lock);
        shmem_long_atomic_inc(&count_first, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    got = shmem_long_g(&count_first, 0);
    CHECK(got == want + npes, "test_lock against a queue: counter is %ld, want %ld", got, want + npes);
    check_lock_is_zero("after test_lock against a queue", me);

    /* Mixed: even PEs set_lock, odd PEs poll with test_lock, all at once. */
    if (me == 0)
        count_first = 0;
    shmem_barrier_all();
    for (int it = 0; it < ITER / 4; it++) {
        if (me % 2 == 0)
            shmem_set_lock(&lock);
        else
            while (shmem_test_lock(&lock))
                ;
        long c = shmem_long_g(&count_first, 0);
        shmem_long_p(&count_first, c + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    got = shmem_long_g(&count_first, 0);
    CHECK(got == (long)npes * (ITER / 4), "mixed set_lock/test_lock: counter is %ld, want %ld", got,
          (long)npes * (ITER / 4));
    check_lock_is_zero("after set_lock mixed with test_lock", me);

    if (me == 0)
        printf("lock hammer ok\n");
    shmem_finalize();
    return 0;
}
