/* rshmem-test
 * np: 2 4
 * cflags: -std=c11
 */
/* The point-to-point set routines while other PEs update the variables: for the 14
 * point-to-point types (the 12 of 1.5, and short and unsigned short of 1.4), the six SHMEM_CMP_* operators and each of wait_until_all/any/some,
 * their _vector forms and polling loops over test_all/any/some[_vector] (typed and C11
 * generic), one PE waits on a symmetric array of 6 elements whose elements 0 and 3 are
 * excluded by status (entries 1 and -1) while its left neighbour:
 *  - for any/some: first sets excluded element 0 to a satisfying value (the wait must
 *    continue), then element 4 to a value that still does not satisfy, then to one that
 *    does: the wait returns index 4 (count 1, indices {4});
 *  - for all: sets excluded element 0, included elements 1, 2, 4, then element 5 first to
 *    a non-satisfying and later to a satisfying value: the wait returns only then, and
 *    excluded element 3 never satisfies.
 * The final writes use, by case, shmem_TYPE_p, shmem_TYPE_atomic_set, _atomic_swap,
 * _atomic_compare_swap, shmem_TYPE_put_signal and shmem_TYPE_put + quiet (for the types
 * without atomics: _p, _put_nbi, _iput, _put_signal_nbi, _put_signal, _put). In the _vector
 * forms the excluded elements get compare values that their initial values already
 * satisfy, so a routine that ignored status would return too early. Waiters and writers
 * alternate between the even and the odd PEs. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../common.h"

#define NE 6
#define IS_SIGNED(T) ((T)~(T)0 < (T)1)
#define HALF(T) ((T)1 << (sizeof(T) * CHAR_BIT - 2))
#define TMAX(T) ((T)(IS_SIGNED(T) ? (T)(HALF(T) - 1 + HALF(T)) : (T)~(T)0))
#define TMIN(T) ((T)(IS_SIGNED(T) ? (T)(-TMAX(T) - 1) : (T)0))

static const int OPS[6] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
static const char *const OP_NAMES[6] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
#define HOLDS(a, k, b)          \
    ((k) == 0   ? (a) == (b)    \
     : (k) == 1 ? (a) != (b)    \
     : (k) == 2 ? (a) > (b)     \
     : (k) == 3 ? (a) >= (b)    \
     : (k) == 4 ? (a) < (b)     \
                : (a) <= (b))

/* For operator k the variables start at init, the writer writes inter (still false) and
 * then fin (true) for "var OP cmp" (indices into LO, MID, HI), as in wait_test.c. */
enum { LO, MID, HI };
static const int init_v[6] = {LO, MID, LO, LO, HI, HI};
static const int cmp_v[6] = {HI, MID, MID, MID, MID, MID};
static const int inter_v[6] = {MID, MID, MID, LO, MID, HI};
static const int final_v[6] = {HI, LO, HI, MID, LO, MID};

enum { F_ALL, F_ANY, F_SOME, F_ALL_V, F_ANY_V, F_SOME_V, F_TEST_ALL, F_TEST_ANY, F_TEST_SOME,
       F_TEST_ALL_V, F_TEST_ANY_V, F_TEST_SOME_V, NFORMS };
static const char *const FORM_NAMES[NFORMS] = {
    "wait_until_all", "wait_until_any", "wait_until_some", "wait_until_all_vector",
    "wait_until_any_vector", "wait_until_some_vector", "test_all loop", "test_any loop",
    "test_some loop", "test_all_vector loop", "test_any_vector loop", "test_some_vector loop"};
static const char *const AMO_MECHS[6] = {"p", "atomic_set", "atomic_swap", "atomic_compare_swap",
                                         "put_signal", "put"};
static const char *const PLAIN_MECHS[6] = {"p", "put_nbi", "iput", "put_signal_nbi", "put_signal", "put"};

static const int status[NE] = {1, 0, 0, -1, 0, 0};
static uint64_t sig;

static void pause_us(long us) {
    struct timespec ts = {0, us * 1000L};
    nanosleep(&ts, NULL);
}

/* NAME_write(mech, i, old, val, pe) writes val over old (the current value) at ivars[i]
 * on pe, by mechanism mech; AMO types use atomics for three of the six mechanisms. */
#define DEFINE_AMO_WRITE(NAME, T)                                                                \
    static T NAME##_ivars[NE];                                                                   \
    static const char *const *const NAME##_mechs = AMO_MECHS;                                    \
    static void NAME##_write(int mech, int i, T old, T val, int pe) {                            \
        switch (mech) {                                                                          \
        case 0: shmem_##NAME##_p(&NAME##_ivars[i], val, pe); break;                              \
        case 1: shmem_##NAME##_atomic_set(&NAME##_ivars[i], val, pe); break;                     \
        case 2: {                                                                                \
            T prev = shmem_##NAME##_atomic_swap(&NAME##_ivars[i], val, pe);                      \
            CHECK(prev == old, #NAME "_atomic_swap: previous value is wrong");                   \
            break;                                                                               \
        }                                                                                        \
        case 3: {                                                                                \
            T prev = shmem_##NAME##_atomic_compare_swap(&NAME##_ivars[i], old, val, pe);         \
            CHECK(prev == old, #NAME "_atomic_compare_swap: previous value is wrong");           \
            break;                                                                               \
        }                                                                                        \
        case 4: shmem_##NAME##_put_signal(&NAME##_ivars[i], &val, 1, &sig, 1, SHMEM_SIGNAL_ADD, pe); break; \
        default: shmem_##NAME##_put(&NAME##_ivars[i], &val, 1, pe); break;                       \
        }                                                                                        \
        shmem_quiet();                                                                           \
    }
#define DEFINE_PLAIN_WRITE(NAME, T)                                                              \
    static T NAME##_ivars[NE];                                                                   \
    static const char *const *const NAME##_mechs = PLAIN_MECHS;                                  \
    static void NAME##_write(int mech, int i, T old, T val, int pe) {                            \
        (void)old;                                                                               \
        switch (mech) {                                                                          \
        case 0: shmem_##NAME##_p(&NAME##_ivars[i], val, pe); break;                              \
        case 1: shmem_##NAME##_put_nbi(&NAME##_ivars[i], &val, 1, pe); break;                    \
        case 2: shmem_##NAME##_iput(&NAME##_ivars[i], &val, 1, 1, 1, pe); break;                 \
        case 3: shmem_##NAME##_put_signal_nbi(&NAME##_ivars[i], &val, 1, &sig, 1, SHMEM_SIGNAL_ADD, pe); break; \
        case 4: shmem_##NAME##_put_signal(&NAME##_ivars[i], &val, 1, &sig, 1, SHMEM_SIGNAL_ADD, pe); break; \
        default: shmem_##NAME##_put(&NAME##_ivars[i], &val, 1, pe); break;                       \
        }                                                                                        \
        shmem_quiet();                                                                           \
    }
#define DEFINE_TEST(NAME, T)                                                                     \
    static void test_##NAME(int me, int npes, int *counter) {                                    \
        T v3[3];                                                                                 \
        if (IS_SIGNED(T)) {                                                                      \
            v3[LO] = (T)(TMIN(T) + 3); v3[MID] = (T)-2; v3[HI] = (T)(TMAX(T) - 3);               \
        } else {                                                                                 \
            v3[LO] = (T)5; v3[MID] = (T)(TMAX(T) / 2 + 2); v3[HI] = (T)(TMAX(T) - 1);            \
        }                                                                                        \
        const T extra[5] = {TMIN(T), TMAX(T), v3[LO], v3[MID], v3[HI]};                          \
        int right = (me + 1) % npes;                                                             \
        T *iv = NAME##_ivars;                                                                    \
        for (int k = 0; k < 6; k++)                                                              \
            for (int form = 0; form < NFORMS; form++) {                                          \
                int n = (*counter)++;                                                            \
                int waiter = me % 2 == n % 2;                                                    \
                int generic = n / 4 % 2;                                                         \
                int mech = n / 2 % 6;                                                            \
                const int op = OPS[k];                                                           \
                const T init = v3[init_v[k]], cmp = v3[cmp_v[k]], inter = v3[inter_v[k]], fin = v3[final_v[k]]; \
                T cmpv[NE];                                                                      \
                for (int i = 0; i < NE; i++) {                                                   \
                    cmpv[i] = cmp;                                                               \
                    if (status[i])                                                               \
                        for (int c = 0; c < 5; c++)                                              \
                            if (HOLDS(init, k, extra[c])) {                                      \
                                cmpv[i] = extra[c];                                              \
                                break;                                                           \
                            }                                                                    \
                }                                                                                \
                for (int i = 0; i < NE; i++)                                                     \
                    iv[i] = init;                                                                \
                int fam = form % 3; /* 0 all, 1 any, 2 some */                                   \
                char what[200];                                                                  \
                snprintf(what, sizeof what, "%s " #NAME "_%s(%s), final write by %s", generic ? "generic" : "typed", \
                         FORM_NAMES[form], OP_NAMES[k], NAME##_mechs[mech]);                        \
                shmem_barrier_all();                                                             \
                if (!waiter) {                                                                   \
                    pause_us(400);                                                                 \
                    NAME##_write(0, 0, init, fin, right); /* excluded */                          \
                    if (fam == 0) {                                                              \
                        NAME##_write(1, 1, init, fin, right);                                    \
                        NAME##_write(5, 2, init, fin, right);                                    \
                        NAME##_write(4, 4, init, fin, right);                                    \
                        pause_us(400);                                                             \
                        NAME##_write(0, 5, init, inter, right);                                  \
                        pause_us(400);                                                             \
                        NAME##_write(mech, 5, inter, fin, right);                                \
                    } else {                                                                     \
                        pause_us(400);                                                             \
                        NAME##_write(0, 4, init, inter, right);                                  \
                        pause_us(400);                                                             \
                        NAME##_write(mech, 4, inter, fin, right);                                \
                    }                                                                            \
                } else {                                                                         \
                    size_t idx[NE] = {99, 99, 99, 99, 99, 99}, r = 0;                            \
                    int vec = form % 6 >= 3, polled = form >= 6;                                 \
                    if (!polled) {                                                               \
                        if (fam == 0 && !vec) {                                                  \
                            if (generic) shmem_wait_until_all(iv, NE, status, op, cmp);          \
                            else shmem_##NAME##_wait_until_all(iv, NE, status, op, cmp);         \
                        } else if (fam == 0) {                                                   \
                            if (generic) shmem_wait_until_all_vector(iv, NE, status, op, cmpv);  \
                            else shmem_##NAME##_wait_until_all_vector(iv, NE, status, op, cmpv); \
                        } else if (fam == 1 && !vec) {                                           \
                            r = generic ? shmem_wait_until_any(iv, NE, status, op, cmp)          \
                                        : shmem_##NAME##_wait_until_any(iv, NE, status, op, cmp); \
                        } else if (fam == 1) {                                                   \
                            r = generic ? shmem_wait_until_any_vector(iv, NE, status, op, cmpv)  \
                                        : shmem_##NAME##_wait_until_any_vector(iv, NE, status, op, cmpv); \
                        } else if (!vec) {                                                       \
                            r = generic ? shmem_wait_until_some(iv, NE, idx, status, op, cmp)    \
                                        : shmem_##NAME##_wait_until_some(iv, NE, idx, status, op, cmp); \
                        } else {                                                                 \
                            r = generic ? shmem_wait_until_some_vector(iv, NE, idx, status, op, cmpv) \
                                        : shmem_##NAME##_wait_until_some_vector(iv, NE, idx, status, op, cmpv); \
                        }                                                                        \
                    } else {                                                                     \
                        for (;;) {                                                               \
                            if (fam == 0) {                                                      \
                                int t = vec ? (generic ? shmem_test_all_vector(iv, NE, status, op, cmpv) \
                                                       : shmem_##NAME##_test_all_vector(iv, NE, status, op, cmpv)) \
                                            : (generic ? shmem_test_all(iv, NE, status, op, cmp) \
                                                       : shmem_##NAME##_test_all(iv, NE, status, op, cmp)); \
                                CHECK(t == 0 || t == 1, "%s: returned %d", what, t);             \
                                if (t)                                                           \
                                    break;                                                       \
                            } else if (fam == 1) {                                               \
                                r = vec ? (generic ? shmem_test_any_vector(iv, NE, status, op, cmpv) \
                                                   : shmem_##NAME##_test_any_vector(iv, NE, status, op, cmpv)) \
                                        : (generic ? shmem_test_any(iv, NE, status, op, cmp)     \
                                                   : shmem_##NAME##_test_any(iv, NE, status, op, cmp)); \
                                if (r != SIZE_MAX)                                               \
                                    break;                                                       \
                            } else {                                                             \
                                r = vec ? (generic ? shmem_test_some_vector(iv, NE, idx, status, op, cmpv) \
                                                   : shmem_##NAME##_test_some_vector(iv, NE, idx, status, op, cmpv)) \
                                        : (generic ? shmem_test_some(iv, NE, idx, status, op, cmp) \
                                                   : shmem_##NAME##_test_some(iv, NE, idx, status, op, cmp)); \
                                if (r != 0)                                                      \
                                    break;                                                       \
                            }                                                                    \
                        }                                                                        \
                    }                                                                            \
                    if (fam == 0) {                                                              \
                        for (int i = 1; i < NE; i++)                                             \
                            if (i != 3)                                                          \
                                CHECK(iv[i] == fin, "%s returned before element %d was written", what, i); \
                    } else if (fam == 1) {                                                       \
                        CHECK(r == 4, "%s returned %zu, expected 4", what, r);                   \
                        CHECK(iv[4] == fin, "%s returned before element 4 was written", what);   \
                    } else {                                                                     \
                        CHECK(r == 1 && idx[0] == 4, "%s returned %zu with indices[0] = %zu, expected 1 and 4", \
                              what, r, idx[0]);                                                  \
                        CHECK(iv[4] == fin, "%s returned before element 4 was written", what);   \
                    }                                                                            \
                }                                                                                \
                shmem_barrier_all();                                                             \
                if (waiter)                                                                      \
                    CHECK(iv[3] == init, "%s: excluded element 3 changed", what);                \
            }                                                                                    \
    }
RSHMEM_AMO_STD_TYPES(DEFINE_AMO_WRITE)
RSHMEM_P2P_DEPRECATED_TYPES(DEFINE_PLAIN_WRITE)
RSHMEM_P2P_TYPES(DEFINE_TEST)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes % 2 == 0, "needs an even number of PEs");
    int counter = 0;
#define RUN(NAME, T) test_##NAME(me, npes, &counter);
    RSHMEM_P2P_TYPES(RUN)
    if (me == 0)
        printf("p2p remote: %d waits ok\n", counter);
    shmem_finalize();
    return 0;
}
