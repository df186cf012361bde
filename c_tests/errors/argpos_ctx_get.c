/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_ctx_int_get (PE 0 of {np}): argument #5 'pe' is 99, outside [0, 
 */
/* Argument positions come from the prototype: shmem_ctx_int_get through a context of
 * SHMEM_TEAM_SHARED (a team context, whose PE numbers are team ranks) names its PE
 * argument with the position it has in the context form. PE 0 passes PE 99; the others
 * wait in a barrier. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static int dst[2], src[2];

int main(void) {
    shmem_init();
    shmem_ctx_t ctx;
    if (shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &ctx) != 0) {
        fprintf(stderr, "FAIL: no context on SHMEM_TEAM_SHARED\n");
        return 2;
    }
    if (shmem_my_pe() == 0) {
        shmem_ctx_int_get(ctx, dst, src, 2, 99);
        fprintf(stderr, "FAIL: shmem_ctx_int_get to PE 99 returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
