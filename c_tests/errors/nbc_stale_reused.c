/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_req_test (PE 0 of {np}): argument #1 'request' is 0x
 * stderr: names no outstanding request on this PE
 */
/* A stale copy of a completed request while a new request has taken its slot: the copy
 * must still be refused (the handle's generation differs), not answered about the new
 * request. PE 0 tests the stale copy. */
#include <shmem.h>

static long src[4], dst[4];

int main(void) {
    shmem_init();
    shmem_req_h r = SHMEM_REQ_INVALID, r2 = SHMEM_REQ_INVALID;
    shmem_long_sum_reduce_nb(SHMEM_TEAM_WORLD, dst, src, 4, &r);
    shmem_req_h copy = r;
    shmem_req_wait(&r);
    shmem_team_sync_nb(SHMEM_TEAM_WORLD, &r2); /* likely the same slot */
    if (shmem_my_pe() == 0)
        shmem_req_test(&copy);
    shmem_req_wait(&r2);
    shmem_finalize();
    return 0;
}
