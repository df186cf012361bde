/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_calloc (PE 1 of {np}): count is 3 here but PE 0 passes count 2
 * timeout: 30
 */
/* Without SHMEM_CHECK_COLLECTIVES: PE 1 allocates three elements, the others two.
 * The routine's barrier compares the arguments: every PE writes them beside its arrival
 * word as it arrives, and once the barrier completes each PE but 0 compares its own with
 * PE 0's. The lowest PE that differs reports both values and ends the job; the PEs that
 * agree return and wait in a barrier until it ends. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    long *p = shmem_calloc(me == 1 ? 3 : 2, sizeof(long));
    (void)p;
    if (me == 1) {
        fprintf(stderr, "FAIL: PE 1 returned from a call whose arguments differ\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier after a call whose arguments differ\n", me);
    return 2;
}
