/* rshmem-test
 * np: 4
 * exit: 1
 * timeout: 20
 * stdout-not: woke
 * stderr: the job can never finish: PE 0 is in shmem_finalize (at exit); PEs 1, 2, 3 are in shmem_long_wait_until
 */
/* PE 0 returns from main while the others wait for a flag that nobody will set: once
 * every PE is finalizing or blocked, the job ends with one message instead of hanging. */
#include <shmem.h>
#include <stdio.h>

static long flag;

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0)
        return 0;
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    printf("FAIL: PE %d woke with flag %ld\n", shmem_my_pe(), flag);
    return 0;
}
