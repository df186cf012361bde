/* rshmem-test
 * np: 2 4 8
 * exit: 3
 * stdout-not: not reached
 */
/* shmem_global_exit(3) from PE 1 while the other PEs wait in a barrier that PE 1 never
 * joins: the whole job ends with status 3. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <time.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 1) {
        struct timespec ts = {0, 100 * 1000000L}; /* let the others reach the barrier */
        nanosleep(&ts, NULL);
        shmem_global_exit(3);
        printf("not reached: shmem_global_exit returned\n");
        return 0;
    }
    shmem_barrier_all();
    printf("not reached: PE %d left a barrier PE 1 never entered\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
