/* rshmem-test
 * np: 1 2 4 8
 * cflags: -std=c11
 */
/* The C11 type-generic RMA interfaces (shmem_put, get, p, g, iput, iget, put_nbi,
 * get_nbi), without and with a context argument, over the basic C types and a few
 * typedefs that alias them. */
#include <float.h>
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define N 8
/* name (for messages and variables), C type, lowest, highest */
#define GENERIC_TYPES(X)                                           \
    X(float, float, -FLT_MAX, FLT_MAX)                             \
    X(double, double, -DBL_MAX, DBL_MAX)                           \
    X(longdouble, long double, -LDBL_MAX, LDBL_MAX)                \
    X(char, char, CHAR_MIN, CHAR_MAX)                              \
    X(schar, signed char, SCHAR_MIN, SCHAR_MAX)                    \
    X(short, short, SHRT_MIN, SHRT_MAX)                            \
    X(int, int, INT_MIN, INT_MAX)                                  \
    X(long, long, LONG_MIN, LONG_MAX)                              \
    X(longlong, long long, LLONG_MIN, LLONG_MAX)                   \
    X(uchar, unsigned char, 0, UCHAR_MAX)                          \
    X(ushort, unsigned short, 0, USHRT_MAX)                        \
    X(uint, unsigned int, 0, UINT_MAX)                             \
    X(ulong, unsigned long, 0, ULONG_MAX)                          \
    X(ulonglong, unsigned long long, 0, ULLONG_MAX)                \
    X(int64, int64_t, INT64_MIN, INT64_MAX)                        \
    X(uint32, uint32_t, 0, UINT32_MAX)                             \
    X(size, size_t, 0, SIZE_MAX)                                   \
    X(ptrdiff, ptrdiff_t, PTRDIFF_MIN, PTRDIFF_MAX)

/* Runs the generic calls without (use_ctx 0) or with (1) a leading SHMEM_CTX_DEFAULT. */
#define DEFINE_TEST(NAME, T, MINV, MAXV)                                                        \
    static T NAME##_src[N], NAME##_dst[4 * N];                                                  \
    static void test_##NAME(int use_ctx, int me, int right, int left) {                         \
        T *d = NAME##_dst, *s = NAME##_src;                                                     \
        for (int i = 0; i < N; i++)                                                             \
            s[i] = VALUE(T, MINV, MAXV, me, i);                                                 \
        for (int i = 0; i < 4 * N; i++)                                                         \
            d[i] = (T)99;                                                                       \
        shmem_barrier_all();                                                                    \
        if (use_ctx) {                                                                          \
            shmem_put(SHMEM_CTX_DEFAULT, d, s, N, right);                                       \
            for (int i = 0; i < N; i++)                                                         \
                shmem_p(SHMEM_CTX_DEFAULT, &d[N + i], s[i], right);                             \
            shmem_iput(SHMEM_CTX_DEFAULT, d + 2 * N, s, 2, 1, N / 2, right);                    \
            shmem_put_nbi(SHMEM_CTX_DEFAULT, d + 3 * N, s, N, right);                           \
            shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                 \
        } else {                                                                                \
            shmem_put(d, s, N, right);                                                          \
            for (int i = 0; i < N; i++)                                                         \
                shmem_p(&d[N + i], s[i], right);                                                \
            shmem_iput(d + 2 * N, s, 2, 1, N / 2, right);                                       \
            shmem_put_nbi(d + 3 * N, s, N, right);                                              \
            shmem_quiet();                                                                      \
        }                                                                                       \
        shmem_barrier_all();                                                                    \
        for (int i = 0; i < 4 * N; i++) {                                                       \
            int k = i % N, sect = i / N;                                                        \
            T want = VALUE(T, MINV, MAXV, left, k);                                             \
            if (sect == 2)                                                                      \
                want = (k % 2 == 0) ? VALUE(T, MINV, MAXV, left, k / 2) : (T)99;                \
            CHECK(d[i] == want, "generic %s " #NAME ": section %d element %d",                  \
                  use_ctx ? "ctx" : "plain", sect, k);                                          \
        }                                                                                       \
        T got[2 * N], one;                                                                      \
        for (int i = 0; i < 2 * N; i++)                                                         \
            got[i] = (T)99;                                                                     \
        if (use_ctx) {                                                                          \
            shmem_get(SHMEM_CTX_DEFAULT, got, s, N, right);                                     \
            one = shmem_g(SHMEM_CTX_DEFAULT, &s[3], left);                                      \
            shmem_get_nbi(SHMEM_CTX_DEFAULT, got + N, s + 1, 1, left);                          \
            shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                 \
        } else {                                                                                \
            shmem_get(got, s, N, right);                                                        \
            one = shmem_g(&s[3], left);                                                         \
            shmem_get_nbi(got + N, s + 1, 1, left);                                             \
            shmem_quiet();                                                                      \
        }                                                                                       \
        for (int i = 0; i < N; i++)                                                             \
            CHECK(got[i] == VALUE(T, MINV, MAXV, right, i), "generic get " #NAME ": element %d", i); \
        CHECK(one == VALUE(T, MINV, MAXV, left, 3), "generic g " #NAME);                       \
        CHECK(got[N] == VALUE(T, MINV, MAXV, left, 1), "generic get_nbi " #NAME);              \
        for (int i = 0; i < 2 * N; i++)                                                         \
            got[i] = (T)99;                                                                     \
        if (use_ctx)                                                                            \
            shmem_iget(SHMEM_CTX_DEFAULT, got, s, 2, 1, N, right);                              \
        else                                                                                    \
            shmem_iget(got, s, 2, 1, N, right);                                                 \
        for (int i = 0; i < 2 * N; i++)                                                         \
            CHECK(got[i] == (i % 2 ? (T)99 : VALUE(T, MINV, MAXV, right, i / 2)),               \
                  "generic iget " #NAME ": element %d", i);                                     \
        shmem_barrier_all();                                                                    \
    }
GENERIC_TYPES(DEFINE_TEST)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int use_ctx = 0; use_ctx < 2; use_ctx++) {
#define RUN_TEST(NAME, T, MINV, MAXV) test_##NAME(use_ctx, me, right, left);
        GENERIC_TYPES(RUN_TEST)
    }
    if (me == 0)
        printf("C11 generics ok\n");
    shmem_finalize();
    return 0;
}
