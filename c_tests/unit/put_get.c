/* rshmem-test
 * np: 1 2 4 8
 * variant: SHMEM_CHECK_BOUNDS=1
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

#include "../common.h"

#define N 16

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
