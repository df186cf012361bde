/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_ctx_int_get (PE 0 of {np}): argument #2 'dest' is NULL: a NULL pointer where the routine needs a buffer
 */
/* The local side of a get: a NULL destination with elements to move is a named error
 * (it used to end the PE with SIGSEGV). First every get form with a NULL destination and
 * nothing to move returns. PE 0 then gets 2 ints into NULL through a context. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static int src[4];

int main(void) {
    shmem_init();
    int pe = (shmem_my_pe() + 1) % shmem_n_pes();
    /* NULL with nothing to move is legal (and moves nothing). */
    shmem_int_get(NULL, src, 0, pe);
    shmem_ctx_int_get_nbi(SHMEM_CTX_DEFAULT, NULL, src, 0, pe);
    shmem_getmem(NULL, src, 0, pe);
    shmem_int_iget(NULL, src, 1, 1, 0, pe);
    shmem_int_ibget(NULL, src, 1, 1, 0, 3, pe);
    shmem_quiet();
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        shmem_ctx_int_get(SHMEM_CTX_DEFAULT, NULL, src, 2, pe);
        fprintf(stderr, "FAIL: shmem_ctx_int_get with a NULL local buffer returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
