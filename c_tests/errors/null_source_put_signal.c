/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_ctx_putmem_signal_nbi (PE 0 of {np}): argument #3 'source' is NULL: a NULL pointer where the routine needs a buffer
 */
/* A put-with-signal from a NULL source with bytes to move is a named error (with none,
 * only the signal is delivered). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static char dst[16];
static uint64_t sig;

int main(void) {
    shmem_init();
    int pe = (shmem_my_pe() + 1) % shmem_n_pes();
    /* NULL with nothing to move is legal (and moves nothing). */
    shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, dst, NULL, 0, &sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_quiet();
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, dst, NULL, 8, &sig, 1, SHMEM_SIGNAL_SET, pe);
        fprintf(stderr, "FAIL: shmem_ctx_putmem_signal_nbi with a NULL local buffer returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
