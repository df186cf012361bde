/* rshmem-test
 * np: 1 2 4
 * stdout: oshmem names ok
 */
/* Open MPI OSHMEM's extensions (its shmemx.h), written as an OSHMEM program writes them,
 * and the signed bitwise atomics its shmem.h declares outside the specification's table:
 *  - shmemx_int{16,32,64}_p/_g to the right neighbour;
 *  - the pre-1.4 atomic names on int32 and int64, through the shmem_ macros OSHMEM's
 *    shmemx.h defines (shmem_int32_fadd, ...) and by their shmemx_ names: every PE adds,
 *    increments and swaps on PE 0, and the totals come out exact;
 *  - the bitwise atomics on int32, int64, uint32, uint64 (shmemx_) and int, long, long
 *    long (shmem_, with and without a context): every PE sets, then clears, its own bit;
 *  - shmemx_int{32,64}_wait and _wait_until;
 *  - every fixed-width active-set reduction (shmem_int16_sum_to_all, ...) over all PEs;
 *  - shmemx_malloc_with_hint gives a symmetric block. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common.h"

static int16_t p16;
static int32_t p32;
static int64_t p64;

static int32_t c32, w32;
static int64_t c64, w64;
static int32_t s32, acc32, t32;
static int64_t s64, acc64, t64;

static int32_t b_i32;
static int64_t b_i64;
static uint32_t b_u32;
static uint64_t b_u64;
static int b_int;
static long b_long;
static long long b_ll;

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static int16_t src16[3], dst16[3], wrk16[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 3];
static int32_t src32[3], dst32[3], wrk32[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 3];
static int64_t src64[3], dst64[3], wrk64[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 3];

/* Sets bit `me` of `var` on PE 0 with fetch_or and or, clears it with fetch_and/and and
 * xor, checks what PE 0 holds after each step. */
#define BITWISE(NAME, T, var, fetch_or, or_, fetch_and, and_, fetch_xor, xor_)                          \
    do {                                                                                                  \
        T bit = (T)1 << me;                                                                               \
        (void)fetch_or(&var, bit, 0);                                                                     \
        shmem_barrier_all();                                                                              \
        if (me == 0)                                                                                      \
            CHECK((uint64_t)var == all, "%s: fetch_or left %llx, want %llx", NAME, (unsigned long long)var, \
                  (unsigned long long)all);                                                               \
        shmem_barrier_all();                                                                              \
        T old = fetch_and(&var, (T)~bit, 0);                                                              \
        CHECK((old & bit) == bit, "%s: fetch_and saw %llx without my bit", NAME, (unsigned long long)old); \
        shmem_barrier_all();                                                                              \
        if (me == 0)                                                                                      \
            CHECK(var == 0, "%s: fetch_and left %llx", NAME, (unsigned long long)var);                    \
        shmem_barrier_all();                                                                              \
        or_(&var, bit, 0);                                                                                \
        shmem_barrier_all();                                                                              \
        xor_(&var, bit, 0);                                                                               \
        shmem_barrier_all();                                                                              \
        if (me == 0)                                                                                      \
            CHECK(var == 0, "%s: or then xor left %llx", NAME, (unsigned long long)var);                  \
        shmem_barrier_all();                                                                              \
        (void)fetch_xor(&var, bit, 0);                                                                    \
        shmem_barrier_all();                                                                              \
        and_(&var, (T)0, 0);                                                                              \
        shmem_barrier_all();                                                                              \
        if (me == 0)                                                                                      \
            CHECK(var == 0, "%s: and with 0 left %llx", NAME, (unsigned long long)var);                   \
        shmem_barrier_all();                                                                              \
    } while (0)

#define CTX_OR(p, v, pe) shmem_ctx_longlong_atomic_or(SHMEM_CTX_DEFAULT, p, v, pe)
#define CTX_FETCH_AND(p, v, pe) shmem_ctx_longlong_atomic_fetch_and(SHMEM_CTX_DEFAULT, p, v, pe)
#define CTX_FETCH_XOR(p, v, pe) shmem_ctx_longlong_atomic_fetch_xor(SHMEM_CTX_DEFAULT, p, v, pe)

/* One reduction of the three elements {me, me + 1, 2} over every PE. */
#define REDUCE(W, op, want0, want1, want2)                                                                   \
    do {                                                                                                     \
        src##W[0] = (int##W##_t)me, src##W[1] = (int##W##_t)(me + 1), src##W[2] = 2;                        \
        shmem_barrier_all();                                                                                 \
        shmem_int##W##_##op##_to_all(dst##W, src##W, 3, 0, 0, npes, wrk##W, psync);                          \
        CHECK(dst##W[0] == (int##W##_t)(want0) && dst##W[1] == (int##W##_t)(want1) &&                        \
                  dst##W[2] == (int##W##_t)(want2),                                                          \
              "shmem_int%d_%s_to_all gave %lld %lld %lld, want %lld %lld %lld", W, #op, (long long)dst##W[0], \
              (long long)dst##W[1], (long long)dst##W[2], (long long)(want0), (long long)(want1),            \
              (long long)(want2));                                                                           \
    } while (0)

#define REDUCE_ALL(W)                                                                                    \
    do {                                                                                                 \
        REDUCE(W, sum, sum_me, sum_me + npes, 2 * npes);                                                 \
        REDUCE(W, prod, prod_me, prod_me1, 1LL << npes);                                                 \
        REDUCE(W, max, npes - 1, npes, 2);                                                               \
        REDUCE(W, min, 0, 1, 2);                                                                         \
        REDUCE(W, and, and_me, and_me1, 2);                                                              \
        REDUCE(W, or, or_me, or_me1, 2);                                                                 \
        REDUCE(W, xor, xor_me, xor_me1, npes % 2 ? 2 : 0);                                               \
    } while (0)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;

    /* Fixed-width p and g. */
    shmemx_int16_p(&p16, (int16_t)(1000 + me), right);
    shmemx_int32_p(&p32, 100000 + me, right);
    shmemx_int64_p(&p64, 10000000000LL + me, right);
    shmem_barrier_all();
    CHECK(p16 == 1000 + left && p32 == 100000 + left && p64 == 10000000000LL + left,
          "shmemx_intN_p: got %d %d %lld from PE %d", p16, p32, (long long)p64, left);
    CHECK(shmemx_int16_g(&p16, right) == 1000 + me && shmemx_int32_g(&p32, right) == 100000 + me &&
              shmemx_int64_g(&p64, right) == 10000000000LL + me,
          "shmemx_intN_g: wrong values from PE %d", right);
    shmem_barrier_all();

    /* The pre-1.4 atomic names: totals on PE 0. */
    int32_t f = shmem_int32_fadd(&c32, 2, 0);
    int64_t g = shmemx_int64_fadd(&c64, 2, 0);
    CHECK(f >= 0 && f < 7 * npes && g >= 0 && g < 7 * npes, "fadd returned old values %d %lld", f, (long long)g);
    shmem_int32_add(&c32, 3, 0);
    shmemx_int64_add(&c64, 3, 0);
    shmem_int32_inc(&c32, 0);
    shmemx_int64_inc(&c64, 0);
    (void)shmem_int32_finc(&c32, 0);
    (void)shmemx_int64_finc(&c64, 0);
    shmem_barrier_all();
    CHECK(shmem_int32_fetch(&c32, 0) == 7 * npes && shmemx_int64_fetch(&c64, 0) == 7 * npes,
          "after fadd 2, add 3, inc, finc on every PE: %d and %lld on PE 0, want %d", shmem_int32_fetch(&c32, 0),
          (long long)shmemx_int64_fetch(&c64, 0), 7 * npes);
    /* set from PE 0 everywhere; then every PE swaps its number into PE 0's word: the old
     * values and the last one are -1 and every PE's number, once each. */
    if (me == 0)
        for (int pe = 0; pe < npes; pe++) {
            shmem_int32_set(&s32, -1, pe);
            shmemx_int64_set(&s64, -1, pe);
        }
    shmem_barrier_all();
    CHECK(s32 == -1 && s64 == -1, "set: %d %lld, want -1", s32, (long long)s64);
    shmem_barrier_all();
    int32_t old32 = shmem_int32_swap(&s32, me, 0);
    int64_t old64 = shmemx_int64_swap(&s64, me, 0);
    shmem_int32_add(&acc32, old32, 0);
    shmemx_int64_add(&acc64, old64, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(acc32 + s32 == -1 + npes * (npes - 1) / 2 && acc64 + s64 == -1 + npes * (npes - 1) / 2,
              "swap: old values sum to %d and %lld, last %d and %lld", acc32, (long long)acc64, s32, (long long)s64);
    /* cswap: a ticket chain, PE k turns k into k + 1 on PE 0 (failing until its turn). */
    while (shmem_int32_cswap(&t32, me, me + 1, 0) != me)
        ;
    while (shmemx_int64_cswap(&t64, me, me + 1, 0) != me)
        ;
    shmem_barrier_all();
    if (me == 0)
        CHECK(t32 == npes && t64 == npes, "cswap chain ended at %d and %lld, want %d", t32, (long long)t64, npes);
    shmem_barrier_all();

    /* Bitwise atomics. */
    {
        uint64_t all = npes >= 64 ? ~0ULL : (1ULL << npes) - 1;
        BITWISE("int32", int32_t, b_i32, shmemx_int32_atomic_fetch_or, shmemx_int32_atomic_or,
                shmemx_int32_atomic_fetch_and, shmemx_int32_atomic_and, shmemx_int32_atomic_fetch_xor,
                shmemx_int32_atomic_xor);
        BITWISE("int64", int64_t, b_i64, shmemx_int64_atomic_fetch_or, shmemx_int64_atomic_or,
                shmemx_int64_atomic_fetch_and, shmemx_int64_atomic_and, shmemx_int64_atomic_fetch_xor,
                shmemx_int64_atomic_xor);
        BITWISE("uint32", uint32_t, b_u32, shmemx_uint32_atomic_fetch_or, shmemx_uint32_atomic_or,
                shmemx_uint32_atomic_fetch_and, shmemx_uint32_atomic_and, shmemx_uint32_atomic_fetch_xor,
                shmemx_uint32_atomic_xor);
        BITWISE("uint64", uint64_t, b_u64, shmemx_uint64_atomic_fetch_or, shmemx_uint64_atomic_or,
                shmemx_uint64_atomic_fetch_and, shmemx_uint64_atomic_and, shmemx_uint64_atomic_fetch_xor,
                shmemx_uint64_atomic_xor);
        BITWISE("int", int, b_int, shmem_int_atomic_fetch_or, shmem_int_atomic_or, shmem_int_atomic_fetch_and,
                shmem_int_atomic_and, shmem_int_atomic_fetch_xor, shmem_int_atomic_xor);
        BITWISE("long", long, b_long, shmem_long_atomic_fetch_or, shmem_long_atomic_or, shmem_long_atomic_fetch_and,
                shmem_long_atomic_and, shmem_long_atomic_fetch_xor, shmem_long_atomic_xor);
        BITWISE("long long (ctx)", long long, b_ll, shmem_longlong_atomic_fetch_or, CTX_OR, CTX_FETCH_AND,
                shmem_longlong_atomic_and, CTX_FETCH_XOR,
                shmem_longlong_atomic_xor);
    }

    /* Waits: the left neighbour writes, this PE waits. */
    shmem_barrier_all();
    shmem_int32_p(&w32, 5, right);
    shmem_int64_p(&w64, 9, right);
    shmemx_int32_wait(&w32, 0);
    shmem_int64_wait(&w64, 0);
    shmemx_int64_wait_until(&w64, SHMEM_CMP_EQ, 9);
    shmemx_int32_wait_until(&w32, SHMEM_CMP_GE, 5);
    CHECK(w32 == 5 && w64 == 9, "waits returned with %d %lld", w32, (long long)w64);
    shmem_barrier_all();

    /* Fixed-width active-set reductions over every PE. */
    {
        long long sum_me = (long long)npes * (npes - 1) / 2, prod_me = 0, prod_me1 = 1;
        long long and_me = 0, and_me1 = ~0LL, or_me = 0, or_me1 = 0, xor_me = 0, xor_me1 = 0;
        for (int k = 0; k < npes; k++) {
            prod_me1 *= k + 1;
            and_me1 &= k + 1;
            or_me |= k, or_me1 |= k + 1;
            xor_me ^= k, xor_me1 ^= k + 1;
        }
        REDUCE_ALL(16);
        REDUCE_ALL(32);
        REDUCE_ALL(64);
        (void)and_me;
    }

    /* An allocation with OSHMEM's hint is symmetric. */
    long *h = shmemx_malloc_with_hint(sizeof(long), SHMEM_HINT_ATOMICS | SHMEM_HINT_LOW_LAT_MEM);
    CHECK(h != NULL, "shmemx_malloc_with_hint gave NULL");
    *h = -1;
    shmem_barrier_all();
    shmem_long_p(h, me, right);
    shmem_barrier_all();
    CHECK(*h == left, "shmemx_malloc_with_hint: %ld in my block, want %d", *h, left);
    shmem_free(h);

    shmem_barrier_all();
    if (me == 0)
        printf("oshmem names ok\n");
    shmem_finalize();
    return 0;
}
