/* rshmem-test
 * np: 1 2 3 4 7 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PEER_TABLES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stdout: alltoalls ok
 */
/* Team all-to-all exchanges (OpenSHMEM 1.5, 9.9.9 and 9.9.10) on every team of coll.h, for the
 * 24 RMA types and the mem forms:
 * - shmem_TYPENAME_alltoall and shmem_alltoallmem with nelems 0, 1, 7 and 60;
 * - shmem_TYPENAME_alltoalls and shmem_alltoallsmem with dst and sst each 1 or 3, nelems
 *   1, 5 and 40.
 * Block j of rank i's source (element e at source[sst * (j * nelems + e)]) must arrive as
 * block i of rank j's dest (dest[dst * (i * nelems + e)]); the dest elements between the
 * strided ones and past the last must be untouched, and the source unchanged. Source
 * element k of world PE pe is COLL_DV(pe, k), so every block differs. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../coll.h"

static const size_t sizes[] = {0, 1, 7, 60};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const size_t ssizes[] = {1, 5, 40};
#define NSSIZES (sizeof ssizes / sizeof ssizes[0])
static const ptrdiff_t strides[][2] = {{1, 1}, {3, 1}, {1, 3}, {3, 3}}; /* {dst, sst} */
#define NSTRIDES (sizeof strides / sizeof strides[0])
#define MAXELEMS (3 * 8 * 60 + 64)

static void *src_buf, *dst_buf;
static long count;

/* A source value where no element goes (between strided elements). */
#define HOLE(T, i) ((T)(50 + (int)(i) % 37))

/* fill_: the source holds COLL_DV values at multiples of sst (HOLE values between them and
 * past the end), dest holds guards. check_: dest and source after the exchange. */
#define DEF_CHECK(NAME, T, MINV, MAXV)                                                            \
    static void fill_##NAME(const struct coll_team *t, T *dst, T *src, size_t n, ptrdiff_t ss) {  \
        int me = shmem_my_pe();                                                                   \
        size_t len = (size_t)ss * (size_t)t->size * n;                                            \
        for (size_t k = 0; k < len + COLL_NGUARD; k++)                                            \
            src[k] = (k < len && k % (size_t)ss == 0) ? COLL_DV(T, MINV, MAXV, me, k / (size_t)ss) \
                                                      : HOLE(T, k);                               \
        for (size_t k = 0; k < MAXELEMS; k++)                                                     \
            dst[k] = COLL_GUARD(T, k);                                                            \
    }                                                                                             \
    static void check_##NAME(const struct coll_team *t, const char *what, const T *dst,           \
                             const T *src, size_t n, ptrdiff_t ds, ptrdiff_t ss) {                \
        int me = shmem_my_pe();                                                                   \
        size_t dlen = (size_t)ds * (size_t)t->size * n, slen = (size_t)ss * (size_t)t->size * n;  \
        for (size_t k = 0; k < dlen + COLL_NGUARD; k++) {                                         \
            size_t blk = k / (size_t)ds / (n ? n : 1), e = k / (size_t)ds % (n ? n : 1);          \
            if (k < dlen && k % (size_t)ds == 0)                                                  \
                COLL_CHECK_EQ(dst[k], COLL_DV(T, MINV, MAXV, coll_pe(t, (int)blk), (size_t)t->me * n + e), \
                              "%s team %s nelems %zu dst %td sst %td, rank %d: dest[%zu] (element %zu " \
                              "from rank %zu)",                                                   \
                              what, t->name, n, ds, ss, t->me, k, e, blk);                        \
            else                                                                                  \
                COLL_CHECK_EQ(dst[k], COLL_GUARD(T, k),                                           \
                              "%s team %s nelems %zu dst %td sst %td, rank %d: dest[%zu] (not to be " \
                              "written)",                                                         \
                              what, t->name, n, ds, ss, t->me, k);                                \
        }                                                                                         \
        for (size_t k = 0; k < slen + COLL_NGUARD; k++)                                           \
            COLL_CHECK_EQ(src[k],                                                                 \
                          (k < slen && k % (size_t)ss == 0)                                       \
                              ? COLL_DV(T, MINV, MAXV, me, k / (size_t)ss)                        \
                              : HOLE(T, k),                                                       \
                          "%s team %s nelems %zu dst %td sst %td, rank %d: source[%zu] changed",  \
                          what, t->name, n, ds, ss, t->me, k);                                    \
    }
RMA_TYPES(DEF_CHECK)
DEF_CHECK(mem, unsigned char, 0, UCHAR_MAX)

#define DEF_A2A(NAME, T, MINV, MAXV)                                                              \
    static void a2a_##NAME(const struct coll_team *t) {                                           \
        T *src = src_buf, *dst = dst_buf;                                                         \
        for (size_t k = 0; k < NSIZES; k++) {                                                     \
            size_t n = sizes[k];                                                                  \
            fill_##NAME(t, dst, src, n, 1);                                                       \
            coll_sync(t);                                                                         \
            int ret = shmem_##NAME##_alltoall(t->team, dst, src, n);                              \
            CHECK(ret == 0, "shmem_" #NAME "_alltoall team %s nelems %zu returned %d", t->name, n, ret); \
            check_##NAME(t, "shmem_" #NAME "_alltoall", dst, src, n, 1, 1);                       \
            count++;                                                                              \
        }                                                                                         \
        for (size_t s = 0; s < NSTRIDES; s++)                                                     \
            for (size_t k = 0; k < NSSIZES; k++) {                                                \
                size_t n = ssizes[k];                                                             \
                ptrdiff_t ds = strides[s][0], ss = strides[s][1];                                 \
                fill_##NAME(t, dst, src, n, ss);                                                  \
                coll_sync(t);                                                                     \
                int ret = shmem_##NAME##_alltoalls(t->team, dst, src, ds, ss, n);                 \
                CHECK(ret == 0, "shmem_" #NAME "_alltoalls team %s nelems %zu dst %td sst %td returned %d", \
                      t->name, n, ds, ss, ret);                                                   \
                check_##NAME(t, "shmem_" #NAME "_alltoalls", dst, src, n, ds, ss);                \
                count++;                                                                          \
            }                                                                                     \
    }
RMA_TYPES(DEF_A2A)

/* The mem forms: bytes, at addresses that are not word-aligned. */
static void a2a_mem(const struct coll_team *t) {
    unsigned char *src = (unsigned char *)src_buf + 1, *dst = (unsigned char *)dst_buf + 2;
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        fill_mem(t, dst, src, n, 1);
        coll_sync(t);
        int ret = shmem_alltoallmem(t->team, dst, src, n);
        CHECK(ret == 0, "shmem_alltoallmem team %s nbytes %zu returned %d", t->name, n, ret);
        check_mem(t, "shmem_alltoallmem", dst, src, n, 1, 1);
        count++;
    }
    for (size_t s = 0; s < NSTRIDES; s++)
        for (size_t k = 0; k < NSSIZES; k++) {
            size_t n = ssizes[k];
            ptrdiff_t ds = strides[s][0], ss = strides[s][1];
            fill_mem(t, dst, src, n, ss);
            coll_sync(t);
            int ret = shmem_alltoallsmem(t->team, dst, src, ds, ss, n);
            CHECK(ret == 0, "shmem_alltoallsmem team %s nbytes %zu dst %td sst %td returned %d", t->name, n, ds,
                  ss, ret);
            check_mem(t, "shmem_alltoallsmem", dst, src, n, ds, ss);
            count++;
        }
}

static void test_team(const struct coll_team *t) {
#define RUN(NAME, T, MINV, MAXV) a2a_##NAME(t);
    RMA_TYPES(RUN)
#undef RUN
    a2a_mem(t);
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
    shmem_barrier_all();
    shmem_free(dst_buf);
    shmem_free(src_buf);
    printf("PE %d: %ld alltoalls ok\n", shmem_my_pe(), count);
    shmem_finalize();
    return 0;
}
