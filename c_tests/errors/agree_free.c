/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_free (PE 1 of {np}): ptr is at heap offset
 * timeout: 30
 */
/* Without SHMEM_CHECK_COLLECTIVES: PE 1 frees another block than the others.
 * The routine's barrier compares the arguments: every PE writes them beside its arrival
 * word as it arrives, and once the barrier completes each PE but 0 compares its own with
 * PE 0's. The lowest PE that differs reports both values and ends the job; the PEs that
 * agree return and wait in a barrier until it ends. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    long *a = shmem_malloc(64), *b = shmem_malloc(64);
    shmem_free(me == 1 ? b : a);
    if (me == 1) {
        fprintf(stderr, "FAIL: PE 1 returned from a call whose arguments differ\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier after a call whose arguments differ\n", me);
    return 2;
}
