/* rshmem-test
 * np: 1 2 4 8
 */
/* Symmetric heap routines: shmem_malloc, shmem_calloc (zeroed), shmem_align (alignment
 * honoured), shmem_realloc (contents kept), shmem_free, shmem_malloc_with_hints, and
 * the zero-size cases that return NULL. Every block is used remotely. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

static int me, npes, right, left;

/* Writes a PE-specific pattern into the right neighbour's copy of p[0, n) and checks
 * the copy the left neighbour wrote into mine. */
static void exercise(unsigned char *p, size_t n, const char *what) {
    unsigned char *buf = malloc(n);
    CHECK(buf != NULL, "malloc failed");
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(me * 17 + i * 3);
    shmem_barrier_all();
    shmem_putmem(p, buf, n, right);
    shmem_barrier_all();
    for (size_t i = 0; i < n; i++)
        CHECK(p[i] == (unsigned char)(left * 17 + i * 3), "%s: byte %zu after put", what, i);
    free(buf);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    /* shmem_malloc: usable, suitably aligned for any type. */
    long double *m = shmem_malloc(100 * sizeof(long double));
    CHECK(m != NULL, "shmem_malloc(100 long double) failed");
    CHECK((uintptr_t)m % _Alignof(max_align_t) == 0, "shmem_malloc result %p is not max-aligned", (void *)m);
    exercise((unsigned char *)m, 100 * sizeof(long double), "shmem_malloc");

    /* Size zero gives NULL (and no barrier, so every PE may do it any number of times). */
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) is not NULL");
    CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8) is not NULL");
    CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0) is not NULL");
    CHECK(shmem_align(64, 0) == NULL, "shmem_align(64, 0) is not NULL");
    CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL, "shmem_malloc_with_hints(0) is not NULL");
    shmem_free(NULL); /* no effect */

    /* shmem_calloc is zeroed, even where a freed block left garbage. */
    unsigned char *junk = shmem_malloc(4096);
    CHECK(junk != NULL, "shmem_malloc(4096) failed");
    memset(junk, 0xA5, 4096);
    shmem_free(junk);
    int *c = shmem_calloc(1024, sizeof(int));
    CHECK(c != NULL, "shmem_calloc failed");
    /* The barrier on exit comes after the zeroing: a put right away is not lost. */
    shmem_int_p(&c[1023], me + 1, right);
    shmem_barrier_all();
    for (int i = 0; i < 1023; i++)
        CHECK(c[i] == 0, "shmem_calloc: element %d is %d", i, c[i]);
    CHECK(c[1023] == left + 1, "a put right after shmem_calloc returned was lost (element is %d)", c[1023]);
    exercise((unsigned char *)c, 1024 * sizeof(int), "shmem_calloc");

    /* shmem_align: every power of two from sizeof(void *) to 1 MiB. */
    for (size_t a = sizeof(void *); a <= ((size_t)1 << 20); a *= 2) {
        unsigned char *p = shmem_align(a, 3 * a / 2 + 1);
        CHECK(p != NULL, "shmem_align(%zu) failed", a);
        CHECK((uintptr_t)p % a == 0, "shmem_align(%zu) gave %p", a, (void *)p);
        if (a == 64 || a == 4096)
            exercise(p, 3 * a / 2 + 1, "shmem_align");
        shmem_free(p);
    }

    /* shmem_realloc: grow and shrink keep the contents; NULL acts as malloc; 0 frees. */
    long *r = shmem_realloc(NULL, 10 * sizeof(long));
    CHECK(r != NULL, "shmem_realloc(NULL, n) failed");
    for (int i = 0; i < 10; i++)
        r[i] = 1000L * me + i;
    long *blocker = shmem_malloc(64); /* makes in-place growth less likely */
    CHECK(blocker != NULL, "shmem_malloc(64) failed");
    r = shmem_realloc(r, 100000 * sizeof(long));
    CHECK(r != NULL, "shmem_realloc grow failed");
    for (int i = 0; i < 10; i++)
        CHECK(r[i] == 1000L * me + i, "shmem_realloc grow lost element %d (%ld)", i, r[i]);
    r[99999] = me;
    shmem_barrier_all();
    CHECK(shmem_long_g(&r[99999], right) == right, "grown block is not symmetric");
    CHECK(shmem_long_g(&r[3], left) == 1000L * left + 3, "grown block: remote read of kept data");
    r = shmem_realloc(r, 5 * sizeof(long));
    CHECK(r != NULL, "shmem_realloc shrink failed");
    for (int i = 0; i < 5; i++)
        CHECK(r[i] == 1000L * me + i, "shmem_realloc shrink lost element %d (%ld)", i, r[i]);
    exercise((unsigned char *)r, 5 * sizeof(long), "shmem_realloc");
    shmem_realloc(r, 0); /* frees the block */
    shmem_free(blocker);

    /* shmem_malloc_with_hints: every defined hint, alone and together. */
    long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                    SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    for (int h = 0; h < 4; h++) {
        long *p = shmem_malloc_with_hints(512 * sizeof(long), hints[h]);
        CHECK(p != NULL, "shmem_malloc_with_hints(hints %ld) failed", hints[h]);
        CHECK((uintptr_t)p % _Alignof(max_align_t) == 0, "shmem_malloc_with_hints result is not max-aligned");
        exercise((unsigned char *)p, 512 * sizeof(long), "shmem_malloc_with_hints");
        shmem_free(p);
    }

    shmem_free(c);
    shmem_free(m);
    if (me == 0)
        printf("heap routines ok\n");
    shmem_finalize();
    return 0;
}
