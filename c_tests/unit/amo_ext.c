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

#include "../amo.h"

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
