/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_notify_set (PE 0 of {np}): flag 2 of the notification set 0x
 * stderr: was already READY: it was set twice without being consumed in between, so a notification was lost
 */
/* Setting a flag that is still READY would lose a notification (the seed's send-ready
 * flag set again before the communication thread took it): a fatal error. Setting it
 * again after it was consumed is the normal reuse and is fine. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    shmemx_notify_t *s = shmemx_notify_alloc(4);
    if (shmem_my_pe() == 0) {
        shmemx_notify_set(s, 2);
        shmemx_notify_wait(s, 2);
        shmemx_notify_set(s, 2); /* reuse: fine */
        shmemx_notify_set(s, 2); /* lost */
        fprintf(stderr, "FAIL: the second set returned\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", shmem_my_pe());
    return 2;
}
