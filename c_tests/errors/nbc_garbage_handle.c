/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_req_wait (PE 0 of {np}): argument #1 'request' is 0x
 * stderr: is not a request handle
 */
/* A shmem_req_h that was never set by an initiation (garbage bits): a named error from
 * shmem_req_wait on PE 0, with the bad value. */
#include <shmem.h>
#include <string.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmem_req_h r;
        memset(&r, 0x5a, sizeof r);
        shmem_req_wait(&r);
    }
    shmem_finalize();
    return 0;
}
