/* rshmem-test
 * np: 1 2
 * stdout: PE 0: the program's handler saw its own fault
 */
/* rshmem reports faults inside its transfers with a SIGSEGV handler of its own, chained
 * to the one it replaces: a handler the program installed before shmem_init must still
 * get the program's own faults, with their address, after bulk transfers (which set and
 * clear the library's record) and between them. */
#define _DEFAULT_SOURCE
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common.h"

static char *guarded;
static long page;
static volatile sig_atomic_t hits;
static void *volatile seen;

static void on_segv(int sig, siginfo_t *si, void *ctx) {
    (void)sig;
    (void)ctx;
    seen = si->si_addr;
    hits++;
    /* Make the page accessible: the faulting store runs again and succeeds. */
    if (mprotect(guarded, (size_t)page, PROT_READ | PROT_WRITE) != 0) _exit(3);
}

int main(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0) return 2;
    page = sysconf(_SC_PAGESIZE);

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    size_t len = 1 << 20;
    char *src = shmem_malloc(len), *dst = shmem_malloc(len);
    CHECK(src && dst, "shmem_malloc failed");
    memset(src, me + 1, len);
    shmem_barrier_all();
    shmem_putmem(dst, src, len, (me + 1) % npes);
    shmem_getmem(src, dst, len, (me + 1) % npes);
    shmem_barrier_all();

    for (int round = 1; round <= 2; round++) {
        guarded = mmap(NULL, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(guarded != MAP_FAILED, "mmap failed");
        ((volatile char *)guarded)[100] = 42; /* faults once, outside any rshmem call */
        CHECK(hits == round, "round %d: the program's handler ran %d times", round, (int)hits);
        CHECK(seen == guarded + 100, "round %d: the handler saw address %p, not %p", round, seen,
              (void *)(guarded + 100));
        CHECK(guarded[100] == 42, "round %d: the store did not happen after the handler", round);
        munmap(guarded, (size_t)page);
        shmem_putmem(dst, src, len, (me + 1) % npes); /* the library still works */
    }
    shmem_barrier_all();
    CHECK(dst[len - 1] == (char)(((me + npes - 1) % npes) + 1), "wrong data after the puts");
    if (me == 0) printf("PE 0: the program's handler saw its own fault\n");
    shmem_finalize();
    return 0;
}
