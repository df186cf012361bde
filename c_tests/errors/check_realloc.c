/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_realloc (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes size 64, PE 0 passes size 32
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 grows the block to 64 bytes, the others to 32.
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    long *p = shmem_malloc(16);
    p = shmem_realloc(p, me == 1 ? 64 : 32);
    (void)p;
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
