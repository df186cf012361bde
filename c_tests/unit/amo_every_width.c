/* rshmem-test
 * np: 1 2 4 8
 * args: 20
 * ignored-args: 400
 */
/* Every atomic routine of every type, contended: in each round every PE applies the
 * standard, bitwise and extended AMOs (blocking and _nbi) of each type to words of PE 0,
 * with no barrier between PEs, so PE 0's own CPU atomics and the other PEs' atomics (the
 * network engine's when they are on other nodes) meet on the same words. For a 4-byte
 * type the words come in pairs that share an aligned 8-byte word, so an engine that
 * emulates 4-byte atomics on the wider word must leave the neighbour intact.
 *
 * Checked, per type:
 * - bits: each PE sets and clears its own bit of word 0 with or, xor, and and their
 *   fetching and _nbi forms; every fetched value shows the PE's bit as it left it, and
 *   the word is 0 after each round;
 * - counter: word 1 counts fetch_add, add, inc, fetch_inc, their _nbi forms and
 *   compare_swap increments (blocking and _nbi); each PE's fetched values increase, and
 *   the total is exact;
 * - swap: word 2 receives unique tokens by swap and swap_nbi; the values returned plus
 *   the final value are the tokens plus the initial 0 (compared as sums);
 * - set: word 3 receives tokens by set, read back by fetch; it ends holding a token.
 * The argument is the number of rounds. Across nodes this is the test that found 4-byte
 * compare-and-swap losing updates under Open MPI's osc rdma (tests/mpi_suite.rs runs it
 * with Open MPI's default components too). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define STEP 3 /* fetch_add and fetch_add_nbi amount */
#define ADD 5  /* add amount */
/* what one PE adds to the counter in a round */
#define PER_ROUND (STEP + ADD + 1 + 1 + STEP + 1 + 1 + 1)

static int rounds, me, npes;
/* the PE's sum of the values its swaps returned, per type, and PE 0's gathered copy */
static long long swapped_sum[32];

/* Four words per type, 16-byte aligned so that words 0-1 and 2-3 of a 4-byte type share
 * an 8-byte word. */
#define WORDS(NAME, T) static T NAME##_w[4] __attribute__((aligned(16)));
RSHMEM_AMO_EXT_TYPES(WORDS)

/* tokens: unique per PE, round and kind; small integers, exact in every type */
#define SWAP_TOKEN(r, k) (1 + me + npes * (2 * (r) + (k)))
#define SET_TOKEN(r) (1000000 + me + npes * (r))

#define BITS_ROUND(NAME, T)                                                                  \
    static void NAME##_bits(void) {                                                          \
        T bit = (T)((T)1 << me), f;                                                          \
        shmem_##NAME##_atomic_or(&NAME##_w[0], bit, 0); /* set */                            \
        f = shmem_##NAME##_atomic_fetch_xor(&NAME##_w[0], bit, 0); /* clear */               \
        CHECK(f & bit, #NAME " fetch_xor saw bit %d clear", me);                             \
        shmem_##NAME##_atomic_xor(&NAME##_w[0], bit, 0); /* set */                           \
        f = shmem_##NAME##_atomic_fetch_and(&NAME##_w[0], (T)~bit, 0); /* clear */           \
        CHECK(f & bit, #NAME " fetch_and saw bit %d clear", me);                             \
        f = shmem_##NAME##_atomic_fetch_or(&NAME##_w[0], bit, 0); /* set */                  \
        CHECK(!(f & bit), #NAME " fetch_or saw bit %d set", me);                             \
        shmem_##NAME##_atomic_fetch_xor_nbi(&f, &NAME##_w[0], bit, 0); /* clear */           \
        shmem_quiet();                                                                       \
        CHECK(f & bit, #NAME " fetch_xor_nbi saw bit %d clear", me);                         \
        shmem_##NAME##_atomic_fetch_or_nbi(&f, &NAME##_w[0], bit, 0); /* set */              \
        shmem_quiet();                                                                       \
        CHECK(!(f & bit), #NAME " fetch_or_nbi saw bit %d set", me);                         \
        shmem_##NAME##_atomic_fetch_and_nbi(&f, &NAME##_w[0], (T)~bit, 0); /* clear */       \
        shmem_quiet();                                                                       \
        CHECK(f & bit, #NAME " fetch_and_nbi saw bit %d clear", me);                         \
        shmem_##NAME##_atomic_and(&NAME##_w[0], (T)~bit, 0); /* stays clear */               \
    }
RSHMEM_AMO_BIT_TYPES(BITS_ROUND)

#define COUNT_ROUND(NAME, T)                                                                 \
    static T NAME##_last;                                                                    \
    static void NAME##_count(void) {                                                         \
        T *w = &NAME##_w[1], f, seen, old;                                                   \
        f = shmem_##NAME##_atomic_fetch_add(w, (T)STEP, 0);                                  \
        CHECK(f >= NAME##_last, #NAME " fetch_add went back");                               \
        NAME##_last = f;                                                                     \
        shmem_##NAME##_atomic_add(w, (T)ADD, 0);                                             \
        shmem_##NAME##_atomic_inc(w, 0);                                                     \
        f = shmem_##NAME##_atomic_fetch_inc(w, 0);                                           \
        CHECK(f > NAME##_last, #NAME " fetch_inc went back");                                \
        NAME##_last = f;                                                                     \
        shmem_##NAME##_atomic_fetch_add_nbi(&f, w, (T)STEP, 0);                              \
        shmem_quiet();                                                                       \
        CHECK(f > NAME##_last, #NAME " fetch_add_nbi went back");                            \
        NAME##_last = f;                                                                     \
        shmem_##NAME##_atomic_fetch_inc_nbi(&f, w, 0);                                       \
        shmem_quiet();                                                                       \
        CHECK(f > NAME##_last, #NAME " fetch_inc_nbi went back");                            \
        NAME##_last = f;                                                                     \
        for (seen = shmem_##NAME##_atomic_fetch(w, 0);; seen = old) {                        \
            old = shmem_##NAME##_atomic_compare_swap(w, seen, (T)(seen + 1), 0);             \
            if (old == seen)                                                                 \
                break;                                                                       \
        }                                                                                    \
        for (seen = shmem_##NAME##_atomic_fetch(w, 0);; seen = old) {                        \
            shmem_##NAME##_atomic_compare_swap_nbi(&old, w, seen, (T)(seen + 1), 0);         \
            shmem_quiet();                                                                   \
            if (old == seen)                                                                 \
                break;                                                                       \
        }                                                                                    \
    }
RSHMEM_AMO_STD_TYPES(COUNT_ROUND)

#define SWAP_ROUND(NAME, T)                                                                  \
    static void NAME##_swap(int r, int slot) {                                               \
        T f = shmem_##NAME##_atomic_swap(&NAME##_w[2], (T)SWAP_TOKEN(r, 0), 0);              \
        swapped_sum[slot] += (long long)f;                                                   \
        shmem_##NAME##_atomic_swap_nbi(&f, &NAME##_w[2], (T)SWAP_TOKEN(r, 1), 0);            \
        shmem_quiet();                                                                       \
        swapped_sum[slot] += (long long)f;                                                   \
        shmem_##NAME##_atomic_set(&NAME##_w[3], (T)SET_TOKEN(r), 0);                         \
        f = shmem_##NAME##_atomic_fetch(&NAME##_w[3], 0);                                    \
        CHECK(f >= (T)1000000 && f < (T)(1000000 + npes * rounds), #NAME " set word holds %lld", \
              (long long)f);                                                                 \
    }
RSHMEM_AMO_EXT_TYPES(SWAP_ROUND)

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    rounds = argc > 1 ? atoi(argv[1]) : 20;
    if (getenv("RSHMEM_TEST_ITERS")) /* the MPI suite runs fewer rounds over TCP */
        rounds = atoi(getenv("RSHMEM_TEST_ITERS"));
    CHECK(rounds > 0, "rounds must be positive");
    static long long gathered[32 * 8];
    CHECK(npes <= 8, "at most 8 PEs (one bit each in 8 bits)");

    for (int r = 0; r < rounds; r++) {
        int slot = 0;
#define RUN_BITS(NAME, T) NAME##_bits();
#define RUN_COUNT(NAME, T) NAME##_count();
#define RUN_SWAP(NAME, T) NAME##_swap(r, slot++);
        RSHMEM_AMO_BIT_TYPES(RUN_BITS)
        RSHMEM_AMO_STD_TYPES(RUN_COUNT)
        RSHMEM_AMO_EXT_TYPES(RUN_SWAP)
        shmem_barrier_all();
#define CHECK_BITS(NAME, T)                                                                  \
    CHECK(shmem_##NAME##_atomic_fetch(&NAME##_w[0], 0) == 0,                                 \
          #NAME " bit word is 0x%llx after round %d, expected 0",                            \
          (unsigned long long)shmem_##NAME##_atomic_fetch(&NAME##_w[0], 0), r);
        RSHMEM_AMO_BIT_TYPES(CHECK_BITS)
        shmem_barrier_all();
    }

    long long want = (long long)npes * rounds * PER_ROUND;
#define CHECK_COUNT(NAME, T)                                                                 \
    CHECK((long long)shmem_##NAME##_atomic_fetch(&NAME##_w[1], 0) == want,                   \
          #NAME " counter is %lld, expected %lld", (long long)shmem_##NAME##_atomic_fetch(&NAME##_w[1], 0), \
          want);
    RSHMEM_AMO_STD_TYPES(CHECK_COUNT)

    /* the swaps: returned values plus the final one are the tokens plus the initial 0 */
    shmem_longlong_put(gathered + 32 * me, swapped_sum, 32, 0);
    shmem_barrier_all();
    if (me == 0) {
        long long tokens = 0;
        for (int p = 0; p < npes; p++)
            for (int r = 0; r < rounds; r++)
                for (int k = 0; k < 2; k++)
                    tokens += 1 + p + (long long)npes * (2 * r + k);
        int slot = 0;
#define CHECK_SWAP(NAME, T)                                                                  \
    {                                                                                        \
        long long got = (long long)NAME##_w[2];                                              \
        for (int p = 0; p < npes; p++)                                                       \
            got += gathered[32 * p + slot];                                                  \
        CHECK(got == tokens, #NAME " swaps returned %lld in all (with the final value), expected %lld", \
              got, tokens);                                                                  \
        slot++;                                                                              \
    }
        RSHMEM_AMO_EXT_TYPES(CHECK_SWAP)
        printf("every width exact: %d PEs, %d rounds\n", npes, rounds);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
