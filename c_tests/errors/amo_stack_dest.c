/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_int_atomic_inc (PE 0 of {np}): argument #1 'dest' = 0x
 * stderr: is not symmetric
 */
/* PE 0 increments a stack variable on its right neighbour with an atomic: the variable
 * has no counterpart on the other PEs, which is a fatal usage error; the other PEs wait
 * in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (me == 0) {
        int counter = 0;
        shmem_int_atomic_inc(&counter, (me + 1) % shmem_n_pes());
        shmem_quiet();
        fprintf(stderr, "FAIL: an atomic on a stack variable returned (%d)\n", counter);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
