/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_TYPE_p / shmem_TYPE_g for the 24 standard RMA types, extreme and negative
 * values, into the heap and global data. */
#include <float.h>
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define N 8

#define DEFINE_TEST(NAME, T, MINV, MAXV)                                                        \
    static T NAME##_glob[N];                                                                    \
    static void test_##NAME(int me, int right, int left) {                                      \
        T *heap = shmem_malloc(N * sizeof(T));                                                  \
        CHECK(heap != NULL, #NAME ": shmem_malloc failed");                                     \
        for (int i = 0; i < N; i++)                                                             \
            heap[i] = NAME##_glob[i] = (T)99;                                                   \
        shmem_barrier_all();                                                                    \
        for (int i = 0; i < N; i++) {                                                           \
            shmem_##NAME##_p(&heap[i], VALUE(T, MINV, MAXV, me, i), right);                     \
            shmem_##NAME##_p(&NAME##_glob[N - 1 - i], VALUE(T, MINV, MAXV, me, i), right);      \
        }                                                                                       \
        shmem_barrier_all();                                                                    \
        for (int i = 0; i < N; i++) {                                                           \
            CHECK(heap[i] == VALUE(T, MINV, MAXV, left, i), "shmem_" #NAME "_p (heap): element %d", i); \
            CHECK(NAME##_glob[N - 1 - i] == VALUE(T, MINV, MAXV, left, i),                       \
                  "shmem_" #NAME "_p (global): element %d", i);                                 \
        }                                                                                       \
        for (int i = 0; i < N; i++) {                                                           \
            T h = shmem_##NAME##_g(&heap[i], right);                                            \
            T g = shmem_##NAME##_g(&NAME##_glob[i], left);                                      \
            CHECK(h == VALUE(T, MINV, MAXV, me, i), "shmem_" #NAME "_g (heap): element %d", i); \
            CHECK(g == VALUE(T, MINV, MAXV, (left + shmem_n_pes() - 1) % shmem_n_pes(), N - 1 - i), \
                  "shmem_" #NAME "_g (global): element %d", i);                                 \
        }                                                                                       \
        shmem_free(heap);                                                                       \
    }
RMA_TYPES(DEFINE_TEST)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
#define RUN_TEST(NAME, T, MINV, MAXV) test_##NAME(me, right, left);
    RMA_TYPES(RUN_TEST)
    if (me == 0)
        printf("p/g: 24 types ok\n");
    shmem_finalize();
    return 0;
}
