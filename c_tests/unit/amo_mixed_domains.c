/* rshmem-test
 * np: 1 2 4 8
 */
/* Contention on ONE word of PE 0 from every PE at once, with a mix of atomic routines:
 * fetch_add, add, inc, fetch_inc and compare_swap increment loops, on a long (8 bytes)
 * and an int (4 bytes). Across nodes this mixes atomicity domains: in a hybrid job
 * (RSHMEM_NODE_SIZE=2 under mpirun) PEs 0 and 1 share PE 0's memory and could use CPU
 * atomics while PEs 2 and 3 reach it through the network engine's atomics; the totals
 * must still be exact. Also checked: each PE's fetched values increase, and PE 0 gathers
 * every value fetch_add returned and finds them all distinct. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ITERS 400 /* of each routine per PE: enough to interleave, few for remote PEs */
#define CSWAPS 50 /* successful compare_swap increments per PE */
#define STEP 3    /* fetch_add amount */
#define ADD 5     /* add amount */

static long lword;
static int iword;

/* one PE's share of a round, on the long word; fetched holds fetch_add's returns */
static void hammer_long(long *fetched) {
    long prev = -1;
    for (int i = 0; i < ITERS; i++) {
        long f = shmem_long_atomic_fetch_add(&lword, STEP, 0);
        CHECK(f > prev, "long fetch_add #%d returned %ld after %ld", i, f, prev);
        prev = f;
        fetched[i] = f;
        shmem_long_atomic_add(&lword, ADD, 0);
        if (i % 2)
            shmem_long_atomic_inc(&lword, 0);
        else
            (void)shmem_long_atomic_fetch_inc(&lword, 0);
        if (i % (ITERS / CSWAPS) == 0) {
            long seen = shmem_long_atomic_fetch(&lword, 0);
            for (;;) {
                long old = shmem_long_atomic_compare_swap(&lword, seen, seen + 1, 0);
                if (old == seen)
                    break;
                seen = old;
            }
        }
    }
}

static void hammer_int(void) {
    for (int i = 0; i < ITERS; i++) {
        (void)shmem_int_atomic_fetch_add(&iword, STEP, 0);
        shmem_int_atomic_add(&iword, ADD, 0);
        shmem_int_atomic_inc(&iword, 0);
        if (i % (ITERS / CSWAPS) == 0) {
            int seen = shmem_int_atomic_fetch(&iword, 0);
            for (;;) {
                int old = shmem_int_atomic_compare_swap(&iword, seen, seen + 1, 0);
                if (old == seen)
                    break;
                seen = old;
            }
        }
    }
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long total = (long)npes * ITERS;
    long *all = shmem_malloc((size_t)total * sizeof(long));
    long *mine = malloc(ITERS * sizeof(long));
    CHECK(all && mine, "allocation failed");
    shmem_barrier_all();

    hammer_long(mine);
    hammer_int();
    shmem_quiet();
    shmem_long_put(all + (size_t)me * ITERS, mine, ITERS, 0);
    shmem_barrier_all();

    long want_l = total * (STEP + ADD + 1) + (long)npes * CSWAPS;
    int want_i = (int)want_l;
    long got_l = shmem_long_atomic_fetch(&lword, 0);
    int got_i = shmem_int_atomic_fetch(&iword, 0);
    CHECK(got_l == want_l, "long word of PE 0 is %ld, expected %ld (%d PEs x %d iterations)", got_l,
          want_l, npes, ITERS);
    CHECK(got_i == want_i, "int word of PE 0 is %d, expected %d (%d PEs x %d iterations)", got_i,
          want_i, npes, ITERS);
    if (me == 0) {
        /* every fetch_add saw the word before a different update: the returns are distinct */
        qsort(all, (size_t)total, sizeof(long), cmp_long);
        for (long i = 0; i < total; i++) {
            CHECK(all[i] >= 0 && all[i] < want_l, "a fetch_add returned %ld, outside [0, %ld)",
                  all[i], want_l);
            CHECK(i == 0 || all[i] > all[i - 1], "two fetch_adds returned %ld", all[i]);
        }
        printf("mixed contention: %d PEs, long %ld and int %d exact\n", npes, got_l, got_i);
    }
    shmem_barrier_all();
    free(mine);
    shmem_free(all);
    shmem_finalize();
    return 0;
}
