/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_team_destroy (PE 0 of {np}):
 * stderr: SHMEMX_TEAM_NODE
 * stderr: a predefined team cannot be destroyed
 */
/* PE 0 destroys SHMEMX_TEAM_NODE, a predefined team like SHMEM_TEAM_WORLD; the others
 * wait in a barrier. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmem_team_destroy(SHMEMX_TEAM_NODE);
        fprintf(stderr, "FAIL: shmem_team_destroy(SHMEMX_TEAM_NODE) returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
