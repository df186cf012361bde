/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_TYPE_put / shmem_TYPE_get for the 24 standard RMA types, with extreme and
 * negative values, heap and global destinations, partial and empty transfers. */
#include <float.h>
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            char msg_[512];                                                              \
            snprintf(msg_, sizeof msg_, __VA_ARGS__);                                    \
            fprintf(stderr, "FAIL PE %d line %d: %s\n", shmem_my_pe(), __LINE__, msg_); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

#define N 16
/* The 24 standard RMA types: name, C type, lowest and highest value. */
#define RMA_TYPES(X)                                               \
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
    X(int8, int8_t, INT8_MIN, INT8_MAX)                            \
    X(int16, int16_t, INT16_MIN, INT16_MAX)                        \
    X(int32, int32_t, INT32_MIN, INT32_MAX)                        \
    X(int64, int64_t, INT64_MIN, INT64_MAX)                        \
    X(uint8, uint8_t, 0, UINT8_MAX)                                \
    X(uint16, uint16_t, 0, UINT16_MAX)                             \
    X(uint32, uint32_t, 0, UINT32_MAX)                             \
    X(uint64, uint64_t, 0, UINT64_MAX)                             \
    X(size, size_t, 0, SIZE_MAX)                                   \
    X(ptrdiff, ptrdiff_t, PTRDIFF_MIN, PTRDIFF_MAX)

/* Element i of the data PE pe sends: the type's extremes, zero, then values that differ
 * by PE and index, alternately negative (wrapped for unsigned types), with a fraction
 * for the floating types. */
#define VALUE(T, MINV, MAXV, pe, i)                                                      \
    ((T)((i) == 0   ? (T)(MINV)                                                          \
         : (i) == 1 ? (T)(MAXV)                                                          \
         : (i) == 2 ? (T)0                                                               \
         : (i) % 2  ? (T)(-(1 + 10 * (pe) + (i))) - (T)0.25                              \
                    : (T)(1 + 10 * (pe) + (i)) + (T)0.25))

#define DEFINE_TEST(NAME, T, MINV, MAXV)                                                        \
    static T NAME##_src[N], NAME##_gdst[N];                                                     \
    static void test_##NAME(int me, int right, int left) {                                      \
        T *hdst = shmem_malloc(N * sizeof(T));                                                  \
        CHECK(hdst != NULL, #NAME ": shmem_malloc failed");                                     \
        T local[N];                                                                             \
        for (int i = 0; i < N; i++) {                                                           \
            local[i] = NAME##_src[i] = VALUE(T, MINV, MAXV, me, i);                             \
            hdst[i] = NAME##_gdst[i] = (T)99;                                                   \
        }                                                                                       \
        shmem_barrier_all();                                                                    \
        shmem_##NAME##_put(hdst, local, N, right);             /* private source, heap dest */ \
        shmem_##NAME##_put(NAME##_gdst + 3, NAME##_src + 3, 5, right); /* global, partial */    \
        shmem_##NAME##_put(NAME##_gdst, NAME##_src, 0, right);        /* empty: no effect */    \
        shmem_barrier_all();                                                                    \
        for (int i = 0; i < N; i++) {                                                           \
            CHECK(hdst[i] == VALUE(T, MINV, MAXV, left, i), "shmem_" #NAME "_put: element %d", i); \
            T want = (i >= 3 && i < 8) ? VALUE(T, MINV, MAXV, left, i) : (T)99;                 \
            CHECK(NAME##_gdst[i] == want, "shmem_" #NAME "_put (partial): element %d", i);      \
        }                                                                                       \
        T got[N];                                                                               \
        shmem_##NAME##_get(got, NAME##_src, N, right);               /* from global data */     \
        for (int i = 0; i < N; i++)                                                             \
            CHECK(got[i] == VALUE(T, MINV, MAXV, right, i), "shmem_" #NAME "_get: element %d", i); \
        for (int i = 0; i < N; i++)                                                             \
            got[i] = (T)99;                                                                     \
        shmem_##NAME##_get(got + 1, hdst + 9, 4, right);             /* from the heap, partial */ \
        shmem_##NAME##_get(got, hdst, 0, right);                     /* empty */                \
        for (int i = 0; i < N; i++) {                                                           \
            T want = (i >= 1 && i < 5) ? VALUE(T, MINV, MAXV, me, i + 8) : (T)99;              \
            CHECK(got[i] == want, "shmem_" #NAME "_get (partial): element %d", i);              \
        }                                                                                       \
        shmem_free(hdst); /* barrier on entry: the peers are done reading */                   \
    }
RMA_TYPES(DEFINE_TEST)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
#define RUN_TEST(NAME, T, MINV, MAXV) test_##NAME(me, right, left);
    RMA_TYPES(RUN_TEST)
    if (me == 0)
        printf("put/get: 24 types ok\n");
    shmem_finalize();
    return 0;
}
