/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_long_put_signal (PE 0 of {np}): argument #6 'sig_op' is 7: not SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD
 */
/* PE 0 calls shmem_long_put_signal with sig_op 7 (neither SHMEM_SIGNAL_SET nor
 * SHMEM_SIGNAL_ADD) while the others wait in a barrier. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static long dest[4];
static uint64_t sig;

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        long src[4] = {1, 2, 3, 4};
        shmem_long_put_signal(dest, src, 4, &sig, 1, 7, (shmem_my_pe() + 1) % shmem_n_pes());
        fprintf(stderr, "FAIL: shmem_long_put_signal with sig_op 7 returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
