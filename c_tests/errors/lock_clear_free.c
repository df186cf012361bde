/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_clear_lock (PE 0 of {np}): argument #1 'lock'
 * stderr: the lock is not held (it is free)
 */
/* PE 0 clears a lock nobody holds; the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

static long lock;

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmem_clear_lock(&lock);
        fprintf(stderr, "FAIL: shmem_clear_lock on a free lock returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
