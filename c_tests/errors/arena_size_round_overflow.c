/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: SHMEM_SPACE_ARENA_SIZE=16777215.9999999999T
 * stderr: rshmem: shmem_init (PE
 * stderr: of {np}): environment variable SHMEM_SPACE_ARENA_SIZE="16777215.9999999999T" is invalid: too large: rounded up to a multiple of 2 MiB (as memory is laid out) it exceeds 2^64 - 1 bytes
 */
/* A space arena size a few bytes below 2^64 cannot be rounded up to the layout
 * granule: a named error at shmem_init, not a wrapped size. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    fprintf(stderr, "FAIL: shmem_init accepted SHMEM_SPACE_ARENA_SIZE just below 2^64\n");
    return 2;
}
