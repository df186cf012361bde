/* rshmem-test
 * np: 1 2 4 8
 * exit: 1
 * env: SHMEM_SYMMETRIC_SIZE=12Q
 * stderr: rshmem: shmem_init (PE
 * stderr: of {np}): environment variable SHMEM_SYMMETRIC_SIZE="12Q" is invalid:
 * stderr: is invalid: unknown size suffix 'Q' (use k, m, g or t)
 */
/* A malformed SHMEM_SYMMETRIC_SIZE is an error at shmem_init, not silently replaced by
 * the default. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    fprintf(stderr, "FAIL: shmem_init accepted SHMEM_SYMMETRIC_SIZE=12Q\n");
    return 2;
}
