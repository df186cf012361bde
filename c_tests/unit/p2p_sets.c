/* rshmem-test
 * np: 1 2
 * cflags: -std=c11
 */
/* The OpenSHMEM 1.5 point-to-point set routines on local data, for the 14 point-to-point
 * types (those of 1.5, and short and unsigned short of 1.4), typed and C11 generic: shmem_TYPE_test_all/any/some, their _vector forms, and
 * shmem_TYPE_wait_until_all/any/some[_vector] wherever they must return at once.
 *
 * The element values come from five per-type values V0 < V1 < V2 < V3 < V4 (in the
 * type's own order: extremes, negative signed values, unsigned values above the signed
 * range, so a signed/unsigned mix-up changes the answer). Pseudo-random arrays, compare
 * values, operators (all six SHMEM_CMP_*) and status arrays (NULL, all zero, some
 * non-zero entries - 1, -1, 7 - that exclude elements, all excluded) are checked against
 * the answer computed in C:
 *  - test_all: 1 when every included element satisfies (also when none is included);
 *  - test_any / wait_until_any: the index of a satisfied included element, or SIZE_MAX
 *    when none is satisfied, all are excluded or nelems is 0;
 *  - test_some / wait_until_some: the count of satisfied included elements, with exactly
 *    their indices (each once) in indices;
 * and the ivars and status arrays are left unchanged. */
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define NE 9

#define IS_SIGNED(T) ((T)~(T)0 < (T)1)
#define HALF(T) ((T)1 << (sizeof(T) * CHAR_BIT - 2))
#define TMAX(T) ((T)(IS_SIGNED(T) ? (T)(HALF(T) - 1 + HALF(T)) : (T)~(T)0))
#define TMIN(T) ((T)(IS_SIGNED(T) ? (T)(-TMAX(T) - 1) : (T)0))
/* V0 < V1 < V2 < V3 < V4 in T's order */
#define FIVE_VALUES(T, v)                                                             \
    do {                                                                              \
        if (IS_SIGNED(T)) {                                                           \
            v[0] = (T)(TMIN(T) + 3); v[1] = (T)-2; v[2] = (T)0; v[3] = (T)7;         \
            v[4] = (T)(TMAX(T) - 3);                                                  \
        } else {                                                                      \
            v[0] = (T)0; v[1] = (T)5; v[2] = (T)(TMAX(T) / 2); v[3] = (T)(TMAX(T) / 2 + 2); \
            v[4] = (T)(TMAX(T) - 1);                                                  \
        }                                                                             \
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

static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(unsigned n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static const char *where; /* description of the current case, for messages */
static char where_buf[256];

/* Checks of the three result kinds against sat[] (satisfied and included) */
static void check_all(int got, int want, const char *fn) {
    CHECK(got == want, "%s returned %d, expected %d (%s)", fn, got, want, where);
}
static void check_any(size_t got, const int *sat, size_t n, size_t nsat, const char *fn) {
    if (nsat == 0)
        CHECK(got == SIZE_MAX, "%s returned %zu, expected SIZE_MAX (%s)", fn, got, where);
    else
        CHECK(got < n && sat[got], "%s returned %zu, not a satisfied included index (%s)", fn, got, where);
}
static void check_some(size_t got, const size_t *idx, const int *sat, size_t n, size_t nsat, const char *fn) {
    CHECK(got == nsat, "%s returned %zu, expected %zu (%s)", fn, got, nsat, where);
    int seen[NE] = {0};
    for (size_t j = 0; j < got; j++) {
        CHECK(idx[j] < n && sat[idx[j]], "%s: indices[%zu] = %zu is not a satisfied included index (%s)", fn,
              j, idx[j], where);
        CHECK(!seen[idx[j]], "%s: index %zu reported twice (%s)", fn, idx[j], where);
        seen[idx[j]] = 1;
    }
}

/* One case: ivars[0, n) as set, status (NULL or n entries), operator k, compare values
 * cmpv[0, n) (all equal when uniform: then the scalar forms are checked too). */
#define DEFINE_TYPE(NAME, T)                                                                      \
    static T NAME##_ivars[NE];                                                                    \
    static void case_##NAME(size_t n, const int *status, int k, const T *cmpv, int uniform) {    \
        T *iv = NAME##_ivars;                                                                     \
        const int op = OPS[k];                                                                    \
        int sat[NE] = {0};                                                                        \
        size_t nsat = 0, ninc = 0, idx[NE + 1];                                                   \
        T saved[NE];                                                                              \
        int saved_status[NE];                                                                     \
        memcpy(saved, iv, sizeof saved);                                                          \
        if (status)                                                                               \
            memcpy(saved_status, status, n * sizeof(int));                                        \
        for (size_t i = 0; i < n; i++) {                                                          \
            int inc = status == NULL || status[i] == 0;                                           \
            ninc += (size_t)inc;                                                                  \
            sat[i] = inc && HOLDS(iv[i], k, cmpv[i]);                                             \
            nsat += (size_t)sat[i];                                                               \
        }                                                                                         \
        int all = nsat == ninc;                                                                   \
        int can_wait_any = nsat > 0 || ninc == 0; /* returns at once */                          \
        /* vector forms */                                                                        \
        check_all(shmem_##NAME##_test_all_vector(iv, n, status, op, cmpv), all, "shmem_" #NAME "_test_all_vector"); \
        check_all(shmem_test_all_vector(iv, n, status, op, cmpv), all, "generic shmem_test_all_vector(" #NAME ")"); \
        check_any(shmem_##NAME##_test_any_vector(iv, n, status, op, cmpv), sat, n, nsat,           \
                  "shmem_" #NAME "_test_any_vector");                                             \
        check_any(shmem_test_any_vector(iv, n, status, op, cmpv), sat, n, nsat,                    \
                  "generic shmem_test_any_vector(" #NAME ")");                                    \
        memset(idx, 0xAB, sizeof idx);                                                            \
        size_t c = shmem_##NAME##_test_some_vector(iv, n, idx, status, op, cmpv);                 \
        check_some(c, idx, sat, n, nsat, "shmem_" #NAME "_test_some_vector");                     \
        c = shmem_test_some_vector(iv, n, idx, status, op, cmpv);                                 \
        check_some(c, idx, sat, n, nsat, "generic shmem_test_some_vector(" #NAME ")");            \
        if (all) {                                                                                \
            shmem_##NAME##_wait_until_all_vector(iv, n, status, op, cmpv);                        \
            shmem_wait_until_all_vector(iv, n, status, op, cmpv);                                 \
        }                                                                                         \
        if (can_wait_any) {                                                                       \
            check_any(shmem_##NAME##_wait_until_any_vector(iv, n, status, op, cmpv), sat, n, nsat, \
                      "shmem_" #NAME "_wait_until_any_vector");                                   \
            check_any(shmem_wait_until_any_vector(iv, n, status, op, cmpv), sat, n, nsat,          \
                      "generic shmem_wait_until_any_vector(" #NAME ")");                          \
            c = shmem_##NAME##_wait_until_some_vector(iv, n, idx, status, op, cmpv);              \
            check_some(c, idx, sat, n, nsat, "shmem_" #NAME "_wait_until_some_vector");           \
            c = shmem_wait_until_some_vector(iv, n, idx, status, op, cmpv);                       \
            check_some(c, idx, sat, n, nsat, "generic shmem_wait_until_some_vector(" #NAME ")");  \
        }                                                                                         \
        if (uniform) {                                                                            \
            T cv = n ? cmpv[0] : (T)0;                                                            \
            check_all(shmem_##NAME##_test_all(iv, n, status, op, cv), all, "shmem_" #NAME "_test_all"); \
            check_all(shmem_test_all(iv, n, status, op, cv), all, "generic shmem_test_all(" #NAME ")"); \
            check_any(shmem_##NAME##_test_any(iv, n, status, op, cv), sat, n, nsat, "shmem_" #NAME "_test_any"); \
            check_any(shmem_test_any(iv, n, status, op, cv), sat, n, nsat, "generic shmem_test_any(" #NAME ")"); \
            memset(idx, 0xAB, sizeof idx);                                                        \
            c = shmem_##NAME##_test_some(iv, n, idx, status, op, cv);                             \
            check_some(c, idx, sat, n, nsat, "shmem_" #NAME "_test_some");                        \
            c = shmem_test_some(iv, n, idx, status, op, cv);                                      \
            check_some(c, idx, sat, n, nsat, "generic shmem_test_some(" #NAME ")");               \
            if (all) {                                                                            \
                shmem_##NAME##_wait_until_all(iv, n, status, op, cv);                             \
                shmem_wait_until_all(iv, n, status, op, cv);                                      \
            }                                                                                     \
            if (can_wait_any) {                                                                   \
                check_any(shmem_##NAME##_wait_until_any(iv, n, status, op, cv), sat, n, nsat,     \
                          "shmem_" #NAME "_wait_until_any");                                      \
                check_any(shmem_wait_until_any(iv, n, status, op, cv), sat, n, nsat,              \
                          "generic shmem_wait_until_any(" #NAME ")");                             \
                c = shmem_##NAME##_wait_until_some(iv, n, idx, status, op, cv);                   \
                check_some(c, idx, sat, n, nsat, "shmem_" #NAME "_wait_until_some");              \
                c = shmem_wait_until_some(iv, n, idx, status, op, cv);                            \
                check_some(c, idx, sat, n, nsat, "generic shmem_wait_until_some(" #NAME ")");     \
            }                                                                                     \
        }                                                                                         \
        CHECK(memcmp(saved, iv, sizeof saved) == 0, #NAME ": ivars changed (%s)", where);         \
        if (status)                                                                               \
            CHECK(memcmp(saved_status, status, n * sizeof(int)) == 0, #NAME ": status changed (%s)", where); \
    }                                                                                             \
    static void test_##NAME(void) {                                                               \
        T v[5], cmpv[NE];                                                                         \
        int status[NE];                                                                           \
        FIVE_VALUES(T, v);                                                                        \
        for (int a = 0; a < 4; a++)                                                               \
            CHECK(v[a] < v[a + 1], #NAME ": value order %d", a);                                  \
        for (int k = 0; k < 6; k++)                                                               \
            for (int iter = 0; iter < 120; iter++) {                                              \
                int b = iter % 5, pattern = iter / 5 % 6, smode = iter / 30 % 4;                  \
                size_t n = iter % 11 == 10 ? 0 : iter % 7 == 6 ? 1 : NE;                          \
                for (size_t i = 0; i < NE; i++) {                                                 \
                    /* 0: all equal to the compare value; 1: all one other value; else random */ \
                    NAME##_ivars[i] = pattern == 0 ? v[b] : pattern == 1 ? v[(b + 2) % 5] : v[rnd(5)]; \
                    cmpv[i] = v[b];                                                               \
                }                                                                                 \
                const int *st = NULL;                                                             \
                static const int excl[3] = {1, -1, 7};                                            \
                for (size_t i = 0; i < NE; i++)                                                   \
                    status[i] = smode == 1 ? 0 : smode == 2 ? (rnd(2) ? 0 : excl[rnd(3)]) : 1;    \
                if (smode != 0)                                                                   \
                    st = status;                                                                  \
                snprintf(where_buf, sizeof where_buf, "type " #NAME ", %s, compare value #%d, pattern %d, "    \
                         "status %s, nelems %zu, uniform", OP_NAMES[k], b, pattern,               \
                         smode == 0 ? "NULL" : smode == 1 ? "all 0" : smode == 2 ? "mixed" : "all excluded", n); \
                where = where_buf;                                                                \
                case_##NAME(n, st, k, cmpv, 1);                                                   \
                /* the same with per-element compare values */                                    \
                for (size_t i = 0; i < NE; i++)                                                   \
                    cmpv[i] = v[rnd(5)];                                                          \
                snprintf(where_buf, sizeof where_buf, "type " #NAME ", %s, pattern %d, status %s, " \
                         "nelems %zu, per-element compare values", OP_NAMES[k], pattern,          \
                         smode == 0 ? "NULL" : smode == 1 ? "all 0" : smode == 2 ? "mixed" : "all excluded", n); \
                case_##NAME(n, st, k, cmpv, 0);                                                   \
            }                                                                                     \
        /* nelems 0 with NULL status and indices is also empty */                                           \
        where = "nelems 0, status/indices NULL";                                            \
        CHECK(shmem_##NAME##_test_any(NAME##_ivars, 0, NULL, SHMEM_CMP_EQ, v[0]) == SIZE_MAX, #NAME "_test_any(n 0)"); \
        CHECK(shmem_##NAME##_test_some(NAME##_ivars, 0, NULL, NULL, SHMEM_CMP_EQ, v[0]) == 0, #NAME "_test_some(n 0)"); \
        CHECK(shmem_##NAME##_test_all(NAME##_ivars, 0, NULL, SHMEM_CMP_EQ, v[0]) == 1, #NAME "_test_all(n 0)"); \
        shmem_##NAME##_wait_until_all(NAME##_ivars, 0, NULL, SHMEM_CMP_EQ, v[0]);                         \
        CHECK(shmem_##NAME##_wait_until_any(NAME##_ivars, 0, NULL, SHMEM_CMP_EQ, v[0]) == SIZE_MAX,       \
              #NAME "_wait_until_any(n 0)");                                                      \
        CHECK(shmem_##NAME##_wait_until_some(NAME##_ivars, 0, NULL, NULL, SHMEM_CMP_EQ, v[0]) == 0,       \
              #NAME "_wait_until_some(n 0)");                                                     \
    }
RSHMEM_P2P_TYPES(DEFINE_TYPE)

int main(void) {
    shmem_init();
    rng += (unsigned long long)shmem_my_pe() * 7919u;
#define RUN(NAME, T) test_##NAME();
    RSHMEM_P2P_TYPES(RUN)
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        printf("p2p sets: 12 types, test/wait_until all/any/some and _vector ok\n");
    shmem_finalize();
    return 0;
}
