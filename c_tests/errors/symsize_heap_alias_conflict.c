/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: SHMEM_SYMMETRIC_SIZE=1M
 * env: SHMEM_SYMMETRIC_HEAP_SIZE=2M
 * stderr: rshmem: shmem_init (PE
 * stderr: of {np}): environment variable SHMEM_SYMMETRIC_HEAP_SIZE="2M" is invalid: it names the same setting as SHMEM_SYMMETRIC_SIZE, which is "1M", a different size: set only one of them, or both to the same size
 */
/* Open MPI's SHMEM_SYMMETRIC_HEAP_SIZE and SHMEM_SYMMETRIC_SIZE set to different
 * sizes: an error naming both, never a silent choice. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    fprintf(stderr, "FAIL: shmem_init accepted two different heap sizes\n");
    return 2;
}
