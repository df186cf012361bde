/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES=1
 * env: SHMEM_SYMMETRIC_HEAP_PAGE_SIZE=3M
 * stderr: rshmem: shmem_init (PE
 * stderr: of {np}): environment variable SHMEM_SYMMETRIC_HEAP_PAGE_SIZE="3M" is invalid: 3 MiB is not a huge page size of this kernel (it has
 */
/* Huge pages asked for of a size no kernel has: a named error at
 * shmem_init, whether or not the kernel has huge pages reserved. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    fprintf(stderr, "FAIL: shmem_init accepted SHMEM_SYMMETRIC_HEAP_PAGE_SIZE=3M\n");
    return 2;
}
