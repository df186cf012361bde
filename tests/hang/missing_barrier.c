/* A missing barrier: PE 0 skips the barrier the others wait in and waits for
 * data they only send after it. */
#include <shmem.h>

static int ready;

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (me != 0)
        shmem_barrier_all();
    if (me == 1)
        shmem_int_atomic_set(&ready, 1, 0);
    if (me == 0)
        shmem_int_wait_until(&ready, SHMEM_CMP_EQ, 1);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
