/* rshmem-test
 * np: 1 2 4 8
 * cflags: -std=c11
 */
/* OpenSHMEM atomics interoperate with C11 <stdatomic.h> on memory reached through
 * shmem_ptr, for every type of the standard AMO table: the word lives on the last PE;
 * PE 0 (and the last PE on its own copy) update it with atomic_fetch_add_explicit through
 * an _Atomic pointer from shmem_ptr, while the other PEs use shmem_TYPENAME_atomic_add
 * and _fetch_add. The total is exact, read both ways. Then the other way round: the
 * stdatomic side does compare-exchange increments while the others use
 * shmem_TYPENAME_atomic_compare_swap loops. */
#include <limits.h>
#include <shmem.h>
#include <stdatomic.h>
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

#define ITERS 3000

#define DEFINE_INTEROP(NAME, T)                                                                 \
    static T NAME##_w, NAME##_c;                                                                \
    static void interop_##NAME(int me, int npes) {                                              \
        int target = npes - 1;                                                                  \
        int native = me == 0 || me == target;                                                   \
        uint64_t want = (uint64_t)npes * ITERS * 3;                                             \
        uint64_t want_c = (uint64_t)npes * ITERS;                                               \
        shmem_barrier_all();                                                                    \
        if (native) {                                                                           \
            _Atomic T *p = (_Atomic T *)shmem_ptr(&NAME##_w, target);                           \
            _Atomic T *pc = (_Atomic T *)shmem_ptr(&NAME##_c, target);                          \
            CHECK(p != NULL && pc != NULL, "shmem_ptr(" #NAME ", %d) is NULL", target);         \
            T prev = 0;                                                                         \
            for (int i = 0; i < ITERS; i++) {                                                   \
                T old = atomic_fetch_add_explicit(p, (T)3, memory_order_relaxed);               \
                CHECK(i == 0 || old > prev, #NAME " stdatomic fetch_add went backwards");       \
                prev = old;                                                                     \
                T e = atomic_load_explicit(pc, memory_order_relaxed);                           \
                while (!atomic_compare_exchange_weak_explicit(pc, &e, (T)(e + 1),               \
                                                              memory_order_relaxed,             \
                                                              memory_order_relaxed))            \
                    ;                                                                           \
            }                                                                                   \
        } else {                                                                                \
            for (int i = 0; i < ITERS; i++) {                                                   \
                if (i % 2)                                                                      \
                    shmem_##NAME##_atomic_add(&NAME##_w, (T)3, target);                         \
                else {                                                                          \
                    T old = shmem_##NAME##_atomic_fetch_add(&NAME##_w, (T)3, target);           \
                    CHECK((uint64_t)old < want, #NAME " fetch_add returned %llu",               \
                          (unsigned long long)old);                                             \
                }                                                                               \
                T e = shmem_##NAME##_atomic_fetch(&NAME##_c, target), r;                        \
                while ((r = shmem_##NAME##_atomic_compare_swap(&NAME##_c, e, (T)(e + 1),        \
                                                               target)) != e)                   \
                    e = r;                                                                      \
            }                                                                                   \
        }                                                                                       \
        shmem_quiet();                                                                          \
        shmem_barrier_all();                                                                    \
        T v = shmem_##NAME##_atomic_fetch(&NAME##_w, target);                                   \
        CHECK((uint64_t)v == want, #NAME " word is %llu, not %llu", (unsigned long long)v,      \
              (unsigned long long)want);                                                        \
        v = shmem_##NAME##_atomic_fetch(&NAME##_c, target);                                     \
        CHECK((uint64_t)v == want_c, #NAME " compare-swap counter is %llu, not %llu",           \
              (unsigned long long)v, (unsigned long long)want_c);                               \
        if (native) {                                                                           \
            _Atomic T *p = (_Atomic T *)shmem_ptr(&NAME##_w, target);                           \
            T l = atomic_load(p);                                                               \
            CHECK((uint64_t)l == want, #NAME " stdatomic load of the word is %llu, not %llu",   \
                  (unsigned long long)l, (unsigned long long)want);                             \
        }                                                                                       \
        shmem_barrier_all();                                                                    \
    }
RSHMEM_AMO_STD_TYPES(DEFINE_INTEROP)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
#define RUN(NAME, T) interop_##NAME(me, npes);
    RSHMEM_AMO_STD_TYPES(RUN)
    shmem_finalize();
    return 0;
}
