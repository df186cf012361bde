/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_team_destroy (PE 0 of {np}):
 * stderr: SHMEM_TEAM_WORLD
 */
/* PE 0 destroys SHMEM_TEAM_WORLD; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmem_team_destroy(SHMEM_TEAM_WORLD);
        fprintf(stderr, "FAIL: shmem_team_destroy(SHMEM_TEAM_WORLD) returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
