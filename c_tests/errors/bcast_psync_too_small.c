/* rshmem-test
 * np: 2
 * exit: 1
 * stderr: rshmem: shmem_broadcast64 (PE
 * stderr: argument #8 'pSync'
 * stderr: a broadcast's pSync needs SHMEM_BCAST_SYNC_SIZE (4176) longs
 */
/* A broadcast's pSync allocated with the barrier's size: a small broadcast goes through
 * the inbox after the flags, so the call is refused instead of writing past the block. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    long *psync = shmem_malloc(SHMEM_BARRIER_SYNC_SIZE * sizeof(long));
    long *after = shmem_malloc(4096); /* what an overrun would clobber */
    static long src, dst;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    src = shmem_my_pe() + 1;
    shmem_broadcast64(&dst, &src, 1, 0, 0, 0, shmem_n_pes(), psync);
    fprintf(stderr, "FAIL: the broadcast returned (after[0] = %ld)\n", after[0]);
    shmem_finalize();
    return 2;
}
