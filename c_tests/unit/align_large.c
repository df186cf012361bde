/* rshmem-test
 * np: 1 2 4 8
 * env: SHMEM_SYMMETRIC_SIZE=64M
 */
/* shmem_align with alignments above 2 MiB (the specification sets no upper bound):
 * 4, 8, 16 and 32 MiB in a 64 MiB heap give a block aligned on every PE, at the same
 * symmetric offset (a put to the neighbour's copy lands at the start of its block),
 * between ordinary allocations that stay intact; the largest power of two that fits
 * (64 MiB, the whole heap) is a valid alignment too once the heap is empty. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common.h"

static void check_aligned(size_t alignment) {
    int me = shmem_my_pe(), right = (me + 1) % shmem_n_pes();
    char *before = shmem_malloc(1000);
    long *a = shmem_align(alignment, 3 * sizeof(long));
    char *after = shmem_malloc(1000);
    CHECK(before != NULL && after != NULL, "shmem_malloc(1000) failed around the %zu MiB block", alignment >> 20);
    CHECK(a != NULL, "shmem_align(%zu MiB) gave NULL", alignment >> 20);
    CHECK((uintptr_t)a % alignment == 0, "shmem_align(%zu MiB) gave %p, not aligned", alignment >> 20, (void *)a);
    memset(before, 'b', 1000);
    memset(after, 'a', 1000);
    a[0] = a[1] = a[2] = -1;
    shmem_barrier_all();
    shmem_long_p(&a[1], 1000 + me, right);
    shmem_barrier_all();
    int left = (me + shmem_n_pes() - 1) % shmem_n_pes();
    CHECK(a[0] == -1 && a[1] == 1000 + left && a[2] == -1, "%zu MiB block: %ld %ld %ld, want -1 %d -1",
          alignment >> 20, a[0], a[1], a[2], 1000 + left);
    for (int i = 0; i < 1000; i++)
        CHECK(before[i] == 'b' && after[i] == 'a', "block next to the %zu MiB one overwritten at %d",
              alignment >> 20, i);
    shmem_free(after);
    shmem_free(a);
    shmem_free(before);
}

int main(void) {
    shmem_init();
    for (size_t mib = 4; mib <= 32; mib *= 2)
        check_aligned(mib << 20);
    size_t whole = (size_t)64 << 20;
    char *w = shmem_align(whole, 64);
    CHECK(w != NULL && (uintptr_t)w % whole == 0, "shmem_align(64 MiB) in an empty 64 MiB heap gave %p",
          (void *)w);
    shmem_free(w);
    if (shmem_my_pe() == 0)
        printf("large alignments ok\n");
    shmem_finalize();
    return 0;
}
