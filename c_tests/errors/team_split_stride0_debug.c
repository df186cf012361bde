/* rshmem-test
 * np: 2 4
 * env: SHMEM_DEBUG=1
 * stderr: rshmem debug: shmem_team_split_strided (PE 0 of {np}):
 * stderr: argument #3 'stride' is 0
 */
/* A stride of 0 with a size of 2 names one parent PE twice: the split fails on every PE,
 * leaving SHMEM_TEAM_INVALID, and under SHMEM_DEBUG says why. The program goes on and
 * ends normally; a valid split still works afterwards. */
#include <shmem.h>
#include <stdio.h>

#include "../common.h"

int main(void) {
    shmem_init();
    int npes = shmem_n_pes();
    shmem_team_t team = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &team);
    CHECK(rc != 0, "shmem_team_split_strided(start 0, stride 0, size 2) returned 0");
    CHECK(team == SHMEM_TEAM_INVALID, "shmem_team_split_strided(start 0, stride 0, size 2) gave %p, not SHMEM_TEAM_INVALID",
          (void *)team);
    team = SHMEM_TEAM_INVALID;
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team);
    CHECK(rc == 0 && team != SHMEM_TEAM_INVALID, "a valid split after the failed one returned %d", rc);
    CHECK(shmem_team_sync(team) == 0, "shmem_team_sync on the valid team failed");
    shmem_team_destroy(team);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
