/* rshmem-test
 * np: 2 4
 * exit: 1
 * stderr: rshmem: shmem_barrier_all (PE 1 of {np}): calls shmem_barrier_all here but PE 0 calls shmem_malloc: collectives called in different orders
 * timeout: 30
 */
/* Without SHMEM_CHECK_COLLECTIVES: PE 1 calls shmem_barrier_all where the others call
 * shmem_malloc. Both wait in the same world barrier, so the others would return with a
 * block that PE 1 never allocated, silently. A plain barrier's arrival carries no
 * arguments, which the barrier's sum of fingerprints tells from an allocation's: PE 1,
 * the lowest PE that differs from PE 0, reports; the others stop. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (me == 1) {
        shmem_barrier_all();
        fprintf(stderr, "FAIL: PE 1 passed a barrier where the others allocate\n");
        return 2;
    }
    long *p = shmem_malloc(8);
    (void)p;
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier after an allocation that PE 1 did not make\n", me);
    return 2;
}
