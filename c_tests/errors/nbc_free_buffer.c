/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_free (PE 0 of {np}):
 * stderr: holds a buffer of 1 non-blocking collective still outstanding (the first from shmem_int_sum_reduce_nb)
 */
/* shmem_free of a block holding the dest of a request not yet completed: a named error
 * (the library would write into freed memory), PE 0 first. */
#include <shmem.h>

static int src[8];

int main(void) {
    shmem_init();
    int *dst = shmem_malloc(64 * sizeof(int));
    shmem_req_h r;
    shmem_int_sum_reduce_nb(SHMEM_TEAM_WORLD, dst + 8, src, 8, &r);
    if (shmem_my_pe() == 0)
        shmem_free(dst);
    shmem_req_wait(&r);
    shmem_finalize();
    return 0;
}
