/* rshmem-test
 * np: 1 2
 * env: SHMEM_SYMMETRIC_HEAP_SIZE=3M
 * variant: SHMEM_SYMMETRIC_SIZE=3M 3145728 3072k
 */
/* Open MPI's name SHMEM_SYMMETRIC_HEAP_SIZE sets the heap size (alone, or with
 * SHMEM_SYMMETRIC_SIZE at the same size however written): 2 MiB fit in the 3 MiB
 * heap, 4 MiB do not. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    void *fits = shmem_malloc(2 << 20);
    if (fits == NULL) {
        fprintf(stderr, "FAIL: 2 MiB do not fit in a 3 MiB heap\n");
        return 1;
    }
    void *too_big = shmem_malloc(4 << 20);
    if (too_big != NULL) {
        fprintf(stderr, "FAIL: 4 MiB fit: the heap is not 3 MiB (SHMEM_SYMMETRIC_HEAP_SIZE ignored)\n");
        return 1;
    }
    shmem_free(fits);
    shmem_finalize();
    return 0;
}
