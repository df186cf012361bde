/* rshmem-test
 * np: 1 2 4 8
 */
/* Many symmetric allocation cycles (malloc, calloc, align, realloc, free in a random
 * but identical order on every PE). Each new block is filled by the left neighbour with
 * puts: if a PE's block did not correspond to its neighbour's, or two live blocks
 * overlapped, the contents check fails. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define ROUNDS 300
#define SLOTS 12

static int me, npes, right, left;
static unsigned char *blk[SLOTS];
static size_t len[SLOTS];
static unsigned tag[SLOTS];

static uint32_t rng_state = 12345; /* same seed on every PE: the sequence must be collective */
static uint32_t rng(void) {
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static unsigned char pat(int pe, unsigned t, size_t b) { return (unsigned char)(pe * 7 + t * 13 + b * 5 + (b >> 8)); }

/* The left neighbour writes its pattern into my block s (all of it), through a put. */
static void fill(int s) {
    unsigned char *buf = malloc(len[s]);
    CHECK(buf != NULL, "malloc failed");
    for (size_t b = 0; b < len[s]; b++)
        buf[b] = pat(me, tag[s], b);
    shmem_putmem(blk[s], buf, len[s], right);
    free(buf);
    shmem_barrier_all();
}

static void verify(int s, size_t upto, const char *when) {
    for (size_t b = 0; b < upto; b++)
        CHECK(blk[s][b] == pat(left, tag[s], b), "%s: slot %d (tag %u, %zu bytes) byte %zu is %d, wanted %d", when, s,
              tag[s], len[s], b, blk[s][b], pat(left, tag[s], b));
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    static const size_t sizes[] = {1, 7, 8, 24, 100, 255, 4096, 4097, 10000, 65536, 100003, 300000};

    for (unsigned round = 1; round <= ROUNDS; round++) {
        int s = (int)(rng() % SLOTS);
        unsigned kind = rng() % 4;
        size_t size = sizes[rng() % (sizeof sizes / sizeof sizes[0])];
        if (blk[s] && kind != 3) {
            verify(s, len[s], "before free");
            shmem_free(blk[s]);
            blk[s] = NULL;
            continue;
        }
        if (blk[s]) { /* realloc: the kept prefix must survive */
            verify(s, len[s], "before realloc");
            unsigned char *p = shmem_realloc(blk[s], size);
            CHECK(p != NULL, "shmem_realloc(%zu) failed", size);
            blk[s] = p;
            verify(s, size < len[s] ? size : len[s], "after realloc");
            shmem_barrier_all(); /* an in-place realloc need not synchronise on exit */
        } else if (kind == 0) {
            blk[s] = shmem_malloc(size);
        } else if (kind == 1) {
            blk[s] = shmem_calloc(size, 1);
            CHECK(blk[s] != NULL, "shmem_calloc(%zu) failed", size);
            for (size_t b = 0; b < size; b++)
                CHECK(blk[s][b] == 0, "shmem_calloc(%zu): byte %zu is not zero", size, b);
            shmem_barrier_all(); /* before the neighbour's fill */
        } else {
            size_t align = (size_t)8 << (rng() % 10);
            blk[s] = shmem_align(align, size);
            CHECK(blk[s] != NULL, "shmem_align(%zu, %zu) failed", align, size);
            CHECK((uintptr_t)blk[s] % align == 0, "shmem_align(%zu) gave %p", align, (void *)blk[s]);
        }
        CHECK(blk[s] != NULL, "allocation of %zu bytes failed in round %u", size, round);
        len[s] = size;
        tag[s] = round;
        fill(s);
        verify(s, len[s], "after fill");
    }
    for (int s = 0; s < SLOTS; s++)
        if (blk[s]) {
            verify(s, len[s], "at the end");
            shmem_free(blk[s]);
        }
    if (me == 0)
        printf("%d allocation rounds ok\n", ROUNDS);
    shmem_finalize();
    return 0;
}
