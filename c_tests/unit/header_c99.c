/* rshmem-test
 * np: 1 2 4 8
 * cflags: -std=c99
 */
/* shmem.h compiles as strict C99 (no C11 generics available) and the typed routines work. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

static long flag;
static double vals[4];

int main(void) {
    int i;
    shmem_init();
    {
        int me = shmem_my_pe(), npes = shmem_n_pes();
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;
        int *heap = (int *)shmem_malloc(8 * sizeof(int));
        double src[4], got[4];
        CHECK(heap != NULL, "shmem_malloc failed");
        for (i = 0; i < 4; i++)
            src[i] = me + i / 4.0;
        shmem_double_put(vals, src, 4, right);
        shmem_int_p(&heap[7], -me, right);
        shmem_ctx_long_p(SHMEM_CTX_DEFAULT, &flag, 1, right);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
        shmem_barrier_all();
        for (i = 0; i < 4; i++)
            CHECK(vals[i] == left + i / 4.0, "vals[%d] is %g", i, vals[i]);
        CHECK(heap[7] == -left, "heap[7] is %d", heap[7]);
        shmem_double_get(got, vals, 4, right);
        CHECK(got[3] == me + 0.75, "shmem_double_get gave %g", got[3]);
        CHECK(shmem_int_g(&heap[7], left) == -((left + npes - 1) % npes), "shmem_int_g");
        CHECK(shmem_long_test(&flag, SHMEM_CMP_NE, 0) == 1, "shmem_long_test");
        shmem_free(heap);
    }
    shmem_finalize();
    return 0;
}
