/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_ushort_test_some (PE 0 of {np}): argument #5 'cmp' is 99: not one of SHMEM_CMP_EQ
 */
/* Argument positions come from the prototype: in shmem_ushort_test_some(ivars, nelems,
 * indices, status, cmp, cmp_value), a bad comparison operator is argument #5. PE 0
 * passes 99; the others wait in a barrier. */
#include <shmem.h>
#include <stddef.h>
#include <stdio.h>

static unsigned short ivars[4];

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        size_t indices[4];
        (void)shmem_ushort_test_some(ivars, 4, indices, NULL, 99, 0);
        fprintf(stderr, "FAIL: shmem_ushort_test_some with cmp 99 returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
