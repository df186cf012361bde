/* rshmem-test
 * np: 1 2 4
 * stdout: malloc no barrier ok
 */
/* Sandia OpenSHMEM's SHMEMX_MALLOC_NO_BARRIER hint for shmem_malloc_with_hints: the
 * allocation has no barrier at its exit, and every PE still gets the same block.
 *  - Every PE but 0 allocates, then tells PE 0 so (an atomic add to a counter on PE 0);
 *    PE 0 waits for all of them *before* it allocates. With the barrier, they would
 *    wait in the allocation for PE 0, which waits for them: the job would hang.
 *  - The blocks are symmetric: after a barrier, each PE writes its number into its
 *    right neighbour's block and reads back the one from its left.
 *  - With another hint beside it (SHMEM_MALLOC_ATOMICS_REMOTE) the same holds, and a
 *    request the heap cannot satisfy gives NULL on every PE. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>

#include "../common.h"

static long allocated = 0;

static void check_symmetric(long *p, const char *what) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(p != NULL, "%s: shmem_malloc_with_hints gave NULL", what);
    shmem_barrier_all();
    shmem_long_p(p, me, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(*p == (me + npes - 1) % npes, "%s: found %ld in my block, want %d from my left neighbour", what, *p,
          (me + npes - 1) % npes);
    shmem_barrier_all();
}

static long *allocate_unordered(long hints, const char *what) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *p;
    if (me == 0) {
        /* The others have allocated and returned before PE 0 allocates. */
        shmem_long_wait_until(&allocated, SHMEM_CMP_EQ, npes - 1);
        allocated = 0;
        p = shmem_malloc_with_hints(sizeof(long), hints);
    } else {
        p = shmem_malloc_with_hints(sizeof(long), hints);
        shmem_long_atomic_add(&allocated, 1, 0);
    }
    check_symmetric(p, what);
    return p;
}

int main(void) {
    shmem_init();
    long *a = allocate_unordered(SHMEMX_MALLOC_NO_BARRIER, "no barrier");
    long *b = allocate_unordered(SHMEMX_MALLOC_NO_BARRIER | SHMEM_MALLOC_ATOMICS_REMOTE, "no barrier, atomics");
    CHECK(a != b, "two live blocks at the same address %p", (void *)a);

    /* Far beyond any heap: NULL on every PE, and nothing taken. */
    void *huge = shmem_malloc_with_hints((size_t)1 << 62, SHMEMX_MALLOC_NO_BARRIER);
    CHECK(huge == NULL, "a 2^62-byte request gave %p", huge);

    shmem_free(b);
    shmem_free(a);
    long *c = allocate_unordered(SHMEMX_MALLOC_NO_BARRIER, "after free");
    shmem_free(c);
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        printf("malloc no barrier ok\n");
    shmem_finalize();
    return 0;
}
