/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: SHMEM_CHECK_BOUNDS=1
 * stderr: rshmem: shmem_long_put (PE 0 of {np}): argument #1 'dest' = 0x
 * stderr: is 128 bytes into the global 'grid' (1024 bytes): the transfer of 1024 bytes (argument #3 'nelems' = 128) runs 128 bytes past its end
 */
/* With SHMEM_CHECK_BOUNDS=1, PE 0 puts 128 longs at element 16 of a global array of 128:
 * the library finds the array and its size in the program's symbol table and refuses the
 * put before any byte moves. */
#include <shmem.h>
#include <stdio.h>

long grid[128];
long after[128];

int main(void) {
    shmem_init();
    long *src = shmem_malloc(128 * sizeof(long));
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        shmem_long_put(grid + 16, src, 128, (shmem_my_pe() + 1) % shmem_n_pes());
        fprintf(stderr, "FAIL: a put past the end of grid returned (%ld)\n", after[0]);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
