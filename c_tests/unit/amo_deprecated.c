/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c11
 */
/* The deprecated AMO names, for the types of the library's deprecated AMO tables:
 * shmem_{float,double,int,long,longlong}_{fetch,set,swap} and
 * shmem_{int,long,longlong}_{cswap,finc,inc,fadd,add}, typed and through their C11
 * generics shmem_fetch, shmem_set, shmem_swap, shmem_cswap, shmem_finc, shmem_inc,
 * shmem_fadd, shmem_add. Same checks as amo_ext.c and amo_std.c: old values, wrap-around
 * at the maximum, a failing cswap, and the values the owner finds. */
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define AMO_OWN_SPELLINGS
#include "../amo.h"

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define NSPELL 2
static const char *const spell[NSPELL] = {"typed", "generic"};
/* deprecated routine OP of type NAME: typed name, or the C11 generic shmem_OP */
#define DAMO(k, NAME, OP, ...) \
    ((k) == 0 ? shmem_##NAME##_##OP(__VA_ARGS__) : shmem_##OP(__VA_ARGS__))
#else
#define NSPELL 1
static const char *const spell[NSPELL] = {"typed"};
#define DAMO(k, NAME, OP, ...) ((void)(k), shmem_##NAME##_##OP(__VA_ARGS__))
#endif

#define VSTD(T, p, k) ((T)(IMAX(T) / 2 + 1 + (T)(16 * (p) + (k))))

#define DEFINE_EXT(NAME, T)                                                                    \
    static T NAME##_slot[NSPELL];                                                              \
    static void ext_##NAME(int me, int npes) {                                                 \
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;                            \
        for (int k = 0; k < NSPELL; k++)                                                       \
            NAME##_slot[k] = VA(T, me, k);                                                     \
        shmem_barrier_all();                                                                   \
        for (int k = 0; k < NSPELL; k++) {                                                     \
            T *dst = &NAME##_slot[k];                                                          \
            const char *s = spell[k];                                                          \
            T r = DAMO(k, NAME, fetch, dst, right);                                            \
            CHECK(r == VA(T, right, k), "deprecated " #NAME "_fetch (%s): wrong value", s);   \
            r = DAMO(k, NAME, swap, dst, VB(T, me, k), right);                                 \
            CHECK(r == VA(T, right, k), "deprecated " #NAME "_swap (%s): wrong old value", s); \
            r = DAMO(k, NAME, fetch, dst, right);                                              \
            CHECK(r == VB(T, me, k), "deprecated " #NAME "_swap (%s) stored a wrong value", s); \
            DAMO(k, NAME, set, dst, VC(T, me, k), right);                                           \
            shmem_quiet();                                                                     \
            r = DAMO(k, NAME, swap, dst, VD(T, me, k), right);                                 \
            CHECK(r == VC(T, me, k), "deprecated " #NAME "_set (%s) stored a wrong value", s);      \
        }                                                                                      \
        shmem_barrier_all();                                                                   \
        for (int k = 0; k < NSPELL; k++)                                                       \
            CHECK(NAME##_slot[k] == VD(T, left, k),                                            \
                  "deprecated " #NAME " slot %d (%s) written by PE %d is wrong", k, spell[k], left); \
        shmem_barrier_all();                                                                   \
    }
RSHMEM_DEPRECATED_AMO_EXT_TYPES(DEFINE_EXT)

#define DEFINE_STD(NAME, T)                                                                    \
    static T NAME##_sslot[NSPELL];                                                             \
    static void std_##NAME(int me, int npes) {                                                 \
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;                            \
        for (int k = 0; k < NSPELL; k++)                                                       \
            NAME##_sslot[k] = (T)(IMAX(T) - 2);                                                \
        shmem_barrier_all();                                                                   \
        for (int k = 0; k < NSPELL; k++) {                                                     \
            T *dst = &NAME##_sslot[k];                                                         \
            const char *s = spell[k];                                                          \
            T r = DAMO(k, NAME, finc, dst, right);                                             \
            CHECK(r == (T)(IMAX(T) - 2), "deprecated " #NAME "_finc (%s): wrong old value", s); \
            DAMO(k, NAME, inc, dst, right);                                                    \
            shmem_quiet();                                                                     \
            r = DAMO(k, NAME, finc, dst, right);                                               \
            CHECK(r == IMAX(T), "deprecated " #NAME "_inc (%s) did not reach the maximum", s); \
            r = DAMO(k, NAME, fetch, dst, right);                                              \
            CHECK(r == IMIN(T), "deprecated " #NAME "_finc (%s) of the maximum did not wrap", s); \
            r = DAMO(k, NAME, fadd, dst, IMAX(T), right);                                      \
            CHECK(r == IMIN(T), "deprecated " #NAME "_fadd (%s): wrong old value", s);         \
            DAMO(k, NAME, add, dst, (T)2, right);                                              \
            shmem_quiet();                                                                     \
            r = DAMO(k, NAME, fadd, dst, (T)-3, right);                                        \
            CHECK(r == (T)1, "deprecated " #NAME "_add (%s) of 2 to -1 is not 1", s);          \
            r = DAMO(k, NAME, cswap, dst, (T)-3, (T)7, right);                                 \
            CHECK(r == (T)-2, "deprecated failing " #NAME "_cswap (%s): wrong value", s);      \
            r = DAMO(k, NAME, cswap, dst, (T)-2, VSTD(T, me, k), right);                       \
            CHECK(r == (T)-2, "deprecated " #NAME "_cswap (%s): wrong old value", s);          \
            r = DAMO(k, NAME, fetch, dst, right);                                              \
            CHECK(r == VSTD(T, me, k), "deprecated " #NAME "_cswap (%s) stored a wrong value", s); \
        }                                                                                      \
        shmem_barrier_all();                                                                   \
        for (int k = 0; k < NSPELL; k++)                                                       \
            CHECK(NAME##_sslot[k] == VSTD(T, left, k),                                         \
                  "deprecated " #NAME " slot %d (%s) written by PE %d is wrong", k, spell[k], left); \
        shmem_barrier_all();                                                                   \
    }
RSHMEM_DEPRECATED_AMO_STD_TYPES(DEFINE_STD)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
#define RUN_EXT(NAME, T) ext_##NAME(me, npes);
#define RUN_STD(NAME, T) std_##NAME(me, npes);
    RSHMEM_DEPRECATED_AMO_EXT_TYPES(RUN_EXT)
    RSHMEM_DEPRECATED_AMO_STD_TYPES(RUN_STD)
#ifdef TEST_OLD_SWAP
    old_swap(me, npes); /* amo_deprecated_c99.c */
#endif
    shmem_finalize();
    return 0;
}
