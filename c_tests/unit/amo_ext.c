/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c11
 */
/* The extended AMOs (shmem_TYPENAME_atomic_fetch, _set, _swap) for every type of the
 * library's extended AMO table (RSHMEM_AMO_EXT_TYPES, float and double included), each in
 * six spellings: typed, ctx-typed on SHMEM_CTX_DEFAULT, ctx-typed on a created context,
 * C11 generic, and C11 generic with SHMEM_CTX_DEFAULT and with the created context.
 * Each spelling works on its own slot of the right neighbour; the values include the
 * type's extremes, negative values (with a fraction for the floating types) and, for the
 * unsigned types, values above the signed range. Returned old values and the remote
 * values are checked exactly, by the caller and by the owner. */
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

/* Three values per PE p and spelling k, all different within a type (except where a
 * float rounds): near the top, negative (huge for unsigned) with a fraction, near the
 * bottom; VD is small and distinct for every type. */
#define VA(T, p, k) ((T)(IMAX(T) - (T)(16 * (p) + (k))))
#define VB(T, p, k) ((T)((T)(-(16 * (p) + (k) + 1)) - (T)0.25))
#define VC(T, p, k) ((T)(IMIN(T) + (T)(16 * (p) + (k))))
/* a small positive value, with a fraction for the floating types (distinct for them too) */
#define VD(T, p, k) ((T)((T)(16 * (p) + (k) + 1) + (T)0.5))

#define NSPELL 6
static const char *const spell[NSPELL] = {"typed", "ctx DEFAULT", "ctx created", "generic",
                                          "generic DEFAULT", "generic ctx"};

/* Routine OP of type NAME in spelling k (the arguments are evaluated once). */
#define AMO(k, ctx, NAME, OP, ...)                                                  \
    ((k) == 0   ? shmem_##NAME##_atomic_##OP(__VA_ARGS__)                           \
     : (k) == 1 ? shmem_ctx_##NAME##_atomic_##OP(SHMEM_CTX_DEFAULT, __VA_ARGS__)    \
     : (k) == 2 ? shmem_ctx_##NAME##_atomic_##OP(ctx, __VA_ARGS__)                  \
     : (k) == 3 ? shmem_atomic_##OP(__VA_ARGS__)                                    \
     : (k) == 4 ? shmem_atomic_##OP(SHMEM_CTX_DEFAULT, __VA_ARGS__)                 \
                : shmem_atomic_##OP(ctx, __VA_ARGS__))

/* Completes the non-fetching AMOs of both contexts. */
#define QUIET(ctx)            \
    do {                      \
        shmem_quiet();        \
        shmem_ctx_quiet(ctx); \
    } while (0)

#define DEFINE_EXT(NAME, T)                                                                      \
    static T NAME##_slot[NSPELL];                                                                \
    static void test_##NAME(int me, int npes, shmem_ctx_t ctx) {                                 \
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;                              \
        for (int k = 0; k < NSPELL; k++)                                                         \
            NAME##_slot[k] = VA(T, me, k);                                                       \
        shmem_barrier_all();                                                                     \
        for (int k = 0; k < NSPELL; k++) {                                                       \
            T *dst = &NAME##_slot[k];                                                            \
            const T *csrc = dst;                                                                 \
            T r = AMO(k, ctx, NAME, fetch, dst, right);                                          \
            CHECK(r == VA(T, right, k), #NAME " atomic_fetch (%s) from PE %d: wrong value",     \
                  spell[k], right);                                                              \
            /* through a pointer to const (the generics' const T * branch) */                    \
            r = AMO(k, ctx, NAME, fetch, csrc, right);                                           \
            CHECK(r == VA(T, right, k), #NAME " atomic_fetch (%s) through a const T *: wrong",   \
                  spell[k]);                                                                     \
            r = AMO(k, ctx, NAME, swap, dst, VB(T, me, k), right);                               \
            CHECK(r == VA(T, right, k), #NAME " atomic_swap (%s) returned a wrong old value",   \
                  spell[k]);                                                                     \
            r = AMO(k, ctx, NAME, fetch, dst, right);                                            \
            CHECK(r == VB(T, me, k), #NAME " atomic_swap (%s) stored a wrong value", spell[k]);  \
            r = AMO(k, ctx, NAME, swap, dst, IMIN(T), right);                                    \
            CHECK(r == VB(T, me, k), #NAME " second atomic_swap (%s) returned a wrong value",    \
                  spell[k]);                                                                     \
            AMO(k, ctx, NAME, set, dst, IMAX(T), right);                                         \
            QUIET(ctx);                                                                          \
            r = AMO(k, ctx, NAME, fetch, dst, right);                                            \
            CHECK(r == IMAX(T), #NAME " atomic_set (%s) of the maximum: wrong value", spell[k]); \
            AMO(k, ctx, NAME, set, dst, VC(T, me, k), right);                                    \
            QUIET(ctx);                                                                          \
            r = AMO(k, ctx, NAME, swap, dst, VD(T, me, k), right);                               \
            CHECK(r == VC(T, me, k), #NAME " atomic_set (%s): wrong value", spell[k]);           \
        }                                                                                        \
        shmem_barrier_all();                                                                     \
        for (int k = 0; k < NSPELL; k++)                                                         \
            CHECK(NAME##_slot[k] == VD(T, left, k),                                              \
                  #NAME " slot %d (%s) written by PE %d has a wrong value", k, spell[k], left);  \
        shmem_barrier_all();                                                                     \
    }
RSHMEM_AMO_EXT_TYPES(DEFINE_EXT)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
#define RUN(NAME, T) test_##NAME(me, npes, ctx);
    RSHMEM_AMO_EXT_TYPES(RUN)
    shmem_ctx_destroy(ctx);
    shmem_finalize();
    return 0;
}
