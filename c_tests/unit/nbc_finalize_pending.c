/* rshmem-test
 * np: 1 2 4
 * variant: RSHMEM_NBC_THREAD=on off
 * stderr: rshmem: warning: shmem_finalize (PE 0 of {np}): 2 non-blocking collectives (the first from shmem_int_sum_reduce_nb) never completed by shmem_req_test or shmem_req_wait; they were run to the end and freed
 * stdout: finalize ran the pending requests
 */
/* shmem_finalize with requests never completed: it runs them (every PE takes part, so the
 * job ends normally), prints one warning line per PE, and the results are there: the
 * dest of the sum is read after shmem_finalize. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static int src[4], dst[4];

static int npes;

static void report(void) {
    for (int i = 0; i < 4; i++)
        if (dst[i] != npes * (i + 1)) {
            fprintf(stderr, "FAIL: dst[%d] = %d after shmem_finalize, want %d\n", i, dst[i], npes * (i + 1));
            _Exit(1);
        }
    printf("finalize ran the pending requests\n");
    fflush(stdout);
}

int main(void) {
    shmem_init();
    npes = shmem_n_pes();
    for (int i = 0; i < 4; i++) {
        src[i] = i + 1;
        dst[i] = -1;
    }
    shmem_req_h r[2];
    shmem_int_sum_reduce_nb(SHMEM_TEAM_WORLD, dst, src, 4, &r[0]);
    shmem_team_sync_nb(SHMEM_TEAM_WORLD, &r[1]);
    shmem_finalize();
    report();
    return 0;
}
