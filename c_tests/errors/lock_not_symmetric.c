/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_set_lock (PE 0 of {np}): argument #1 'lock'
 * stderr: is not symmetric
 */
/* PE 0 uses a lock on its stack, which is not symmetric; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        long lock = 0;
        shmem_set_lock(&lock);
        fprintf(stderr, "FAIL: shmem_set_lock on a stack variable returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
