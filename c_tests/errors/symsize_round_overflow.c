/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: SHMEM_SYMMETRIC_SIZE=18446744073709551615
 * stderr: rshmem: shmem_init (PE
 * stderr: of {np}): environment variable SHMEM_SYMMETRIC_SIZE="18446744073709551615" is invalid: too large: rounded up to a multiple of 2 MiB (as memory is laid out) it exceeds 2^64 - 1 bytes
 */
/* A heap size within the layout granule of 2^64 used to wrap to a 0-byte heap when
 * rounded up; it is a named error at shmem_init. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    fprintf(stderr, "FAIL: shmem_init accepted SHMEM_SYMMETRIC_SIZE=2^64-1\n");
    return 2;
}
