/* rshmem-test
 * np: 1 2 4 8
 * variant: SHMEM_CHECK_BOUNDS=1
 */
/* Strided shmem_TYPE_iput / shmem_TYPE_iget for the 24 standard RMA types and the
 * sized shmem_iputN / shmem_igetN (8..128): only the strided elements change. */
#include <float.h>
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define N 16

/* iput: dest stride 3, source stride 2, 5 elements; iget: dest stride 2, source stride 3, 4 elements. */
#define DEFINE_TEST(NAME, T, MINV, MAXV)                                                        \
    static T NAME##_src[3 * N];                                                                 \
    static void test_##NAME(int me, int right, int left) {                                      \
        T *dst = shmem_malloc(3 * N * sizeof(T));                                               \
        CHECK(dst != NULL, #NAME ": shmem_malloc failed");                                      \
        for (int i = 0; i < 3 * N; i++) {                                                       \
            NAME##_src[i] = VALUE(T, MINV, MAXV, me, i % N);                                    \
            dst[i] = (T)99;                                                                     \
        }                                                                                       \
        shmem_barrier_all();                                                                    \
        shmem_##NAME##_iput(dst, NAME##_src, 3, 2, 5, right);                                   \
        shmem_##NAME##_iput(dst + 1, NAME##_src, 1, 1, 0, right); /* empty */                   \
        shmem_barrier_all();                                                                    \
        for (int j = 0; j < 3 * N; j++) {                                                       \
            T want = (j % 3 == 0 && j / 3 < 5) ? VALUE(T, MINV, MAXV, left, (2 * (j / 3)) % N) : (T)99; \
            CHECK(dst[j] == want, "shmem_" #NAME "_iput: dest element %d", j);                  \
        }                                                                                       \
        T got[3 * N];                                                                           \
        for (int j = 0; j < 3 * N; j++)                                                         \
            got[j] = (T)99;                                                                     \
        shmem_##NAME##_iget(got, NAME##_src, 2, 3, 4, right);                                   \
        for (int j = 0; j < 3 * N; j++) {                                                       \
            T want = (j % 2 == 0 && j / 2 < 4) ? VALUE(T, MINV, MAXV, right, (3 * (j / 2)) % N) : (T)99; \
            CHECK(got[j] == want, "shmem_" #NAME "_iget: dest element %d", j);                  \
        }                                                                                       \
        shmem_##NAME##_iget(got, NAME##_src, 1, 1, 1, right); /* stride 1, one element */       \
        CHECK(got[0] == VALUE(T, MINV, MAXV, right, 0), "shmem_" #NAME "_iget: single element"); \
        shmem_free(dst);                                                                        \
    }
RMA_TYPES(DEFINE_TEST)

/* Sized forms, on byte patterns: element k of PE pe's source is bytes pat(pe, k, 0..size-1). */
typedef void (*iput_fn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
static unsigned char pat(int pe, int k, int b) { return (unsigned char)(pe * 37 + k * 11 + b * 3 + 1); }

static void test_sized(const char *name, size_t size, iput_fn iput, iput_fn iget, int me, int right, int left) {
    unsigned char *src = shmem_malloc(3 * N * size), *dst = shmem_malloc(3 * N * size);
    CHECK(src && dst, "%s: shmem_malloc failed", name);
    for (int k = 0; k < 3 * N; k++)
        for (size_t b = 0; b < size; b++)
            src[k * size + b] = pat(me, k, (int)b);
    memset(dst, 0xEE, 3 * N * size);
    shmem_barrier_all();
    iput(dst, src, 3, 2, 5, right);
    shmem_barrier_all();
    for (int j = 0; j < 3 * N; j++)
        for (size_t b = 0; b < size; b++) {
            unsigned char want = (j % 3 == 0 && j / 3 < 5) ? pat(left, 2 * (j / 3), (int)b) : 0xEE;
            CHECK(dst[j * size + b] == want, "shmem_%s: element %d byte %zu", name, j, b);
        }
    unsigned char got[3 * N * 16];
    memset(got, 0xEE, sizeof got);
    iget(got, src, 2, 3, 4, right);
    for (int j = 0; j < 3 * N; j++)
        for (size_t b = 0; b < size; b++) {
            unsigned char want = (j % 2 == 0 && j / 2 < 4) ? pat(right, 3 * (j / 2), (int)b) : 0xEE;
            CHECK(got[j * size + b] == want, "shmem_%s: element %d byte %zu", name, j, b);
        }
    shmem_free(dst);
    shmem_free(src);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
#define RUN_TEST(NAME, T, MINV, MAXV) test_##NAME(me, right, left);
    RMA_TYPES(RUN_TEST)
    test_sized("iput8/iget8", 1, shmem_iput8, shmem_iget8, me, right, left);
    test_sized("iput16/iget16", 2, shmem_iput16, shmem_iget16, me, right, left);
    test_sized("iput32/iget32", 4, shmem_iput32, shmem_iget32, me, right, left);
    test_sized("iput64/iget64", 8, shmem_iput64, shmem_iget64, me, right, left);
    test_sized("iput128/iget128", 16, shmem_iput128, shmem_iget128, me, right, left);
    if (me == 0)
        printf("iput/iget: 24 types and 5 sizes ok\n");
    shmem_finalize();
    return 0;
}
