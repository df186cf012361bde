/* rshmem-test
 * np: 2
 * exit: 1
 * env: SHMEM_SYMMETRIC_SIZE=1T
 * stderr: rshmem: shmem_init (PE
 * stderr: of {np}): SHMEM_SYMMETRIC_SIZE=1T asks for 2 PEs x 1 TiB = 2 TiB, more than this machine's memory (
 */
/* A symmetric heap larger than the machine's memory, over all PEs, is refused at
 * shmem_init with the arithmetic spelled out. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    fprintf(stderr, "FAIL: shmem_init accepted SHMEM_SYMMETRIC_SIZE=1T for 2 PEs\n");
    return 2;
}
