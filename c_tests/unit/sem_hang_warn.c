/* rshmem-test
 * np: 2
 * env: SHMEM_HANG_WARN=0.3
 * stderr: rshmem: PE 0 of 2 still waiting after 0.3 s for shmemx_sem_waitN(0x
 * stderr: , 2): the semaphore holds 1
 */
/* SHMEM_HANG_WARN on a semaphore wait: PE 0 waits for 2 units; PE 1 posts one at once
 * and the second after a second. The warning names the routine, the count waited for
 * and what the semaphore holds at the time (1), and the wait still completes, taking
 * both units. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <time.h>

#include "../common.h"

int main(void) {
    shmem_init();
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    CHECK(s != NULL, "shmemx_sem_alloc gave NULL");
    if (shmem_my_pe() == 1) {
        shmemx_sem_post(s, 0);
        struct timespec pause = {1, 0};
        nanosleep(&pause, NULL);
        shmemx_sem_post(s, 0);
    } else {
        shmemx_sem_waitN(s, 2);
        CHECK(shmemx_sem_try(s) == 0, "a unit is left after waitN(2) took both");
    }
    shmem_barrier_all();
    shmemx_sem_free(s);
    shmem_finalize();
    return 0;
}
