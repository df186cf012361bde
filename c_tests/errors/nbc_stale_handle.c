/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_req_wait (PE 0 of {np}): argument #1 'request' is 0x
 * stderr: names no outstanding request on this PE
 */
/* A copy of a request handle, kept after shmem_req_wait completed the request (and set the
 * original to SHMEM_REQ_INVALID), passed to shmem_req_wait again: a named error, not an
 * answer about whatever request reuses the slot. PE 0 makes the mistake. */
#include <shmem.h>

static long src[4], dst[4];

int main(void) {
    shmem_init();
    shmem_req_h r = SHMEM_REQ_INVALID;
    shmem_long_sum_reduce_nb(SHMEM_TEAM_WORLD, dst, src, 4, &r);
    shmem_req_h copy = r;
    shmem_req_wait(&r);
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        shmem_req_wait(&copy);
    shmem_finalize();
    return 0;
}
