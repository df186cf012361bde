/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_team_sync (PE 0 of {np}):
 * stderr: is not a valid team
 */
/* Every PE creates a team, synchronizes on it and destroys it; then PE 0 calls
 * shmem_team_sync on the stale handle (the others wait in a barrier): a fatal usage error
 * naming the routine. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    shmem_team_t team = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0, &team) != 0 ||
        team == SHMEM_TEAM_INVALID) {
        fprintf(stderr, "FAIL: shmem_team_split_strided failed\n");
        return 2;
    }
    if (shmem_team_sync(team) != 0) {
        fprintf(stderr, "FAIL: shmem_team_sync on a live team failed\n");
        return 2;
    }
    shmem_team_destroy(team);
    if (shmem_my_pe() == 0) {
        shmem_team_sync(team);
        fprintf(stderr, "FAIL: shmem_team_sync on a destroyed team returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
