/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_CHECK_COLLECTIVES=1
 * stderr: rshmem: shmem_calloc (PE 1 of {np}): collective arguments differ on SHMEM_TEAM_WORLD: PE 1 passes count 3, PE 0 passes count 2
 * timeout: 30
 */
/* Checked collective arguments (SHMEM_CHECK_COLLECTIVES=1): PE 1 allocates three elements, the others two.
 * The first PE that differs from PE 0 reports both values and the job ends; nobody
 * returns from the call. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    long *p = shmem_calloc(me == 1 ? 3 : 2, sizeof(long));
    (void)p;
    fprintf(stderr, "FAIL: PE %d returned from a call with arguments that differ\n", me);
    return 2;
}
