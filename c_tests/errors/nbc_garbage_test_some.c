/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmemx_req_test_some (PE 0 of {np}): argument #1 'requests' is 0x5a5a5a5a5a5a5a5a: is not a request handle
 */
/* A garbage handle in the array of shmemx_req_test_some, after a valid one: a named error
 * with the bad value, on PE 0. */
#include <shmem.h>
#include <shmemx.h>
#include <string.h>

int main(void) {
    shmem_init();
    shmem_req_h r[2];
    shmem_team_sync_nb(SHMEM_TEAM_WORLD, &r[0]);
    memset(&r[1], 0x5a, sizeof r[1]);
    size_t idx[2];
    if (shmem_my_pe() == 0)
        shmemx_req_test_some(r, 2, idx);
    shmem_req_wait(&r[0]);
    shmem_finalize();
    return 0;
}
