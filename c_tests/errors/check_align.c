/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_align (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes alignment 128, PE 0 passes alignment 64
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 asks for another alignment than the others.
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    long *p = shmem_align(me == 1 ? 128 : 64, 64);
    (void)p;
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
