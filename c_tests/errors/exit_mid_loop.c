/* rshmem-test
 * np: 2 4
 * exit: 1
 * timeout: 40
 * stdout-not: left the loop
 * stderr: the job can never finish
 * stderr: shmem_finalize (at exit)
 */
/* The last PE calls exit(0) in the middle of a loop of puts and barriers, without
 * shmem_finalize: its implicit finalize must not complete the others' barrier (across
 * nodes the leaders' rendezvous compares what each node is in), and the job ends with
 * one message naming the exiting PE instead of hanging. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long x[64];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < 1000; i++) {
        if (me == npes - 1 && i == 20)
            exit(0);
        shmem_long_p(&x[me], i, (me + 1) % npes);
        shmem_barrier_all();
    }
    printf("FAIL: PE %d left the loop\n", me);
    shmem_finalize();
    return 0;
}
