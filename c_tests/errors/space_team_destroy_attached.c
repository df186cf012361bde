/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_team_destroy (PE
 * stderr: are still attached to the team
 */
/* The even PEs attach a space to their team and then destroy the team without
 * detaching it: a fatal usage error (the space would be left without its team). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t even = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) != 0) {
        fprintf(stderr, "FAIL: shmem_team_split_strided failed\n");
        return 2;
    }
    if (me % 2 == 0) {
        shmemx_space_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.sheap_size = 1 << 16;
        cfg.memkind = SHMEMX_MEM_HOST;
        shmemx_space_t s;
        shmemx_space_create(cfg, &s);
        shmemx_space_attach_team(s, even);
        shmem_team_destroy(even);
        fprintf(stderr, "FAIL: PE %d: shmem_team_destroy of a team with an attached space returned\n", me);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 2;
}
