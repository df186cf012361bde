/* rshmem-test
 * np: 1 2 4
 * env: SHMEM_SYMMETRIC_SIZE=64M
 */
/* shmem_align: a 2 MiB alignment is honoured on every PE; one larger than the heap
 * (64 MiB here), or one that is not a power of two, gives NULL on every PE instead of
 * a misaligned block. (Larger alignments that fit: align_large.c.) */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

int main(void) {
    shmem_init();
    const size_t two_mib = (size_t)2 << 20;
    char *a = shmem_align(two_mib, 100);
    CHECK(a != NULL && (uintptr_t)a % two_mib == 0, "shmem_align(2 MiB) gave %p", (void *)a);
    /* The block is symmetric: the right neighbour's copy is reachable and aligned too. */
    int right = (shmem_my_pe() + 1) % shmem_n_pes();
    shmem_char_p(a, 'x', right);
    shmem_barrier_all();
    CHECK(a[0] == 'x', "put into the aligned block was lost");
    CHECK(shmem_align(two_mib * 64, 100) == NULL, "an alignment above the 64 MiB heap must give NULL");
    CHECK(shmem_align(48, 100) == NULL, "an alignment that is not a power of two must give NULL");
    shmem_free(a);
    if (shmem_my_pe() == 0)
        printf("align limits ok\n");
    shmem_finalize();
    return 0;
}
