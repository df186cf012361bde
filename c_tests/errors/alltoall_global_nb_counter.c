/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmemx_alltoall_global_nb (PE 0 of {np}): argument #4 'counter' = 0x
 * stderr: is not symmetric
 */
/* shmemx_alltoall_global_nb with a counter on the stack: the counter must be symmetric
 * (every target adds to its own), so this is a named error on PE 0, before any block is sent. */
#include <shmem.h>
#include <shmemx.h>

static long dest[8], source[8];

int main(void) {
    shmem_init();
    long counter = 0;
    if (shmem_my_pe() == 0)
        shmemx_alltoall_global_nb(dest, source, sizeof(long), &counter);
    shmem_finalize();
    return 0;
}
