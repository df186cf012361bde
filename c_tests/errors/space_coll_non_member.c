/* rshmem-test
 * np: 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmem_int_sum_reduce (PE
 * stderr: is not a member of that team
 */
/* A space attached to the team of the even PEs; the even PEs use buffers of it in a
 * reduction over the world team, whose odd PEs do not have that memory (they take part
 * with heap buffers): a fatal usage error on the even PEs naming a PE outside the
 * space's team, not wrong data or a hang. */
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
    int *heap = shmem_malloc(8 * sizeof(int));
    int *src = heap, *dst = heap + 4;
    if (me % 2 == 0) {
        shmemx_space_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.sheap_size = 1 << 16;
        cfg.memkind = SHMEMX_MEM_HOST;
        shmemx_space_t s;
        shmemx_space_create(cfg, &s);
        shmemx_space_attach_team(s, even);
        src = shmemx_space_calloc(s, 8, sizeof(int));
        dst = src + 4;
        if (src == NULL) {
            fprintf(stderr, "FAIL: shmemx_space_calloc gave NULL\n");
            return 2;
        }
        /* Fine on the space's own team. */
        if (shmem_int_sum_reduce(even, dst, src, 4) != 0) {
            fprintf(stderr, "FAIL: sum_reduce on the space's team failed\n");
            return 2;
        }
    }
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4);
    fprintf(stderr, "FAIL: PE %d: a world reduction on memory of the even team's space returned\n", me);
    return 2;
}
