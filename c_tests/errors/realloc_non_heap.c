/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: warning: shmem_realloc (PE 0 of {np}): argument #1 'ptr' = 0x
 * stderr: rshmem: shmem_realloc (PE
 * stderr: ): argument #1 'ptr' = 0x
 * stderr: is not an allocation of the symmetric heap
 */
/* Only a freed pointer is tolerated by shmem_realloc: after a freed one (a warning and
 * NULL), a heap address that was never the start of an allocation (inside a live
 * block) is still a fatal error. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    char *gone = shmem_malloc(64);
    shmem_free(gone);
    void *r = shmem_realloc(gone, 128);
    if (r != NULL) {
        fprintf(stderr, "FAIL: shmem_realloc of a freed pointer gave %p\n", r);
        return 2;
    }
    char *p = shmem_malloc(1024);
    r = shmem_realloc(p + 128, 2048);
    fprintf(stderr, "FAIL: shmem_realloc of an address inside a block returned %p\n", r);
    return 2;
}
