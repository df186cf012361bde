/* rshmem-test
 * np: 1 2
 * cflags: -std=c11
 */
/* Every C11 generic macro of shmem.h, without a context and with a context
 * (SHMEM_CTX_DEFAULT and a created one) where a context form exists, over the distinct
 * base C types each family takes: RMA (put, get, p, g, iput, iget, put_nbi, get_nbi,
 * ibput, ibget, put_signal, put_signal_nbi) on int, long, long long, unsigned int,
 * unsigned long, unsigned long long, float, double; the standard and extended atomics
 * (incl. _nbi) on the integer types and float/double; the bitwise atomics (incl. _nbi) on
 * int, long and the unsigned types; the deprecated generic atomics (shmem_fetch, set, swap,
 * cswap, finc, inc, fadd, add); and the point-to-point macros (wait_until, test,
 * wait_until_all/any/some(+_vector), test_all/any/some(+_vector)). Every result is
 * checked exactly. Each PE writes to its right neighbour and checks what its left
 * neighbour wrote. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define N 8

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "this test needs C11"
#endif

/* mode 0: no context argument; 1: SHMEM_CTX_DEFAULT; 2: a created context. */
static int use_ctx;
static shmem_ctx_t ctx;
static const char *mode_name;
static int me, npes, right, left;

/* Calls a generic macro with or without the context. */
#define G(fn, ...) (use_ctx ? fn(ctx, __VA_ARGS__) : fn(__VA_ARGS__))

static void quiet(void) {
    if (use_ctx)
        shmem_ctx_quiet(ctx);
    else
        shmem_quiet();
}

/* Exactly representable in float and every integer type. */
#define V(T, pe, i) ((T)((pe) * 100 + (i) + 1))

static uint64_t sig1, sig2;

/* ---------------- RMA ---------------- */
#define RMA_GENERIC_TYPES(X)                                                                                    \
    X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int) X(ulong, unsigned long)            \
        X(ulonglong, unsigned long long) X(float, float) X(double, double)

#define DEFINE_RMA(NAME, T)                                                                                       \
    static T NAME##_src[N], NAME##_dst[7 * N];                                                                    \
    static void rma_##NAME(void) {                                                                                \
        T *s = NAME##_src, *d = NAME##_dst;                                                                       \
        for (int i = 0; i < N; i++)                                                                               \
            s[i] = V(T, me, i);                                                                                   \
        for (int i = 0; i < 7 * N; i++)                                                                           \
            d[i] = (T)99;                                                                                         \
        sig1 = sig2 = 0;                                                                                          \
        shmem_barrier_all();                                                                                      \
        G(shmem_put, d, s, N, right);                        /* section 0 */                                      \
        G(shmem_put_nbi, d + N, s, N, right);                /* section 1 */                                      \
        for (int i = 0; i < N; i++)                                                                               \
            G(shmem_p, d + 2 * N + i, s[i], right);          /* section 2 */                                      \
        G(shmem_iput, d + 3 * N, s, 2, 1, N / 2, right);     /* section 3: even slots */                          \
        G(shmem_ibput, d + 4 * N, s, 4, 3, 2, 2, right);     /* section 4: s[0,1]->[0,1], s[3,4]->[4,5] */        \
        quiet();                                                                                                  \
        G(shmem_put_signal, d + 5 * N, s, N, &sig1, 7, SHMEM_SIGNAL_SET, right);                                  \
        G(shmem_put_signal_nbi, d + 6 * N, s, N / 2, &sig2, 3, SHMEM_SIGNAL_ADD, right);                          \
        G(shmem_put_signal_nbi, d + 6 * N + N / 2, s + N / 2, N / 2, &sig2, 4, SHMEM_SIGNAL_ADD, right);          \
        quiet();                                                                                                  \
        uint64_t sv = shmem_signal_wait_until(&sig1, SHMEM_CMP_EQ, 7);                                            \
        CHECK(sv == 7, "%s " #NAME ": shmem_put_signal signal %llu", mode_name, (unsigned long long)sv);          \
        sv = shmem_signal_wait_until(&sig2, SHMEM_CMP_EQ, 7);                                                     \
        CHECK(sv == 7, "%s " #NAME ": shmem_put_signal_nbi signal %llu", mode_name, (unsigned long long)sv);      \
        shmem_barrier_all();                                                                                      \
        static const char *sect[7] = {"shmem_put",   "shmem_put_nbi",    "shmem_p",                               \
                                      "shmem_iput",  "shmem_ibput",      "shmem_put_signal",                      \
                                      "shmem_put_signal_nbi"};                                                    \
        for (int k = 0; k < 7 * N; k++) {                                                                         \
            int sc = k / N, i = k % N;                                                                            \
            T want = V(T, left, i);                                                                               \
            if (sc == 3)                                                                                          \
                want = i % 2 == 0 ? V(T, left, i / 2) : (T)99;                                                    \
            if (sc == 4)                                                                                          \
                want = i < 2 ? V(T, left, i) : (i == 4 || i == 5) ? V(T, left, i - 1) : (T)99;                    \
            CHECK(d[k] == want, "%s " #NAME ": %s element %d is %g, want %g", mode_name, sect[sc], i,             \
                  (double)d[k], (double)want);                                                                    \
        }                                                                                                         \
        T got[2 * N];                                                                                             \
        for (int i = 0; i < 2 * N; i++)                                                                           \
            got[i] = (T)99;                                                                                       \
        G(shmem_get, got, s, N, right);                                                                           \
        for (int i = 0; i < N; i++)                                                                               \
            CHECK(got[i] == V(T, right, i), "%s " #NAME ": shmem_get element %d is %g", mode_name, i,             \
                  (double)got[i]);                                                                                \
        for (int i = 0; i < 2 * N; i++)                                                                           \
            got[i] = (T)99;                                                                                       \
        G(shmem_get_nbi, got, s, N, right);                                                                       \
        quiet();                                                                                                  \
        for (int i = 0; i < N; i++)                                                                               \
            CHECK(got[i] == V(T, right, i), "%s " #NAME ": shmem_get_nbi element %d is %g", mode_name, i,         \
                  (double)got[i]);                                                                                \
        for (int i = 0; i < N; i++) {                                                                             \
            T g = G(shmem_g, &s[i], right);                                                                       \
            CHECK(g == V(T, right, i), "%s " #NAME ": shmem_g element %d is %g", mode_name, i, (double)g);        \
        }                                                                                                         \
        for (int i = 0; i < 2 * N; i++)                                                                           \
            got[i] = (T)99;                                                                                       \
        G(shmem_iget, got, s, 2, 1, N, right);                                                                    \
        for (int i = 0; i < 2 * N; i++) {                                                                         \
            T want = i % 2 == 0 ? V(T, right, i / 2) : (T)99;                                                     \
            CHECK(got[i] == want, "%s " #NAME ": shmem_iget element %d is %g, want %g", mode_name, i,             \
                  (double)got[i], (double)want);                                                                  \
        }                                                                                                         \
        for (int i = 0; i < 2 * N; i++)                                                                           \
            got[i] = (T)99;                                                                                       \
        G(shmem_ibget, got, s, 4, 3, 2, 2, right); /* s[0,1]->got[0,1], s[3,4]->got[4,5] */                      \
        for (int i = 0; i < 2 * N; i++) {                                                                         \
            T want = i < 2 ? V(T, right, i) : (i == 4 || i == 5) ? V(T, right, i - 1) : (T)99;                   \
            CHECK(got[i] == want, "%s " #NAME ": shmem_ibget element %d is %g, want %g", mode_name, i,            \
                  (double)got[i], (double)want);                                                                  \
        }                                                                                                         \
        shmem_barrier_all();                                                                                      \
    }
RMA_GENERIC_TYPES(DEFINE_RMA)

/* ---------------- Atomics ---------------- */
#define AMO_CHECK(NAME, what, got, want)                                                                         \
    CHECK((got) == (want), "%s " #NAME ": %s gave %g, want %g", mode_name, what, (double)(got), (double)(want))

/* Each PE's x is changed only by its left neighbour, so every fetched value is known. */
#define AMO_STD_TYPES(X)                                                                                          \
    X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int) X(ulong, unsigned long)              \
        X(ulonglong, unsigned long long)

#define DEFINE_AMO_STD(NAME, T)                                                                                   \
    static T NAME##_x;                                                                                            \
    static void amo_std_##NAME(void) {                                                                            \
        T *x = &NAME##_x, f = (T)0;                                                                               \
        *x = (T)0;                                                                                                \
        shmem_barrier_all();                                                                                      \
        G(shmem_atomic_set, x, (T)10, right);                                                                     \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_fetch", G(shmem_atomic_fetch, x, right), (T)10);                            \
        AMO_CHECK(NAME, "shmem_atomic_swap", G(shmem_atomic_swap, x, (T)20, right), (T)10);                       \
        AMO_CHECK(NAME, "shmem_atomic_compare_swap (match)", G(shmem_atomic_compare_swap, x, (T)20, (T)30, right), \
                  (T)20);                                                                                         \
        AMO_CHECK(NAME, "shmem_atomic_compare_swap (no match)",                                                   \
                  G(shmem_atomic_compare_swap, x, (T)20, (T)40, right), (T)30);                                   \
        AMO_CHECK(NAME, "shmem_atomic_fetch_inc", G(shmem_atomic_fetch_inc, x, right), (T)30);                    \
        G(shmem_atomic_inc, x, right);                                                                            \
        AMO_CHECK(NAME, "shmem_atomic_fetch_add", G(shmem_atomic_fetch_add, x, (T)5, right), (T)32);              \
        G(shmem_atomic_add, x, (T)3, right);                                                                      \
        G(shmem_atomic_fetch_nbi, &f, x, right);                                                                  \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_fetch_nbi", f, (T)40);                                                      \
        G(shmem_atomic_swap_nbi, &f, x, (T)50, right);                                                            \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_swap_nbi", f, (T)40);                                                       \
        G(shmem_atomic_compare_swap_nbi, &f, x, (T)50, (T)60, right);                                             \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_compare_swap_nbi", f, (T)50);                                               \
        G(shmem_atomic_fetch_inc_nbi, &f, x, right);                                                              \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_fetch_inc_nbi", f, (T)60);                                                  \
        G(shmem_atomic_fetch_add_nbi, &f, x, (T)9, right);                                                        \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_fetch_add_nbi", f, (T)61);                                                  \
        shmem_barrier_all();                                                                                      \
        AMO_CHECK(NAME, "the final value written by the left PE", *x, (T)70);                                     \
        shmem_barrier_all();                                                                                      \
    }
AMO_STD_TYPES(DEFINE_AMO_STD)

#define AMO_FLOAT_TYPES(X) X(float, float) X(double, double)
#define DEFINE_AMO_EXT(NAME, T)                                                                                   \
    static T NAME##_x;                                                                                            \
    static void amo_ext_##NAME(void) {                                                                            \
        T *x = &NAME##_x, f = (T)0;                                                                               \
        *x = (T)0;                                                                                                \
        shmem_barrier_all();                                                                                      \
        G(shmem_atomic_set, x, (T)1.5, right);                                                                    \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_fetch", G(shmem_atomic_fetch, x, right), (T)1.5);                           \
        AMO_CHECK(NAME, "shmem_atomic_swap", G(shmem_atomic_swap, x, (T)-2.25, right), (T)1.5);                   \
        G(shmem_atomic_fetch_nbi, &f, x, right);                                                                  \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_fetch_nbi", f, (T)-2.25);                                                   \
        G(shmem_atomic_swap_nbi, &f, x, (T)1e6, right);                                                           \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_swap_nbi", f, (T)-2.25);                                                    \
        shmem_barrier_all();                                                                                      \
        AMO_CHECK(NAME, "the final value written by the left PE", *x, (T)1e6);                                    \
        shmem_barrier_all();                                                                                      \
    }
AMO_FLOAT_TYPES(DEFINE_AMO_EXT)

#define AMO_BIT_TYPES(X) X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int, int) X(long, long)
#define DEFINE_AMO_BIT(NAME, T)                                                                                   \
    static T NAME##_b;                                                                                            \
    static void amo_bit_##NAME(void) {                                                                            \
        T *x = &NAME##_b, f = (T)0;                                                                               \
        *x = (T)0xF0;                                                                                             \
        shmem_barrier_all();                                                                                      \
        AMO_CHECK(NAME, "shmem_atomic_fetch_and", G(shmem_atomic_fetch_and, x, (T)0x3C, right), (T)0xF0);         \
        G(shmem_atomic_and, x, (T)0x10, right);                                                                   \
        AMO_CHECK(NAME, "shmem_atomic_fetch_or", G(shmem_atomic_fetch_or, x, (T)0x03, right), (T)0x10);           \
        G(shmem_atomic_or, x, (T)0x40, right);                                                                    \
        AMO_CHECK(NAME, "shmem_atomic_fetch_xor", G(shmem_atomic_fetch_xor, x, (T)0x11, right), (T)0x53);         \
        G(shmem_atomic_xor, x, (T)0x02, right);                                                                   \
        G(shmem_atomic_fetch_and_nbi, &f, x, (T)0xC0, right);                                                     \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_fetch_and_nbi", f, (T)0x40);                                                \
        G(shmem_atomic_fetch_or_nbi, &f, x, (T)0x01, right);                                                      \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_fetch_or_nbi", f, (T)0x40);                                                 \
        G(shmem_atomic_fetch_xor_nbi, &f, x, (T)0x40, right);                                                     \
        quiet();                                                                                                  \
        AMO_CHECK(NAME, "shmem_atomic_fetch_xor_nbi", f, (T)0x41);                                                \
        shmem_barrier_all();                                                                                      \
        AMO_CHECK(NAME, "the final value written by the left PE", *x, (T)0x01);                                   \
        shmem_barrier_all();                                                                                      \
    }
AMO_BIT_TYPES(DEFINE_AMO_BIT)

/* Deprecated generic atomics (no context forms). */
#define DEP_SWAP_TYPES(X) X(float, float) X(double, double) X(int, int) X(long, long) X(longlong, long long)
#define DEFINE_DEP_SWAP(NAME, T)                                                                                  \
    static T NAME##_dx;                                                                                           \
    static void dep_swap_##NAME(void) {                                                                           \
        T *x = &NAME##_dx;                                                                                        \
        *x = (T)0;                                                                                                \
        shmem_barrier_all();                                                                                      \
        shmem_set(x, (T)4, right);                                                                                \
        shmem_quiet();                                                                                            \
        AMO_CHECK(NAME, "shmem_fetch", shmem_fetch(x, right), (T)4);                                              \
        AMO_CHECK(NAME, "shmem_swap", shmem_swap(x, (T)8, right), (T)4);                                          \
        shmem_barrier_all();                                                                                      \
        AMO_CHECK(NAME, "shmem_swap result", *x, (T)8);                                                           \
        shmem_barrier_all();                                                                                      \
    }
DEP_SWAP_TYPES(DEFINE_DEP_SWAP)

#define DEP_INT_TYPES(X) X(int, int) X(long, long) X(longlong, long long)
#define DEFINE_DEP_INT(NAME, T)                                                                                   \
    static T NAME##_dy;                                                                                           \
    static void dep_int_##NAME(void) {                                                                            \
        T *x = &NAME##_dy;                                                                                        \
        *x = (T)0;                                                                                                \
        shmem_barrier_all();                                                                                      \
        AMO_CHECK(NAME, "shmem_cswap (match)", shmem_cswap(x, (T)0, (T)5, right), (T)0);                          \
        AMO_CHECK(NAME, "shmem_cswap (no match)", shmem_cswap(x, (T)0, (T)6, right), (T)5);                       \
        AMO_CHECK(NAME, "shmem_finc", shmem_finc(x, right), (T)5);                                                \
        shmem_inc(x, right);                                                                                      \
        AMO_CHECK(NAME, "shmem_fadd", shmem_fadd(x, (T)10, right), (T)7);                                         \
        shmem_add(x, (T)-3, right);                                                                               \
        shmem_quiet();                                                                                            \
        shmem_barrier_all();                                                                                      \
        AMO_CHECK(NAME, "shmem_cswap/finc/inc/fadd/add result", *x, (T)14);                                       \
        shmem_barrier_all();                                                                                      \
    }
DEP_INT_TYPES(DEFINE_DEP_INT)

/* ---------------- Point-to-point synchronisation ---------------- */
/* The left neighbour stores 1, 2, 3, 4 into ivars[0..3] with shmem_atomic_set; this PE
 * waits for and tests them with every generic wait/test macro. */
/* The set of indices a _some routine returned, as a bit mask (each index at most once). */
static unsigned mask(const size_t *idx, size_t n) {
    unsigned m = 0;
    for (size_t i = 0; i < n; i++) {
        if (idx[i] >= 4 || (m & (1u << idx[i])))
            return 0x100; /* out of range or repeated */
        m |= 1u << idx[i];
    }
    return m;
}

#define DEFINE_P2P(NAME, T)                                                                                       \
    static T NAME##_iv[4];                                                                                        \
    static void p2p_##NAME(void) {                                                                                \
        T *iv = NAME##_iv;                                                                                        \
        const T cmpv[4] = {(T)1, (T)2, (T)3, (T)4};                                                               \
        const int excl0[4] = {1, 0, 0, 0};                                                                        \
        size_t idx[4], n;                                                                                         \
        for (int i = 0; i < 4; i++)                                                                               \
            iv[i] = (T)0;                                                                                         \
        CHECK(shmem_test(&iv[0], SHMEM_CMP_EQ, (T)0) == 1, #NAME ": shmem_test on a zero ivar");                  \
        shmem_barrier_all(); /* the left PE writes only after this */                                             \
        for (int i = 3; i >= 0; i--)                                                                              \
            shmem_atomic_set(&iv[i], (T)(i + 1), right);                                                          \
        shmem_quiet();                                                                                            \
        shmem_wait_until(&iv[0], SHMEM_CMP_EQ, (T)1);                                                             \
        CHECK(iv[0] == (T)1, #NAME ": shmem_wait_until returned with ivar %g", (double)iv[0]);                    \
        shmem_wait_until_all(iv, 4, NULL, SHMEM_CMP_GT, (T)0);                                                    \
        for (int i = 0; i < 4; i++)                                                                               \
            CHECK(iv[i] == (T)(i + 1), #NAME ": after shmem_wait_until_all ivar %d is %g", i, (double)iv[i]);     \
        n = shmem_wait_until_any(iv, 4, NULL, SHMEM_CMP_EQ, (T)3);                                                \
        CHECK(n == 2, #NAME ": shmem_wait_until_any returned %zu, want 2", n);                                    \
        n = shmem_wait_until_some(iv, 4, idx, NULL, SHMEM_CMP_GE, (T)2);                                          \
        CHECK(n == 3 && mask(idx, n) == 0xE, #NAME ": shmem_wait_until_some returned %zu (index mask %#x)", n,     \
              mask(idx, n));                                                                                      \
        shmem_wait_until_all_vector(iv, 4, NULL, SHMEM_CMP_EQ, cmpv);                                             \
        n = shmem_wait_until_any_vector(iv, 4, excl0, SHMEM_CMP_EQ, cmpv);                                        \
        CHECK(n >= 1 && n <= 3, #NAME ": shmem_wait_until_any_vector (element 0 excluded) returned %zu", n);      \
        n = shmem_wait_until_some_vector(iv, 4, idx, NULL, SHMEM_CMP_LE, cmpv);                                   \
        CHECK(n == 4 && mask(idx, n) == 0xF, #NAME ": shmem_wait_until_some_vector returned %zu", n);      \
        CHECK(shmem_test(&iv[1], SHMEM_CMP_EQ, (T)2) == 1, #NAME ": shmem_test (true)");                          \
        CHECK(shmem_test(&iv[1], SHMEM_CMP_LT, (T)2) == 0, #NAME ": shmem_test (false)");                         \
        CHECK(shmem_test_all(iv, 4, NULL, SHMEM_CMP_NE, (T)0) == 1, #NAME ": shmem_test_all (true)");             \
        CHECK(shmem_test_all(iv, 4, NULL, SHMEM_CMP_EQ, (T)1) == 0, #NAME ": shmem_test_all (false)");            \
        CHECK(shmem_test_all(iv, 4, excl0, SHMEM_CMP_GE, (T)2) == 1, #NAME ": shmem_test_all with status");       \
        n = shmem_test_any(iv, 4, NULL, SHMEM_CMP_EQ, (T)4);                                                      \
        CHECK(n == 3, #NAME ": shmem_test_any returned %zu, want 3", n);                                          \
        n = shmem_test_any(iv, 4, NULL, SHMEM_CMP_EQ, (T)9);                                                      \
        CHECK(n == SIZE_MAX, #NAME ": shmem_test_any with no match returned %zu, want SIZE_MAX", n);              \
        n = shmem_test_some(iv, 4, idx, NULL, SHMEM_CMP_LE, (T)2);                                                \
        CHECK(n == 2 && mask(idx, n) == 0x3, #NAME ": shmem_test_some returned %zu", n);                   \
        n = shmem_test_some(iv, 4, idx, excl0, SHMEM_CMP_LE, (T)2);                                               \
        CHECK(n == 1 && idx[0] == 1, #NAME ": shmem_test_some with status returned %zu", n);                      \
        CHECK(shmem_test_all_vector(iv, 4, NULL, SHMEM_CMP_EQ, cmpv) == 1, #NAME ": shmem_test_all_vector (true)"); \
        CHECK(shmem_test_all_vector(iv, 4, NULL, SHMEM_CMP_GT, cmpv) == 0,                                        \
              #NAME ": shmem_test_all_vector (false)");                                                           \
        n = shmem_test_any_vector(iv, 4, NULL, SHMEM_CMP_GT, cmpv);                                               \
        CHECK(n == SIZE_MAX, #NAME ": shmem_test_any_vector with no match returned %zu", n);                      \
        n = shmem_test_any_vector(iv, 4, excl0, SHMEM_CMP_EQ, cmpv);                                              \
        CHECK(n >= 1 && n <= 3, #NAME ": shmem_test_any_vector (element 0 excluded) returned %zu", n);            \
        n = shmem_test_some_vector(iv, 4, idx, NULL, SHMEM_CMP_EQ, cmpv);                                         \
        CHECK(n == 4 && mask(idx, n) == 0xF, #NAME ": shmem_test_some_vector returned %zu, want 4", n);                                  \
        n = shmem_test_some_vector(iv, 4, idx, NULL, SHMEM_CMP_NE, cmpv);                                         \
        CHECK(n == 0, #NAME ": shmem_test_some_vector with no match returned %zu, want 0", n);                    \
        shmem_barrier_all();                                                                                      \
    }
AMO_STD_TYPES(DEFINE_P2P)

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    shmem_ctx_t created;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &created) == 0, "shmem_ctx_create");
    static const char *names[3] = {"no ctx", "SHMEM_CTX_DEFAULT", "created ctx"};
    for (int mode = 0; mode < 3; mode++) {
        use_ctx = mode != 0;
        ctx = mode == 2 ? created : SHMEM_CTX_DEFAULT;
        mode_name = names[mode];
#define RUN_RMA(NAME, T) rma_##NAME();
        RMA_GENERIC_TYPES(RUN_RMA)
#define RUN_AMO_STD(NAME, T) amo_std_##NAME();
        AMO_STD_TYPES(RUN_AMO_STD)
#define RUN_AMO_EXT(NAME, T) amo_ext_##NAME();
        AMO_FLOAT_TYPES(RUN_AMO_EXT)
#define RUN_AMO_BIT(NAME, T) amo_bit_##NAME();
        AMO_BIT_TYPES(RUN_AMO_BIT)
    }
    shmem_ctx_destroy(created);

    mode_name = "deprecated";
#define RUN_DEP_SWAP(NAME, T) dep_swap_##NAME();
    DEP_SWAP_TYPES(RUN_DEP_SWAP)
#define RUN_DEP_INT(NAME, T) dep_int_##NAME();
    DEP_INT_TYPES(RUN_DEP_INT)
#define RUN_P2P(NAME, T) p2p_##NAME();
    AMO_STD_TYPES(RUN_P2P)

    shmem_barrier_all();
    if (me == 0)
        printf("generics all ok\n");
    shmem_finalize();
    return 0;
}
