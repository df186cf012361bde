/* rshmem-test
 * np: 1 2 4 8
 * exit: 0
 * stdout: no_finalize: PE 0 done
 */
/* A program that never calls shmem_finalize: returning from main finalizes implicitly,
 * and the job still exits 0. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

static long box;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *heap = shmem_malloc(sizeof(long));
    CHECK(heap != NULL, "shmem_malloc failed");
    shmem_long_p(&box, me, (me + 1) % npes);
    shmem_long_p(heap, me, (me + npes - 1) % npes);
    shmem_barrier_all();
    CHECK(box == (me + npes - 1) % npes && *heap == (me + 1) % npes, "exchange failed");
    printf("no_finalize: PE %d done\n", me);
    return 0; /* no shmem_finalize, no shmem_free */
}
