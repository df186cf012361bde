/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmemx_space_detach_team (PE
 * stderr: the space still holds 2 allocation(s)
 */
/* Every PE detaches its team's space (the world's, through shmemx_space_detach_team)
 * while two allocations of it are still live: a fatal usage error that counts them. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    shmem_init();
    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = 1 << 16;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t s;
    shmemx_space_create(cfg, &s);
    shmemx_space_attach_team(s, SHMEM_TEAM_WORLD);
    void *a = shmemx_space_malloc(s, 100), *b = shmemx_space_malloc(s, 1000), *c = shmemx_space_malloc(s, 10);
    if (a == NULL || b == NULL || c == NULL) {
        fprintf(stderr, "FAIL: shmemx_space_malloc gave NULL\n");
        return 2;
    }
    shmemx_space_free(s, b);
    shmemx_space_detach_team(s, SHMEM_TEAM_WORLD);
    fprintf(stderr, "FAIL: shmemx_space_detach_team with live allocations returned\n");
    return 2;
}
