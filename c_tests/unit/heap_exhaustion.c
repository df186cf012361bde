/* rshmem-test
 * np: 1 2 4 8
 * env: SHMEM_SYMMETRIC_SIZE=1M
 */
/* A 1 MiB symmetric heap: requests that do not fit return NULL on every PE (no crash),
 * the heap can be filled with 64 KiB blocks (the same number on every PE), and after
 * freeing them a large block fits again. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define BLOCK (64 * 1024)
#define MAXBLOCKS 64

static int nblocks;
static volatile size_t huge = SIZE_MAX; /* not a constant, so no compile-time size warnings */

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    CHECK(shmem_malloc(2 * 1024 * 1024) == NULL, "shmem_malloc(2 MiB) from a 1 MiB heap is not NULL");
    CHECK(shmem_malloc(huge) == NULL, "shmem_malloc(SIZE_MAX) is not NULL");
    CHECK(shmem_malloc(huge - 4095) == NULL, "shmem_malloc(SIZE_MAX - 4095) is not NULL");
    CHECK(shmem_align(4096, huge - 100) == NULL, "shmem_align(4096, SIZE_MAX - 100) is not NULL");
    CHECK(shmem_calloc(huge / 2, 4) == NULL, "shmem_calloc with an overflowing size is not NULL");

    /* Fill the heap. */
    char *blocks[MAXBLOCKS];
    int n = 0;
    while (n < MAXBLOCKS && (blocks[n] = shmem_malloc(BLOCK)) != NULL)
        n++;
    CHECK(n >= 8 && n <= 16, "%d blocks of 64 KiB fit in a 1 MiB heap", n);
    nblocks = n;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        CHECK(shmem_int_g(&nblocks, pe) == n, "PE %d fit %d blocks, I fit %d", pe, shmem_int_g(&nblocks, pe), n);

    /* Every block is usable remotely, to its last byte. */
    for (int i = 0; i < n; i++) {
        shmem_char_p(&blocks[i][0], (char)(me + i), right);
        shmem_char_p(&blocks[i][BLOCK - 1], (char)(me - i), right);
    }
    shmem_barrier_all();
    for (int i = 0; i < n; i++)
        CHECK(blocks[i][0] == (char)(left + i) && blocks[i][BLOCK - 1] == (char)(left - i), "block %d", i);

    /* Still full: a small request may fit in the remainder, a 64 KiB one does not. */
    CHECK(shmem_malloc(BLOCK) == NULL, "a 64 KiB block fit in the full heap");

    /* Free in a scattered order; the space coalesces again. */
    for (int i = 0; i < n; i += 2)
        shmem_free(blocks[i]);
    for (int i = n - 1; i >= 0; i--)
        if (i % 2 == 1)
            shmem_free(blocks[i]);
    char *half = shmem_malloc(512 * 1024);
    CHECK(half != NULL, "shmem_malloc(512 KiB) failed after freeing everything");
    half[512 * 1024 - 1] = 1;
    shmem_free(half);

    if (me == 0)
        printf("heap exhaustion: %d blocks of 64 KiB, then NULL\n", n);
    shmem_finalize();
    return 0;
}
