/* rshmem-test
 * np: 1 2 4 8
 * cflags: -std=c11
 */
/* compare_swap ownership races, for every type of the standard AMO table: in each round
 * all PEs race compare_swap(&w, EMPTY, CLAIM(me), owner) on one word (the owner PE
 * changes every round, the spelling is typed, ctx on SHMEM_CTX_DEFAULT or a created
 * context, and odd rounds use a non-zero EMPTY and values near the maximum). Exactly one
 * PE gets EMPTY back; every loser gets the winner's value back; afterwards everyone
 * reads the winner's value, and PE 0 checks the gathered results. The owner resets the
 * word between rounds, inside barriers. */
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

#define ROUNDS 200
#define MAXPE 64

#define AMO3(j, ctx, NAME, OP, ...)                                               \
    ((j) == 0   ? shmem_##NAME##_atomic_##OP(__VA_ARGS__)                         \
     : (j) == 1 ? shmem_ctx_##NAME##_atomic_##OP(SHMEM_CTX_DEFAULT, __VA_ARGS__)  \
                : shmem_ctx_##NAME##_atomic_##OP(ctx, __VA_ARGS__))

#define EMPTY(T, round) ((round) % 2 ? (T)(IMAX(T) / 2 + 1) : (T)0)
#define CLAIM(T, p, round) ((round) % 2 ? (T)(IMAX(T) - (T)(p)) : (T)((p) + 1))

#define DEFINE_RACE(NAME, T)                                                                    \
    static T NAME##_w;                                                                          \
    static T NAME##_res[MAXPE];                                                                 \
    static void race_##NAME(int me, int npes, shmem_ctx_t ctx) {                                \
        for (int round = 0; round < ROUNDS; round++) {                                          \
            int owner = round % npes, j = (round + me) % 3;                                     \
            NAME##_w = EMPTY(T, round); /* every PE: only the owner's copy is used */            \
            shmem_barrier_all();                                                                \
            T r = AMO3(j, ctx, NAME, compare_swap, &NAME##_w, EMPTY(T, round),                  \
                       CLAIM(T, me, round), owner);                                             \
            shmem_##NAME##_p(&NAME##_res[me], r, 0);                                            \
            shmem_barrier_all();                                                                \
            T v = shmem_##NAME##_atomic_fetch(&NAME##_w, owner);                                \
            if (r == EMPTY(T, round))                                                           \
                CHECK(v == CLAIM(T, me, round), #NAME " round %d: won the compare_swap but the " \
                      "word holds another value", round);                                       \
            else                                                                                \
                CHECK(r == v, #NAME " round %d: a losing compare_swap returned a value that "   \
                      "is not the winner's", round);                                            \
            if (me == 0) {                                                                      \
                int winners = 0, winner = -1;                                                   \
                for (int i = 0; i < npes; i++)                                                  \
                    if (NAME##_res[i] == EMPTY(T, round)) {                                     \
                        winners++;                                                              \
                        winner = i;                                                             \
                    }                                                                           \
                CHECK(winners == 1, #NAME " round %d: %d PEs won the compare_swap", round,     \
                      winners);                                                                 \
                for (int i = 0; i < npes; i++)                                                  \
                    CHECK(i == winner || NAME##_res[i] == CLAIM(T, winner, round),              \
                          #NAME " round %d: PE %d lost to PE %d but got another value back",    \
                          round, i, winner);                                                    \
            }                                                                                   \
            shmem_barrier_all();                                                                \
        }                                                                                       \
    }
RSHMEM_AMO_STD_TYPES(DEFINE_RACE)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= MAXPE, "run with at most %d PEs", MAXPE);
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
#define RUN(NAME, T) race_##NAME(me, npes, ctx);
    RSHMEM_AMO_STD_TYPES(RUN)
    shmem_ctx_destroy(ctx);
    shmem_finalize();
    return 0;
}
