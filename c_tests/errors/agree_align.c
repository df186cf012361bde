/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_align (PE 1 of {np}): alignment is 128 here but PE 0 passes alignment 64
 * timeout: 30
 */
/* Without SHMEM_CHECK_COLLECTIVES: PE 1 asks for another alignment than the others.
 * The routine's barrier compares the arguments: every PE writes them beside its arrival
 * word as it arrives, and once the barrier completes each PE but 0 compares its own with
 * PE 0's. The lowest PE that differs reports both values and ends the job; the PEs that
 * agree return and wait in a barrier until it ends. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    long *p = shmem_align(me == 1 ? 128 : 64, 64);
    (void)p;
    if (me == 1) {
        fprintf(stderr, "FAIL: PE 1 returned from a call whose arguments differ\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier after a call whose arguments differ\n", me);
    return 2;
}
