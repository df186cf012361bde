/* rshmem-test
 * np: 2
 * exit: 1
 * env: SHMEM_DEBUG=1
 * stderr: rshmem: shmem_malloc (PE 1 of 2): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes size 16, PE 0 passes size 8
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_DEBUG=1): SHMEM_DEBUG turns the check on (SHMEM_CHECK_COLLECTIVES unset).
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    long *p = shmem_malloc(me == 1 ? 16 : 8);
    (void)p;
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
