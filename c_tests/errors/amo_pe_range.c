/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_ulong_atomic_compare_swap (PE 0 of {np}): argument #4 'pe' is {np}, outside [0,
 */
/* PE 0 does an atomic compare_swap to PE npes, one past the last PE; the other PEs wait
 * in a barrier. */
#include <shmem.h>
#include <stdio.h>

static unsigned long word;

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        unsigned long v = shmem_ulong_atomic_compare_swap(&word, 0, 1, shmem_n_pes());
        fprintf(stderr, "FAIL: an atomic to PE npes returned %lu\n", v);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
