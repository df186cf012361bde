/* rshmem-test
 * np: 1 2 4
 * variant: SHMEM_CHECK_BOUNDS=1
 * cflags: -std=c11
 */
/* OpenSHMEM 1.6 block-strided RMA: shmem_TYPE_ibput / shmem_TYPE_ibget for the 24 RMA
 * types (plain, shmem_ctx_ with SHMEM_CTX_DEFAULT and a created context, C11 generic
 * shmem_ibput / shmem_ibget without and with a context) and the sized shmem_ibputN /
 * shmem_ibgetN (plain and ctx forms). Block i of bsize elements goes from
 * source + i * sst to dest + i * dst (strides in elements). Several shapes (gaps on either
 * side, contiguous blocks, bsize 1, one block) are checked element by element, including
 * that every element outside the blocks keeps its old value; nblocks 0 and bsize 0 write
 * nothing. ibput writes to the right neighbour, ibget reads from it. */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define L 48
#define VAL(T, pe, i, v) \
    ((T)((T)(((i) % 2 ? -1 : 1) * (1 + 2 * (pe) + (i) + 3 * (v))) + (T)0.25))
#define SENTINEL(T) ((T)123)

struct shape {
    ptrdiff_t dst, sst;
    size_t bsize, nblocks;
};
static const struct shape shapes[] = {
    {5, 3, 2, 4}, /* gaps in dest and source */
    {3, 7, 3, 3}, /* contiguous in dest (gather) */
    {7, 3, 3, 4}, /* contiguous in source (scatter) */
    {4, 4, 4, 2}, /* contiguous on both sides */
    {6, 2, 1, 5}, /* bsize 1 */
    {2, 9, 2, 1}, /* one block */
    {3, 3, 2, 0}, /* nblocks 0: nothing */
    {3, 3, 0, 4}, /* bsize 0: nothing */
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* Index into source of dest element j for shape s, or -1 when j is outside the blocks. */
static long source_of(const struct shape *s, size_t j) {
    for (size_t i = 0; i < s->nblocks; i++)
        for (size_t e = 0; e < s->bsize; e++)
            if ((size_t)((ptrdiff_t)i * s->dst) + e == j)
                return (long)((ptrdiff_t)i * s->sst + (ptrdiff_t)e);
    return -1;
}

static shmem_ctx_t ctx;
enum { TYPED, CTXDEF, CTXNEW, GEN, GEN_CTXNEW, GEN_CTXDEF, NFORMS };
static const char *const form_names[NFORMS] = {
    "shmem_T_", "shmem_ctx_T_(SHMEM_CTX_DEFAULT)", "shmem_ctx_T_(created ctx)", "generic shmem_",
    "generic shmem_(created ctx)", "generic shmem_(SHMEM_CTX_DEFAULT)"};

#define ISSUE(NAME, OP, form, d, s, sh, pe)                                                     \
    switch (form) {                                                                             \
    case TYPED: shmem_##NAME##_##OP(d, s, sh->dst, sh->sst, sh->bsize, sh->nblocks, pe); break; \
    case CTXDEF:                                                                                \
        shmem_ctx_##NAME##_##OP(SHMEM_CTX_DEFAULT, d, s, sh->dst, sh->sst, sh->bsize, sh->nblocks, pe); \
        break;                                                                                  \
    case CTXNEW: shmem_ctx_##NAME##_##OP(ctx, d, s, sh->dst, sh->sst, sh->bsize, sh->nblocks, pe); break; \
    case GEN: shmem_##OP(d, s, sh->dst, sh->sst, sh->bsize, sh->nblocks, pe); break;            \
    case GEN_CTXNEW: shmem_##OP(ctx, d, s, sh->dst, sh->sst, sh->bsize, sh->nblocks, pe); break; \
    default: shmem_##OP(SHMEM_CTX_DEFAULT, d, s, sh->dst, sh->sst, sh->bsize, sh->nblocks, pe); break; \
    }

#define DEFINE_TYPE(NAME, T)                                                                     \
    static T NAME##_src[L];                                                                      \
    static void test_##NAME(int me, int npes) {                                                  \
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;                              \
        T *dest = shmem_malloc(L * sizeof(T));                                                   \
        T got[L];                                                                                \
        CHECK(dest != NULL, #NAME ": shmem_malloc failed");                                      \
        for (int form = 0; form < NFORMS; form++)                                                \
            for (size_t k = 0; k < NSHAPES; k++) {                                               \
                const struct shape *sh = &shapes[k];                                             \
                int v = form * (int)NSHAPES + (int)k;                                            \
                for (int i = 0; i < L; i++) {                                                    \
                    NAME##_src[i] = VAL(T, me, i, v % 5);                                        \
                    dest[i] = SENTINEL(T);                                                       \
                    got[i] = SENTINEL(T);                                                        \
                }                                                                                \
                shmem_barrier_all();                                                             \
                ISSUE(NAME, ibput, form, dest, NAME##_src, sh, right);                           \
                shmem_ctx_quiet(ctx);                                                            \
                shmem_barrier_all();                                                             \
                for (size_t j = 0; j < L; j++) {                                                 \
                    long s = source_of(sh, j);                                                   \
                    T want = s < 0 ? SENTINEL(T) : VAL(T, left, s, v % 5);                       \
                    CHECK(dest[j] == want, "%sibput T=" #NAME " shape #%zu (dst %td sst %td bsize %zu " \
                          "nblocks %zu): dest element %zu is wrong (%s)", form_names[form], k, sh->dst, \
                          sh->sst, sh->bsize, sh->nblocks, j, s < 0 ? "outside the blocks" : "in a block"); \
                }                                                                                \
                ISSUE(NAME, ibget, form, got, NAME##_src, sh, right);                            \
                for (size_t j = 0; j < L; j++) {                                                 \
                    long s = source_of(sh, j);                                                   \
                    T want = s < 0 ? SENTINEL(T) : VAL(T, right, s, v % 5);                      \
                    CHECK(got[j] == want, "%sibget T=" #NAME " shape #%zu (dst %td sst %td bsize %zu " \
                          "nblocks %zu): dest element %zu is wrong (%s)", form_names[form], k, sh->dst, \
                          sh->sst, sh->bsize, sh->nblocks, j, s < 0 ? "outside the blocks" : "in a block"); \
                }                                                                                \
                shmem_barrier_all();                                                             \
            }                                                                                    \
        shmem_free(dest);                                                                        \
    }
RSHMEM_RMA_TYPES(DEFINE_TYPE)

/* Sized forms on byte patterns */
typedef void (*ib_fn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);
typedef void (*ctx_ib_fn)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);
struct sized {
    int bits;
    ib_fn put, get;
    ctx_ib_fn ctx_put, ctx_get;
};
#define SIZED_ENTRY(BITS) {BITS, shmem_ibput##BITS, shmem_ibget##BITS, shmem_ctx_ibput##BITS, shmem_ctx_ibget##BITS},
static const struct sized sized_forms[] = {RSHMEM_SIZES(SIZED_ENTRY)};

static unsigned char pat(int pe, long k, int v, size_t b) {
    return (unsigned char)(pe * 37 + (int)k * 11 + v * 5 + (int)b * 3 + 1);
}

static void test_sized(const struct sized *z, int me, int npes) {
    static const char *const names[3] = {"", " (ctx default)", " (created ctx)"};
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t size = (size_t)z->bits / 8;
    unsigned char *src = shmem_malloc(L * size), *dest = shmem_malloc(L * size);
    unsigned char *got = malloc(L * size);
    CHECK(src && dest && got, "ibput%d: allocation failed", z->bits);
    for (int form = 0; form < 3; form++)
        for (size_t k = 0; k < NSHAPES; k++) {
            const struct shape *sh = &shapes[k];
            int v = form * 10 + (int)k;
            for (size_t b = 0; b < L * size; b++)
                src[b] = pat(me, (long)(b / size), v, b % size);
            memset(dest, 0xEE, L * size);
            memset(got, 0xEE, L * size);
            shmem_barrier_all();
            if (form == 0)
                z->put(dest, src, sh->dst, sh->sst, sh->bsize, sh->nblocks, right);
            else
                z->ctx_put(form == 1 ? SHMEM_CTX_DEFAULT : ctx, dest, src, sh->dst, sh->sst, sh->bsize,
                           sh->nblocks, right);
            shmem_ctx_quiet(ctx);
            shmem_barrier_all();
            for (size_t b = 0; b < L * size; b++) {
                long s = source_of(sh, b / size);
                unsigned char want = s < 0 ? 0xEE : pat(left, s, v, b % size);
                CHECK(dest[b] == want, "shmem_ibput%d%s shape #%zu: dest byte %zu (element %zu) is 0x%02x, "
                      "expected 0x%02x", z->bits, names[form], k, b, b / size, dest[b], want);
            }
            if (form == 0)
                z->get(got, src, sh->dst, sh->sst, sh->bsize, sh->nblocks, right);
            else
                z->ctx_get(form == 1 ? SHMEM_CTX_DEFAULT : ctx, got, src, sh->dst, sh->sst, sh->bsize,
                           sh->nblocks, right);
            for (size_t b = 0; b < L * size; b++) {
                long s = source_of(sh, b / size);
                unsigned char want = s < 0 ? 0xEE : pat(right, s, v, b % size);
                CHECK(got[b] == want, "shmem_ibget%d%s shape #%zu: dest byte %zu (element %zu) is 0x%02x, "
                      "expected 0x%02x", z->bits, names[form], k, b, b / size, got[b], want);
            }
            shmem_barrier_all();
        }
    free(got);
    shmem_free(dest);
    shmem_free(src);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
#define RUN(NAME, T) test_##NAME(me, npes);
    RSHMEM_RMA_TYPES(RUN)
    for (size_t k = 0; k < sizeof sized_forms / sizeof sized_forms[0]; k++)
        test_sized(&sized_forms[k], me, npes);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("ibput/ibget: 24 types x %d forms, 5 sizes x 3 forms, %zu shapes ok\n", NFORMS, NSHAPES);
    shmem_finalize();
    return 0;
}
