/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c11
 */
/* The non-blocking fetching AMOs: atomic_fetch_nbi and atomic_swap_nbi for every type of
 * the extended AMO table, atomic_compare_swap_nbi (failing and succeeding),
 * atomic_fetch_inc_nbi and atomic_fetch_add_nbi for the standard table, and
 * atomic_fetch_and_nbi, _or_nbi, _xor_nbi for the bitwise table, each in six spellings
 * (typed, ctx-typed on SHMEM_CTX_DEFAULT and on a created context, C11 generic without a
 * context, with SHMEM_CTX_DEFAULT and with the created context). All spellings are
 * issued, to their own slots of the right neighbour and into fetch buffers on the stack
 * (fetch need not be symmetric), before one shmem_quiet + shmem_ctx_quiet; then the
 * fetched old values and the new remote values are checked. Finally 60 fetch_inc_nbi on
 * one word, all outstanding together, must have fetched exactly {start..start+59}. */
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#include "../amo.h"

static uint64_t rt(uint64_t x) { return x; }
#define PAT(T, x) ((T)rt(x))
#define VSTD(T, p, k) ((T)(IMAX(T) / 2 + 1 + (T)(16 * (p) + (k))))
#define X0(T, p, k) PAT(T, 0xA5C3F00FA5C3F00Full ^ ((uint64_t)(16 * (p) + (k)) << 8))

/* Checks the fetch buffers after a quiet. */
#define CHECK_GOT(NAME, what, want)                                                         \
    do {                                                                                    \
        QUIET(ctx);                                                                         \
        for (int k = 0; k < NSPELL; k++)                                                    \
            CHECK(got[k] == (want), #NAME " " what " (%s) fetched a wrong value", spell[k]); \
    } while (0)
/* Checks the right neighbour's slots with a blocking fetch. */
#define CHECK_REMOTE(NAME, what, want)                                                      \
    do {                                                                                    \
        for (int k = 0; k < NSPELL; k++)                                                    \
            CHECK(shmem_##NAME##_atomic_fetch(&NAME##_slot[k], right) == (want),            \
                  #NAME " " what " (%s) left a wrong remote value", spell[k]);              \
    } while (0)

#define DEFINE_EXT(NAME, T)                                                               \
    static T NAME##_slot[NSPELL];                                                         \
    static void ext_##NAME(int me, int npes, shmem_ctx_t ctx) {                           \
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;                       \
        T got[NSPELL];                                                                    \
        for (int k = 0; k < NSPELL; k++)                                                  \
            NAME##_slot[k] = VA(T, me, k);                                                \
        shmem_barrier_all();                                                              \
        for (int k = 0; k < NSPELL; k++)                                                  \
            AMO(k, ctx, NAME, fetch_nbi, &got[k], &NAME##_slot[k], right);                \
        CHECK_GOT(NAME, "atomic_fetch_nbi", VA(T, right, k));                             \
        for (int k = 0; k < NSPELL; k++)                                                  \
            AMO(k, ctx, NAME, swap_nbi, &got[k], &NAME##_slot[k], VB(T, me, k), right);   \
        CHECK_GOT(NAME, "atomic_swap_nbi", VA(T, right, k));                              \
        CHECK_REMOTE(NAME, "atomic_swap_nbi", VB(T, me, k));                              \
        for (int k = 0; k < NSPELL; k++)                                                  \
            AMO(k, ctx, NAME, swap_nbi, &got[k], &NAME##_slot[k], VD(T, me, k), right);   \
        CHECK_GOT(NAME, "second atomic_swap_nbi", VB(T, me, k));                          \
        shmem_barrier_all();                                                              \
        for (int k = 0; k < NSPELL; k++)                                                  \
            CHECK(NAME##_slot[k] == VD(T, left, k), #NAME " slot %d (%s) written by PE %d " \
                  "with atomic_swap_nbi has a wrong value", k, spell[k], left);           \
        shmem_barrier_all();                                                              \
    }
RSHMEM_AMO_EXT_TYPES(DEFINE_EXT)

#define NINC 60
#define DEFINE_STD(NAME, T)                                                                  \
    static T NAME##_sslot[NSPELL];                                                           \
    static T NAME##_ctr;                                                                     \
    static void std_##NAME(int me, int npes, shmem_ctx_t ctx) {                              \
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;                          \
        T got[NSPELL];                                                                       \
        for (int k = 0; k < NSPELL; k++)                                                     \
            NAME##_sslot[k] = (T)(IMAX(T) - 1);                                              \
        NAME##_ctr = (T)(IMAX(T) - 9);                                                       \
        shmem_barrier_all();                                                                 \
        T *s = NAME##_sslot;                                                                 \
        for (int k = 0; k < NSPELL; k++)                                                     \
            AMO(k, ctx, NAME, fetch_inc_nbi, &got[k], &s[k], right);                         \
        CHECK_GOT(NAME, "atomic_fetch_inc_nbi", (T)(IMAX(T) - 1));                           \
        for (int k = 0; k < NSPELL; k++)                                                     \
            AMO(k, ctx, NAME, fetch_add_nbi, &got[k], &s[k], (T)2, right);                   \
        CHECK_GOT(NAME, "atomic_fetch_add_nbi", IMAX(T));                                    \
        /* max + 2 wrapped to min + 1 */                                                     \
        for (int k = 0; k < NSPELL; k++)                                                     \
            AMO(k, ctx, NAME, compare_swap_nbi, &got[k], &s[k], (T)5, (T)7, right);          \
        CHECK_GOT(NAME, "failing atomic_compare_swap_nbi", (T)(IMIN(T) + 1));                \
        for (int k = 0; k < NSPELL; k++)                                                     \
            AMO(k, ctx, NAME, compare_swap_nbi, &got[k], &s[k], (T)(IMIN(T) + 1),            \
                VSTD(T, me, k), right);                                                      \
        CHECK_GOT(NAME, "atomic_compare_swap_nbi", (T)(IMIN(T) + 1));                        \
        for (int k = 0; k < NSPELL; k++)                                                     \
            CHECK(shmem_##NAME##_atomic_fetch(&s[k], right) == VSTD(T, me, k),               \
                  #NAME " atomic_compare_swap_nbi (%s) left a wrong remote value", spell[k]); \
        /* many outstanding fetch_inc_nbi on one word, wrapping past the maximum */          \
        T many[NINC];                                                                        \
        for (int i = 0; i < NINC; i++)                                                       \
            AMO(i % NSPELL, ctx, NAME, fetch_inc_nbi, &many[i], &NAME##_ctr, right);         \
        QUIET(ctx);                                                                          \
        int seen[NINC] = {0};                                                                \
        for (int i = 0; i < NINC; i++) {                                                     \
            uint64_t off = ((uint64_t)many[i] - (uint64_t)(T)(IMAX(T) - 9)) &                \
                           (UINT64_MAX >> (64 - BITS(T)));                                   \
            CHECK(off < NINC && !seen[(int)off],                                             \
                  #NAME " outstanding atomic_fetch_inc_nbi #%d fetched a wrong or repeated " \
                  "value", i);                                                               \
            seen[(int)off] = 1;                                                              \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
        for (int k = 0; k < NSPELL; k++)                                                     \
            CHECK(s[k] == VSTD(T, left, k), #NAME " slot %d (%s) written by PE %d has a "    \
                  "wrong value", k, spell[k], left);                                         \
        CHECK(NAME##_ctr == (T)(IMIN(T) + (NINC - 10)), #NAME " counter after %d "              \
              "atomic_fetch_inc_nbi from PE %d is wrong", NINC, left);                       \
        shmem_barrier_all();                                                                 \
    }
RSHMEM_AMO_STD_TYPES(DEFINE_STD)

#define DEFINE_BIT(NAME, T)                                                               \
    static T NAME##_bslot[NSPELL];                                                        \
    static void bit_##NAME(int me, int npes, shmem_ctx_t ctx) {                           \
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;                       \
        T got[NSPELL], e[NSPELL];                                                         \
        for (int k = 0; k < NSPELL; k++)                                                  \
            NAME##_bslot[k] = X0(T, me, k);                                               \
        shmem_barrier_all();                                                              \
        T *s = NAME##_bslot;                                                              \
        for (int k = 0; k < NSPELL; k++) {                                                \
            e[k] = X0(T, right, k);                                                       \
            AMO(k, ctx, NAME, fetch_and_nbi, &got[k], &s[k], PAT(T, 0xFF00FF00FFFF0000ull), \
                right);                                                                   \
        }                                                                                 \
        CHECK_GOT(NAME, "atomic_fetch_and_nbi", e[k]);                                    \
        for (int k = 0; k < NSPELL; k++) {                                                \
            e[k] &= PAT(T, 0xFF00FF00FFFF0000ull);                                        \
            AMO(k, ctx, NAME, fetch_or_nbi, &got[k], &s[k], PAT(T, 0x800000F0800000F0ull), \
                right);                                                                   \
        }                                                                                 \
        CHECK_GOT(NAME, "atomic_fetch_or_nbi", e[k]);                                     \
        for (int k = 0; k < NSPELL; k++) {                                                \
            e[k] |= PAT(T, 0x800000F0800000F0ull);                                        \
            AMO(k, ctx, NAME, fetch_xor_nbi, &got[k], &s[k], PAT(T, 0x3C3C3C3C3C3C3C3Cull), \
                right);                                                                   \
        }                                                                                 \
        CHECK_GOT(NAME, "atomic_fetch_xor_nbi", e[k]);                                    \
        for (int k = 0; k < NSPELL; k++)                                                  \
            e[k] ^= PAT(T, 0x3C3C3C3C3C3C3C3Cull);                                        \
        for (int k = 0; k < NSPELL; k++)                                                  \
            CHECK(shmem_##NAME##_atomic_fetch(&s[k], right) == e[k],                      \
                  #NAME " atomic_fetch_xor_nbi (%s) left a wrong remote value", spell[k]); \
        shmem_barrier_all();                                                              \
        for (int k = 0; k < NSPELL; k++) {                                                \
            T want = (T)(((X0(T, left, k) & PAT(T, 0xFF00FF00FFFF0000ull)) |              \
                          PAT(T, 0x800000F0800000F0ull)) ^ PAT(T, 0x3C3C3C3C3C3C3C3Cull)); \
            CHECK(s[k] == want, #NAME " slot %d (%s) written by PE %d has a wrong value", k, \
                  spell[k], left);                                                        \
        }                                                                                 \
        shmem_barrier_all();                                                              \
    }
RSHMEM_AMO_BIT_TYPES(DEFINE_BIT)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
#define RUN_EXT(NAME, T) ext_##NAME(me, npes, ctx);
#define RUN_STD(NAME, T) std_##NAME(me, npes, ctx);
#define RUN_BIT(NAME, T) bit_##NAME(me, npes, ctx);
    RSHMEM_AMO_EXT_TYPES(RUN_EXT)
    RSHMEM_AMO_STD_TYPES(RUN_STD)
    RSHMEM_AMO_BIT_TYPES(RUN_BIT)
    shmem_ctx_destroy(ctx);
    shmem_finalize();
    return 0;
}
