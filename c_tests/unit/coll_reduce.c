/* rshmem-test
 * np: 1 2 3 4 7 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stdout: reductions ok
 */
/* Team reductions (OpenSHMEM 1.5, 9.9.11) on every team of coll.h: and, or and xor for the 14
 * types of RSHMEM_REDUCE_BITWISE_TYPES, max and min for the 24 of RSHMEM_REDUCE_MINMAX_TYPES,
 * sum and prod for the 26 of RSHMEM_REDUCE_ARITH_TYPES (complex included); nreduce 1, 5 and
 * 1000, each routine both out of place and in place (dest == source); on the world team,
 * nreduce 70000 for one type per operation.
 * Each result is compared with a serial reduction over the team's ranks computed here. The
 * inputs keep that reference exact and free of undefined behaviour:
 * - bitwise and unsigned sum/prod/max/min: full-width hashed bit patterns (unsigned
 *   arithmetic wraps); ones are dense for and, sparse for or;
 * - signed sum: values in [-15, 15] (at most 8 PEs: within int8); signed prod: 1, -1 and
 *   2, with 2 on at most 3 PEs (|product| <= 8);
 * - floating sum: quarters in [-500, 500]; floating prod: 1, -1, 2 and 0.5; complex sum:
 *   quarters for both parts; complex prod: 1, -1, i, 1+i, 2 (small Gaussian integers);
 * - max/min: small values with the type's extremes mixed in (large unsigned values test
 *   an unsigned comparison).
 * Out of place, the source must be unchanged; dest past nreduce must be untouched. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

#define BIG 70000
static const size_t sizes[] = {1, 5, 1000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void *src_buf, *dst_buf;
static long count;

enum { OP_AND = 1, OP_OR, OP_XOR, OP_MAX, OP_MIN, OP_SUM, OP_PROD };

/* The low bytes of a 64-bit pattern as a T (an integer type of at most 8 bytes). */
#define FROM_BITS(T, v, h)                                            \
    do {                                                              \
        uint64_t h_ = (h);                                            \
        memcpy(&(v), &h_, sizeof(v) < sizeof h_ ? sizeof(v) : sizeof h_); \
    } while (0)

/* ---- input values: element i of world PE pe -------------------------------------- */

#define DEF_VAL_BITWISE(NAME, T)                                                            \
    static T val_and_##NAME(int pe, size_t i) {                                             \
        T v = 0;                                                                            \
        FROM_BITS(T, v, coll_hash(OP_AND, (uint64_t)pe, i) | coll_hash(OP_AND + 100, (uint64_t)pe, i)); \
        return v;                                                                           \
    }                                                                                       \
    static T val_or_##NAME(int pe, size_t i) {                                              \
        T v = 0;                                                                            \
        FROM_BITS(T, v, coll_hash(OP_OR, (uint64_t)pe, i) & coll_hash(OP_OR + 100, (uint64_t)pe, i)); \
        return v;                                                                           \
    }                                                                                       \
    static T val_xor_##NAME(int pe, size_t i) {                                             \
        T v = 0;                                                                            \
        FROM_BITS(T, v, coll_hash(OP_XOR, (uint64_t)pe, i));                                \
        return v;                                                                           \
    }
RSHMEM_REDUCE_BITWISE_TYPES(DEF_VAL_BITWISE)

#define DEF_VAL_MINMAX(NAME, T)                                                             \
    static T val_mm_##NAME(int op, int pe, size_t i) {                                      \
        uint64_t h = coll_hash((uint64_t)op, (uint64_t)pe, i);                              \
        int sel = (int)(h % 16);                                                            \
        long long small = (long long)((h >> 8) % 20001) - 10000;                            \
        T v = 0;                                                                            \
        switch (COLL_KIND(T)) {                                                             \
        case COLL_UINT:                                                                     \
            if (sel == 0)                                                                   \
                v = (T)-1;                                                                  \
            else if (sel != 1)                                                              \
                FROM_BITS(T, v, h);                                                         \
            break;                                                                          \
        case COLL_SINT:                                                                     \
            v = sel == 0 ? COLL_SMAX(T) : sel == 1 ? COLL_SMIN(T) : (T)(small % 101);       \
            break;                                                                          \
        default: /* floating: quarters, and values near +-2^(bits-1) */                    \
            v = sel == 0 ? COLL_SMAX(T) : sel == 1 ? COLL_SMIN(T) : (T)((T)small / (T)4);   \
            break;                                                                          \
        }                                                                                   \
        return v;                                                                           \
    }                                                                                       \
    static T val_max_##NAME(int pe, size_t i) {                                             \
        return val_mm_##NAME(OP_MAX, pe, i);                                                \
    }                                                                                       \
    static T val_min_##NAME(int pe, size_t i) {                                             \
        return val_mm_##NAME(OP_MIN, pe, i);                                                \
    }
RSHMEM_REDUCE_MINMAX_TYPES(DEF_VAL_MINMAX)

#define DEF_VAL_ARITH(NAME, T)                                                              \
    static T val_sum_##NAME(int pe, size_t i) {                                             \
        uint64_t h = coll_hash(OP_SUM, (uint64_t)pe, i);                                    \
        long long re = (long long)(h % 4001) - 2000, im = (long long)((h >> 32) % 4001) - 2000; \
        T v = 0;                                                                            \
        switch (COLL_KIND(T)) {                                                             \
        case COLL_UINT:                                                                     \
            FROM_BITS(T, v, h);                                                             \
            break;                                                                          \
        case COLL_SINT:                                                                     \
            v = (T)(re % 16);                                                               \
            break;                                                                          \
        default:                                                                            \
            v = COLL_MK(T, (double)re / 4, (double)im / 4);                                 \
            break;                                                                          \
        }                                                                                   \
        return v;                                                                           \
    }                                                                                       \
    static T val_prod_##NAME(int pe, size_t i) {                                            \
        int a = (pe + (int)i) % 3 == 0 ? 2 : (pe + 2 * (int)i) % 5 == 1 ? -1 : 1;          \
        static const int cre[5] = {1, -1, 0, 1, 2}, cim[5] = {0, 0, 1, 1, 0};               \
        int c = (pe + 3 * (int)i) % 5;                                                      \
        T v = 0;                                                                            \
        switch (COLL_KIND(T)) {                                                             \
        case COLL_UINT:                                                                     \
            FROM_BITS(T, v, coll_hash(OP_PROD, (uint64_t)pe, i) | 1);                       \
            break;                                                                          \
        case COLL_SINT:                                                                     \
            v = (T)a;                                                                       \
            break;                                                                          \
        case COLL_REAL:                                                                     \
            v = (pe + (int)i) % 7 == 3 ? (T)((T)1 / (T)2) : (T)a;                           \
            break;                                                                          \
        default:                                                                            \
            v = COLL_MK(T, cre[c], cim[c]);                                                 \
            break;                                                                          \
        }                                                                                   \
        return v;                                                                           \
    }
RSHMEM_REDUCE_ARITH_TYPES(DEF_VAL_ARITH)

/* ---- combining two values, as the reference does ------------------------------------ */
#define COMB_and(T, a, b) ((T)((a) & (b)))
#define COMB_or(T, a, b) ((T)((a) | (b)))
#define COMB_xor(T, a, b) ((T)((a) ^ (b)))
#define COMB_max(T, a, b) ((b) > (a) ? (b) : (a))
#define COMB_min(T, a, b) ((b) < (a) ? (b) : (a))
#define COMB_sum(T, a, b) ((T)((a) + (b)))
/* unsigned types narrower than int would multiply as (signed) int: go through unsigned
 * long long, which wraps */
#define COMB_prod(T, a, b)                                                                  \
    (COLL_KIND(T) == COLL_UINT ? (T)((unsigned long long)(a) * (unsigned long long)(b))     \
                               : (T)((a) * (b)))

/* ---- one reduction, checked ---------------------------------------------------------- */
#define DEF_TEST(NAME, T, OP)                                                               \
    static void OP##_##NAME(const struct coll_team *t, size_t n, int inplace) {             \
        T *src = src_buf, *dst = inplace ? src : (T *)dst_buf;                              \
        int me = shmem_my_pe();                                                             \
        const char *mode = inplace ? "in place" : "out of place";                           \
        for (size_t i = 0; i < n + COLL_NGUARD; i++)                                        \
            src[i] = i < n ? val_##OP##_##NAME(me, i) : COLL_GUARD(T, i);                   \
        if (!inplace)                                                                       \
            for (size_t i = 0; i < n + COLL_NGUARD; i++)                                    \
                dst[i] = COLL_GUARD(T, i + 1);                                              \
        coll_sync(t);                                                                       \
        int ret = shmem_##NAME##_##OP##_reduce(t->team, dst, src, n);                       \
        CHECK(ret == 0, "shmem_" #NAME "_" #OP "_reduce team %s nreduce %zu %s returned %d", \
              t->name, n, mode, ret);                                                       \
        for (size_t i = 0; i < n; i++) {                                                    \
            T want = val_##OP##_##NAME(coll_pe(t, 0), i);                                   \
            for (int r = 1; r < t->size; r++)                                               \
                want = COMB_##OP(T, want, val_##OP##_##NAME(coll_pe(t, r), i));             \
            COLL_CHECK_EQ(dst[i], want, "shmem_" #NAME "_" #OP "_reduce team %s nreduce %zu %s, " \
                          "rank %d: dest[%zu]", t->name, n, mode, t->me, i);                \
        }                                                                                   \
        for (size_t i = n; i < n + COLL_NGUARD; i++)                                        \
            COLL_CHECK_EQ(dst[i], COLL_GUARD(T, i + !inplace), "shmem_" #NAME "_" #OP      \
                          "_reduce team %s nreduce %zu %s, rank %d: dest[%zu], past nreduce", \
                          t->name, n, mode, t->me, i);                                      \
        if (!inplace)                                                                       \
            for (size_t i = 0; i < n + COLL_NGUARD; i++)                                    \
                COLL_CHECK_EQ(src[i], i < n ? val_##OP##_##NAME(me, i) : COLL_GUARD(T, i),  \
                              "shmem_" #NAME "_" #OP "_reduce team %s nreduce %zu %s, rank %d: " \
                              "source[%zu] changed", t->name, n, mode, t->me, i);           \
        count++;                                                                            \
    }
#define DEF_BITWISE(NAME, T) DEF_TEST(NAME, T, and) DEF_TEST(NAME, T, or) DEF_TEST(NAME, T, xor)
#define DEF_MINMAX(NAME, T) DEF_TEST(NAME, T, max) DEF_TEST(NAME, T, min)
#define DEF_ARITH(NAME, T) DEF_TEST(NAME, T, sum) DEF_TEST(NAME, T, prod)
RSHMEM_REDUCE_BITWISE_TYPES(DEF_BITWISE)
RSHMEM_REDUCE_MINMAX_TYPES(DEF_MINMAX)
RSHMEM_REDUCE_ARITH_TYPES(DEF_ARITH)

/* Every operation and type for each nreduce; in place and out of place alternate from one
 * call to the next, and the alternation shifts with nreduce, so each routine runs both ways. */
static void test_team(const struct coll_team *t) {
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        int flip = (int)k;
#define RUN_BITWISE(NAME, T)                  \
    and_##NAME(t, n, flip++ % 2);             \
    or_##NAME(t, n, flip++ % 2);              \
    xor_##NAME(t, n, flip++ % 2);
#define RUN_MINMAX(NAME, T)                   \
    max_##NAME(t, n, flip++ % 2);             \
    min_##NAME(t, n, flip++ % 2);
#define RUN_ARITH(NAME, T)                    \
    sum_##NAME(t, n, flip++ % 2);             \
    prod_##NAME(t, n, flip++ % 2);
        RSHMEM_REDUCE_BITWISE_TYPES(RUN_BITWISE)
        RSHMEM_REDUCE_MINMAX_TYPES(RUN_MINMAX)
        RSHMEM_REDUCE_ARITH_TYPES(RUN_ARITH)
    }
    /* large reductions on the world team, one type per operation */
    if (t->team == SHMEM_TEAM_WORLD) {
        and_ulong(t, BIG, 0);
        or_uint8(t, BIG, 1);
        xor_int32(t, BIG, 0);
        max_double(t, BIG, 1);
        min_short(t, BIG, 0);
        sum_complexf(t, BIG, 1);
        prod_longdouble(t, BIG, 0);
    }
}

int main(void) {
    shmem_init();
    CHECK(shmem_n_pes() <= 8, "the inputs keep signed results within int8 for at most 8 PEs");
    size_t bytes = (BIG + COLL_NGUARD + 8) * sizeof(long double);
    src_buf = shmem_malloc(bytes);
    dst_buf = shmem_malloc(bytes);
    CHECK(src_buf != NULL && dst_buf != NULL, "shmem_malloc of %zu bytes failed", bytes);
    coll_teams_create();
    coll_for_each_team(test_team);
    coll_teams_destroy();
    shmem_barrier_all();
    shmem_free(dst_buf);
    shmem_free(src_buf);
    printf("PE %d: %ld reductions ok\n", shmem_my_pe(), count);
    shmem_finalize();
    return 0;
}
