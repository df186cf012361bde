/* rshmem-test
 * np: 4
 * exit: 1
 * stderr: rshmem: shmem_long_put (PE 1 of {np}): argument #4 'pe' is 7, outside [0, 3]
 */
/* PE 1 puts to PE n_pes + 3 while the others wait in a barrier: a fatal usage error that
 * names the routine, the argument and its value, and ends the job with status 1.
 * (One PE count only, so that the whole message, bad value included, is known.) */
#include <shmem.h>
#include <stdio.h>

static long dest[4];

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 1) {
        long src[4] = {1, 2, 3, 4};
        shmem_long_put(dest, src, 4, shmem_n_pes() + 3);
        fprintf(stderr, "FAIL: shmem_long_put to PE %d returned\n", shmem_n_pes() + 3);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
