/* rshmem-test
 * np: 2 4 8
 * timeout: 120
 */
/* Two independent locks used alternately (one a static global, one in the symmetric
 * heap), each protecting its own non-atomic counter on a different PE; and nested use:
 * holding lock A while taking lock B, always in the same order. Also a PE holding A does
 * not block another PE from taking B. */
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ITER 200

static long lock_a;
static long count_a, count_b, count_ab;
static int in_a, in_b;

static void bump(long *counter, int *flag, int home, int me, const char *what, int it) {
    int in = shmem_int_g(flag, home);
    CHECK(in == 0, "%s: iteration %d: PE %d is inside too", what, it, in - 1);
    shmem_int_p(flag, me + 1, home);
    shmem_quiet();
    long c = shmem_long_g(counter, home);
    if (it % 4 == 0)
        sched_yield(); /* widen the window in which a second PE could get in */
    shmem_long_p(counter, c + 1, home);
    shmem_quiet();
    shmem_int_p(flag, 0, home);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *lock_b = shmem_malloc(sizeof(long));
    CHECK(lock_b != NULL, "shmem_malloc");
    *lock_b = 0;
    int home_b = npes - 1; /* counter B lives on the last PE */
    shmem_barrier_all();

    for (int it = 0; it < ITER; it++) {
        if ((it + me) % 2 == 0) {
            shmem_set_lock(&lock_a);
            bump(&count_a, &in_a, 0, me, "lock A", it);
            shmem_clear_lock(&lock_a);
        } else {
            shmem_set_lock(lock_b);
            bump(&count_b, &in_b, home_b, me, "lock B", it);
            shmem_clear_lock(lock_b);
        }
        if (it % 10 == 0) { /* nested, always A then B */
            shmem_set_lock(&lock_a);
            shmem_set_lock(lock_b);
            bump(&count_ab, &in_a, 0, me, "locks A+B (A's flag)", it);
            bump(&count_ab, &in_b, 0, me, "locks A+B (B's flag)", it);
            shmem_clear_lock(lock_b);
            shmem_clear_lock(&lock_a);
        }
    }
    shmem_barrier_all();
    long a = shmem_long_g(&count_a, 0), b = shmem_long_g(&count_b, home_b), ab = shmem_long_g(&count_ab, 0);
    long want_each = (long)npes * ITER / 2;
    CHECK(a == want_each, "counter of lock A is %ld, want %ld", a, want_each);
    CHECK(b == want_each, "counter of lock B is %ld, want %ld", b, want_each);
    CHECK(ab == 2L * npes * (ITER / 10), "counter of nested locks is %ld, want %ld", ab, 2L * npes * (ITER / 10));
    shmem_barrier_all();

    /* Independence: PE 0 holds A; every other PE can still take and release B. */
    if (me == 0)
        shmem_set_lock(&lock_a);
    shmem_barrier_all();
    if (me != 0) {
        CHECK(shmem_test_lock(&lock_a) == 1, "lock A held by PE 0 is reported free");
        shmem_set_lock(lock_b);
        shmem_clear_lock(lock_b);
    }
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(&lock_a);
    shmem_barrier_all();

    shmem_free(lock_b);
    if (me == 0)
        printf("two locks ok\n");
    shmem_finalize();
    return 0;
}
