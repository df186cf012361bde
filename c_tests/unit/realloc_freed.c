/* rshmem-test
 * np: 1 2 4
 * stderr: rshmem: warning: shmem_realloc (PE 0 of {np}): argument #1 'ptr' = 0x
 * stderr: was already freed; returning NULL
 */
/* shmem_realloc of a pointer that was already freed (directly, or moved by an earlier
 * shmem_realloc) returns NULL on every PE with a warning, as Open MPI does, instead of
 * ending the job; the heap stays symmetric: allocations after it agree on every PE
 * and carry puts between PEs. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

#include "../common.h"

/* A symmetric block is usable: each PE writes its number into its right neighbour's copy. */
static void check_symmetric(int *p, const char *what) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_int_p(p, me, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(*p == (me + npes - 1) % npes, "%s: got %d from the left neighbour", what, *p);
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    int *keep = shmem_malloc(64);
    int *p = shmem_malloc(256);
    CHECK(keep != NULL && p != NULL, "shmem_malloc failed");
    shmem_free(p);
    void *r = shmem_realloc(p, 512);
    CHECK(r == NULL, "shmem_realloc of a freed pointer gave %p, not NULL", r);
    r = shmem_realloc(p, 0);
    CHECK(r == NULL, "shmem_realloc(freed, 0) gave %p, not NULL", r);

    /* A block moved by shmem_realloc: its old address is freed too. */
    int *a = shmem_malloc(64);
    int *block = shmem_malloc(64); /* keeps a from growing in place */
    int *b = shmem_realloc(a, 4096);
    CHECK(b != NULL && b != a, "shmem_realloc(64 -> 4096) gave %p (old %p)", (void *)b, (void *)a);
    r = shmem_realloc(a, 128);
    CHECK(r == NULL, "shmem_realloc of the old address of a moved block gave %p, not NULL", r);
    check_symmetric(b, "the moved block");

    /* The heap agrees across PEs afterwards. */
    int *c = shmem_malloc(1000);
    CHECK(c != NULL, "shmem_malloc after the tolerated realloc failed");
    check_symmetric(c, "a block allocated after the tolerated realloc");
    int *d = shmem_realloc(c, 100000);
    CHECK(d != NULL, "shmem_realloc of a live block failed");
    check_symmetric(d, "a block reallocated after the tolerated realloc");
    shmem_free(d);
    shmem_free(block);
    shmem_free(b);
    shmem_free(keep);
    if (shmem_my_pe() == 0)
        printf("realloc of freed pointers tolerated\n");
    shmem_finalize();
    return 0;
}
