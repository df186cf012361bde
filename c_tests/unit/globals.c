/* rshmem-test
 * np: 1 2 4 8
 * variant: SHMEM_CHECK_BOUNDS=1
 */
/* Global and static variables are symmetric: put/get/p/g/shmem_ptr on a static long,
 * initialised global arrays, a function-local static and large (> 1 page) arrays in
 * .bss and .data. Initial values must survive shmem_init on every PE. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

static long s_long;                              /* .bss */
long g_init[5] = {10, 20, 30, 40, 50};           /* .data */
static double s_double = 2.5;                    /* .data */
static unsigned char big[3 * 65536 + 123];       /* large .bss */
int big_init[4096] = {[0] = 1, [4095] = 7};      /* large .data (16 KiB) */

static long *counter(void) {
    static long c = 5; /* function-local static */
    return &c;
}

static unsigned char pat(int pe, size_t b) { return (unsigned char)(pe * 31 + b * 13 + 7); }

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* Initial values, before any communication. */
    CHECK(s_long == 0, "s_long starts as %ld", s_long);
    for (int i = 0; i < 5; i++)
        CHECK(g_init[i] == 10L * (i + 1), "g_init[%d] starts as %ld", i, g_init[i]);
    CHECK(s_double == 2.5, "s_double starts as %g", s_double);
    CHECK(*counter() == 5, "function static starts as %ld", *counter());
    CHECK(big_init[0] == 1 && big_init[1] == 0 && big_init[4094] == 0 && big_init[4095] == 7,
          "big_init starts wrong");
    for (size_t b = 0; b < sizeof big; b++)
        CHECK(big[b] == 0, "big[%zu] starts as %d", b, big[b]);
    shmem_barrier_all();

    /* Writes to the right neighbour. */
    shmem_long_p(&s_long, 100L + me, right);
    long src[3] = {1000L * me + 1, 1000L * me + 2, 1000L * me + 3};
    shmem_long_put(&g_init[1], src, 3, right);
    shmem_double_p(&s_double, -0.5 * me, right);
    shmem_long_p(counter(), 500L + me, right);
    /* Into big: its start, across the first page boundaries, and its very end. */
    unsigned char bsrc[9000];
    for (size_t b = 0; b < sizeof bsrc; b++)
        bsrc[b] = pat(me, b);
    shmem_putmem(big, bsrc, 100, right);
    shmem_putmem(big + 4000, bsrc + 4000, 5000, right);
    shmem_putmem(big + sizeof big - 300, bsrc, 300, right);
    int isrc[200];
    for (int i = 0; i < 200; i++)
        isrc[i] = me * 10000 + i;
    shmem_int_put(&big_init[3900], isrc, 195, right); /* ends one before the last element */
    shmem_barrier_all();

    CHECK(s_long == 100L + left, "s_long is %ld, wanted %ld", s_long, 100L + left);
    CHECK(g_init[0] == 10 && g_init[4] == 50, "put touched g_init[0] or g_init[4]");
    for (int i = 1; i < 4; i++)
        CHECK(g_init[i] == 1000L * left + i, "g_init[%d] is %ld", i, g_init[i]);
    CHECK(s_double == -0.5 * left, "s_double is %g", s_double);
    CHECK(*counter() == 500L + left, "function static is %ld", *counter());
    for (size_t b = 0; b < sizeof big; b++) {
        unsigned char want = 0;
        if (b < 100 || (b >= 4000 && b < 9000))
            want = pat(left, b);
        else if (b >= sizeof big - 300)
            want = pat(left, b - (sizeof big - 300));
        CHECK(big[b] == want, "big[%zu] is %d, wanted %d", b, big[b], want);
    }
    for (int i = 0; i < 4096; i++) {
        int want = (i >= 3900 && i < 4096 - 1) ? left * 10000 + (i - 3900) : i == 0 ? 1 : i == 4095 ? 7 : 0;
        CHECK(big_init[i] == want, "big_init[%d] is %d, wanted %d", i, big_init[i], want);
    }

    /* Reads from the right neighbour: it holds what I wrote. */
    CHECK(shmem_long_g(&s_long, right) == 100L + me, "shmem_long_g(s_long)");
    CHECK(shmem_long_g(counter(), right) == 500L + me, "shmem_long_g(function static)");
    CHECK(shmem_double_g(&s_double, right) == -0.5 * me, "shmem_double_g(s_double)");
    long gsrc[5];
    shmem_long_get(gsrc, g_init, 5, right);
    CHECK(gsrc[0] == 10 && gsrc[1] == 1000L * me + 1 && gsrc[3] == 1000L * me + 3 && gsrc[4] == 50,
          "shmem_long_get(g_init)");
    unsigned char bgot[5000];
    shmem_getmem(bgot, big + 4000, 5000, right);
    CHECK(memcmp(bgot, bsrc + 4000, 5000) == 0, "shmem_getmem(big) across pages");
    int igot[2];
    shmem_int_get(igot, &big_init[4094], 2, right);
    CHECK(igot[0] == me * 10000 + 194 && igot[1] == 7, "shmem_int_get(big_init end)");

    /* shmem_ptr on globals: loads and stores reach the neighbour's copy. */
    long *rs = shmem_ptr(&s_long, right);
    long *rc = shmem_ptr(counter(), right);
    unsigned char *rb = shmem_ptr(&big[sizeof big - 1], right);
    int *ri = shmem_ptr(&big_init[4095], right);
    CHECK(rs && rc && rb && ri, "shmem_ptr on a global returned NULL");
    CHECK(*rs == 100L + me && *rb == pat(me, 299) && *ri == 7, "load through shmem_ptr");
    shmem_barrier_all();
    *rc = 900L + me;
    shmem_barrier_all();
    CHECK(*counter() == 900L + left, "store through shmem_ptr to a function static");

    shmem_finalize();
    return 0;
}
