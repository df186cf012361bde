/* rshmem-test
 * np: 2 4
 * exit: nonzero
 * stdout-not: left a barrier
 * stderr: killed by signal 11
 */
/* The last PE dies of SIGSEGV while the others wait in a barrier: the launcher reports
 * the signal and ends the job instead of leaving the others waiting. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == shmem_n_pes() - 1) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core); /* no core file */
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
        fprintf(stderr, "FAIL: survived SIGSEGV\n");
        return 2;
    }
    shmem_barrier_all();
    printf("FAIL: PE %d left a barrier the dead PE never entered\n", shmem_my_pe());
    shmem_finalize();
    return 2;
}
