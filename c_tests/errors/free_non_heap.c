/* rshmem-test
 * np: 1 2 4 8
 * exit: 1
 * stderr: rshmem: shmem_free (PE
 * stderr: ): argument #1 'ptr' = 0x
 * stderr: is not an allocation of the symmetric heap
 */
/* Every PE passes a pointer from the private heap (malloc) to shmem_free. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    shmem_init();
    long *priv = malloc(16 * sizeof(long));
    if (priv == NULL)
        return 3;
    shmem_free(priv);
    fprintf(stderr, "FAIL: shmem_free of a malloc'd pointer returned\n");
    return 2;
}
