/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_long_broadcast_nb (PE 0 of {np}): argument #2 'dest' = 0x
 * stderr: is not symmetric
 */
/* A dest on the stack: checked at initiation, so the error names the _nb routine the
 * program called (not the job that would run later), on PE 0. */
#include <shmem.h>

static long src[4];

int main(void) {
    shmem_init();
    long dst[4];
    shmem_req_h r;
    if (shmem_my_pe() == 0)
        shmem_long_broadcast_nb(SHMEM_TEAM_WORLD, dst, src, 4, 0, &r);
    shmem_finalize();
    return 0;
}
