/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_team_destroy (PE 0 of {np}):
 * stderr: destroys a team with 2 non-blocking collectives outstanding (the first from shmem_long_fcollect_nb)
 */
/* shmem_team_destroy of a team with requests not yet completed by test or wait: a named
 * error naming how many and the routine of the first (PE 0 destroys first; every PE
 * initiated the same two). */
#include <shmem.h>

static long src[4], dst[4 * 8];

int main(void) {
    shmem_init();
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0, &t);
    shmem_req_h r[2];
    shmem_long_fcollect_nb(t, dst, src, 1, &r[0]);
    shmem_team_sync_nb(t, &r[1]);
    if (shmem_my_pe() == 0)
        shmem_team_destroy(t);
    shmem_req_wait(&r[0]);
    shmem_req_wait(&r[1]);
    shmem_finalize();
    return 0;
}
