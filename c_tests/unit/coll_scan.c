/* rshmem-test
 * np: 1 2 3 4 7 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stdout: scans ok
 */
/* Team prefix sums (OpenSHMEM 1.6, shmem_sum_inscan and shmem_sum_exscan) on every team of
 * coll.h, for the 26 types of RSHMEM_REDUCE_ARITH_TYPES (complex included), nelems 1, 5 and
 * 1000, out of place and in place (dest == source, which 1.6 allows). On team rank i,
 * element j of dest must be the sum of element j of the sources of ranks 0..i (inscan) or
 * 0..i-1 (exscan; 1.6 defines rank 0's result as 0). Inputs keep the serial reference
 * exact: full-width bit patterns for unsigned types (sums wrap), [-15, 15] for signed ones
 * (every partial sum of at most 8 PEs fits int8), quarters for floating and complex parts.
 * Out of place the source must be unchanged; dest past nelems must be untouched. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

static const size_t sizes[] = {1, 5, 1000};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAXN 1000

static void *src_buf, *dst_buf;
static long count;

#define DEF_VAL(NAME, T)                                                                    \
    static T val_##NAME(int pe, size_t i) {                                                 \
        uint64_t h = coll_hash(7, (uint64_t)pe, i);                                         \
        long long re = (long long)(h % 4001) - 2000, im = (long long)((h >> 32) % 4001) - 2000; \
        T v = 0;                                                                            \
        switch (COLL_KIND(T)) {                                                             \
        case COLL_UINT: {                                                                   \
            memcpy(&v, &h, sizeof v < sizeof h ? sizeof v : sizeof h);                      \
            break;                                                                          \
        }                                                                                   \
        case COLL_SINT:                                                                     \
            v = (T)(re % 16);                                                               \
            break;                                                                          \
        default:                                                                            \
            v = COLL_MK(T, (double)re / 4, (double)im / 4);                                 \
            break;                                                                          \
        }                                                                                   \
        return v;                                                                           \
    }
RSHMEM_REDUCE_ARITH_TYPES(DEF_VAL)

/* One scan; ex selects exscan. */
#define DEF_SCAN(NAME, T)                                                                   \
    static void scan_##NAME(const struct coll_team *t, int ex, size_t n, int inplace) {     \
        T *src = src_buf, *dst = inplace ? src : (T *)dst_buf;                              \
        int me = shmem_my_pe();                                                             \
        const char *what = ex ? "shmem_" #NAME "_sum_exscan" : "shmem_" #NAME "_sum_inscan"; \
        const char *mode = inplace ? "in place" : "out of place";                           \
        for (size_t i = 0; i < n + COLL_NGUARD; i++)                                        \
            src[i] = i < n ? val_##NAME(me, i) : COLL_GUARD(T, i);                          \
        if (!inplace)                                                                       \
            for (size_t i = 0; i < n + COLL_NGUARD; i++)                                    \
                dst[i] = COLL_GUARD(T, i + 1);                                              \
        coll_sync(t);                                                                       \
        int ret = ex ? shmem_##NAME##_sum_exscan(t->team, dst, src, n)                      \
                     : shmem_##NAME##_sum_inscan(t->team, dst, src, n);                     \
        CHECK(ret == 0, "%s team %s nelems %zu %s returned %d", what, t->name, n, mode, ret); \
        int last = ex ? t->me - 1 : t->me; /* highest rank summed */                        \
        for (size_t i = 0; i < n; i++) {                                                    \
            T want = 0;                                                                     \
            for (int r = 0; r <= last; r++)                                                 \
                want = (T)(want + val_##NAME(coll_pe(t, r), i));                            \
            COLL_CHECK_EQ(dst[i], want, "%s team %s nelems %zu %s, rank %d: dest[%zu] (sum of ranks 0..%d)", \
                          what, t->name, n, mode, t->me, i, last);                          \
        }                                                                                   \
        for (size_t i = n; i < n + COLL_NGUARD; i++)                                        \
            COLL_CHECK_EQ(dst[i], COLL_GUARD(T, i + !inplace),                              \
                          "%s team %s nelems %zu %s, rank %d: dest[%zu], past nelems", what, \
                          t->name, n, mode, t->me, i);                                      \
        if (!inplace)                                                                       \
            for (size_t i = 0; i < n + COLL_NGUARD; i++)                                    \
                COLL_CHECK_EQ(src[i], i < n ? val_##NAME(me, i) : COLL_GUARD(T, i),         \
                              "%s team %s nelems %zu %s, rank %d: source[%zu] changed", what, \
                              t->name, n, mode, t->me, i);                                  \
        count++;                                                                            \
    }
RSHMEM_REDUCE_ARITH_TYPES(DEF_SCAN)

static void test_team(const struct coll_team *t) {
    for (size_t k = 0; k < NSIZES; k++)
        for (int inplace = 0; inplace < 2; inplace++)
            for (int ex = 0; ex < 2; ex++) {
#define RUN(NAME, T) scan_##NAME(t, ex, sizes[k], inplace);
                RSHMEM_REDUCE_ARITH_TYPES(RUN)
#undef RUN
            }
}

int main(void) {
    shmem_init();
    CHECK(shmem_n_pes() <= 8, "the inputs keep signed results within int8 for at most 8 PEs");
    size_t bytes = (MAXN + COLL_NGUARD + 8) * sizeof(long double);
    src_buf = shmem_malloc(bytes);
    dst_buf = shmem_malloc(bytes);
    CHECK(src_buf != NULL && dst_buf != NULL, "shmem_malloc of %zu bytes failed", bytes);
    coll_teams_create();
    coll_for_each_team(test_team);
    coll_teams_destroy();
    shmem_barrier_all();
    shmem_free(dst_buf);
    shmem_free(src_buf);
    printf("PE %d: %ld scans ok\n", shmem_my_pe(), count);
    shmem_finalize();
    return 0;
}
