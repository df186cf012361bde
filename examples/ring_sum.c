/*
 * ring_sum.c: the first demo of rshmem.
 *
 * 1. Ring exchange: each PE puts its rank into a static (global) variable of its
 *    right neighbour and waits until its own copy has been written by its left
 *    neighbour. Globals are symmetric, so no allocation is needed.
 * 2. Distributed sum: every PE computes a partial sum of 1..N over its share and
 *    puts it into slot `me` of a symmetric array on PE 0; after a barrier PE 0
 *    adds the slots and checks the result against N(N+1)/2.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long from_left = -1; /* written by the left neighbour */
static int got_it;          /* flag the left neighbour sets after the data */

int main(int argc, char **argv) {
    long n_terms = argc > 1 ? atol(argv[1]) : 10000000;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* Ring: data, fence, flag; the receiver waits on the flag. */
    shmem_long_p(&from_left, me, right);
    shmem_fence();
    shmem_int_p(&got_it, 1, right);
    shmem_int_wait_until(&got_it, SHMEM_CMP_EQ, 1);
    int ring_ok = from_left == left;

    /* Distributed sum of 1..n_terms, cyclic over the PEs. */
    long *partials = shmem_calloc((size_t) npes, sizeof(long));
    long mine = 0;
    for (long k = me + 1; k <= n_terms; k += npes) mine += k;
    shmem_long_p(&partials[me], mine, 0);
    shmem_barrier_all();

    int all_ok = 1;
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++) total += partials[pe];
        long expect = n_terms * (n_terms + 1) / 2;
        all_ok = total == expect;
        printf("sum of 1..%ld over %d PEs = %ld (expected %ld): %s\n", n_terms, npes, total, expect, all_ok ? "ok" : "WRONG");
    }
    printf("PE %d of %d: received %ld from PE %d around the ring: %s\n", me, npes, from_left, left, ring_ok ? "ok" : "WRONG");
    shmem_free(partials);
    shmem_finalize();
    return ring_ok && all_ok ? 0 : 1;
}
