/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_TYPE_wait_until and shmem_TYPE_test for the 14 point-to-point types of the type
 * table (those of 1.5, and short and unsigned short of 1.4) and all six
 * SHMEM_CMP_* operators, typed and C11 generic. The values include extremes, negative
 * signed values and unsigned values above the signed range, ordered so that a signed /
 * unsigned mix-up, a 32-bit truncation or an overflowing subtraction gives a different
 * answer. First locally with test(); then the left neighbour sets the variable with
 * shmem_TYPE_p after a delay, first to a value that does not satisfy the condition and
 * then to one that does, while this PE waits. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../common.h"

/* LO < MID < HI in the type's own order: extremes, a negative value for signed types, a
 * value above the signed range for unsigned ones. */
#define IS_SIGNED(T) ((T)~(T)0 < (T)1)
#define HALF(T) ((T)1 << (sizeof(T) * CHAR_BIT - 2))
#define TMAX(T) ((T)(IS_SIGNED(T) ? (T)(HALF(T) - 1 + HALF(T)) : (T)~(T)0))
#define TMIN(T) ((T)(IS_SIGNED(T) ? (T)(-TMAX(T) - 1) : (T)0))
#define LO_OF(T) (IS_SIGNED(T) ? (T)(TMIN(T) + 3) : (T)5)
#define MID_OF(T) (IS_SIGNED(T) ? (T)-2 : (T)(TMAX(T) / 2 + 2))
#define HI_OF(T) (IS_SIGNED(T) ? (T)(TMAX(T) - 3) : (T)(TMAX(T) - 1))

#define ALL_OPS {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE}
static const char *const op_names[6] = {"EQ", "NE", "GT", "GE", "LT", "LE"};

/* Whether "a OP b" holds for operator index k (EQ, NE, GT, GE, LT, LE), computed in C. */
#define HOLDS(a, k, b)          \
    ((k) == 0   ? (a) == (b)    \
     : (k) == 1 ? (a) != (b)    \
     : (k) == 2 ? (a) > (b)     \
     : (k) == 3 ? (a) >= (b)    \
     : (k) == 4 ? (a) < (b)     \
                : (a) <= (b))

static void pause_ms(int ms) {
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Remote rounds: for operator k the variable starts at init[k], the neighbour writes
 * inter[k] (still false) and then final[k] (true) while this PE waits for "var OP cmp[k]". */
enum { LO, MID, HI };
static const int init_v[6] = {LO, MID, LO, LO, HI, HI};
static const int cmp_v[6] = {HI, MID, MID, MID, MID, MID};
static const int inter_v[6] = {MID, MID, MID, LO, MID, HI};
static const int final_v[6] = {HI, LO, HI, MID, LO, MID};

#define DEFINE_TEST(NAME, T)                                                                    \
    static T NAME##_var;                                                                        \
    static void test_##NAME(int right) {                                                        \
        const T v[3] = {LO_OF(T), MID_OF(T), HI_OF(T)};                                         \
        const int ops[6] = ALL_OPS;                                                             \
        for (int k = 0; k < 6; k++)                                                             \
            for (int a = 0; a < 3; a++)                                                         \
                for (int b = 0; b < 3; b++) {                                                   \
                    NAME##_var = v[a];                                                          \
                    int want = HOLDS(v[a], k, v[b]);                                            \
                    CHECK(shmem_##NAME##_test(&NAME##_var, ops[k], v[b]) == want,               \
                          "shmem_" #NAME "_test(%s) on values #%d, #%d is not %d", op_names[k], a, b,  \
                          want);                                                                \
                    CHECK(shmem_test(&NAME##_var, ops[k], v[b]) == want,                        \
                          "generic shmem_test(" #NAME ", %s) on values #%d, #%d is not %d",      \
                          op_names[k], a, b, want);                                             \
                    if (want)                                                                   \
                        shmem_##NAME##_wait_until(&NAME##_var, ops[k], v[b]); /* returns at once */ \
                }                                                                               \
        for (int generic = 0; generic < 2; generic++)                                           \
            for (int k = 0; k < 6; k++) {                                                       \
                NAME##_var = v[init_v[k]];                                                      \
                CHECK(shmem_##NAME##_test(&NAME##_var, ops[k], v[cmp_v[k]]) == 0,               \
                      "shmem_" #NAME "_test(%s) true before the update", op_names[k]);          \
                shmem_barrier_all();                                                            \
                pause_ms(1);                                                                    \
                shmem_##NAME##_p(&NAME##_var, v[inter_v[k]], right);                            \
                shmem_quiet();                                                                  \
                pause_ms(1);                                                                    \
                shmem_##NAME##_p(&NAME##_var, v[final_v[k]], right);                            \
                shmem_quiet();                                                                  \
                if (generic)                                                                    \
                    shmem_wait_until(&NAME##_var, ops[k], v[cmp_v[k]]);                         \
                else                                                                            \
                    shmem_##NAME##_wait_until(&NAME##_var, ops[k], v[cmp_v[k]]);                \
                CHECK(NAME##_var == v[final_v[k]],                                              \
                      "%s shmem_" #NAME "_wait_until(%s) returned before the final value",      \
                      generic ? "generic" : "typed", op_names[k]);                              \
                CHECK(shmem_##NAME##_test(&NAME##_var, ops[k], v[cmp_v[k]]) == 1,               \
                      "shmem_" #NAME "_test(%s) false after the update", op_names[k]);          \
                CHECK(shmem_test(&NAME##_var, ops[k], v[cmp_v[k]]) == 1,                        \
                      "generic shmem_test(" #NAME ", %s) false after the update", op_names[k]);  \
                shmem_barrier_all();                                                            \
            }                                                                                   \
    }
RSHMEM_P2P_TYPES(DEFINE_TEST)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes;
    int ntypes = 0;
#define RUN_TEST(NAME, T) test_##NAME(right), ntypes++;
    RSHMEM_P2P_TYPES(RUN_TEST)
    if (me == 0)
        printf("wait_until/test: %d types x 6 operators ok\n", ntypes);
    shmem_finalize();
    return 0;
}
