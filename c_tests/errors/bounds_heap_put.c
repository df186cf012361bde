/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: SHMEM_DEBUG=1
 * stderr: rshmem: shmem_putmem (PE 0 of {np}): argument #1 'dest' = 0x
 * stderr: is 64 bytes into the symmetric heap block at 0x
 * stderr: (512 bytes): the transfer of 1024 bytes (argument #3 'nelems' = 1024) runs 576 bytes past its end
 */
/* Under SHMEM_DEBUG (which turns SHMEM_CHECK_BOUNDS on), PE 0 puts 1024 bytes at 64 bytes
 * into a heap block of 512: the range is symmetric (the next block follows), so only the
 * block's bounds can tell; the put is refused before any byte moves, with the block and
 * both lengths. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    shmem_init();
    char *small = shmem_malloc(512);
    char *next = shmem_malloc(4096);
    static char src[1024];
    memset(next, 7, 4096);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        shmem_putmem(small + 64, src, sizeof src, (shmem_my_pe() + 1) % shmem_n_pes());
        fprintf(stderr, "FAIL: a put of 1024 bytes into 448 returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
