/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * variant: NOTIFY_CALL=set test wait state flag put reset
 * stderr: rshmem: shmemx_notify_
 * stderr: (PE 0 of {np}): argument #2 'i' is 6, but the notification set has 6 flags (0 to 5)
 */
/* A flag index one past the end, in every routine that takes one: a fatal error naming
 * the routine, the index and the set's size, never a write past the set. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long dest;

int main(void) {
    shmem_init();
    shmemx_notify_t *s = shmemx_notify_alloc(6);
    if (shmem_my_pe() == 0) {
        const char *call = getenv("NOTIFY_CALL");
        long v = 1;
        if (!call || strcmp(call, "set") == 0)
            shmemx_notify_set(s, 6);
        else if (strcmp(call, "test") == 0)
            shmemx_notify_test(s, 6);
        else if (strcmp(call, "wait") == 0)
            shmemx_notify_wait(s, 6);
        else if (strcmp(call, "state") == 0)
            shmemx_notify_state(s, 6);
        else if (strcmp(call, "flag") == 0)
            shmemx_notify_flag(s, 6);
        else if (strcmp(call, "put") == 0)
            shmemx_notify_put(s, 6, &dest, &v, sizeof v, shmem_n_pes() - 1);
        else
            shmemx_notify_reset(s, 6);
        fprintf(stderr, "FAIL: shmemx_notify_%s accepted index 6\n", call ? call : "set");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", shmem_my_pe());
    return 2;
}
