/* rshmem-test
 * np: 1 2 3 4
 * stdout: alltoall_global_nb ok
 */
/* Open MPI OSHMEM's shmemx_alltoall_global_nb(dest, source, size, counter): block k of
 * every PE's source lands in block (that PE) of PE k's dest, and each delivered block
 * adds 1 to the counter of its target, so a PE waits for its own counter to grow by the
 * job's size and then reads its dest, with no barrier. Rounds of 8 bytes, 3 bytes (not a
 * word), 64 KiB (past the short transfers) and 0 bytes (the counter alone); dest is
 * filled with a marker first, and checked block by block against the sender's pattern.
 * The counter keeps counting across rounds; a barrier between rounds keeps a fast PE from
 * overwriting a dest another PE is still reading. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

#include "../common.h"

static long counter;

static unsigned char pattern(int from, int to, size_t i, int round) {
    return (unsigned char)(31 * from + 7 * to + i + 11 * round);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    const size_t sizes[] = {8, 3, 65536, 0};
    const int rounds = (int)(sizeof sizes / sizeof sizes[0]);
    const size_t bytes = 65536 * (size_t)n + 1; /* one byte past the largest round's blocks */
    unsigned char *src = shmem_malloc(bytes);
    unsigned char *dst = shmem_malloc(bytes);
    CHECK(src && dst, "shmem_malloc failed");
    long want = 0;
    for (int r = 0; r < rounds; r++) {
        size_t size = sizes[r];
        for (int k = 0; k < n; k++)
            for (size_t i = 0; i < size; i++)
                src[(size_t)k * size + i] = pattern(me, k, i, r);
        memset(dst, 0xee, bytes);
        shmem_barrier_all(); /* every dest is ready */
        shmemx_alltoall_global_nb(dst, src, size, &counter);
        want += n;
        shmem_long_wait_until(&counter, SHMEM_CMP_EQ, want);
        for (int k = 0; k < n; k++)
            for (size_t i = 0; i < size; i++)
                CHECK(dst[(size_t)k * size + i] == pattern(k, me, i, r),
                      "round %d (size %zu): byte %zu of PE %d's block is %u, want %u", r, size, i, k,
                      dst[(size_t)k * size + i], pattern(k, me, i, r));
        CHECK(size == 0 || dst[(size_t)n * size] == 0xee, "round %d: written past the last block", r);
        shmem_quiet(); /* source may change again */
        shmem_barrier_all();
    }
    CHECK(counter == want, "counter %ld, want %ld", counter, want);
    shmem_free(dst);
    shmem_free(src);
    if (me == 0)
        printf("alltoall_global_nb ok\n");
    shmem_finalize();
    return 0;
}
