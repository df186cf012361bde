/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_pe_accessible and shmem_addr_accessible: every PE is reachable; the heap and
 * global/static data are remotely accessible, a stack or malloc variable is not. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

long global_zero;                /* .bss */
int global_init[4] = {1, 2, 3, 4}; /* .data */
static double static_arr[16];

int main(void) {
    shmem_init();
    int npes = shmem_n_pes();
    static char local_static[8];
    long *heap = shmem_malloc(64 * sizeof(long));
    CHECK(heap != NULL, "shmem_malloc failed");
    long stack_var = 0;
    long *private_heap = malloc(sizeof(long));
    CHECK(private_heap != NULL, "malloc failed");

    for (int pe = 0; pe < npes; pe++) {
        CHECK(shmem_pe_accessible(pe) == 1, "shmem_pe_accessible(%d) is not 1", pe);
        CHECK(shmem_addr_accessible(heap, pe) == 1, "heap block not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&heap[63], pe) == 1, "end of heap block not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&global_zero, pe) == 1, "bss global not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&global_init[3], pe) == 1, "data global not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&static_arr[5], pe) == 1, "static array not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(local_static, pe) == 1, "function static not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&stack_var, pe) == 0, "stack variable reported accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(private_heap, pe) == 0, "malloc'd memory reported accessible on PE %d", pe);
    }
    /* A PE number outside [0, npes) names no PE. */
    CHECK(shmem_pe_accessible(npes) == 0, "shmem_pe_accessible(npes) is not 0");
    CHECK(shmem_pe_accessible(-1) == 0, "shmem_pe_accessible(-1) is not 0");

    free(private_heap);
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
