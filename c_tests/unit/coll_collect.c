/* rshmem-test
 * np: 1 2 3 4 7 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stdout: collects ok
 */
/* Team collects (OpenSHMEM 1.5, 9.9.8) on every team of coll.h, for the 24 RMA types and the
 * mem forms:
 * - shmem_TYPENAME_collect and shmem_collectmem with a different nelems on each PE: four
 *   patterns of counts by team rank (some ranks 0, increasing, all 0, a few hundred); dest
 *   must hold the members' sources concatenated in team rank order;
 * - shmem_TYPENAME_fcollect and shmem_fcollectmem with nelems 0, 1, 7 and 150.
 * Past the concatenation dest must be untouched, and the source must be unchanged. The
 * mem forms use addresses that are not word-aligned and odd byte counts. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../coll.h"

#define NPATTERNS 4
/* Elements team rank r of n contributes to a collect, in pattern p. */
static size_t count_of(int p, int r, int n) {
    switch (p) {
    case 0:
        return (size_t)(r % 3);
    case 1:
        return r == n - 1 ? 0 : (size_t)(5 + 2 * r);
    case 2:
        return 0;
    default:
        return (size_t)(100 + 37 * r);
    }
}

static const size_t fsizes[] = {0, 1, 7, 150};
#define NFSIZES (sizeof fsizes / sizeof fsizes[0])
#define MAXELEMS (8 * 150 + 8 * 400 + 64) /* more than any total at 8 PEs */

static void *src_buf, *dst_buf;
static long count;

/* Checks dest (dst, total elements, then guards) and the source (own elements, then guards).
 * Element k of rank r's contribution is COLL_DV(world PE of r, k). */
#define DEF_CHECK(NAME, T, MINV, MAXV)                                                            \
    static void check_##NAME(const struct coll_team *t, const char *what, const T *dst,           \
                             const T *src, int p, size_t fixed) {                                 \
        int me = shmem_my_pe();                                                                   \
        size_t at = 0;                                                                            \
        for (int r = 0; r < t->size; r++) {                                                       \
            size_t cnt = p >= 0 ? count_of(p, r, t->size) : fixed;                                \
            for (size_t k = 0; k < cnt; k++, at++)                                                \
                COLL_CHECK_EQ(dst[at], COLL_DV(T, MINV, MAXV, coll_pe(t, r), k),                  \
                              "%s team %s %s %zu, rank %d: dest[%zu] (element %zu of rank %d)", what, \
                              t->name, p >= 0 ? "pattern" : "nelems", p >= 0 ? (size_t)p : fixed, \
                              t->me, at, k, r);                                                   \
        }                                                                                         \
        for (size_t k = 0; k < COLL_NGUARD; k++)                                                  \
            COLL_CHECK_EQ(dst[at + k], COLL_GUARD(T, at + k),                                     \
                          "%s team %s %s %zu, rank %d: dest[%zu], past the %zu elements collected", \
                          what, t->name, p >= 0 ? "pattern" : "nelems", p >= 0 ? (size_t)p : fixed, \
                          t->me, at + k, at);                                                     \
        size_t mine = p >= 0 ? count_of(p, t->me, t->size) : fixed;                               \
        for (size_t k = 0; k < mine + COLL_NGUARD; k++)                                           \
            COLL_CHECK_EQ(src[k], k < mine ? COLL_DV(T, MINV, MAXV, me, k) : COLL_GUARD(T, k),     \
                          "%s team %s rank %d: source[%zu] changed", what, t->name, t->me, k);    \
    }                                                                                             \
    /* Fills the source with mine elements (guards after) and dest with guards. */               \
    static void fill_##NAME(T *dst, T *src, size_t mine) {                                        \
        int me = shmem_my_pe();                                                                   \
        for (size_t k = 0; k < mine + COLL_NGUARD; k++)                                           \
            src[k] = k < mine ? COLL_DV(T, MINV, MAXV, me, k) : COLL_GUARD(T, k);                 \
        for (size_t k = 0; k < MAXELEMS; k++)                                                     \
            dst[k] = COLL_GUARD(T, k);                                                            \
    }
RMA_TYPES(DEF_CHECK)
DEF_CHECK(mem, unsigned char, 0, UCHAR_MAX)

#define DEF_COLLECT(NAME, T, MINV, MAXV)                                                          \
    static void collect_##NAME(const struct coll_team *t) {                                       \
        T *src = src_buf, *dst = dst_buf;                                                         \
        for (int p = 0; p < NPATTERNS; p++) {                                                     \
            size_t mine = count_of(p, t->me, t->size);                                            \
            fill_##NAME(dst, src, mine);                                                          \
            coll_sync(t);                                                                         \
            int ret = shmem_##NAME##_collect(t->team, dst, src, mine);                            \
            CHECK(ret == 0, "shmem_" #NAME "_collect team %s pattern %d returned %d", t->name, p, ret); \
            check_##NAME(t, "shmem_" #NAME "_collect", dst, src, p, 0);                           \
            count++;                                                                              \
        }                                                                                         \
        for (size_t k = 0; k < NFSIZES; k++) {                                                    \
            fill_##NAME(dst, src, fsizes[k]);                                                     \
            coll_sync(t);                                                                         \
            int ret = shmem_##NAME##_fcollect(t->team, dst, src, fsizes[k]);                      \
            CHECK(ret == 0, "shmem_" #NAME "_fcollect team %s nelems %zu returned %d", t->name,   \
                  fsizes[k], ret);                                                                \
            check_##NAME(t, "shmem_" #NAME "_fcollect", dst, src, -1, fsizes[k]);                 \
            count++;                                                                              \
        }                                                                                         \
    }
RMA_TYPES(DEF_COLLECT)

/* The mem forms: bytes, at odd addresses. */
static void collect_mem(const struct coll_team *t) {
    unsigned char *src = (unsigned char *)src_buf + 1, *dst = (unsigned char *)dst_buf + 3;
    for (int p = 0; p < NPATTERNS; p++) {
        size_t mine = count_of(p, t->me, t->size);
        fill_mem(dst, src, mine);
        coll_sync(t);
        int ret = shmem_collectmem(t->team, dst, src, mine);
        CHECK(ret == 0, "shmem_collectmem team %s pattern %d returned %d", t->name, p, ret);
        check_mem(t, "shmem_collectmem", dst, src, p, 0);
        count++;
    }
    for (size_t k = 0; k < NFSIZES; k++) {
        fill_mem(dst, src, fsizes[k]);
        coll_sync(t);
        int ret = shmem_fcollectmem(t->team, dst, src, fsizes[k]);
        CHECK(ret == 0, "shmem_fcollectmem team %s nbytes %zu returned %d", t->name, fsizes[k], ret);
        check_mem(t, "shmem_fcollectmem", dst, src, -1, fsizes[k]);
        count++;
    }
}

static void test_team(const struct coll_team *t) {
#define RUN(NAME, T, MINV, MAXV) collect_##NAME(t);
    RMA_TYPES(RUN)
#undef RUN
    collect_mem(t);
}

int main(void) {
    shmem_init();
    size_t bytes = (MAXELEMS + 8) * sizeof(long double);
    src_buf = shmem_malloc(bytes);
    dst_buf = shmem_malloc(bytes);
    CHECK(src_buf != NULL && dst_buf != NULL, "shmem_malloc of %zu bytes failed", bytes);
    CHECK(shmem_n_pes() <= 8, "sized for at most 8 PEs");
    coll_teams_create();
    coll_for_each_team(test_team);
    coll_teams_destroy();
    shmem_barrier_all();
    shmem_free(dst_buf);
    shmem_free(src_buf);
    printf("PE %d: %ld collects ok\n", shmem_my_pe(), count);
    shmem_finalize();
    return 0;
}
