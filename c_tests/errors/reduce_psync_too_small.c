/* rshmem-test
 * np: 2
 * exit: 1
 * stderr: rshmem: shmem_long_sum_to_all (PE
 * stderr: argument #8 'pSync'
 * stderr: a reduction's pSync needs SHMEM_REDUCE_SYNC_SIZE (4176) longs
 */
/* A reduction's pSync allocated with the barrier's size: the reduction uses
 * the longer array (its inbox), so the call is refused instead of writing past
 * the block. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    long *psync = shmem_malloc(SHMEM_BARRIER_SYNC_SIZE * sizeof(long));
    long *after = shmem_malloc(4096); /* what an overrun would clobber */
    static long src, dst, wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    src = shmem_my_pe();
    shmem_long_sum_to_all(&dst, &src, 1, 0, 0, shmem_n_pes(), wrk, psync);
    fprintf(stderr, "FAIL: the reduction returned (after[0] = %ld)\n", after[0]);
    shmem_finalize();
    return 2;
}
