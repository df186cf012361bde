/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_int_put (PE 0 of {np}):
 * stderr: PE 1 is not a member of that team
 */
/* A space attached to the team of the even PEs: PE 0 puts into it addressed to world
 * PE 2 (a member; fine when there is one) and then to world PE 1, which is outside the
 * team: the address names nothing there, a fatal usage error. The other PEs wait in a
 * world barrier. */
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
        int *buf = shmemx_space_malloc(s, 4 * sizeof(int));
        if (buf == NULL) {
            fprintf(stderr, "FAIL: shmemx_space_malloc gave NULL\n");
            return 2;
        }
        if (me == 0) {
            int v[4] = {1, 2, 3, 4};
            if (npes > 2) {
                shmem_int_put(buf, v, 4, 2);
                shmem_quiet();
            }
            shmem_int_put(buf, v, 4, 1);
            fprintf(stderr, "FAIL: a put of space memory to a PE outside the space's team returned\n");
            return 2;
        }
    }
    shmem_barrier_all();
    shmem_finalize();
    return 2;
}
