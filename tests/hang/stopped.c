/* A stopped PE: PE 3 stops itself (as ^Z of one process, or a debugger,
 * would) while the others wait for it in shmem_barrier_all. */
#include <shmem.h>
#include <signal.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 3)
        raise(SIGSTOP);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
