/* Start-up cost: shmem_init and shmem_finalize, nothing else. compare.py measures the wall
 * time of `oshrun -np N hello` from outside (the launcher included) and reports it as
 * `startup` in seconds. PE 0 prints one line after shmem_init, so that compare.py can tell
 * a job that started from one that failed:
 *
 * Output (PE 0): STARTED <npes>
 * Usage: hello
 */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        printf("STARTED %d\n", shmem_n_pes());
        fflush(stdout);
    }
    shmem_finalize();
    return 0;
}
