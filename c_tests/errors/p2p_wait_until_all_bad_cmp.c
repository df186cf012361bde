/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_int_wait_until_all (PE 0 of {np}): argument #4 'cmp' is 42: not one of SHMEM_CMP_EQ
 */
/* PE 0 calls shmem_int_wait_until_all with cmp 42 (no SHMEM_CMP_* constant) while the
 * others wait in a barrier. The condition would otherwise be true at once. */
#include <shmem.h>
#include <stdio.h>

static int ivars[3];

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmem_int_wait_until_all(ivars, 3, NULL, 42, 0);
        fprintf(stderr, "FAIL: shmem_int_wait_until_all with cmp 42 returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
