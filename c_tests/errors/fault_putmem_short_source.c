/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_putmem (PE 0 of {np}): fault reading 0x
 * stderr: (source + 
 * stderr: bytes of 1048576, SIGSEGV): argument #2 'source' is shorter than argument #3 'nelems' = 1048576 says
 * stderr: after a fatal error
 */
/* PE 0 puts 1 MiB from a private source of 512 bytes that ends where unmapped memory
 * begins: the copy faults inside shmem_putmem, and instead of a bare SIGSEGV the
 * library names the routine, the PE and the address, and the job ends as after any
 * fatal error. */
#define _DEFAULT_SOURCE
#include <shmem.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void) {
    shmem_init();
    char *dest = shmem_malloc(1 << 20);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        long page = sysconf(_SC_PAGESIZE);
        char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (two == MAP_FAILED || mprotect(two + page, page, PROT_NONE) != 0) {
            perror("mmap");
            return 2;
        }
        char *source = two + page - 512; /* 512 readable bytes, then a guard page */
        shmem_putmem(dest, source, 1 << 20, (shmem_my_pe() + 1) % shmem_n_pes());
        fprintf(stderr, "FAIL: a put from a 512-byte source of 1 MiB returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
