/* rshmem-test
 * np: 1 2
 * exit: nonzero
 * stderr: PE 0 (pid
 * stderr: was killed by signal 11 (SIGSEGV)
 */
/* A fault of the program's own, outside any rshmem call, after a bulk transfer (which
 * sets and clears the library's fault record): the library's handler must leave it to
 * the default action, so the PE dies of SIGSEGV as it would without rshmem (no rshmem
 * message, no exit status 1). */
#define _DEFAULT_SOURCE
#include <shmem.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>

int main(void) {
    shmem_init();
    char *buf = shmem_malloc(1 << 20);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core); /* no core file */
        shmem_getmem(buf, buf, 1 << 20, shmem_n_pes() - 1);
        volatile char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        none[1] = 1;
        fprintf(stderr, "FAIL: survived a store to a PROT_NONE page\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
