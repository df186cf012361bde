/* rshmem-test
 * np: 2
 * env: SHMEM_HANG_WARN=0.3
 * stderr: rshmem: PE 0 of 2 still waiting after 0.3 s for shmemx_notify_wait_any(0x
 * stderr: to find any flag READY: of its 4 flags 2 are EMPTY, 0 READY, 2 CONSUMED
 */
/* SHMEM_HANG_WARN on a notification wait: PE 0 waits for any flag; PE 1 notifies flags 0
 * and 1 at once and flag 3 after a second. The warning names the routine and the state
 * of the set at the time, and the wait still completes, taking flag 3. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <shmemx.h>
#include <time.h>

#include "../common.h"

static long box[4];

int main(void) {
    shmem_init();
    shmemx_notify_t *s = shmemx_notify_alloc(4);
    if (shmem_my_pe() == 1) {
        long v = 10;
        shmemx_notify_put(s, 0, &box[0], &v, sizeof v, 0);
        shmemx_notify_put(s, 1, &box[1], &v, sizeof v, 0);
        struct timespec pause = {1, 0};
        nanosleep(&pause, NULL);
        v = 13;
        shmemx_notify_put(s, 3, &box[3], &v, sizeof v, 0);
    } else {
        CHECK(shmemx_notify_wait_any(s) == 0, "first");
        CHECK(shmemx_notify_wait_any(s) == 1, "second");
        CHECK(shmemx_notify_wait_any(s) == 3, "third");
        CHECK(box[3] == 13, "woke with %ld", box[3]);
    }
    shmemx_notify_free(s);
    shmem_finalize();
    return 0;
}
