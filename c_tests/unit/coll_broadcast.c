/* rshmem-test
 * np: 1 2 3 4 7 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 * variant: SHMEM_PSYNC_STRATEGY=all
 * stdout: broadcasts ok
 */
/* Team broadcasts (OpenSHMEM 1.5, 9.9.7): shmem_TYPENAME_broadcast for the 24 RMA types and
 * shmem_broadcastmem, nelems 0, 1, 7 and 1000, from every root of every team of coll.h.
 * Every member, the root included, must find the root's source in dest; the elements of
 * dest past nelems must be untouched, and the source unchanged. Every PE's source differs
 * (element i of PE pe is VALUE index i + 2 pe), so data from a wrong root shows. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../coll.h"

#define MAXN 1000
static const size_t sizes[] = {0, 1, 7, MAXN};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void *src_buf, *dst_buf; /* symmetric, room for MAXN + COLL_NGUARD of the widest type */
static long count;

#define DEF_BCAST(NAME, T, MINV, MAXV)                                                            \
    static void bcast_##NAME(const struct coll_team *t, size_t n, int root) {                     \
        T *src = src_buf, *dst = dst_buf;                                                         \
        int me = shmem_my_pe(), from = coll_pe(t, root);                                          \
        for (size_t i = 0; i < n + COLL_NGUARD; i++) {                                            \
            src[i] = COLL_DV(T, MINV, MAXV, me, i);                                               \
            dst[i] = COLL_GUARD(T, i);                                                            \
        }                                                                                         \
        coll_sync(t); /* every member's dest is ready */                                          \
        int ret = shmem_##NAME##_broadcast(t->team, dst, src, n, root);                           \
        CHECK(ret == 0, "shmem_" #NAME "_broadcast team %s nelems %zu root %d returned %d", t->name, \
              n, root, ret);                                                                      \
        for (size_t i = 0; i < n + COLL_NGUARD; i++) {                                            \
            T want = i < n ? COLL_DV(T, MINV, MAXV, from, i) : COLL_GUARD(T, i);                  \
            COLL_CHECK_EQ(dst[i], want,                                                           \
                          "shmem_" #NAME "_broadcast team %s nelems %zu root %d (world PE %d) "   \
                          "rank %d: dest[%zu]%s",                                                 \
                          t->name, n, root, from, t->me, i, i < n ? "" : " (past nelems)");       \
            COLL_CHECK_EQ(src[i], COLL_DV(T, MINV, MAXV, me, i),                                  \
                          "shmem_" #NAME "_broadcast team %s nelems %zu root %d rank %d: "        \
                          "source[%zu] changed",                                                  \
                          t->name, n, root, t->me, i);                                            \
        }                                                                                         \
        count++;                                                                                  \
    }
RMA_TYPES(DEF_BCAST)

/* shmem_broadcastmem of n bytes, from and to addresses that are not word-aligned. */
static void bcast_mem(const struct coll_team *t, size_t n, int root) {
    unsigned char *src = (unsigned char *)src_buf + 3, *dst = (unsigned char *)dst_buf + 1;
    int me = shmem_my_pe(), from = coll_pe(t, root);
    for (size_t i = 0; i < n + COLL_NGUARD; i++) {
        src[i] = COLL_DV(unsigned char, 0, UCHAR_MAX, me, i);
        dst[i] = COLL_GUARD(unsigned char, i);
    }
    dst[-1] = 0xA5;
    coll_sync(t);
    int ret = shmem_broadcastmem(t->team, dst, src, n, root);
    CHECK(ret == 0, "shmem_broadcastmem team %s nbytes %zu root %d returned %d", t->name, n, root, ret);
    CHECK(dst[-1] == 0xA5, "shmem_broadcastmem team %s nbytes %zu root %d: the byte before dest changed",
          t->name, n, root);
    for (size_t i = 0; i < n + COLL_NGUARD; i++) {
        unsigned char want = i < n ? COLL_DV(unsigned char, 0, UCHAR_MAX, from, i) : COLL_GUARD(unsigned char, i);
        COLL_CHECK_EQ(dst[i], want, "shmem_broadcastmem team %s nbytes %zu root %d (world PE %d) rank %d: dest[%zu]%s",
                      t->name, n, root, from, t->me, i, i < n ? "" : " (past nbytes)");
        COLL_CHECK_EQ(src[i], COLL_DV(unsigned char, 0, UCHAR_MAX, me, i),
                      "shmem_broadcastmem team %s nbytes %zu root %d rank %d: source[%zu] changed", t->name, n,
                      root, t->me, i);
    }
    count++;
}

static void test_team(const struct coll_team *t) {
    for (size_t k = 0; k < NSIZES; k++)
        for (int root = 0; root < t->size; root++) {
#define RUN(NAME, T, MINV, MAXV) bcast_##NAME(t, sizes[k], root);
            RMA_TYPES(RUN)
#undef RUN
            bcast_mem(t, sizes[k], root);
        }
}

int main(void) {
    shmem_init();
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
    printf("PE %d: %ld broadcasts ok\n", shmem_my_pe(), count);
    shmem_finalize();
    return 0;
}
