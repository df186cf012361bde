/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: SHMEM_TEAM_SCRATCH_SIZE=18446744073709551615
 * stderr: rshmem: shmem_init (PE
 * stderr: of {np}): environment variable SHMEM_TEAM_SCRATCH_SIZE="18446744073709551615" is invalid: too large: rounded up to a multiple of 2 MiB (as memory is laid out) it exceeds 2^64 - 1 bytes
 */
/* A team scratch size that overflows when rounded is a named error at shmem_init. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    fprintf(stderr, "FAIL: shmem_init accepted SHMEM_TEAM_SCRATCH_SIZE=2^64-1\n");
    return 2;
}
