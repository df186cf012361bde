/* A wait for a value no PE writes: PE 1 waits for flag == 1, the others wait
 * in shmem_barrier_all for it. */
#include <shmem.h>

long flag;

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 1)
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
