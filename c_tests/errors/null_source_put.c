/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_long_put (PE 0 of {np}): argument #2 'source' is NULL: a NULL pointer where the routine needs a buffer
 */
/* The local side of a put is checked like the remote one: a NULL source with elements
 * to move is a named error (it used to end the PE with SIGSEGV). First every put form
 * with a NULL source and nothing to move returns. PE 0 then puts 2 longs from NULL. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static long dst[4];
static uint64_t sig;

int main(void) {
    shmem_init();
    int pe = (shmem_my_pe() + 1) % shmem_n_pes();
    /* NULL with nothing to move is legal (and moves nothing). */
    shmem_long_put(dst, NULL, 0, pe);
    shmem_ctx_long_put(SHMEM_CTX_DEFAULT, dst, NULL, 0, pe);
    shmem_putmem(dst, NULL, 0, pe);
    shmem_put64_nbi(dst, NULL, 0, pe);
    shmem_long_iput(dst, NULL, 1, 1, 0, pe);
    shmem_long_ibput(dst, NULL, 1, 1, 1, 0, pe);
    shmem_long_ibput(dst, NULL, 1, 1, 0, 1, pe);
    shmem_long_put_signal(dst, NULL, 0, &sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_quiet();
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        shmem_long_put(dst, NULL, 2, pe);
        fprintf(stderr, "FAIL: shmem_long_put with a NULL local buffer returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
