/* rshmem-test
 * np: 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_memput_signal (PE 0 of {np}): argument #1 'dest' = 0x
 * stderr: PE 1 is not a member of that team, so the address names nothing there
 */
/* A space attached to the even PEs' team and a world semaphore: PE 0 may
 * memput_signal into the space on itself (a member), but not on PE 1, which the world
 * semaphore allows but the space's team does not include: a fatal error naming the
 * space's team, before anything is written or posted. */
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
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    if (me % 2 == 0) {
        shmemx_space_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.sheap_size = 1 << 16;
        cfg.memkind = SHMEMX_MEM_HOST;
        shmemx_space_t sp;
        shmemx_space_create(cfg, &sp);
        shmemx_space_attach_team(sp, even);
        char *dest = shmemx_space_malloc(sp, 64);
        if (me == 0) {
            char src[64];
            memset(src, 3, sizeof src);
            shmemx_memput_signal(dest, src, sizeof src, s, 1, 0);
            shmemx_sem_wait(s);
            shmemx_memput_signal(dest, src, sizeof src, s, 1, 1);
            fprintf(stderr, "FAIL: PE 0: shmemx_memput_signal into the even team's space on PE 1 returned\n");
            return 2;
        }
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
