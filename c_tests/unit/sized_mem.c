/* rshmem-test
 * np: 1 2 4 8
 */
/* Sized and untyped RMA: shmem_putN / getN / putN_nbi / getN_nbi for N in 8..128 and
 * shmem_putmem / getmem / putmem_nbi / getmem_nbi, including a 1 MiB transfer. */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define N 24
typedef void (*rma_fn)(void *, const void *, size_t, int);
struct sized {
    const char *name;
    size_t size;
    rma_fn put, get, put_nbi, get_nbi;
};
static const struct sized forms[] = {
    {"8", 1, shmem_put8, shmem_get8, shmem_put8_nbi, shmem_get8_nbi},
    {"16", 2, shmem_put16, shmem_get16, shmem_put16_nbi, shmem_get16_nbi},
    {"32", 4, shmem_put32, shmem_get32, shmem_put32_nbi, shmem_get32_nbi},
    {"64", 8, shmem_put64, shmem_get64, shmem_put64_nbi, shmem_get64_nbi},
    {"128", 16, shmem_put128, shmem_get128, shmem_put128_nbi, shmem_get128_nbi},
    {"mem", 1, shmem_putmem, shmem_getmem, shmem_putmem_nbi, shmem_getmem_nbi},
};

static unsigned char pat(int pe, size_t byte) { return (unsigned char)(pe * 53 + byte * 7 + 3); }

/* Checks bytes [0, len) of buf: [from, to) hold pe's pattern at the same offset, the rest 0xEE. */
static void check_bytes(const unsigned char *buf, size_t len, size_t from, size_t to, int pe, const char *what) {
    for (size_t b = 0; b < len; b++) {
        unsigned char want = (b >= from && b < to) ? pat(pe, b) : 0xEE;
        CHECK(buf[b] == want, "%s: byte %zu is %d, wanted %d", what, b, buf[b], want);
    }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t cap = N * 16;
    unsigned char *src = shmem_malloc(cap), *dst = shmem_malloc(cap);
    CHECK(src && dst, "shmem_malloc failed");
    for (size_t b = 0; b < cap; b++)
        src[b] = pat(me, b);

    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        const struct sized *s = &forms[f];
        size_t sz = s->size, len = N * sz;
        char what[64];
        for (int nbi = 0; nbi < 2; nbi++) {
            /* put elements [1, N-2) to the right neighbour */
            memset(dst, 0xEE, cap);
            shmem_barrier_all();
            rma_fn put = nbi ? s->put_nbi : s->put;
            put(dst + sz, src + sz, N - 3, right);
            put(dst, src, 0, right);
            if (nbi)
                shmem_quiet();
            shmem_barrier_all();
            snprintf(what, sizeof what, "shmem_put%s%s", s->name, nbi ? "_nbi" : "");
            check_bytes(dst, len, sz, (N - 2) * sz, left, what);

            /* get elements [2, N-1) of the right neighbour's source */
            unsigned char got[N * 16];
            memset(got, 0xEE, sizeof got);
            rma_fn get = nbi ? s->get_nbi : s->get;
            get(got + 2 * sz, src + 2 * sz, N - 3, right);
            if (nbi)
                shmem_quiet();
            snprintf(what, sizeof what, "shmem_get%s%s", s->name, nbi ? "_nbi" : "");
            check_bytes(got, len, 2 * sz, (N - 1) * sz, right, what);
        }
    }

    /* A large transfer, at an odd offset. */
    size_t big = (size_t)1 << 20;
    unsigned char *bsrc = shmem_malloc(big + 1), *bdst = shmem_malloc(big + 1);
    CHECK(bsrc && bdst, "shmem_malloc of 1 MiB failed");
    for (size_t b = 0; b < big + 1; b++)
        bsrc[b] = pat(me, b);
    memset(bdst, 0xEE, big + 1);
    shmem_barrier_all();
    shmem_putmem(bdst + 1, bsrc + 1, big, right);
    shmem_barrier_all();
    check_bytes(bdst, big + 1, 1, big + 1, left, "shmem_putmem (1 MiB)");
    unsigned char *bgot = malloc(big);
    CHECK(bgot != NULL, "malloc failed");
    shmem_getmem_nbi(bgot, bsrc, big, right);
    shmem_quiet();
    for (size_t b = 0; b < big; b++)
        CHECK(bgot[b] == pat(right, b), "shmem_getmem_nbi (1 MiB): byte %zu", b);
    free(bgot);

    shmem_free(bdst);
    shmem_free(bsrc);
    shmem_free(dst);
    shmem_free(src);
    if (me == 0)
        printf("sized and mem RMA ok\n");
    shmem_finalize();
    return 0;
}
