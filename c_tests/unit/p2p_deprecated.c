/* rshmem-test
 * np: 2 4
 * cflags: -std=c99
 */
/* The deprecated point-to-point routines (C99, where shmem_wait_until(long *, int, long)
 * is declared):
 *  - shmem_wait(long *, long) and shmem_{short,int,long,longlong}_wait: return once the
 *    variable differs from the value; the writer first rewrites the same value, so the
 *    wait must continue, then writes another one;
 *  - shmem_wait_until(long *, int, long) with the six operators;
 *  - shmem_{short,ushort}_wait_until and shmem_{short,ushort}_test with the six operators:
 *    all combinations of three values locally with _test, then remote updates (a value
 *    that does not satisfy, then one that does) while the PE waits.
 * Waiters and writers alternate between the even and the odd PEs. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../common.h"

#define IS_SIGNED(T) ((T)~(T)0 < (T)1)
#define HALF(T) ((T)1 << (sizeof(T) * CHAR_BIT - 2))
#define TMAX(T) ((T)(IS_SIGNED(T) ? (T)(HALF(T) - 1 + HALF(T)) : (T)~(T)0))
#define TMIN(T) ((T)(IS_SIGNED(T) ? (T)(-TMAX(T) - 1) : (T)0))
#define THREE_VALUES(T, v)                                                                 \
    do {                                                                                   \
        if (IS_SIGNED(T)) {                                                                \
            v[0] = (T)(TMIN(T) + 3); v[1] = (T)-2; v[2] = (T)(TMAX(T) - 3);                \
        } else {                                                                           \
            v[0] = (T)5; v[1] = (T)(TMAX(T) / 2 + 2); v[2] = (T)(TMAX(T) - 1);             \
        }                                                                                  \
    } while (0)

static const int OPS[6] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
static const char *const OP_NAMES[6] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
#define HOLDS(a, k, b)          \
    ((k) == 0   ? (a) == (b)    \
     : (k) == 1 ? (a) != (b)    \
     : (k) == 2 ? (a) > (b)     \
     : (k) == 3 ? (a) >= (b)    \
     : (k) == 4 ? (a) < (b)     \
                : (a) <= (b))
enum { LO, MID, HI };
static const int init_v[6] = {LO, MID, LO, LO, HI, HI};
static const int cmp_v[6] = {HI, MID, MID, MID, MID, MID};
static const int inter_v[6] = {MID, MID, MID, LO, MID, HI};
static const int final_v[6] = {HI, LO, HI, MID, LO, MID};

static int round_no;

static void pause_us(long us) {
    struct timespec ts = {0, us * 1000L};
    nanosleep(&ts, NULL);
}

/* shmem_TYPE_wait(ivar, value): returns once *ivar != value */
#define DEFINE_WAIT(NAME, T)                                                                    \
    static T NAME##_wvar;                                                                       \
    static void wait_##NAME(int me, int npes) {                                                 \
        T v[3];                                                                                 \
        THREE_VALUES(T, v);                                                                     \
        for (int a = 0; a < 3; a++)                                                             \
            for (int b = 0; b < 3; b++) {                                                       \
                if (a == b)                                                                     \
                    continue;                                                                   \
                int waiter = me % 2 == round_no++ % 2;                                          \
                NAME##_wvar = v[a];                                                             \
                shmem_barrier_all();                                                            \
                if (!waiter) {                                                                  \
                    pause_us(300);                                                              \
                    shmem_##NAME##_p(&NAME##_wvar, v[a], (me + 1) % npes); /* unchanged */      \
                    shmem_quiet();                                                              \
                    pause_us(600);                                                              \
                    shmem_##NAME##_p(&NAME##_wvar, v[b], (me + 1) % npes);                      \
                    shmem_quiet();                                                              \
                } else {                                                                        \
                    shmem_##NAME##_wait(&NAME##_wvar, v[a]);                                    \
                    CHECK(NAME##_wvar == v[b], "shmem_" #NAME "_wait(value #%d) returned before " \
                          "the change to value #%d", a, b);                                     \
                }                                                                               \
                shmem_barrier_all();                                                            \
            }                                                                                   \
    }
RSHMEM_DEPRECATED_WAIT_TYPES(DEFINE_WAIT)

/* shmem_TYPE_wait_until / shmem_TYPE_test for short and unsigned short */
#define DEFINE_UNTIL(NAME, T)                                                                   \
    static T NAME##_uvar;                                                                       \
    static void until_##NAME(int me, int npes) {                                               \
        T v[3];                                                                                 \
        THREE_VALUES(T, v);                                                                     \
        CHECK(v[0] < v[1] && v[1] < v[2], #NAME ": value order");                               \
        for (int k = 0; k < 6; k++)                                                             \
            for (int a = 0; a < 3; a++)                                                         \
                for (int b = 0; b < 3; b++) {                                                   \
                    NAME##_uvar = v[a];                                                         \
                    int want = HOLDS(v[a], k, v[b]);                                            \
                    int got = shmem_##NAME##_test(&NAME##_uvar, OPS[k], v[b]);                  \
                    CHECK(got == want, "shmem_" #NAME "_test(%s) on values #%d, #%d returned %d, expected %d", \
                          OP_NAMES[k], a, b, got, want);                                        \
                    if (want)                                                                   \
                        shmem_##NAME##_wait_until(&NAME##_uvar, OPS[k], v[b]);                  \
                }                                                                               \
        shmem_barrier_all();                                                                    \
        for (int k = 0; k < 6; k++) {                                                           \
            int waiter = me % 2 == round_no++ % 2;                                              \
            NAME##_uvar = v[init_v[k]];                                                         \
            shmem_barrier_all();                                                                \
            if (!waiter) {                                                                      \
                pause_us(300);                                                                  \
                shmem_##NAME##_p(&NAME##_uvar, v[inter_v[k]], (me + 1) % npes);                 \
                shmem_quiet();                                                                  \
                pause_us(600);                                                                  \
                shmem_##NAME##_p(&NAME##_uvar, v[final_v[k]], (me + 1) % npes);                 \
                shmem_quiet();                                                                  \
            } else if (k % 2) {                                                                 \
                shmem_##NAME##_wait_until(&NAME##_uvar, OPS[k], v[cmp_v[k]]);                   \
                CHECK(NAME##_uvar == v[final_v[k]], "shmem_" #NAME "_wait_until(%s) returned early", OP_NAMES[k]); \
            } else {                                                                            \
                while (!shmem_##NAME##_test(&NAME##_uvar, OPS[k], v[cmp_v[k]]))                 \
                    ;                                                                           \
                CHECK(NAME##_uvar == v[final_v[k]], "shmem_" #NAME "_test(%s) became true early", OP_NAMES[k]); \
            }                                                                                   \
            shmem_barrier_all();                                                                \
        }                                                                                       \
    }
RSHMEM_P2P_DEPRECATED_TYPES(DEFINE_UNTIL)

static long lvar;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes % 2 == 0, "needs an even number of PEs");
    int right = (me + 1) % npes;
#define RUN_WAIT(NAME, T) wait_##NAME(me, npes);
    RSHMEM_DEPRECATED_WAIT_TYPES(RUN_WAIT)
#define RUN_UNTIL(NAME, T) until_##NAME(me, npes);
    RSHMEM_P2P_DEPRECATED_TYPES(RUN_UNTIL)

    /* shmem_wait(long *, long) and shmem_wait_until(long *, int, long) */
    long v[3];
    THREE_VALUES(long, v);
    for (int round = 0; round < 2; round++) {
        int waiter = me % 2 == round;
        lvar = v[MID];
        shmem_barrier_all();
        if (!waiter) {
            pause_us(300);
            shmem_long_p(&lvar, v[MID], right);
            shmem_quiet();
            pause_us(600);
            shmem_long_p(&lvar, v[LO], right);
            shmem_quiet();
        } else {
            shmem_wait(&lvar, v[MID]);
            CHECK(lvar == v[LO], "shmem_wait returned before the change");
        }
        shmem_barrier_all();
    }
    for (int k = 0; k < 6; k++) {
        for (int a = 0; a < 3; a++) /* satisfied at once */
            if (HOLDS(v[a], k, v[1])) {
                lvar = v[a];
                shmem_wait_until(&lvar, OPS[k], v[1]);
            }
        int waiter = me % 2 == k % 2;
        lvar = v[init_v[k]];
        shmem_barrier_all();
        if (!waiter) {
            pause_us(300);
            shmem_long_atomic_set(&lvar, v[inter_v[k]], right);
            shmem_quiet();
            pause_us(600);
            shmem_long_atomic_set(&lvar, v[final_v[k]], right);
            shmem_quiet();
        } else {
            shmem_wait_until(&lvar, OPS[k], v[cmp_v[k]]);
            CHECK(lvar == v[final_v[k]], "shmem_wait_until(%s) returned early", OP_NAMES[k]);
        }
        shmem_barrier_all();
    }
    if (me == 0)
        printf("deprecated wait / wait_until / test ok\n");
    shmem_finalize();
    return 0;
}
