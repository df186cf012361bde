/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: SHMEM_CHECK_BOUNDS=1
 * stderr: rshmem: shmem_long_get (PE 0 of {np}): argument #1 'dest' = 0x
 * stderr: is the start of the symmetric heap block at 0x
 * stderr: (800 bytes): the transfer of 808 bytes (argument #3 'nelems' = 101) runs 8 bytes past its end
 */
/* The caller's own buffer is checked too when it is symmetric: PE 0 gets 101 longs into a
 * heap block of 100 (800 bytes, which the allocator rounds up to 832: the overrun stays in
 * the block's padding, and only the size asked for tells). */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    long *mine = shmem_malloc(100 * sizeof(long));
    long *big = shmem_malloc(1000 * sizeof(long));
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        shmem_long_get(mine, big, 101, (shmem_my_pe() + 1) % shmem_n_pes());
        fprintf(stderr, "FAIL: a get of 101 longs into 100 returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
