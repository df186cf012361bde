/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_clear_lock (PE 1 of {np}): argument #1 'lock'
 * stderr: the lock is held by PE 0, not by this PE
 */
/* PE 0 takes the lock; after a barrier PE 1 clears it. The others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

static long lock;

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0)
        shmem_set_lock(&lock);
    shmem_barrier_all();
    if (shmem_my_pe() == 1) {
        shmem_clear_lock(&lock);
        fprintf(stderr, "FAIL: shmem_clear_lock on a lock held by PE 0 returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
