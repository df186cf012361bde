/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_int_alltoall_nb (PE 0 of {np}): argument #5 'request' is NULL
 */
/* An initiation without a place for its request (NULL request pointer): a named error on
 * PE 0, before anything is queued. */
#include <shmem.h>

static int src[16], dst[16];

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0)
        shmem_int_alltoall_nb(SHMEM_TEAM_WORLD, dst, src, 1, NULL);
    shmem_finalize();
    return 0;
}
