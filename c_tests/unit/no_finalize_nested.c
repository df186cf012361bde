/* rshmem-test
 * np: 1 2 4
 * exit: 0
 * stdout: no_finalize_nested: PE 0 done
 */
/* A program that initialises twice (or three times) and calls shmem_finalize fewer times
 * than that, or never: returning from main finalizes for good whatever the count (the
 * exit hook sets it to one), and the job still exits 0; the inner shmem_finalize is a
 * barrier that the PEs which do not call it meet with shmem_barrier_all. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    shmem_init();
    shmem_init();
    if (shmem_my_pe() % 2 == 0)
        shmem_finalize(); /* one of three, on some PEs only: a barrier among those... */
    /* ...which the others meet here. */
    if (shmem_my_pe() % 2 == 1)
        shmem_barrier_all();
    if (shmem_my_pe() == 0)
        printf("no_finalize_nested: PE 0 done\n");
    return 0;
}
