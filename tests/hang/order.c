/* Collectives called in different orders: PE 2 broadcasts while the others
 * wait in shmem_barrier_all. */
#include <shmem.h>
#include <stdio.h>

static long src[4], dst[4];

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 2)
        shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, sizeof src, 0);
    else
        shmem_barrier_all();
    shmem_finalize();
    return 0;
}
