/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_long_test_some (PE 0 of {np}): argument #3 'indices' is NULL
 */
/* PE 0 calls shmem_long_test_some with indices NULL and nelems 3 while the others wait
 * in a barrier. */
#include <shmem.h>
#include <stdio.h>

static long ivars[3];

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        size_t n = shmem_long_test_some(ivars, 3, NULL, NULL, SHMEM_CMP_EQ, 0);
        fprintf(stderr, "FAIL: shmem_long_test_some with NULL indices returned %zu\n", n);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
