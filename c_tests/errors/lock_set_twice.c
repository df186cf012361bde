/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_set_lock (PE 0 of {np}): argument #1 'lock'
 * stderr: the lock is already held by this PE
 */
/* PE 0 sets a lock in the symmetric heap twice (locks are not re-entrant); the others
 * wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    long *lock = shmem_calloc(1, sizeof(long));
    if (shmem_my_pe() == 0) {
        shmem_set_lock(lock);
        shmem_set_lock(lock);
        fprintf(stderr, "FAIL: a second shmem_set_lock by the holder returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
