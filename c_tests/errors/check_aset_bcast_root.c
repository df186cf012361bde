/* rshmem-test
 * np: 4 8
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PSYNC_STRATEGY=traditional pairwise-rd
 * stderr: rshmem: shmem_broadcast64 (PE 3 of {np}): collective arguments differ on the active set PE_start 1, logPE_stride 1, PE_size 2: PE 3 passes PE_root 1, PE 1 passes PE_root 0
 * timeout: 30
 */
/* Checked collective arguments on an active set: the odd PEs 1 and 3
 * broadcast on their set after a correct round (so the mailbox's second slot
 * and counts are used), and PE 3 names another root; meanwhile PEs 0 and 2
 * broadcast correctly on theirs and must not be disturbed. */
#include <shmem.h>
#include <stdio.h>

static long src[2], dst[2];
static long psync[2][SHMEM_BCAST_SYNC_SIZE];

int main(void) {
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) psync[k][i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe();
    /* Pairs {0, 2} and {1, 3}, and for 8 PEs the rest stays out. */
    int start = me % 2;
    if (me < 4) {
        shmem_broadcast64(dst, src, 2, 0, start, 1, 2, psync[0]);
        int root = (me == 3) ? 1 : 0;
        shmem_broadcast64(dst, src, 2, root, start, 1, 2, psync[1]);
        if (me % 2 == 1) {
            fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
            return 2;
        }
    }
    shmem_barrier_all();
    return 0;
}
