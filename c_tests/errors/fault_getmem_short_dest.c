/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_long_get (PE 0 of {np}): fault writing 0x
 * stderr: (dest + 
 * stderr: bytes of 1048576, SIGSEGV): argument #1 'dest' is shorter than argument #3 'nelems' = 131072 says, or not writable
 */
/* PE 0 gets 131072 longs (1 MiB) into a private buffer of 64 longs that ends where
 * unmapped memory begins: the copy faults inside shmem_long_get, reported with the
 * routine, the PE and the address. */
#define _DEFAULT_SOURCE
#include <shmem.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void) {
    shmem_init();
    long *source = shmem_malloc(1 << 20);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        long page = sysconf(_SC_PAGESIZE);
        char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (two == MAP_FAILED || mprotect(two + page, page, PROT_NONE) != 0) {
            perror("mmap");
            return 2;
        }
        long *dest = (long *)(two + page) - 64; /* 64 writable longs, then a guard page */
        shmem_long_get(dest, source, 131072, (shmem_my_pe() + 1) % shmem_n_pes());
        fprintf(stderr, "FAIL: a get of 1 MiB into 512 bytes returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
