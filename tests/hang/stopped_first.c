/* A stopped PE that is its node's first PE: PE 2 stops itself while the others wait
 * for it in shmem_barrier_all. Across nodes of 2 PEs (RSHMEM_NODE_SIZE=2) PE 2 is the
 * first PE of its node, whose watcher thread it stops too. */
#include <shmem.h>
#include <signal.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 2)
        raise(SIGSTOP);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
