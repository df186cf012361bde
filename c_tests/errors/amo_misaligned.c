/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_long_atomic_fetch_add (PE 0 of {np}): argument #1 'dest' is 0x
 * stderr: : not aligned for its type
 */
/* PE 0 does an atomic fetch_add on a long at a misaligned address inside a symmetric
 * array: atomics need naturally aligned words, so this is a fatal usage error; the other
 * PEs wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

static long words[4];

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        long *odd = (long *)((char *)&words[1] + 1);
        long v = shmem_long_atomic_fetch_add(odd, 1, shmem_n_pes() - 1);
        fprintf(stderr, "FAIL: an atomic on a misaligned address returned %ld\n", v);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
