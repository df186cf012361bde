/* rshmem-test
 * np: 1 2 4 8
 */
/* The shmem_ctx_* forms of RMA with SHMEM_CTX_DEFAULT: put, get, p, g, iput, iget,
 * put_nbi, get_nbi for the 24 standard RMA types, the sized and mem forms, and
 * shmem_ctx_fence / shmem_ctx_quiet. */
#include <float.h>
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define N 8

#define DEFINE_TEST(NAME, T, MINV, MAXV)                                                        \
    static T NAME##_src[N], NAME##_dst[4 * N];                                                  \
    static void test_##NAME(int me, int right, int left) {                                      \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                    \
        for (int i = 0; i < N; i++)                                                             \
            NAME##_src[i] = VALUE(T, MINV, MAXV, me, i);                                        \
        for (int i = 0; i < 4 * N; i++)                                                         \
            NAME##_dst[i] = (T)99;                                                              \
        shmem_barrier_all();                                                                    \
        T *d = NAME##_dst;                                                                      \
        shmem_ctx_##NAME##_put(ctx, d, NAME##_src, N, right);          /* d[0, N) */            \
        for (int i = 0; i < N; i++)                                                             \
            shmem_ctx_##NAME##_p(ctx, &d[N + i], NAME##_src[i], right); /* d[N, 2N) */          \
        shmem_ctx_##NAME##_iput(ctx, d + 2 * N, NAME##_src, 2, 1, N / 2, right); /* even of d[2N, 3N) */ \
        shmem_ctx_##NAME##_put_nbi(ctx, d + 3 * N, NAME##_src, N, right); /* d[3N, 4N) */       \
        shmem_ctx_quiet(ctx);                                                                   \
        shmem_barrier_all();                                                                    \
        for (int i = 0; i < 4 * N; i++) {                                                       \
            int k = i % N, sect = i / N;                                                        \
            T want = VALUE(T, MINV, MAXV, left, k);                                             \
            if (sect == 2)                                                                      \
                want = (k % 2 == 0) ? VALUE(T, MINV, MAXV, left, k / 2) : (T)99;                \
            CHECK(d[i] == want, "shmem_ctx_" #NAME ": element %d of section %d", k, sect);      \
        }                                                                                       \
        T got[2 * N];                                                                           \
        shmem_ctx_##NAME##_get(ctx, got, NAME##_src, N, right);                                 \
        for (int i = 0; i < N; i++)                                                             \
            CHECK(got[i] == VALUE(T, MINV, MAXV, right, i), "shmem_ctx_" #NAME "_get: element %d", i); \
        for (int i = 0; i < N; i++)                                                             \
            CHECK(shmem_ctx_##NAME##_g(ctx, &NAME##_src[i], left) == VALUE(T, MINV, MAXV, left, i), \
                  "shmem_ctx_" #NAME "_g: element %d", i);                                      \
        for (int i = 0; i < 2 * N; i++)                                                         \
            got[i] = (T)99;                                                                     \
        shmem_ctx_##NAME##_iget(ctx, got, NAME##_src, 2, 1, N, right);                          \
        for (int i = 0; i < 2 * N; i++)                                                         \
            CHECK(got[i] == (i % 2 ? (T)99 : VALUE(T, MINV, MAXV, right, i / 2)),               \
                  "shmem_ctx_" #NAME "_iget: element %d", i);                                   \
        shmem_ctx_##NAME##_get_nbi(ctx, got, NAME##_src, N, left);                              \
        shmem_ctx_quiet(ctx);                                                                   \
        for (int i = 0; i < N; i++)                                                             \
            CHECK(got[i] == VALUE(T, MINV, MAXV, left, i), "shmem_ctx_" #NAME "_get_nbi: element %d", i); \
        shmem_barrier_all();                                                                    \
    }
RMA_TYPES(DEFINE_TEST)

/* Sized and mem forms, on bytes. */
typedef void (*ctx_rma_fn)(shmem_ctx_t, void *, const void *, size_t, int);
typedef void (*ctx_strided_fn)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
struct sized {
    const char *name;
    size_t size;
    ctx_rma_fn put, get, put_nbi, get_nbi;
    ctx_strided_fn iput, iget;
};
static const struct sized forms[] = {
    {"8", 1, shmem_ctx_put8, shmem_ctx_get8, shmem_ctx_put8_nbi, shmem_ctx_get8_nbi, shmem_ctx_iput8, shmem_ctx_iget8},
    {"16", 2, shmem_ctx_put16, shmem_ctx_get16, shmem_ctx_put16_nbi, shmem_ctx_get16_nbi, shmem_ctx_iput16,
     shmem_ctx_iget16},
    {"32", 4, shmem_ctx_put32, shmem_ctx_get32, shmem_ctx_put32_nbi, shmem_ctx_get32_nbi, shmem_ctx_iput32,
     shmem_ctx_iget32},
    {"64", 8, shmem_ctx_put64, shmem_ctx_get64, shmem_ctx_put64_nbi, shmem_ctx_get64_nbi, shmem_ctx_iput64,
     shmem_ctx_iget64},
    {"128", 16, shmem_ctx_put128, shmem_ctx_get128, shmem_ctx_put128_nbi, shmem_ctx_get128_nbi, shmem_ctx_iput128,
     shmem_ctx_iget128},
    {"mem", 1, shmem_ctx_putmem, shmem_ctx_getmem, shmem_ctx_putmem_nbi, shmem_ctx_getmem_nbi, NULL, NULL},
};
static unsigned char bsrc[N * 16], bdst[4 * N * 16];
static unsigned char pat(int pe, size_t b) { return (unsigned char)(pe * 29 + b * 5 + 1); }

static void test_sized(const struct sized *s, int right, int left) {
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    size_t len = N * s->size;
    memset(bdst, 0xEE, sizeof bdst);
    shmem_barrier_all();
    s->put(ctx, bdst, bsrc, N, right);
    s->put_nbi(ctx, bdst + len, bsrc, N, right);
    if (s->iput)
        s->iput(ctx, bdst + 2 * len, bsrc, 2, 1, N / 2, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (size_t b = 0; b < 3 * len; b++) {
        size_t sect = b / len, off = b % len, el = off / s->size;
        int want = pat(left, off);
        if (sect == 2)
            want = !s->iput ? 0xEE : (el % 2 == 0) ? pat(left, (el / 2) * s->size + off % s->size) : 0xEE;
        CHECK(bdst[b] == want, "shmem_ctx_*%s: section %zu byte %zu", s->name, sect, off);
    }
    unsigned char got[2 * N * 16];
    memset(got, 0xEE, sizeof got);
    s->get(ctx, got, bsrc, N, right);
    s->get_nbi(ctx, got + len, bsrc, N, left);
    shmem_ctx_quiet(ctx);
    for (size_t b = 0; b < len; b++) {
        CHECK(got[b] == pat(right, b), "shmem_ctx_get%s: byte %zu", s->name, b);
        CHECK(got[len + b] == pat(left, b), "shmem_ctx_get%s_nbi: byte %zu", s->name, b);
    }
    if (s->iget) {
        memset(got, 0xEE, sizeof got);
        s->iget(ctx, got, bsrc, 1, 2, N / 2, right);
        for (size_t b = 0; b < len; b++) {
            size_t el = b / s->size;
            int want = el < N / 2 ? pat(right, 2 * el * s->size + b % s->size) : 0xEE;
            CHECK(got[b] == want, "shmem_ctx_iget%s: byte %zu", s->name, b);
        }
    }
    shmem_barrier_all();
}

static long data[4], flag;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
#define RUN_TEST(NAME, T, MINV, MAXV) test_##NAME(me, right, left);
    RMA_TYPES(RUN_TEST)
    for (size_t b = 0; b < sizeof bsrc; b++)
        bsrc[b] = pat(me, b);
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
        test_sized(&forms[f], right, left);

    /* shmem_ctx_fence orders a put before the flag put. */
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        shmem_ctx_long_p(SHMEM_CTX_DEFAULT, &data[i], 10L * me + i, right);
    shmem_ctx_fence(SHMEM_CTX_DEFAULT);
    shmem_ctx_long_p(SHMEM_CTX_DEFAULT, &flag, 1, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < 4; i++)
        CHECK(data[i] == 10L * left + i, "data before the fenced flag: element %d is %ld", i, data[i]);

    if (me == 0)
        printf("ctx forms ok\n");
    shmem_finalize();
    return 0;
}
