/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmemx_req_wait_all (PE 0 of {np}): argument #1 'requests' is 0x
 * stderr: names no outstanding request on this PE
 */
/* A stale copy of a completed handle in the array of shmemx_req_wait_all: the same named
 * error as shmem_req_wait's, naming the array parameter (it once named 'request', which
 * shmemx_req_wait_all lacks, and ended in an internal error). */
#include <shmem.h>
#include <shmemx.h>

static long src[4], dst[4];

int main(void) {
    shmem_init();
    shmem_req_h r[2] = {SHMEM_REQ_INVALID, SHMEM_REQ_INVALID};
    shmem_long_sum_reduce_nb(SHMEM_TEAM_WORLD, dst, src, 4, &r[1]);
    shmem_req_h copy = r[1];
    shmem_req_wait(&r[1]);
    r[1] = copy;
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        shmemx_req_wait_all(r, 2);
    shmem_finalize();
    return 0;
}
