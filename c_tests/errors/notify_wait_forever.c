/* rshmem-test
 * np: 2
 * exit: 1
 * timeout: 20
 * stderr: the job can never finish: PE 0 is in shmem_finalize (at exit); PE 1 is in shmemx_notify_wait
 */
/* A wait for a flag no one sets: once PE 0 has left main, the job ends with one message
 * naming the wait instead of hanging (unit/notify_hang_warn has the warning). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    shmemx_notify_t *s = shmemx_notify_alloc(4);
    if (shmem_my_pe() == 0)
        return 0;
    shmemx_notify_set(s, 0);
    shmemx_notify_wait(s, 0);
    shmemx_notify_wait(s, 3);
    printf("FAIL: PE 1 woke\n");
    return 0;
}
