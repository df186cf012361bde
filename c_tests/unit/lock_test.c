/* rshmem-test
 * np: 1 2 4 8
 * timeout: 120
 */
/* shmem_test_lock: returns 0 when it acquires a free lock and 1 when the lock is held
 * by another PE (without acquiring it); polling loops of shmem_test_lock give mutual
 * exclusion (a non-atomic counter on PE 0 ends at npes * ITER); a lock taken with
 * shmem_test_lock can be released with shmem_clear_lock and then taken by
 * shmem_set_lock. */
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ITER 200

static long lock;
static long counter;
static int inside;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    /* A free lock: test_lock takes it (0). */
    if (me == 0) {
        int r = shmem_test_lock(&lock);
        CHECK(r == 0, "shmem_test_lock on a free lock returned %d, want 0", r);
    }
    shmem_barrier_all();
    /* Held by PE 0: every other PE's test_lock returns 1 and does not take it. */
    if (me != 0)
        for (int i = 0; i < 10; i++) {
            int r = shmem_test_lock(&lock);
            CHECK(r == 1, "shmem_test_lock on a lock held by PE 0 returned %d, want 1 (try %d)", r, i);
        }
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(&lock);
    shmem_barrier_all();
    /* Each PE in turn: takes it with test_lock while all others are out, the others see
     * it held, then it releases. */
    for (int turn = 0; turn < npes; turn++) {
        if (me == turn) {
            int r = shmem_test_lock(&lock);
            CHECK(r == 0, "turn %d: shmem_test_lock on a free lock returned %d", turn, r);
        }
        shmem_barrier_all();
        if (me != turn) {
            int r = shmem_test_lock(&lock);
            CHECK(r == 1, "turn %d: shmem_test_lock on a lock held by PE %d returned %d", turn, turn, r);
        }
        shmem_barrier_all();
        if (me == turn)
            shmem_clear_lock(&lock);
        shmem_barrier_all();
    }
    /* set_lock after test_lock/clear_lock works. */
    shmem_set_lock(&lock);
    shmem_clear_lock(&lock);
    shmem_barrier_all();

    /* Polling loops: mutual exclusion with test_lock alone. */
    for (int it = 0; it < ITER; it++) {
        long polls = 0;
        while (shmem_test_lock(&lock) != 0) {
            if (++polls % 64 == 0)
                sched_yield();
        }
        int in = shmem_int_g(&inside, 0);
        CHECK(in == 0, "iteration %d: test_lock acquired while PE %d is inside", it, in - 1);
        shmem_int_p(&inside, me + 1, 0);
        shmem_quiet();
        long c = shmem_long_g(&counter, 0);
        if (it % 4 == 0)
            sched_yield(); /* widen the window in which a second PE could get in */
        shmem_long_p(&counter, c + 1, 0);
        shmem_int_p(&inside, 0, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    long got = shmem_long_g(&counter, 0);
    CHECK(got == (long)npes * ITER, "test_lock polling: counter is %ld, want %ld", got, (long)npes * ITER);

    /* Mixed: even PEs use set_lock, odd PEs poll with test_lock. */
    shmem_barrier_all();
    if (me == 0)
        counter = 0;
    shmem_barrier_all();
    for (int it = 0; it < ITER; it++) {
        if (me % 2 == 0)
            shmem_set_lock(&lock);
        else
            while (shmem_test_lock(&lock))
                sched_yield();
        long c = shmem_long_g(&counter, 0);
        if (it % 4 == 0)
            sched_yield();
        shmem_long_p(&counter, c + 1, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    got = shmem_long_g(&counter, 0);
    CHECK(got == (long)npes * ITER, "mixed set_lock/test_lock: counter is %ld, want %ld", got, (long)npes * ITER);

    shmem_barrier_all();
    if (me == 0)
        printf("lock test ok\n");
    shmem_finalize();
    return 0;
}
