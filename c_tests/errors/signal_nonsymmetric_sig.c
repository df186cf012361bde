/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_int_put_signal_nbi (PE 0 of {np}): argument #4 'sig_addr' = 0x
 * stderr: is not symmetric (neither in the symmetric heap nor in the program's global data)
 */
/* PE 0 calls shmem_int_put_signal_nbi with a sig_addr on its stack (not symmetric) while
 * the others wait in a barrier. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static int dest[4];

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        int src[4] = {1, 2, 3, 4};
        uint64_t local_sig = 0;
        shmem_int_put_signal_nbi(dest, src, 4, &local_sig, 1, SHMEM_SIGNAL_SET, shmem_n_pes() - 1);
        shmem_quiet();
        fprintf(stderr, "FAIL: put_signal with a stack sig_addr returned (signal %llu)\n",
                (unsigned long long)local_sig);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
