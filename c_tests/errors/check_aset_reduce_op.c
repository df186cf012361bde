/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_int_max_to_all (PE 1 of {np}): collective arguments differ on the active set PE_start 0, logPE_stride 0, PE_size {np}: PE 1 passes operation max (shmem_int_max_to_all), PE 0 passes operation sum (shmem_int_sum_to_all)
 * timeout: 30
 */
/* Checked collective arguments on an active set (the deprecated _to_all
 * routines): PE 1 takes the maximum, the others the sum. The members exchange
 * their records through the library's own mailbox, never the user's pSync;
 * the first PE that differs from the set's first reports and nobody returns. */
#include <shmem.h>
#include <stdio.h>

static int src[4], dst[4], wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

int main(void) {
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (me == 1)
        shmem_int_max_to_all(dst, src, 4, 0, 0, n, wrk, psync);
    else
        shmem_int_sum_to_all(dst, src, 4, 0, 0, n, wrk, psync);
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
