/* rshmem-test
 * np: 1 2 3 4 5 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 */
/* Every deprecated active-set reduction of OpenSHMEM 1.5
 *     void shmem_TYPENAME_OP_to_all(TYPE *dest, const TYPE *source, int nreduce, int PE_start,
 *                                   int logPE_stride, int PE_size, TYPE *pWrk, long *pSync);
 * OP and, or, xor for short int long longlong; max, min for those and float double
 * longdouble; sum, prod for those and complexf complexd: 44 routines (the REDUCTIONS
 * list below), each with nreduce 1, 3, 100 and 5000, out of place and in place
 * (dest == source), on the whole set, the even PEs and the odd PEs (strides 1 and 2).
 * pWrk has exactly max(nreduce/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements.
 *  - dest[0..nreduce) on every member equals the serial fold, in set order, of the
 *    members' sources. The values keep every result exact: small integers and quarters
 *    for sum, factors -1, 1, 2, 1/2 (and i, 1+i for complex) for prod, the type's
 *    extremes among the max/min data, all bits (sign bit included) for and/or/xor.
 *  - dest[nreduce] and, out of place, the source are untouched; PEs outside the set keep
 *    both buffers.
 *  - pSync is all SHMEM_SYNC_VALUE right after return, and after the next
 *    shmem_barrier_all on every PE.
 * One pSync, with a shmem_barrier_all between uses (which the checks need anyway). */
#include <complex.h>
#include <float.h>
#include <limits.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

/* X(TYPENAME, TYPE, OP, KIND, MINV, MAXV): KIND is INT, REAL or CPLX. */
#define INT_LIST(X, OP)                                  \
    X(short, short, OP, INT, SHRT_MIN, SHRT_MAX)         \
    X(int, int, OP, INT, INT_MIN, INT_MAX)               \
    X(long, long, OP, INT, LONG_MIN, LONG_MAX)           \
    X(longlong, long long, OP, INT, LLONG_MIN, LLONG_MAX)
#define REAL_LIST(X, OP)                                        \
    X(float, float, OP, REAL, -FLT_MAX, FLT_MAX)                \
    X(double, double, OP, REAL, -DBL_MAX, DBL_MAX)              \
    X(longdouble, long double, OP, REAL, -LDBL_MAX, LDBL_MAX)
#define CPLX_LIST(X, OP)                                  \
    X(complexf, float _Complex, OP, CPLX, 0, 0)           \
    X(complexd, double _Complex, OP, CPLX, 0, 0)

#define REDUCTIONS(X)                                               \
    INT_LIST(X, and) INT_LIST(X, or) INT_LIST(X, xor)               \
    INT_LIST(X, max) REAL_LIST(X, max)                              \
    INT_LIST(X, min) REAL_LIST(X, min)                              \
    INT_LIST(X, sum) REAL_LIST(X, sum) CPLX_LIST(X, sum)            \
    INT_LIST(X, prod) REAL_LIST(X, prod) CPLX_LIST(X, prod)

/* The serial reference: a OP b. */
#define FOLD_and(a, b) ((a) & (b))
#define FOLD_or(a, b) ((a) | (b))
#define FOLD_xor(a, b) ((a) ^ (b))
#define FOLD_max(a, b) ((a) > (b) ? (a) : (b))
#define FOLD_min(a, b) ((a) < (b) ? (a) : (b))
#define FOLD_sum(a, b) ((a) + (b))
#define FOLD_prod(a, b) ((a) * (b))

static unsigned long long mix(int pe, int i, int salt) {
    unsigned long long x = (unsigned long long)(pe + 1) * 0x9E3779B97F4A7C15ull ^ (unsigned long long)(i + 7) * 0xC2B2AE3D27D4EB4Full ^
                           (unsigned long long)salt * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return x;
}

/* Element i of PE pe's source, per operation and kind. Integer types get the bits of an
 * unsigned value (the conversion wraps, as on every two's complement compiler). */
#define NBITS(T) ((int)(sizeof(T) * CHAR_BIT))
/* and: every bit set but a few; or: a few bits; xor: any bits. */
#define GEN_and_INT(T, MINV, MAXV, pe, i) \
    ((T)~((1ull << (((pe) * 5 + (i)) % NBITS(T))) | (1ull << (mix(pe, i, 1) % NBITS(T)))))
#define GEN_or_INT(T, MINV, MAXV, pe, i) ((T)((1ull << (((pe) * 3 + (i)) % NBITS(T))) | (1ull << (mix(pe, i, 2) % NBITS(T)))))
#define GEN_xor_INT(T, MINV, MAXV, pe, i) ((T)mix(pe, i, 3))
/* max/min: -30..30, with the type's extremes on one PE each for some elements. */
#define EXTREME(T, MINV, MAXV, pe, i, small)            \
    ((i) % 5 == 0 && (pe) == (i) / 5 % 8   ? (T)(MAXV)  \
     : (i) % 5 == 2 && (pe) == (i) / 5 % 8 ? (T)(MINV)  \
                                           : (small))
#define GEN_max_INT(T, MINV, MAXV, pe, i) EXTREME(T, MINV, MAXV, pe, i, (T)((int)(mix(pe, i, 4) % 61) - 30))
#define GEN_min_INT GEN_max_INT
#define GEN_max_REAL(T, MINV, MAXV, pe, i) EXTREME(T, MINV, MAXV, pe, i, (T)((int)(mix(pe, i, 4) % 61) - 30) + (T)0.5)
#define GEN_min_REAL GEN_max_REAL
/* sum: -100..100 (plus a quarter for real and complex types): exact in every order. */
#define SMALL(pe, i, salt) ((int)(mix(pe, i, salt) % 201) - 100)
#define GEN_sum_INT(T, MINV, MAXV, pe, i) ((T)SMALL(pe, i, 5))
#define GEN_sum_REAL(T, MINV, MAXV, pe, i) ((T)SMALL(pe, i, 5) + (T)0.25)
#define GEN_sum_CPLX(T, MINV, MAXV, pe, i) ((T)((double)SMALL(pe, i, 5) + 0.25) + (T)((double)SMALL(pe, i, 6) - 0.75) * (T)I)
/* prod: factors whose products stay small and exact (at most 2^8 with 8 PEs). */
#define GEN_prod_INT(T, MINV, MAXV, pe, i) ((T)(((int)(mix(pe, i, 7) % 4) == 0) ? -1 : ((int)(mix(pe, i, 7) % 4) == 1) ? 2 : 1))
#define GEN_prod_REAL(T, MINV, MAXV, pe, i) \
    ((T)((int)(mix(pe, i, 7) % 5) == 0 ? -1.0 : (int)(mix(pe, i, 7) % 5) == 1 ? 2.0 : (int)(mix(pe, i, 7) % 5) == 2 ? 0.5 : 1.0))
#define GEN_prod_CPLX(T, MINV, MAXV, pe, i)                                                                          \
    ((int)(mix(pe, i, 7) % 6) == 0   ? (T)-1.0                                                                        \
     : (int)(mix(pe, i, 7) % 6) == 1 ? (T)I                                                                           \
     : (int)(mix(pe, i, 7) % 6) == 2 ? (T)1.0 + (T)I                                                                  \
     : (int)(mix(pe, i, 7) % 6) == 3 ? (T)0.5 - (T)0.5 * (T)I                                                         \
     : (int)(mix(pe, i, 7) % 6) == 4 ? (T)2.0                                                                         \
                                     : (T)1.0)

/* Printing a value into a buffer, per kind. */
#define FMT_INT(buf, v) snprintf(buf, sizeof buf, "%lld", (long long)(v))
#define FMT_REAL(buf, v) snprintf(buf, sizeof buf, "%.21Lg", (long double)(v))
#define FMT_CPLX(buf, v) snprintf(buf, sizeof buf, "(%.17g, %.17g)", creal((double _Complex)(v)), cimag((double _Complex)(v)))

static const int nreduces[] = {1, 3, 100, 5000};
#define MAXN 5000

typedef struct {
    int start, logstride, size;
} aset;

static int aset_pe(aset s, int k) { return s.start + (k << s.logstride); }

static int aset_index(aset s, int pe) {
    int d = pe - s.start;
    if (d < 0 || (d & ((1 << s.logstride) - 1)) != 0)
        return -1;
    d >>= s.logstride;
    return d < s.size ? d : -1;
}

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static int me, npes, nsets, calls;
static aset sets[3];

static void check_psync(const char *routine, const char *what, int n, int inplace, aset s) {
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        CHECK(psync[i] == SHMEM_SYNC_VALUE, "%s (nreduce %d%s, set %d/%d/%d): pSync[%d] is %ld %s, not SHMEM_SYNC_VALUE", routine, n,
              inplace ? ", in place" : "", s.start, s.logstride, s.size, i, psync[i], what);
}

#define SENTINEL(T) ((T)77)

/* One test function per routine. src and dst have MAXN + 1 elements (the last one a
 * guard); for in place, dst is src. */
#define DEFINE_TEST(N, T, OP, KIND, MINV, MAXV)                                                                                 \
    static void check_##N##_##OP(const T *dst, const T *src, int n, int inplace, aset s, int pass) {                            \
        const char *routine = "shmem_" #N "_" #OP "_to_all";                                                                  \
        char got[96], want[96];                                                                                                 \
        int idx = aset_index(s, me);                                                                                            \
        for (int i = 0; i <= n; i++) {                                                                                          \
            T ref;                                                                                                              \
            if (idx < 0 || i == n) { /* untouched: a source element in place, else the sentinel */                          \
                ref = i < n && inplace ? GEN_##OP##_##KIND(T, MINV, MAXV, me, i) : SENTINEL(T);                                 \
            } else {                                                                                                            \
                ref = GEN_##OP##_##KIND(T, MINV, MAXV, aset_pe(s, 0), i);                                                       \
                for (int k = 1; k < s.size; k++)                                                                                \
                    ref = FOLD_##OP(ref, GEN_##OP##_##KIND(T, MINV, MAXV, aset_pe(s, k), i));                                   \
            }                                                                                                                   \
            if (!(dst[i] == ref)) {                                                                                             \
                FMT_##KIND(got, dst[i]);                                                                                        \
                FMT_##KIND(want, ref);                                                                                          \
                CHECK(0, "%s (nreduce %d%s, set %d/%d/%d, %s): dest[%d] is %s, want %s%s", routine, n, inplace ? ", in place" : "", \
                      s.start, s.logstride, s.size, pass ? "after the next barrier" : "right after return", i, got, want,          \
                      idx < 0 ? " (unchanged: outside the set)" : i == n ? " (unchanged: past nreduce)" : "");                  \
            }                                                                                                                   \
            if (!inplace && i < n)                                                                                              \
                CHECK(src[i] == GEN_##OP##_##KIND(T, MINV, MAXV, me, i), "%s (nreduce %d): source[%d] changed", routine, n, i); \
        }                                                                                                                       \
    }                                                                                                                           \
    static void test_##N##_##OP(void) {                                                                                         \
        const char *routine = "shmem_" #N "_" #OP "_to_all";                                                                  \
        T *src = shmem_malloc((MAXN + 1) * sizeof(T));                                                                          \
        T *out = shmem_malloc((MAXN + 1) * sizeof(T));                                                                          \
        CHECK(src != NULL && out != NULL, "%s: shmem_malloc failed", routine);                                                  \
        for (int z = 0; z < 4; z++) {                                                                                           \
            int n = nreduces[z];                                                                                                \
            size_t nwrk = (size_t)(n / 2 + 1) > (size_t)SHMEM_REDUCE_MIN_WRKDATA_SIZE ? (size_t)(n / 2 + 1)                     \
                                                                                       : (size_t)SHMEM_REDUCE_MIN_WRKDATA_SIZE; \
            T *wrk = shmem_malloc(nwrk * sizeof(T));                                                                            \
            CHECK(wrk != NULL, "%s: shmem_malloc of pWrk failed", routine);                                                     \
            for (int si = 0; si < nsets; si++) {                                                                                \
                aset s = sets[si];                                                                                              \
                int idx = aset_index(s, me);                                                                                    \
                for (int inplace = 0; inplace < 2; inplace++) {                                                                 \
                    T *dst = inplace ? src : out;                                                                               \
                    for (int i = 0; i < n; i++) {                                                                               \
                        src[i] = GEN_##OP##_##KIND(T, MINV, MAXV, me, i);                                                       \
                        out[i] = SENTINEL(T);                                                                                   \
                    }                                                                                                           \
                    src[n] = out[n] = SENTINEL(T);                                                                              \
                    shmem_barrier_all(); /* every dest is ready */                                                              \
                    if (idx >= 0) {                                                                                             \
                        shmem_##N##_##OP##_to_all(dst, src, n, s.start, s.logstride, s.size, wrk, psync);                       \
                        check_psync(routine, "right after return", n, inplace, s);                                              \
                        check_##N##_##OP(dst, src, n, inplace, s, 0);                                                           \
                    }                                                                                                           \
                    calls++;                                                                                                    \
                    shmem_barrier_all();                                                                                        \
                    check_##N##_##OP(dst, src, n, inplace, s, 1);                                                               \
                    check_psync(routine, "after the next shmem_barrier_all", n, inplace, s);                                    \
                }                                                                                                               \
            }                                                                                                                   \
            shmem_free(wrk);                                                                                                    \
        }                                                                                                                       \
        shmem_free(out);                                                                                                        \
        shmem_free(src);                                                                                                        \
    }
REDUCTIONS(DEFINE_TEST)

#define CALL_TEST(N, T, OP, KIND, MINV, MAXV) test_##N##_##OP();
#define COUNT_ONE(N, T, OP, KIND, MINV, MAXV) +1

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    sets[nsets++] = (aset){0, 0, npes};
    sets[nsets++] = (aset){0, 1, (npes + 1) / 2};
    if (npes >= 2)
        sets[nsets++] = (aset){1, 1, npes / 2};
    shmem_barrier_all();

    REDUCTIONS(CALL_TEST)

    if (me == 0)
        printf("%d routines, %d reductions ok\n", 0 REDUCTIONS(COUNT_ONE), calls);
    shmem_finalize();
    return 0;
}
