/* Not a hang: PE 0 computes (sleeps) for 3 s in its own code while the
 * others wait for it in shmem_barrier_all. */
#include <shmem.h>
#include <time.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        struct timespec t = {3, 0};
        nanosleep(&t, NULL);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
