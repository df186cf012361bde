/* rshmem-test
 * np: 2
 * env: SHMEM_HANG_WARN=0.3
 * stderr: rshmem: PE 0 of 2 still waiting after 0.3 s for shmem_long_wait_until(
 */
/* SHMEM_HANG_WARN: a wait that lasts longer than the given time prints what it waits
 * for, once, and still completes when the value arrives. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <time.h>

#include "../common.h"

static long flag;

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 1) {
        struct timespec pause = {1, 0};
        nanosleep(&pause, NULL);
        shmem_long_p(&flag, 7, 0);
    } else {
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 7);
        CHECK(flag == 7, "woke with flag %ld", flag);
    }
    shmem_finalize();
    return 0;
}
