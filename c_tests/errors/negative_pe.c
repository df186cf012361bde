/* rshmem-test
 * np: 1 2 4 8
 * exit: 1
 * stderr: rshmem: shmem_int_g (PE 0 of {np}): argument #2 'pe' is -1, outside [0,
 */
/* PE 0 reads from PE -1 with shmem_int_g while the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

static int source;

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        int v = shmem_int_g(&source, -1);
        fprintf(stderr, "FAIL: shmem_int_g from PE -1 returned %d\n", v);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
