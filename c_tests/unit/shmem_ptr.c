/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_ptr on one node: non-NULL for every PE, for heap and global data; stores
 * through the pointer land in the peer's copy, loads see the peer's values. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define N 32
long global_arr[N];
static int static_val = 7;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *heap = shmem_malloc(N * sizeof(long));
    CHECK(heap != NULL, "shmem_malloc failed");

    CHECK(shmem_ptr(heap, me) == (void *)heap, "shmem_ptr(heap, my_pe) is not the local address");
    CHECK(shmem_ptr(global_arr, me) == (void *)global_arr, "shmem_ptr(global, my_pe) is not the local address");
    for (int pe = 0; pe < npes; pe++) {
        CHECK(shmem_ptr(heap, pe) != NULL, "shmem_ptr(heap, %d) is NULL", pe);
        CHECK(shmem_ptr(&heap[N - 1], pe) != NULL, "shmem_ptr(&heap[N-1], %d) is NULL", pe);
        CHECK(shmem_ptr(global_arr, pe) != NULL, "shmem_ptr(global, %d) is NULL", pe);
        CHECK(shmem_ptr(&static_val, pe) != NULL, "shmem_ptr(static, %d) is NULL", pe);
        if (pe != me)
            CHECK(shmem_ptr(heap, pe) != (void *)heap, "shmem_ptr(heap, %d) aliases my own copy", pe);
    }
    /* Interior pointers keep their offset. */
    long *rh = shmem_ptr(heap, right);
    CHECK((long *)shmem_ptr(&heap[5], right) == rh + 5, "shmem_ptr of an interior address is off");

    /* Stores through the pointers. */
    long *rg = shmem_ptr(global_arr, right);
    for (int i = 0; i < N; i++) {
        rh[i] = 100L * me + i;
        rg[i] = -(100L * me + i);
    }
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        CHECK(heap[i] == 100L * left + i, "heap[%d] = %ld, wanted %ld", i, heap[i], 100L * left + i);
        CHECK(global_arr[i] == -(100L * left + i), "global_arr[%d] = %ld", i, global_arr[i]);
    }

    /* Loads through the pointers see the peer's values (set by the peer itself). */
    static_val = 1000 + me;
    shmem_barrier_all();
    int *rs = shmem_ptr(&static_val, right);
    CHECK(*rs == 1000 + right, "load through shmem_ptr gave %d, wanted %d", *rs, 1000 + right);

    /* A put is visible through the pointer after a barrier. */
    shmem_barrier_all();
    shmem_long_p(&heap[0], 4242L + me, right);
    shmem_barrier_all();
    long *mine_from_left = shmem_ptr(heap, me);
    CHECK(*mine_from_left == 4242L + left, "put not visible through shmem_ptr");

    shmem_barrier_all();
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
