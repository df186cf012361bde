/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c11
 */
/* The bitwise AMOs (shmem_TYPENAME_atomic_fetch_and, _and, _fetch_or, _or, _fetch_xor,
 * _xor) for every type of the library's bitwise AMO table (RSHMEM_AMO_BIT_TYPES), each in
 * six spellings (typed, ctx-typed on SHMEM_CTX_DEFAULT and on a created context, C11
 * generic without a context, with SHMEM_CTX_DEFAULT and with the created context).
 * First each spelling applies a sequence of masks with the top bit and bits of both
 * halves to its own slot of the right neighbour, checking every returned old value and
 * the result. Then all PEs share one word on PE 0: each sets its own bit (the top bits,
 * the sign bit of the signed types included) with fetch_or, clears it with fetch_and,
 * toggles it with fetch_xor, and does the same with the non-fetching forms; after each
 * round everyone checks the word, and PE 0 gathers the old values the fetching forms
 * returned and checks that they are consistent: ordered by the number of bits, each
 * differs from the next by exactly the bit of the PE that got it back. */
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#include "../amo.h"

/* A run-time conversion (not a constant expression: no overflow warning when a 64-bit
 * pattern is truncated to a signed type; the truncation keeps the low bits). */
static uint64_t rt(uint64_t x) { return x; }
#define PAT(T, x) ((T)rt(x))
/* the low BITS(T) bits of a value of type T */
#define LOWBITS(T, v) ((uint64_t)(v) & (UINT64_MAX >> (64 - BITS(T))))

#define X0(T, p, k) PAT(T, 0xA5C3F00FA5C3F00Full ^ ((uint64_t)(16 * (p) + (k)) << 8))
#define M1(k) (0xFFFF0000FFFF0FF0ull ^ ((uint64_t)(k) << 4))
#define M2 0xF7FFFFFFFFFFFF7Full
#define M3(k) (0x0000F0F00000F00Full | (1ull << ((k) + 16)))
#define M4 0x8000000080000000ull
#define M5 0xFFFFFFFFFFFFFFFFull
#define M6(p) (0x5555555555555555ull ^ (uint64_t)(p))

/* The PEs whose old values (bit patterns, in the order they were taken) form a chain from
 * start: each PE's old value is the current one, and its bit is then set (setting) or
 * cleared. Checked on PE 0 from the values every PE returned. */
static void check_chain(const uint64_t *old, const uint64_t *bit, int npes, uint64_t start,
                        int setting, const char *what) {
    int used[64] = {0};
    uint64_t cur = start;
    for (int step = 0; step < npes; step++) {
        int who = -1;
        for (int i = 0; i < npes && who < 0; i++)
            if (!used[i] && old[i] == cur)
                who = i;
        if (who < 0) {
            fprintf(stderr, "%s: old values returned:", what);
            for (int i = 0; i < npes; i++)
                fprintf(stderr, " PE %d: %#llx", i, (unsigned long long)old[i]);
            fprintf(stderr, "\n");
        }
        CHECK(who >= 0, "%s: no PE got %#llx back (step %d)", what, (unsigned long long)cur, step);
        used[who] = 1;
        CHECK(setting ? !(cur & bit[who]) : !!(cur & bit[who]), "%s: PE %d's bit was already %s",
              what, who, setting ? "set" : "clear");
        cur = setting ? cur | bit[who] : cur & ~bit[who];
    }
}

#define MAXPE 32

#define DEFINE_BIT(NAME, T)                                                                      \
    static T NAME##_slot[NSPELL];                                                                \
    static T NAME##_word;                                                                        \
    static T NAME##_olds[MAXPE];                                                                 \
    static T NAME##_final(int p, int k) {                                                        \
        T e = X0(T, p, k);                                                                       \
        e &= PAT(T, M1(k));                                                                      \
        e &= PAT(T, M2);                                                                         \
        e |= PAT(T, M3(k));                                                                      \
        e |= PAT(T, M4);                                                                         \
        e ^= PAT(T, M5);                                                                         \
        e ^= PAT(T, M6(p));                                                                      \
        return e;                                                                                \
    }                                                                                            \
    static void masks_##NAME(int me, int npes, shmem_ctx_t ctx) {                                \
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;                              \
        for (int k = 0; k < NSPELL; k++)                                                         \
            NAME##_slot[k] = X0(T, me, k);                                                       \
        shmem_barrier_all();                                                                     \
        for (int k = 0; k < NSPELL; k++) {                                                       \
            T *dst = &NAME##_slot[k];                                                            \
            const char *s = spell[k];                                                            \
            T e = X0(T, right, k);                                                               \
            T r = AMO(k, ctx, NAME, fetch_and, dst, PAT(T, M1(k)), right);                       \
            CHECK(r == e, #NAME " atomic_fetch_and (%s): wrong old value", s);                  \
            e &= PAT(T, M1(k));                                                                  \
            AMO(k, ctx, NAME, and, dst, PAT(T, M2), right);                                      \
            QUIET(ctx);                                                                          \
            e &= PAT(T, M2);                                                                     \
            r = AMO(k, ctx, NAME, fetch_or, dst, PAT(T, M3(k)), right);                          \
            CHECK(r == e, #NAME " atomic_and (%s) or fetch_and left a wrong value, or "          \
                  "atomic_fetch_or returned a wrong one", s);                                    \
            e |= PAT(T, M3(k));                                                                  \
            AMO(k, ctx, NAME, or, dst, PAT(T, M4), right);                                       \
            QUIET(ctx);                                                                          \
            e |= PAT(T, M4);                                                                     \
            r = AMO(k, ctx, NAME, fetch_xor, dst, PAT(T, M5), right);                            \
            CHECK(r == e, #NAME " atomic_or (%s) or fetch_or left a wrong value, or "            \
                  "atomic_fetch_xor returned a wrong one", s);                                   \
            e ^= PAT(T, M5);                                                                     \
            AMO(k, ctx, NAME, xor, dst, PAT(T, M6(me)), right);                                  \
            QUIET(ctx);                                                                          \
            e ^= PAT(T, M6(me));                                                                 \
            r = AMO(k, ctx, NAME, fetch, dst, right);                                            \
            CHECK(r == e, #NAME " atomic_xor (%s) or fetch_xor left a wrong value", s);         \
            CHECK(e == NAME##_final(me, k), #NAME " (%s): test's own bookkeeping", s);          \
        }                                                                                        \
        shmem_barrier_all();                                                                     \
        for (int k = 0; k < NSPELL; k++)                                                         \
            CHECK(NAME##_slot[k] == NAME##_final(left, k),                                       \
                  #NAME " slot %d (%s) written by PE %d has a wrong value", k, spell[k], left);  \
        shmem_barrier_all();                                                                     \
    }                                                                                            \
    /* PE 0 gathers the old values and checks the chain; everyone then checks the word */       \
    static void NAME##_round_end(int me, int npes, T old, int fetching, uint64_t start,          \
                                 int setting, T want, const char *what) {                        \
        if (fetching)                                                                            \
            shmem_##NAME##_p(&NAME##_olds[me], old, 0);                                          \
        shmem_barrier_all();                                                                     \
        if (fetching && me == 0) {                                                               \
            uint64_t olds[MAXPE], bits[MAXPE];                                                   \
            for (int i = 0; i < npes; i++) {                                                     \
                olds[i] = LOWBITS(T, NAME##_olds[i]);                                            \
                bits[i] = 1ull << (BITS(T) - 1 - i);                                             \
            }                                                                                    \
            check_chain(olds, bits, npes, start, setting, #NAME " " "shared word");              \
        }                                                                                        \
        T got = shmem_##NAME##_atomic_fetch(&NAME##_word, 0);                                    \
        CHECK(got == want, #NAME " shared word after %s is %#llx, not %#llx", what,              \
              (unsigned long long)LOWBITS(T, got), (unsigned long long)LOWBITS(T, want));        \
        shmem_barrier_all();                                                                     \
    }                                                                                            \
    static void shared_##NAME(int me, int npes, shmem_ctx_t ctx) {                               \
        T mine = PAT(T, 1ull << (BITS(T) - 1 - me));                                             \
        uint64_t all64 = 0;                                                                      \
        for (int i = 0; i < npes; i++)                                                           \
            all64 |= 1ull << (BITS(T) - 1 - i);                                                  \
        T all = PAT(T, all64), none = (T)0;                                                      \
        T *w = &NAME##_word;                                                                     \
        for (int round = 0; round < 2; round++) {                                                \
            int k = (me + round) % NSPELL;                                                       \
            T old = AMO(k, ctx, NAME, fetch_or, w, mine, 0);                                     \
            CHECK(!(old & mine), #NAME " atomic_fetch_or (%s): own bit already set", spell[k]);  \
            NAME##_round_end(me, npes, old, 1, 0, 1, all, "fetch_or");                           \
            old = AMO(k, ctx, NAME, fetch_and, w, (T)~mine, 0);                                  \
            CHECK(old & mine, #NAME " atomic_fetch_and (%s): own bit not set", spell[k]);        \
            NAME##_round_end(me, npes, old, 1, all64, 0, none, "fetch_and");                     \
            old = AMO(k, ctx, NAME, fetch_xor, w, mine, 0);                                      \
            CHECK(!(old & mine), #NAME " atomic_fetch_xor (%s): own bit already set", spell[k]); \
            NAME##_round_end(me, npes, old, 1, 0, 1, all, "fetch_xor setting");                  \
            old = AMO(k, ctx, NAME, fetch_xor, w, mine, 0);                                      \
            CHECK(old & mine, #NAME " atomic_fetch_xor (%s): own bit not set", spell[k]);        \
            NAME##_round_end(me, npes, old, 1, all64, 0, none, "fetch_xor clearing");            \
            AMO(k, ctx, NAME, or, w, mine, 0);                                                   \
            QUIET(ctx);                                                                          \
            NAME##_round_end(me, npes, old, 0, 0, 1, all, "or");                                 \
            AMO(k, ctx, NAME, xor, w, mine, 0);                                                  \
            QUIET(ctx);                                                                          \
            NAME##_round_end(me, npes, old, 0, 0, 1, none, "xor");                               \
            AMO(k, ctx, NAME, xor, w, mine, 0);                                                  \
            QUIET(ctx);                                                                          \
            NAME##_round_end(me, npes, old, 0, 0, 1, all, "xor");                                \
            AMO(k, ctx, NAME, and, w, (T)~mine, 0);                                              \
            QUIET(ctx);                                                                          \
            NAME##_round_end(me, npes, old, 0, 0, 1, none, "and");                               \
        }                                                                                        \
    }
RSHMEM_AMO_BIT_TYPES(DEFINE_BIT)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= MAXPE, "run with at most %d PEs", MAXPE);
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
#define RUN(NAME, T)                 \
    masks_##NAME(me, npes, ctx);     \
    shared_##NAME(me, npes, ctx);
    RSHMEM_AMO_BIT_TYPES(RUN)
    shmem_ctx_destroy(ctx);
    shmem_finalize();
    return 0;
}
