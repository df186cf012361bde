/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_team_get_config (PE 0 of {np}): argument #3 'config' is NULL: a NULL pointer where the routine needs a buffer
 */
/* OpenSHMEM 1.6: shmem_team_get_config with mask 0 performs no action and config may be
 * NULL, so that call returns 0; with a mask, a NULL config would be written through, so
 * it is a named error (PE 0 makes it). */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL) != 0) {
        fprintf(stderr, "mask 0 with NULL did not return 0\n");
        return 2;
    }
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, NULL);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
