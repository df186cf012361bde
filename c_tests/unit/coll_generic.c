/* rshmem-test
 * np: 1 2 3 4 7 8
 * cflags: -std=c11 -Wno-deprecated-declarations
 * stdout: generic collectives ok
 */
/* The C11 type-generic spellings of the team collectives (OpenSHMEM 1.5, 9.9), on every team
 * of coll.h: shmem_broadcast, shmem_collect, shmem_fcollect, shmem_alltoall,
 * shmem_alltoalls, shmem_sum_reduce and shmem_max_reduce for the 24 RMA types (the typedefs
 * among them dispatch as the type they alias), shmem_sum_reduce for double _Complex and
 * float _Complex, shmem_and_reduce for the five unsigned types, and shmem_sync(team). Then
 * the deprecated active-set form shmem_sync(PE_start, logPE_stride, PE_size, pSync) (the
 * same name with four arguments), repeatedly with one pSync on the even PEs, which the spec
 * allows for an unchanged active set; each round, a put to the next member completed by
 * shmem_quiet before the sync must be visible after it. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

#define N 5
#define MAXELEMS (8 * 8 * N + 64)

static void *src_buf, *dst_buf;
static long count;

/* Small values for sums: exact for every type (wrapping for unsigned ones). */
#define SMALL(T, pe, i) ((T)((int)(coll_hash(3, (uint64_t)(pe), (uint64_t)(i)) % 31) - 15))

#define DEF_GEN(NAME, T, MINV, MAXV)                                                              \
    static void fill_##NAME(T *dst, T *src, size_t nsrc, int pe) {                                \
        for (size_t i = 0; i < MAXELEMS; i++) {                                                   \
            src[i] = i < nsrc ? COLL_DV(T, MINV, MAXV, pe, i) : COLL_GUARD(T, i);                 \
            dst[i] = COLL_GUARD(T, i + 1);                                                        \
        }                                                                                         \
    }                                                                                             \
    static void gen_##NAME(const struct coll_team *t) {                                           \
        T *src = src_buf, *dst = dst_buf;                                                         \
        int me = shmem_my_pe(), n = t->size, ret;                                                 \
        size_t at;                                                                                \
        /* broadcast from the last rank */                                                        \
        fill_##NAME(dst, src, N, me);                                                             \
        coll_sync(t);                                                                             \
        ret = shmem_broadcast(t->team, dst, src, N, n - 1);                                       \
        CHECK(ret == 0, "shmem_broadcast(" #NAME ") team %s returned %d", t->name, ret);          \
        for (size_t i = 0; i < N + COLL_NGUARD; i++)                                              \
            COLL_CHECK_EQ(dst[i], i < N ? COLL_DV(T, MINV, MAXV, coll_pe(t, n - 1), i) : COLL_GUARD(T, i + 1), \
                          "shmem_broadcast(" #NAME ") team %s root %d, rank %d: dest[%zu]", t->name, \
                          n - 1, t->me, i);                                                       \
        /* collect: rank r gives r % 3 + 1 elements */                                            \
        fill_##NAME(dst, src, (size_t)(t->me % 3 + 1), me);                                       \
        coll_sync(t);                                                                             \
        ret = shmem_collect(t->team, dst, src, (size_t)(t->me % 3 + 1));                          \
        CHECK(ret == 0, "shmem_collect(" #NAME ") team %s returned %d", t->name, ret);            \
        at = 0;                                                                                   \
        for (int r = 0; r < n; r++)                                                               \
            for (size_t k = 0; k < (size_t)(r % 3 + 1); k++, at++)                                \
                COLL_CHECK_EQ(dst[at], COLL_DV(T, MINV, MAXV, coll_pe(t, r), k),                  \
                              "shmem_collect(" #NAME ") team %s, rank %d: dest[%zu] (element %zu of rank %d)", \
                              t->name, t->me, at, k, r);                                          \
        COLL_CHECK_EQ(dst[at], COLL_GUARD(T, at + 1),                                             \
                      "shmem_collect(" #NAME ") team %s, rank %d: dest[%zu] past the result", t->name, t->me, at); \
        /* fcollect */                                                                            \
        fill_##NAME(dst, src, N, me);                                                             \
        coll_sync(t);                                                                             \
        ret = shmem_fcollect(t->team, dst, src, N);                                               \
        CHECK(ret == 0, "shmem_fcollect(" #NAME ") team %s returned %d", t->name, ret);           \
        for (size_t i = 0; i < (size_t)n * N + 1; i++)                                            \
            COLL_CHECK_EQ(dst[i], i < (size_t)n * N ? COLL_DV(T, MINV, MAXV, coll_pe(t, (int)(i / N)), i % N) \
                                                    : COLL_GUARD(T, i + 1),                       \
                          "shmem_fcollect(" #NAME ") team %s, rank %d: dest[%zu]", t->name, t->me, i); \
        /* alltoall: block j of the source goes to rank j */                                      \
        fill_##NAME(dst, src, (size_t)n * N, me);                                                 \
        coll_sync(t);                                                                             \
        ret = shmem_alltoall(t->team, dst, src, N);                                               \
        CHECK(ret == 0, "shmem_alltoall(" #NAME ") team %s returned %d", t->name, ret);           \
        for (size_t i = 0; i < (size_t)n * N + 1; i++)                                            \
            COLL_CHECK_EQ(dst[i], i < (size_t)n * N ? COLL_DV(T, MINV, MAXV, coll_pe(t, (int)(i / N)),   \
                                                               (size_t)t->me * N + i % N)         \
                                                    : COLL_GUARD(T, i + 1),                       \
                          "shmem_alltoall(" #NAME ") team %s, rank %d: dest[%zu]", t->name, t->me, i); \
        /* alltoalls, dst 2, sst 3: source element 3k is the k-th sent */                         \
        for (size_t i = 0; i < MAXELEMS; i++) {                                                   \
            src[i] = i % 3 == 0 ? COLL_DV(T, MINV, MAXV, me, i / 3) : COLL_GUARD(T, i);           \
            dst[i] = COLL_GUARD(T, i + 1);                                                        \
        }                                                                                         \
        coll_sync(t);                                                                             \
        ret = shmem_alltoalls(t->team, dst, src, 2, 3, N);                                        \
        CHECK(ret == 0, "shmem_alltoalls(" #NAME ") team %s returned %d", t->name, ret);          \
        for (size_t i = 0; i < 2 * (size_t)n * N + 1; i++)                                        \
            COLL_CHECK_EQ(dst[i], i % 2 == 0 && i < 2 * (size_t)n * N                             \
                                      ? COLL_DV(T, MINV, MAXV, coll_pe(t, (int)(i / 2 / N)),      \
                                                (size_t)t->me * N + i / 2 % N)                    \
                                      : COLL_GUARD(T, i + 1),                                     \
                          "shmem_alltoalls(" #NAME ", dst 2, sst 3) team %s, rank %d: dest[%zu]", \
                          t->name, t->me, i);                                                     \
        /* sum_reduce */                                                                          \
        for (size_t i = 0; i < MAXELEMS; i++) {                                                   \
            src[i] = SMALL(T, me, i);                                                             \
            dst[i] = COLL_GUARD(T, i + 1);                                                        \
        }                                                                                         \
        coll_sync(t);                                                                             \
        ret = shmem_sum_reduce(t->team, dst, src, N);                                             \
        CHECK(ret == 0, "shmem_sum_reduce(" #NAME ") team %s returned %d", t->name, ret);         \
        for (size_t i = 0; i < N; i++) {                                                          \
            T want = 0;                                                                           \
            for (int r = 0; r < n; r++)                                                           \
                want = (T)(want + SMALL(T, coll_pe(t, r), i));                                    \
            COLL_CHECK_EQ(dst[i], want, "shmem_sum_reduce(" #NAME ") team %s, rank %d: dest[%zu]", \
                          t->name, t->me, i);                                                     \
        }                                                                                         \
        COLL_CHECK_EQ(dst[N], COLL_GUARD(T, N + 1), "shmem_sum_reduce(" #NAME ") team %s: dest[%d] past nreduce", \
                      t->name, N);                                                                \
        /* max_reduce, in place */                                                                \
        fill_##NAME(dst, src, N, me);                                                             \
        coll_sync(t);                                                                             \
        ret = shmem_max_reduce(t->team, src, src, N);                                             \
        CHECK(ret == 0, "shmem_max_reduce(" #NAME ") team %s returned %d", t->name, ret);         \
        for (size_t i = 0; i < N; i++) {                                                          \
            T want = COLL_DV(T, MINV, MAXV, coll_pe(t, 0), i);                                    \
            for (int r = 1; r < n; r++) {                                                         \
                T v = COLL_DV(T, MINV, MAXV, coll_pe(t, r), i);                                   \
                want = v > want ? v : want;                                                       \
            }                                                                                     \
            COLL_CHECK_EQ(src[i], want, "shmem_max_reduce(" #NAME ", in place) team %s, rank %d: dest[%zu]", \
                          t->name, t->me, i);                                                     \
        }                                                                                         \
        count += 7;                                                                               \
    }
RMA_TYPES(DEF_GEN)

/* Generic sum of a complex type; values with small integer parts. */
#define DEF_CPLX(NAME, T)                                                                         \
    static T cval_##NAME(int pe, size_t i) {                                                      \
        return COLL_MK(T, (int)(coll_hash(4, (uint64_t)pe, i) % 41) - 20,                         \
                       (int)(coll_hash(5, (uint64_t)pe, i) % 41) - 20);                           \
    }                                                                                             \
    static void cplx_##NAME(const struct coll_team *t) {                                          \
        T *src = src_buf, *dst = dst_buf;                                                         \
        for (size_t i = 0; i < N + 1; i++) {                                                      \
            src[i] = cval_##NAME(shmem_my_pe(), i);                                               \
            dst[i] = COLL_GUARD(T, i);                                                            \
        }                                                                                         \
        coll_sync(t);                                                                             \
        int ret = shmem_sum_reduce(t->team, dst, src, N);                                         \
        CHECK(ret == 0, "shmem_sum_reduce(" #NAME ") team %s returned %d", t->name, ret);         \
        for (size_t i = 0; i < N; i++) {                                                          \
            T want = 0;                                                                           \
            for (int r = 0; r < t->size; r++)                                                     \
                want += cval_##NAME(coll_pe(t, r), i);                                            \
            COLL_CHECK_EQ(dst[i], want, "shmem_sum_reduce(" #NAME ") team %s, rank %d: dest[%zu]", \
                          t->name, t->me, i);                                                     \
        }                                                                                         \
        COLL_CHECK_EQ(dst[N], COLL_GUARD(T, N), "shmem_sum_reduce(" #NAME ") team %s: dest[%d] past nreduce", \
                      t->name, N);                                                                \
        count++;                                                                                  \
    }
DEF_CPLX(complexd, double _Complex)
DEF_CPLX(complexf, float _Complex)

/* Generic and of an unsigned type; hashed bit patterns, ones dense. */
#define UNSIGNED_TYPES(X)                                                                         \
    X(uchar, unsigned char)                                                                       \
    X(ushort, unsigned short)                                                                     \
    X(uint, unsigned int)                                                                         \
    X(ulong, unsigned long)                                                                       \
    X(ulonglong, unsigned long long)
#define DEF_AND(NAME, T)                                                                          \
    static T aval_##NAME(int pe, size_t i) {                                                      \
        return (T)(coll_hash(6, (uint64_t)pe, i) | coll_hash(7, (uint64_t)pe, i));                \
    }                                                                                             \
    static void and_##NAME(const struct coll_team *t) {                                           \
        T *src = src_buf, *dst = dst_buf;                                                         \
        for (size_t i = 0; i < N + 1; i++) {                                                      \
            src[i] = aval_##NAME(shmem_my_pe(), i);                                               \
            dst[i] = COLL_GUARD(T, i);                                                            \
        }                                                                                         \
        coll_sync(t);                                                                             \
        int ret = shmem_and_reduce(t->team, dst, src, N);                                         \
        CHECK(ret == 0, "shmem_and_reduce(" #NAME ") team %s returned %d", t->name, ret);         \
        for (size_t i = 0; i < N; i++) {                                                          \
            T want = (T)-1;                                                                       \
            for (int r = 0; r < t->size; r++)                                                     \
                want = (T)(want & aval_##NAME(coll_pe(t, r), i));                                 \
            COLL_CHECK_EQ(dst[i], want, "shmem_and_reduce(" #NAME ") team %s, rank %d: dest[%zu]", \
                          t->name, t->me, i);                                                     \
        }                                                                                         \
        COLL_CHECK_EQ(dst[N], COLL_GUARD(T, N), "shmem_and_reduce(" #NAME ") team %s: dest[%d] past nreduce", \
                      t->name, N);                                                                \
        count++;                                                                                  \
    }
UNSIGNED_TYPES(DEF_AND)

static void test_team(const struct coll_team *t) {
#define RUN(NAME, T, MINV, MAXV) gen_##NAME(t);
    RMA_TYPES(RUN)
#undef RUN
    cplx_complexd(t);
    cplx_complexf(t);
#define RUN(NAME, T) and_##NAME(t);
    UNSIGNED_TYPES(RUN)
#undef RUN
    int ret = shmem_sync(t->team);
    CHECK(ret == 0, "shmem_sync(team %s) returned %d", t->name, ret);
    count++;
}

static long pSync[SHMEM_SYNC_SIZE];
static int box[64];

/* The deprecated active-set shmem_sync over the even PEs, one pSync for every round. */
static void active_set_sync(void) {
    int me = shmem_my_pe(), npes = shmem_n_pes(), size = (npes + 1) / 2;
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    if (me % 2)
        return;
    int next = (me + 2) % (2 * size), prev = (me - 2 + 2 * size) % (2 * size);
    for (int round = 1; round <= 200; round++) {
        shmem_int_p(&box[round % 64], round, next);
        shmem_quiet();
        shmem_sync(0, 1, size, pSync);
        CHECK(box[round % 64] == round, "shmem_sync(0, 1, %d, pSync) round %d: the put from PE %d before the sync "
              "is not visible after it (found %d)", size, round, prev, box[round % 64]);
        count++;
    }
}

int main(void) {
    shmem_init();
    CHECK(shmem_n_pes() <= 8, "sized for at most 8 PEs");
    size_t bytes = (MAXELEMS + 8) * sizeof(long double);
    src_buf = shmem_malloc(bytes);
    dst_buf = shmem_malloc(bytes);
    CHECK(src_buf != NULL && dst_buf != NULL, "shmem_malloc of %zu bytes failed", bytes);
    coll_teams_create();
    coll_for_each_team(test_team);
    coll_teams_destroy();
    active_set_sync();
    shmem_barrier_all();
    shmem_free(dst_buf);
    shmem_free(src_buf);
    printf("PE %d: %ld generic collectives ok\n", shmem_my_pe(), count);
    shmem_finalize();
    return 0;
}
