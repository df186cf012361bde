/* rshmem-test
 * np: 4
 * exit: 1
 * stderr: rshmem: shmem_ctx_pe_quiet (PE 0 of 4): argument #2 'target_pes' holds PE 2, outside [0, 1]
 */
/* On a context of a 2-PE team (world PEs 0 and 2), PE numbers are team ranks: rank 1 is
 * valid, and 2 is out of range although it is a valid world PE. PE 0 calls
 * shmem_ctx_pe_quiet with {1, 2}; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    shmem_team_t pair = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, 2, NULL, 0, &pair);
    if (shmem_my_pe() == 0) {
        shmem_ctx_t ctx;
        if (shmem_team_create_ctx(pair, 0, &ctx) != 0) {
            fprintf(stderr, "FAIL: shmem_team_create_ctx failed\n");
            return 2;
        }
        int ok[1] = {1};
        shmem_ctx_pe_quiet(ctx, ok, 1);
        int bad[2] = {1, 2};
        shmem_ctx_pe_quiet(ctx, bad, 2);
        fprintf(stderr, "FAIL: shmem_ctx_pe_quiet with team rank 2 of a 2-PE team returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
