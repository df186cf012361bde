/* rshmem-test
 * np: 2 4 8
 * cflags: -std=c11
 * timeout: 120
 */
/* (timeout: under the checking transport, which checks every access, the 4-PE run took
 * 21-60 s in CI runs on 2 cores beside the other tests, and once hit the default 60.) */
/* Contention, for every type of the standard AMO table. (1) All PEs hammer one word on
 * PE 0 with fetch_add of 3; the total is exact, each PE's own old values increase, and
 * PE 0 gathers all old values and checks they are exactly {0, 3, ..., 3 * (total - 1)}.
 * (2) All PEs hammer a second word on PE 0 with a mix of inc, add, fetch_inc and
 * fetch_add in the typed, ctx-on-default and created-context spellings. (3) Each PE
 * hammers its right neighbour's word while that neighbour hammers the same word as its
 * own (pe = me). Totals are exact. */
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

/* Type properties computed from the type itself (no per-type table). */
#define BITS(T) ((int)(sizeof(T) * CHAR_BIT))
#define IS_SIGNED(T) ((T)-1 < (T)1)
/* highest value of an integer type; for a floating type, 2^(bits-1) (an exact float) */
#define IMAX(T) ((T)(UINT64_MAX >> (64 - BITS(T) + IS_SIGNED(T))))
#define IMIN(T) (IS_SIGNED(T) ? (T)(-IMAX(T) - 1) : (T)0)

/* Completes the non-fetching AMOs of both contexts. */
#define QUIET(ctx)            \
    do {                      \
        shmem_quiet();        \
        shmem_ctx_quiet(ctx); \
    } while (0)

#define ITERS 3000
#define INC 3
#define MIX 14 /* inc + add 5 + fetch_inc + fetch_add 7 */

/* Spelling j (0 typed, 1 ctx on SHMEM_CTX_DEFAULT, 2 created context) of routine OP */
#define AMO3(j, ctx, NAME, OP, ...)                                               \
    ((j) == 0   ? shmem_##NAME##_atomic_##OP(__VA_ARGS__)                         \
     : (j) == 1 ? shmem_ctx_##NAME##_atomic_##OP(SHMEM_CTX_DEFAULT, __VA_ARGS__)  \
                : shmem_ctx_##NAME##_atomic_##OP(ctx, __VA_ARGS__))

/* ITERS rounds of the mix on PE pe's word w; fetched values stay below bound */
#define HAMMER(NAME, T, w, pe, i, ctx, bound)                                                 \
    do {                                                                                      \
        int j_ = (i) % 3;                                                                     \
        AMO3(j_, ctx, NAME, inc, w, pe);                                                      \
        AMO3(j_, ctx, NAME, add, w, (T)5, pe);                                                \
        T f_ = AMO3(j_, ctx, NAME, fetch_inc, w, pe);                                         \
        CHECK((uint64_t)f_ < (uint64_t)(bound), #NAME " fetch_inc returned %llu, beyond %llu", \
              (unsigned long long)f_, (unsigned long long)(bound));                           \
        f_ = AMO3(j_, ctx, NAME, fetch_add, w, (T)7, pe);                                     \
        CHECK((uint64_t)f_ < (uint64_t)(bound), #NAME " fetch_add returned %llu, beyond %llu", \
              (unsigned long long)f_, (unsigned long long)(bound));                           \
    } while (0)

#define DEFINE_CONT(NAME, T)                                                                   \
    static T NAME##_w1, NAME##_w2, NAME##_w3;                                                  \
    static void cont_##NAME(int me, int npes, shmem_ctx_t ctx, char *seen) {                   \
        int right = (me + 1) % npes;                                                           \
        uint64_t total = (uint64_t)npes * ITERS;                                               \
        T *all = shmem_malloc(total * sizeof(T));                                              \
        T *got = malloc(ITERS * sizeof(T));                                                    \
        CHECK(all != NULL && got != NULL, "allocation failed");                                \
        shmem_barrier_all();                                                                   \
        /* (1) fetch_add on one word of PE 0 */                                                \
        for (int i = 0; i < ITERS; i++)                                                        \
            got[i] = shmem_##NAME##_atomic_fetch_add(&NAME##_w1, (T)INC, 0);                   \
        for (int i = 1; i < ITERS; i++)                                                        \
            CHECK(got[i] > got[i - 1], #NAME " fetch_add #%d returned %llu after %llu", i,     \
                  (unsigned long long)got[i], (unsigned long long)got[i - 1]);                 \
        shmem_##NAME##_put(all + (size_t)me * ITERS, got, ITERS, 0);                           \
        shmem_barrier_all();                                                                   \
        if (me == 0) {                                                                         \
            CHECK((uint64_t)NAME##_w1 == INC * total, #NAME " word is %llu after %llu "        \
                  "fetch_add of %d", (unsigned long long)NAME##_w1,                            \
                  (unsigned long long)total, INC);                                             \
            for (uint64_t i = 0; i < total; i++)                                               \
                seen[i] = 0;                                                                   \
            for (uint64_t i = 0; i < total; i++) {                                             \
                uint64_t v = (uint64_t)all[i];                                                 \
                CHECK(v % INC == 0 && v / INC < total && !seen[v / INC],                       \
                      #NAME " fetch_add #%llu of PE %llu returned %llu: not a multiple of "    \
                      "%d, too big, or returned twice", (unsigned long long)(i % ITERS),       \
                      (unsigned long long)(i / ITERS), (unsigned long long)v, INC);            \
                seen[v / INC] = 1;                                                             \
            }                                                                                  \
        }                                                                                      \
        /* (2) a mix of routines and spellings on a second word of PE 0 */                     \
        for (int i = 0; i < ITERS; i++)                                                        \
            HAMMER(NAME, T, &NAME##_w2, 0, i, ctx, MIX * total);                               \
        QUIET(ctx);                                                                            \
        shmem_barrier_all();                                                                   \
        T v2 = shmem_##NAME##_atomic_fetch(&NAME##_w2, 0);                                     \
        CHECK((uint64_t)v2 == MIX * total, #NAME " shared word is %llu, not %llu",             \
              (unsigned long long)v2, (unsigned long long)(MIX * total));                      \
        /* (3) the right neighbour's word, which that neighbour updates too */                 \
        for (int i = 0; i < ITERS; i++) {                                                      \
            HAMMER(NAME, T, &NAME##_w3, right, i, ctx, 2 * MIX * ITERS);                       \
            HAMMER(NAME, T, &NAME##_w3, me, i + 1, ctx, 2 * MIX * ITERS);                      \
        }                                                                                      \
        QUIET(ctx);                                                                            \
        shmem_barrier_all();                                                                   \
        CHECK((uint64_t)NAME##_w3 == 2 * MIX * ITERS, #NAME " word updated by this PE and "    \
              "its left neighbour is %llu, not %llu", (unsigned long long)NAME##_w3,           \
              (unsigned long long)(2 * MIX * ITERS));                                          \
        shmem_barrier_all();                                                                   \
        free(got);                                                                             \
        shmem_free(all);                                                                       \
    }
RSHMEM_AMO_STD_TYPES(DEFINE_CONT)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
    char *seen = malloc((size_t)npes * ITERS);
    CHECK(seen != NULL, "malloc failed");
#define RUN(NAME, T) cont_##NAME(me, npes, ctx, seen);
    RSHMEM_AMO_STD_TYPES(RUN)
    free(seen);
    shmem_ctx_destroy(ctx);
    shmem_finalize();
    return 0;
}
