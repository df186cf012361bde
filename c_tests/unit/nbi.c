/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_TYPE_put_nbi / shmem_TYPE_get_nbi for the 24 standard RMA types, completed
 * by shmem_quiet: the data is in place after quiet (get) and after quiet + barrier (put). */
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
    static T NAME##_src[N];                                                                     \
    static void test_##NAME(int me, int right, int left) {                                      \
        T *dst = shmem_malloc(N * sizeof(T));                                                   \
        CHECK(dst != NULL, #NAME ": shmem_malloc failed");                                      \
        for (int i = 0; i < N; i++) {                                                           \
            NAME##_src[i] = VALUE(T, MINV, MAXV, me, i);                                        \
            dst[i] = (T)99;                                                                     \
        }                                                                                       \
        shmem_barrier_all();                                                                    \
        /* two halves, then an empty one */                                                     \
        shmem_##NAME##_put_nbi(dst, NAME##_src, N / 2, right);                                  \
        shmem_##NAME##_put_nbi(dst + N / 2, NAME##_src + N / 2, N / 2, right);                  \
        shmem_##NAME##_put_nbi(dst, NAME##_src, 0, right);                                      \
        shmem_quiet();                                                                          \
        shmem_barrier_all();                                                                    \
        for (int i = 0; i < N; i++)                                                             \
            CHECK(dst[i] == VALUE(T, MINV, MAXV, left, i), "shmem_" #NAME "_put_nbi: element %d", i); \
        T got[N];                                                                               \
        for (int i = 0; i < N; i++)                                                             \
            got[i] = (T)99;                                                                     \
        shmem_##NAME##_get_nbi(got, NAME##_src, N - 1, right);                                  \
        shmem_##NAME##_get_nbi(got + N - 1, dst + N - 1, 1, right);                             \
        shmem_quiet();                                                                          \
        for (int i = 0; i < N - 1; i++)                                                         \
            CHECK(got[i] == VALUE(T, MINV, MAXV, right, i), "shmem_" #NAME "_get_nbi: element %d", i); \
        CHECK(got[N - 1] == VALUE(T, MINV, MAXV, me, N - 1), "shmem_" #NAME "_get_nbi: heap element"); \
        shmem_free(dst);                                                                        \
    }
RMA_TYPES(DEFINE_TEST)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
#define RUN_TEST(NAME, T, MINV, MAXV) test_##NAME(me, right, left);
    RMA_TYPES(RUN_TEST)
    if (me == 0)
        printf("put_nbi/get_nbi: 24 types ok\n");
    shmem_finalize();
    return 0;
}
