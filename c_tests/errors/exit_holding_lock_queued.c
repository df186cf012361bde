/* rshmem-test
 * np: 2 4
 * exit: 1
 * timeout: 40
 * stdout-not: took the lock
 * stderr: the job can never finish
 * stderr: shmem_finalize (at exit)
 */
/* PE 0 takes a lock and returns from main without releasing it once every other PE has
 * queued for it: the job ends with a message naming the exiting PE and what it holds.
 * On one node the stuck detector sees the waiters; across nodes (tests/mpi_suite.rs)
 * PE 0's own finalize finds PEs queued behind its lock. The other PEs announce
 * themselves before they queue, and PE 0 gives them two seconds to do so. */
#include <shmem.h>
#include <stdio.h>
#include <unistd.h>

static long lock;
static int announced;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (me == 0)
        shmem_set_lock(&lock);
    shmem_barrier_all();
    if (me == 0) {
        shmem_int_wait_until(&announced, SHMEM_CMP_EQ, npes - 1);
        sleep(2);
        return 0;
    }
    shmem_int_atomic_inc(&announced, 0);
    shmem_set_lock(&lock);
    printf("FAIL: PE %d took the lock PE 0 never released\n", me);
    return 0;
}
