/* Helpers shared by the AMO test programs (included as "../amo.h" after "../common.h"). */
#ifndef RSHMEM_C_TESTS_AMO_H
#define RSHMEM_C_TESTS_AMO_H

#include <limits.h>
#include <stdint.h>

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

/* The six spellings of a routine with a context form; a program that calls only
 * deprecated names defines AMO_OWN_SPELLINGS and its own. */
#ifndef AMO_OWN_SPELLINGS
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
#endif

#endif
