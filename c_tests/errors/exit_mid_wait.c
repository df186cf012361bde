/* rshmem-test
 * np: 2 4
 * exit: 1
 * timeout: 40
 * stdout-not: got a word
 * stderr: the job can never finish
 * stderr: shmem_finalize (at exit)
 * stderr: shmem_long_wait_until
 */
/* The last PE returns from main without shmem_finalize while the others wait for a word
 * only it could send: the job ends with one message saying where every PE is. On one
 * node the stuck detector proves it; across nodes (tests/mpi_suite.rs) the blocked PEs
 * tell each other where they are and PE 0's node watcher ends the job once the picture
 * has stayed the same for a few seconds. */
#include <shmem.h>
#include <stdio.h>

static long flag;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (me == npes - 1)
        return 0;
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    printf("FAIL: PE %d got a word nobody sent\n", me);
    shmem_finalize();
    return 0;
}
