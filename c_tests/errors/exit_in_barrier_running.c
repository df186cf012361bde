/* rshmem-test
 * np: 4
 * exit: 1
 * timeout: 30
 * stdout-not: left the barrier
 * stderr: the job can never finish: PE 1 is in shmem_finalize (at exit); PEs 0, 3 are in shmem_barrier_all; PE 2 is running
 */
/* PE 1 returns from main while PEs 0 and 3 wait in shmem_barrier_all and PE 2 computes
 * (sleeps) for much longer: the barrier can never complete whatever PE 2 does later, so
 * the job ends with one message (after a settling delay, with PE 2 still running). */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <time.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (me == 1)
        return 0;
    if (me == 2) {
        struct timespec pause = {60, 0};
        nanosleep(&pause, NULL);
    }
    shmem_barrier_all();
    printf("FAIL: PE %d left the barrier that PE 1 never entered\n", me);
    return 0;
}
