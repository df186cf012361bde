/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: SHMEM_PSYNC_STRATEGY=extra-sync
 * env: SHMEM_PSYNC_POOL_MAX=4611686018427387904
 * stderr: rshmem: shmem_init (PE
 * stderr: of {np}): environment variable SHMEM_PSYNC_POOL_MAX="4611686018427387904" is invalid: too large: at most 65536
 */
/* A pool of 2^62 sync arrays would overflow the size of a team's region; counts are
 * bounded and the error names the variable. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    fprintf(stderr, "FAIL: shmem_init accepted SHMEM_PSYNC_POOL_MAX=2^62\n");
    return 2;
}
