/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_ctx_session_start (PE 0 of {np}): argument #3 'config' is NULL: a NULL pointer where the routine needs a buffer
 */
/* shmem_ctx_session_start with SHMEM_CTX_SESSION_TOTAL_OPS in the mask reads
 * config->total_ops, so a NULL config is a named error (with mask 0 it is fine). */
#include <shmem.h>

int main(void) {
    shmem_init();
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
