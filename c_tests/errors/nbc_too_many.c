/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: RSHMEM_NBC_MAX=8
 * stderr: rshmem: shmem_team_sync_nb (PE 0 of {np}): 8 non-blocking collectives are outstanding on PE 0, the most it holds (RSHMEM_NBC_MAX)
 */
/* One request more than RSHMEM_NBC_MAX (8 here) outstanding: a named error at the 9th
 * initiation, on PE 0 (which initiates more than the others). */
#include <shmem.h>

int main(void) {
    shmem_init();
    shmem_req_h r[9];
    int n = shmem_my_pe() == 0 ? 9 : 8;
    for (int i = 0; i < n; i++)
        shmem_team_sync_nb(SHMEM_TEAM_WORLD, &r[i]);
    for (int i = 0; i < n; i++)
        shmem_req_wait(&r[i]);
    shmem_finalize();
    return 0;
}
