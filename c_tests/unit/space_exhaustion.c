/* rshmem-test
 * np: 1 2 3 4 8
 * timeout: 30
 */
/* Running out of room in a space, on a 4 KiB space attached to the world and then,
 * concurrently, on a 4 KiB space of the even PEs and one of the odd PEs:
 * - malloc(64) succeeds exactly 4096 / 64 = 64 times (blocks are rounded to 64 bytes)
 *   and then returns NULL, at the same step on every member (each PE checks the count,
 *   and a min/max reduction over the team agrees); the 64 blocks are distinct (each is
 *   filled with its own pattern, all checked afterwards, and a neighbour reads one);
 * - after freeing one block one malloc(64) succeeds again, the next returns NULL;
 * - calloc(space, 4, 256) returns 1024 zeroed bytes over memory that held garbage (the
 *   whole space was one garbage-filled block before) and takes all 1024 bytes: 3072 more
 *   fit, 3136 do not;
 * - calloc whose count * size exceeds sheap_size returns NULL although size alone fits,
 *   calloc(2, 2048) (exactly sheap_size) succeeds, an overflowing count * size returns
 *   NULL, and so do malloc(0) and calloc(0, 8);
 * - shmemx_space_align(space, 256, 10) is 256-aligned, an alignment of one page works,
 *   of two pages (more than a one-page space's alignment), of 4 MiB, and of 3 (not a
 *   power of two) return NULL;
 * Then a 4 MiB world space: shmemx_space_align with 2 MiB gives a 2 MiB-aligned block,
 * 4 MiB gives NULL. A 100-byte space holds exactly 100 bytes (blocks are 64-byte
 * granules, but none may reach past sheap_size).
 * space_exhaustion_debug.c (in c_tests/errors) runs this under SHMEM_DEBUG=1 and checks
 * the "cannot allocate" message. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common.h"

#define SHEAP 4096
#define NBLK (SHEAP / 64)

static int count_in, count_min, count_max; /* reduction buffers (globals are symmetric) */

static shmemx_space_t new_space(size_t size) {
    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = size;
    cfg.num_contexts = 0;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t s = NULL;
    shmemx_space_create(cfg, &s);
    CHECK(s != NULL, "shmemx_space_create gave a NULL handle");
    return s;
}

static void exhaust(shmemx_space_t s, shmem_team_t team, const char *name) {
    int me = shmem_my_pe();
    int n = shmem_team_n_pes(team), r = shmem_team_my_pe(team);
    int right = shmem_team_translate_pe(team, (r + 1) % n, SHMEM_TEAM_WORLD);
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *blk[NBLK + 1];

    /* malloc(64) until NULL. */
    int k = 0;
    for (;;) {
        CHECK(k <= NBLK, "%s: malloc(64) succeeded more than %d times in a %d-byte space", name, NBLK, SHEAP);
        blk[k] = shmemx_space_malloc(s, 64);
        if (blk[k] == NULL)
            break;
        k++;
    }
    CHECK(k == NBLK, "%s: malloc(64) returned NULL after %d blocks, want %d", name, k, NBLK);
    count_in = k;
    CHECK(shmem_int_min_reduce(team, &count_min, &count_in, 1) == 0 &&
              shmem_int_max_reduce(team, &count_max, &count_in, 1) == 0,
          "%s: reductions of the count failed", name);
    CHECK(count_min == NBLK && count_max == NBLK, "%s: members disagree on the step of NULL: min %d, max %d", name,
          count_min, count_max);
    CHECK(shmemx_space_malloc(s, 64) == NULL, "%s: malloc(64) in a full space succeeded on a second try", name);
    CHECK(shmemx_space_malloc(s, 1) == NULL, "%s: malloc(1) in a full space succeeded", name);
    for (int i = 0; i < NBLK; i++)
        memset(blk[i], (unsigned char)(i + 7 * me), 64);
    for (int i = 0; i < NBLK; i++)
        for (int j = 0; j < 64; j++)
            CHECK(blk[i][j] == (unsigned char)(i + 7 * me), "%s: block %d byte %d is %d: blocks overlap", name, i,
                  j, blk[i][j]);
    CHECK(shmem_team_sync(team) == 0, "%s: team sync failed", name);
    unsigned char gv = shmem_uchar_g(blk[NBLK - 1] + 63, right);
    CHECK(gv == (unsigned char)(NBLK - 1 + 7 * right), "%s: last byte of the last block on PE %d is %d, want %d",
          name, right, gv, (unsigned char)(NBLK - 1 + 7 * right));
    CHECK(shmem_team_sync(team) == 0, "%s: team sync failed", name);

    /* Free one, one more fits, then no more. */
    shmemx_space_free(s, blk[17]);
    blk[17] = shmemx_space_malloc(s, 64);
    CHECK(blk[17] != NULL, "%s: malloc(64) after freeing a 64-byte block gave NULL", name);
    CHECK(shmemx_space_malloc(s, 64) == NULL, "%s: a second malloc(64) after freeing one block succeeded", name);
    for (int i = 0; i < NBLK; i++)
        shmemx_space_free(s, blk[i]);

    /* calloc over garbage: the whole space is one block first. */
    unsigned char *all = shmemx_space_malloc(s, SHEAP);
    CHECK(all != NULL, "%s: malloc(%d) in the empty %d-byte space gave NULL", name, SHEAP, SHEAP);
    memset(all, 0xAB, SHEAP);
    shmemx_space_free(s, all);
    unsigned char *c = shmemx_space_calloc(s, 4, 256);
    CHECK(c != NULL, "%s: calloc(4, 256) gave NULL", name);
    for (int i = 0; i < 1024; i++)
        CHECK(c[i] == 0, "%s: calloc(4, 256) byte %d is %#x, not zero", name, i, c[i]);
    CHECK(shmemx_space_malloc(s, SHEAP - 1024 + 64) == NULL,
          "%s: after calloc(4, 256), malloc(%d) succeeded: calloc took less than 1024 bytes", name, SHEAP - 1024 + 64);
    unsigned char *rest = shmemx_space_malloc(s, SHEAP - 1024);
    CHECK(rest != NULL, "%s: after calloc(4, 256), malloc(%d) gave NULL", name, SHEAP - 1024);
    CHECK(rest >= c + 1024 || rest + (SHEAP - 1024) <= c, "%s: calloc block %p and malloc block %p overlap", name,
          (void *)c, (void *)rest);
    /* The whole 1024 bytes are usable remotely. */
    unsigned char pattern[1024];
    for (int i = 0; i < 1024; i++)
        pattern[i] = (unsigned char)(i * 3 + me);
    shmem_putmem(c, pattern, 1024, right);
    shmem_quiet();
    CHECK(shmem_team_sync(team) == 0, "%s: team sync failed", name);
    int left = shmem_team_translate_pe(team, (r + n - 1) % n, SHMEM_TEAM_WORLD);
    for (int i = 0; i < 1024; i++)
        CHECK(c[i] == (unsigned char)(i * 3 + left), "%s: calloc block byte %d is %d after a put from PE %d", name,
              i, c[i], left);
    shmemx_space_free(s, rest);
    shmemx_space_free(s, c);

    /* calloc sizes. */
    CHECK(shmemx_space_calloc(s, 8, 1024) == NULL, "%s: calloc(8, 1024) (8 KiB) succeeded in a 4 KiB space", name);
    CHECK(shmemx_space_calloc(s, 2, SHEAP) == NULL, "%s: calloc(2, %d) succeeded in a %d-byte space", name, SHEAP,
          SHEAP);
    CHECK(shmemx_space_calloc(s, (SIZE_MAX / 2) + 2, 2) == NULL, "%s: calloc whose count * size overflows succeeded",
          name);
    CHECK(shmemx_space_calloc(s, SIZE_MAX, SIZE_MAX) == NULL, "%s: calloc(SIZE_MAX, SIZE_MAX) succeeded", name);
    void *exact = shmemx_space_calloc(s, 2, SHEAP / 2);
    CHECK(exact != NULL, "%s: calloc(2, %d) (exactly sheap_size) gave NULL", name, SHEAP / 2);
    shmemx_space_free(s, exact);
    CHECK(shmemx_space_malloc(s, 0) == NULL, "%s: malloc(0) did not return NULL", name);
    CHECK(shmemx_space_calloc(s, 0, 8) == NULL, "%s: calloc(0, 8) did not return NULL", name);
    CHECK(shmemx_space_malloc(s, SHEAP + 1) == NULL, "%s: malloc(%d) succeeded", name, SHEAP + 1);

    /* Alignment. */
    void *a = shmemx_space_align(s, 256, 10);
    CHECK(a != NULL && (uintptr_t)a % 256 == 0, "%s: shmemx_space_align(256, 10) gave %p", name, a);
    CHECK(shmemx_space_align(s, 2 * (size_t)page, 10) == NULL,
          "%s: shmemx_space_align(2 pages, 10) succeeded in a one-page space", name);
    CHECK(shmemx_space_align(s, 4u << 20, 10) == NULL, "%s: shmemx_space_align(4 MiB, 10) succeeded", name);
    CHECK(shmemx_space_align(s, 3, 10) == NULL, "%s: shmemx_space_align(3, 10) succeeded", name);
    shmemx_space_free(s, a);
    void *p = shmemx_space_align(s, (size_t)page, 10);
    CHECK(p != NULL && (uintptr_t)p % (uintptr_t)page == 0, "%s: shmemx_space_align(page = %ld, 10) gave %p", name,
          page, p);
    shmemx_space_free(s, p);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    /* On the world. */
    shmemx_space_t w = new_space(SHEAP);
    shmemx_space_attach(w);
    exhaust(w, SHMEM_TEAM_WORLD, "world space");
    shmemx_space_detach(w);
    shmemx_space_destroy(w);

    /* On the even team and, at the same time, the odd team. */
    shmem_team_t even = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    CHECK(rc == 0, "even split returned %d", rc);
    if (npes > 1) {
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
        CHECK(rc == 0, "odd split returned %d", rc);
    }
    shmem_team_t mine = me % 2 ? odd : even;
    CHECK(mine != SHMEM_TEAM_INVALID, "not in my parity's team");
    shmemx_space_t t = new_space(SHEAP);
    shmemx_space_attach_team(t, mine);
    exhaust(t, mine, me % 2 ? "odd-team space" : "even-team space");
    shmemx_space_detach_team(t, mine);
    shmemx_space_destroy(t);
    shmem_team_destroy(mine);

    /* A 4 MiB space is 2 MiB-aligned. */
    shmemx_space_t big = new_space(4u << 20);
    shmemx_space_attach(big);
    void *a = shmemx_space_align(big, 2u << 20, 10);
    CHECK(a != NULL && (uintptr_t)a % (2u << 20) == 0, "4 MiB space: shmemx_space_align(2 MiB, 10) gave %p", a);
    CHECK(shmemx_space_align(big, 4u << 20, 10) == NULL, "4 MiB space: shmemx_space_align(4 MiB, 10) succeeded");
    void *b = shmemx_space_align(big, 2u << 20, (2u << 20) + 1);
    CHECK(b == NULL, "4 MiB space: a second 2 MiB-aligned block of 2 MiB + 1 bytes fit next to the first");
    b = shmemx_space_align(big, 2u << 20, 2u << 20);
    CHECK(b != NULL && (uintptr_t)b % (2u << 20) == 0 && b != a,
          "4 MiB space: a 2 MiB-aligned block of 2 MiB next to the first gave %p", b);
    memset(b, 1, 2u << 20);
    shmemx_space_free(big, b);
    shmemx_space_free(big, a);
    shmemx_space_detach(big);
    shmemx_space_destroy(big);

    /* sheap_size is a hard limit even when it is not a multiple of 64: a
     * 100-byte space holds 100 bytes, not 128. */
    shmemx_space_t odd_size = new_space(100);
    shmemx_space_attach(odd_size);
    CHECK(shmemx_space_malloc(odd_size, 101) == NULL, "100-byte space: malloc(101) succeeded");
    void *c = shmemx_space_malloc(odd_size, 100);
    CHECK(c != NULL, "100-byte space: malloc(100) failed");
    shmemx_space_free(odd_size, c);
    c = shmemx_space_malloc(odd_size, 64);
    CHECK(c != NULL, "100-byte space: malloc(64) failed");
    CHECK(shmemx_space_malloc(odd_size, 37) == NULL, "100-byte space: 64 + 37 bytes fit");
    void *d = shmemx_space_malloc(odd_size, 36);
    CHECK(d != NULL, "100-byte space: 64 + 36 bytes did not fit");
    shmemx_space_free(odd_size, d);
    shmemx_space_free(odd_size, c);
    shmemx_space_detach(odd_size);
    shmemx_space_destroy(odd_size);

    shmem_barrier_all();
    if (me == 0)
        printf("space exhaustion ok\n");
    shmem_finalize();
    return 0;
}
