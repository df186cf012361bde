/* rshmem-test
 * np: 1 2 4
 * timeout: 30
 */
/* A series of shmem_wait_until_any / shmem_test_any calls (typed, _vector, ctx-free)
 * must eventually return every satisfied index (OpenSHMEM 1.5, 9.10): each PE calls
 * them in a loop, without excluding what it has seen, until it has seen every index of
 * an array whose slot k is set by PE k % npes (the slots arrive in turn, so the first
 * satisfied index stays satisfied while the others are waited for). A scan that always
 * starts at index 0 returns the first set slot forever and the program times out. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "../common.h"

#define NSLOTS 16

static long wait_flags[NSLOTS], wait_vec_flags[NSLOTS];
static int test_flags[NSLOTS], test_vec_flags[NSLOTS];

/* Sets this PE's slots of the array at `flags` on every PE, one slot at a time. */
static void set_my_slots(void *flags, int is_long, int me, int npes) {
    for (int k = me; k < NSLOTS; k += npes) {
        for (int pe = 0; pe < npes; pe++) {
            if (is_long)
                shmem_long_atomic_set((long *)flags + k, k + 1, pe);
            else
                shmem_int_atomic_set((int *)flags + k, k + 1, pe);
        }
        shmem_quiet();
    }
}

/* Records index i as seen; fails on an index out of range. Returns the new count. */
static int see(char *seen, int count, size_t i, const char *fn) {
    CHECK(i < NSLOTS, "%s returned %zu", fn, i);
    if (!seen[i]) {
        seen[i] = 1;
        count++;
    }
    return count;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long zeros[NSLOTS];
    int izeros[NSLOTS];
    memset(zeros, 0, sizeof zeros);
    memset(izeros, 0, sizeof izeros);
    char seen[NSLOTS];
    int count;
    shmem_barrier_all();

    /* shmem_long_wait_until_any. */
    set_my_slots(wait_flags, 1, me, npes);
    memset(seen, 0, sizeof seen);
    for (count = 0; count < NSLOTS;)
        count = see(seen, count, shmem_long_wait_until_any(wait_flags, NSLOTS, NULL, SHMEM_CMP_NE, 0),
                    "shmem_long_wait_until_any");
    shmem_barrier_all();

    /* shmem_int_test_any, polled. */
    set_my_slots(test_flags, 0, me, npes);
    memset(seen, 0, sizeof seen);
    for (count = 0; count < NSLOTS;) {
        size_t i = shmem_int_test_any(test_flags, NSLOTS, NULL, SHMEM_CMP_GT, 0);
        if (i != SIZE_MAX)
            count = see(seen, count, i, "shmem_int_test_any");
    }
    shmem_barrier_all();

    /* The _vector forms, through the C11 generics. */
    set_my_slots(wait_vec_flags, 1, me, npes);
    memset(seen, 0, sizeof seen);
    for (count = 0; count < NSLOTS;)
        count = see(seen, count, shmem_wait_until_any_vector(wait_vec_flags, NSLOTS, NULL, SHMEM_CMP_NE, zeros),
                    "shmem_wait_until_any_vector");
    set_my_slots(test_vec_flags, 0, me, npes);
    memset(seen, 0, sizeof seen);
    for (count = 0; count < NSLOTS;) {
        size_t i = shmem_test_any_vector(test_vec_flags, NSLOTS, NULL, SHMEM_CMP_NE, izeros);
        if (i != SIZE_MAX)
            count = see(seen, count, i, "shmem_test_any_vector");
    }

    /* Excluded elements are still never returned. */
    int status[NSLOTS];
    for (int k = 0; k < NSLOTS; k++)
        status[k] = k % 2;
    for (int n = 0; n < 2 * NSLOTS; n++) {
        size_t i = shmem_int_test_any(test_flags, NSLOTS, status, SHMEM_CMP_NE, 0);
        CHECK(i < NSLOTS && i % 2 == 0, "shmem_int_test_any with odd indices excluded returned %zu", i);
    }
    shmem_barrier_all();
    shmem_finalize();
    printf("PE %d: saw every index\n", me);
    return 0;
}
