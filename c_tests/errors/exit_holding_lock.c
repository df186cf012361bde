/* rshmem-test
 * np: 8
 * exit: 1
 * timeout: 20
 * stdout-not: took the lock
 * stderr: the job can never finish: PE 0 is in shmem_finalize (at exit); PEs 1, 2, 3, 4, 5, 6, 7 are in shmem_set_lock
 */
/* PE 0 takes a lock and returns from main without releasing it while the others wait
 * for the lock: the job ends with one message naming every PE and where it is. */
#include <shmem.h>
#include <stdio.h>

static long lock;

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0)
        shmem_set_lock(&lock);
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        return 0;
    shmem_set_lock(&lock);
    printf("FAIL: PE %d took the lock PE 0 never released\n", shmem_my_pe());
    return 0;
}
