/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_ctx_get_team (PE 0 of {np}): argument #2 'team' is NULL
 */
/* Argument positions come from the prototype: in shmem_ctx_get_team(ctx, team) a NULL
 * team is argument #2. PE 0 passes NULL; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        int rc = shmem_ctx_get_team(SHMEM_CTX_DEFAULT, NULL);
        fprintf(stderr, "FAIL: shmem_ctx_get_team(SHMEM_CTX_DEFAULT, NULL) returned %d\n", rc);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
