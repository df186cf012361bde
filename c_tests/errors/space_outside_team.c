/* rshmem-test
 * np: 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_space_malloc (PE 1 of {np}):
 * stderr: the space is not attached on this PE
 */
/* A space attached to the team of the even PEs only. The even PEs allocate in it (a
 * barrier of their team only) and then wait in a world barrier; PE 1, outside the team,
 * calls shmemx_space_malloc on the space object it created but never attached: a fatal
 * error on PE 1, not a hang, and the job ends (the launcher stops the PEs waiting in
 * the barrier, the other odd PEs included). */
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
    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = 1 << 16;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t s;
    shmemx_space_create(cfg, &s);
    if (me % 2 == 0) {
        shmemx_space_attach_team(s, even);
        void *p = shmemx_space_malloc(s, 64);
        if (p == NULL) {
            fprintf(stderr, "FAIL: PE %d: shmemx_space_malloc in the attached space gave NULL\n", me);
            return 2;
        }
    } else if (me == 1) {
        void *p = shmemx_space_malloc(s, 64);
        fprintf(stderr, "FAIL: PE %d: shmemx_space_malloc on a space never attached here returned %p\n", me, p);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the world barrier\n", me);
    shmem_finalize();
    return 2;
}
