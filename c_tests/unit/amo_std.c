/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c11
 */
/* The standard AMOs (shmem_TYPENAME_atomic_compare_swap, _fetch_inc, _inc, _fetch_add,
 * _add) for every type of the library's standard AMO table (RSHMEM_AMO_STD_TYPES), each
 * in six spellings: typed, ctx-typed on SHMEM_CTX_DEFAULT and on a created context, C11
 * generic without a context, with SHMEM_CTX_DEFAULT and with the created context. Each
 * spelling works on its own slot of the right neighbour, starting two below the type's
 * maximum: inc and fetch_inc reach the maximum and wrap to the minimum (two's complement
 * for the signed types, 0 for the unsigned ones), fetch_add of the maximum and add of 2
 * wrap again, compare_swap fails (on a different value, and on one that differs only in
 * the top bit) returning the current value and leaving it, then succeeds with a value
 * above the signed range for the unsigned types. Returned old values and the final
 * remote values are checked exactly, by the caller and by the owner. */
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#include "../amo.h"

/* x with its top bit flipped (x is not a constant, so the conversion is a run-time one) */
#define TOPFLIP(T, x) ((T)((uintmax_t)(x) ^ ((uintmax_t)1 << (BITS(T) - 1))))
/* the value a PE finally stores: above the signed range for the unsigned types */
#define VSTD(T, p, k) ((T)(IMAX(T) / 2 + 1 + (T)(16 * (p) + (k))))

#define DEFINE_STD(NAME, T)                                                                      \
    static T NAME##_slot[NSPELL];                                                                \
    static void test_##NAME(int me, int npes, shmem_ctx_t ctx) {                                 \
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;                              \
        for (int k = 0; k < NSPELL; k++)                                                         \
            NAME##_slot[k] = (T)(IMAX(T) - 2);                                                   \
        shmem_barrier_all();                                                                     \
        for (int k = 0; k < NSPELL; k++) {                                                       \
            T *dst = &NAME##_slot[k];                                                            \
            const char *s = spell[k];                                                            \
            T r = AMO(k, ctx, NAME, fetch_inc, dst, right);                                      \
            CHECK(r == (T)(IMAX(T) - 2), #NAME " atomic_fetch_inc (%s): wrong old value", s);   \
            AMO(k, ctx, NAME, inc, dst, right);                                                  \
            QUIET(ctx);                                                                          \
            r = AMO(k, ctx, NAME, fetch_inc, dst, right);                                        \
            CHECK(r == IMAX(T), #NAME " atomic_inc (%s) did not reach the maximum", s);         \
            r = AMO(k, ctx, NAME, fetch, dst, right);                                            \
            CHECK(r == IMIN(T), #NAME " atomic_fetch_inc (%s) of the maximum did not wrap to "   \
                  "the minimum", s);                                                             \
            r = AMO(k, ctx, NAME, fetch_add, dst, IMAX(T), right);                               \
            CHECK(r == IMIN(T), #NAME " atomic_fetch_add (%s): wrong old value", s);            \
            r = AMO(k, ctx, NAME, fetch, dst, right);                                            \
            CHECK(r == (T)-1, #NAME " atomic_fetch_add (%s) min + max is not -1", s);           \
            AMO(k, ctx, NAME, add, dst, (T)2, right);                                            \
            QUIET(ctx);                                                                          \
            r = AMO(k, ctx, NAME, fetch_add, dst, (T)-3, right);                                 \
            CHECK(r == (T)1, #NAME " atomic_add (%s) of 2 to -1 (max) did not wrap to 1", s);    \
            r = AMO(k, ctx, NAME, compare_swap, dst, (T)-3, (T)7, right);                        \
            CHECK(r == (T)-2, #NAME " failing atomic_compare_swap (%s): wrong returned value", s); \
            r = AMO(k, ctx, NAME, compare_swap, dst, TOPFLIP(T, r), (T)7, right);                \
            CHECK(r == (T)-2, #NAME " failing atomic_compare_swap (%s, top bit differs): "       \
                  "wrong returned value", s);                                                    \
            r = AMO(k, ctx, NAME, fetch, dst, right);                                            \
            CHECK(r == (T)-2, #NAME " failing atomic_compare_swap (%s) changed the value", s);  \
            r = AMO(k, ctx, NAME, compare_swap, dst, (T)-2, VSTD(T, me, k), right);              \
            CHECK(r == (T)-2, #NAME " atomic_compare_swap (%s): wrong returned value", s);      \
            r = AMO(k, ctx, NAME, compare_swap, dst, VSTD(T, me, k), VSTD(T, me, k), right);     \
            CHECK(r == VSTD(T, me, k), #NAME " atomic_compare_swap (%s) stored a wrong value", s); \
        }                                                                                        \
        shmem_barrier_all();                                                                     \
        for (int k = 0; k < NSPELL; k++)                                                         \
            CHECK(NAME##_slot[k] == VSTD(T, left, k),                                            \
                  #NAME " slot %d (%s) written by PE %d has a wrong value", k, spell[k], left);  \
        shmem_barrier_all();                                                                     \
    }
RSHMEM_AMO_STD_TYPES(DEFINE_STD)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
#define RUN(NAME, T) test_##NAME(me, npes, ctx);
    RSHMEM_AMO_STD_TYPES(RUN)
    shmem_ctx_destroy(ctx);
    shmem_finalize();
    return 0;
}
