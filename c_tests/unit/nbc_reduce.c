/* rshmem-test
 * np: 1 2 3 4 8
 * variant: RSHMEM_NBC_THREAD=on off
 * variant: SHMEM_PSYNC_STRATEGY=all
 * variant: SHMEM_CHECK_COLLECTIVES=1
 * stdout: nbc reductions ok
 * timeout: 120
 */
/* The non-blocking reductions and scans (issue 36): shmem_TYPENAME_{and,or,xor}_reduce_nb
 * for the 14 types of RSHMEM_REDUCE_BITWISE_TYPES, {max,min}_reduce_nb for the 24 of
 * RSHMEM_REDUCE_MINMAX_TYPES, {sum,prod}_reduce_nb and sum_{in,ex}scan_nb for the 26 of
 * RSHMEM_REDUCE_ARITH_TYPES (complex included), the C11 generic names of each family for
 * two types, and shmemx_ aliases.
 *
 * Rounds: in each, for every team of coll.h this PE belongs to, in the same order on every
 * PE, it fills the buffers of PER_TEAM entries (one entry: one routine), syncs the team
 * (shmem_team_sync_nb + shmem_req_wait, or shmem_sync_nb + shmem_req_test loop, or the
 * blocking shmem_team_sync) and initiates them all; then completes every request of every
 * team in one of the ways of nbc.h (the mode changes every round) and checks each element
 * against a serial reduction over the team's ranks computed here; past nreduce the dest
 * must be untouched, and out of place the source unchanged. nreduce is 1..9 by round; every
 * third round works in place (dest == source).
 * Inputs keep the reference exact: hashed bit patterns for the bitwise operations (dense
 * ones for and, sparse for or), [-40, 49] for max/min (wrapped for unsigned types), [0, 14]
 * for sum and the scans (a sum over 8 PEs fits char), 1 and 2 (1 and 1+i for complex) for
 * prod with 2 on at most a quarter of the PEs. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

#include "../coll.h"
#include "../nbc.h"

#define PER_TEAM 12  /* entries in flight per team and round */
#define SLOT 256     /* bytes per buffer: 16 elements of at most 16 bytes */

static unsigned char *pool; /* [team][entry in flight][src, dst] */
static int cur_team;        /* index in coll_teams of the team being filled/checked */

static void *slot(int k, int dst) {
    return pool + (((size_t)cur_team * PER_TEAM + (size_t)k) * 2 + (size_t)dst) * SLOT;
}
static size_t nr_of(int salt) {
    return 1 + (size_t)(salt % 9);
}
static int in_place(int salt) {
    return salt % 3 == 0;
}

#define H(pe, i, salt, op) coll_hash((uint64_t)(pe), (uint64_t)(i), (uint64_t)((salt) * 16 + (op)))
#define VAL_AND(T, pe, i, salt) ((T)(H(pe, i, salt, 1) | H(pe, i, salt, 2)))
#define VAL_OR(T, pe, i, salt) ((T)(H(pe, i, salt, 3) & H(pe, i, salt, 4)))
#define VAL_XOR(T, pe, i, salt) ((T)H(pe, i, salt, 5))
#define VAL_MM(T, pe, i, salt) ((T)((int)(H(pe, i, salt, 6) % 90) - 40))
#define VAL_SUM(T, pe, i, salt) COLL_MK(T, H(pe, i, salt, 7) % 15, H(pe, i, salt, 8) % 15)
#define VAL_PROD(T, pe, i, salt) \
    (((pe) + (int)(i) + (salt)) % 4 == 0 ? COLL_MK(T, H(pe, i, salt, 9) % 2 + 1, 1) : COLL_MK(T, 1, 0))
#define GUARD(T) ((T)77)

#define C_AND(a, b) ((a) & (b))
#define C_OR(a, b) ((a) | (b))
#define C_XOR(a, b) ((a) ^ (b))
#define C_MAX(a, b) ((b) > (a) ? (b) : (a))
#define C_MIN(a, b) ((b) < (a) ? (b) : (a))
#define C_SUM(a, b) ((a) + (b))
#define C_PROD(a, b) ((a) * (b))

enum { RED, INSCAN, EXSCAN };

/* st_ID fills and initiates routine FN (type T, input VAL, combination COMB) on the
 * current team as entry k; ck_ID checks its result. */
#define DEF_RED(ID, FN, T, VAL, COMB, KIND)                                                             \
    static void st_##ID(const struct coll_team *t, int k, int salt) {                         \
        T *s = slot(k, 0), *d = in_place(salt) ? s : slot(k, 1);                                        \
        int pe = shmem_my_pe();                                                                         \
        for (size_t i = 0; i < SLOT / sizeof(T); i++) {                                                 \
            s[i] = VAL(T, pe, i, salt);                                                                 \
            if (d != s)                                                                                 \
                d[i] = GUARD(T);                                                                        \
        }                                                                                               \
        (void)t;                                                                                        \
    }                                                                                                   \
    static void go_##ID(const struct coll_team *t, int k, int salt, shmem_req_h *r) {                  \
        T *s = slot(k, 0), *d = in_place(salt) ? s : slot(k, 1);                                        \
        int ret = FN(t->team, d, s, nr_of(salt), r);                                                    \
        CHECK(ret == 0 && *r != SHMEM_REQ_INVALID, #FN " team %s returned %d", t->name, ret);          \
    }                                                                                                   \
    static void ck_##ID(const struct coll_team *t, int k, int salt) {                                  \
        T *s = slot(k, 0), *d = in_place(salt) ? s : slot(k, 1);                                        \
        int pe = shmem_my_pe();                                                                         \
        size_t nr = nr_of(salt);                                                                        \
        for (size_t i = 0; i < SLOT / sizeof(T); i++) {                                                 \
            T want;                                                                                     \
            if (i >= nr) {                                                                              \
                want = d == s ? VAL(T, pe, i, salt) : GUARD(T);                                         \
            } else {                                                                                    \
                int last = KIND == RED ? t->size - 1 : KIND == INSCAN ? t->me : t->me - 1;             \
                want = last >= 0 ? VAL(T, coll_pe(t, 0), i, salt) : (T)0;                               \
                for (int q = 1; q <= last; q++)                                                         \
                    want = COMB(want, VAL(T, coll_pe(t, q), i, salt));                                  \
            }                                                                                           \
            COLL_CHECK_EQ(d[i], want, #FN " team %s rank %d of %d round %d nreduce %zu%s: dest[%zu]%s", \
                          t->name, t->me, t->size, salt, nr, d == s ? " in place" : "", i,               \
                          i < nr ? "" : " (past nreduce)");                                             \
            if (d != s)                                                                                 \
                COLL_CHECK_EQ(s[i], VAL(T, pe, i, salt), #FN " team %s round %d: source[%zu] changed",  \
                              t->name, salt, i);                                                        \
        }                                                                                               \
    }

#define DEF_BITWISE(NAME, T)                                                           \
    DEF_RED(and_##NAME, shmem_##NAME##_and_reduce_nb, T, VAL_AND, C_AND, RED)          \
    DEF_RED(or_##NAME, shmem_##NAME##_or_reduce_nb, T, VAL_OR, C_OR, RED)              \
    DEF_RED(xor_##NAME, shmem_##NAME##_xor_reduce_nb, T, VAL_XOR, C_XOR, RED)
#define DEF_MINMAX(NAME, T)                                                            \
    DEF_RED(max_##NAME, shmem_##NAME##_max_reduce_nb, T, VAL_MM, C_MAX, RED)           \
    DEF_RED(min_##NAME, shmem_##NAME##_min_reduce_nb, T, VAL_MM, C_MIN, RED)
#define DEF_ARITH(NAME, T)                                                             \
    DEF_RED(sum_##NAME, shmem_##NAME##_sum_reduce_nb, T, VAL_SUM, C_SUM, RED)          \
    DEF_RED(prod_##NAME, shmem_##NAME##_prod_reduce_nb, T, VAL_PROD, C_PROD, RED)      \
    DEF_RED(in_##NAME, shmem_##NAME##_sum_inscan_nb, T, VAL_SUM, C_SUM, INSCAN)        \
    DEF_RED(ex_##NAME, shmem_##NAME##_sum_exscan_nb, T, VAL_SUM, C_SUM, EXSCAN)
RSHMEM_REDUCE_BITWISE_TYPES(DEF_BITWISE)
RSHMEM_REDUCE_MINMAX_TYPES(DEF_MINMAX)
RSHMEM_REDUCE_ARITH_TYPES(DEF_ARITH)

/* The C11 generic names (the routine chosen by dest's type) and shmemx_ aliases. */
#define DEF_GENERICS(NAME, T)                                                          \
    DEF_RED(gand_##NAME, shmem_and_reduce_nb, T, VAL_AND, C_AND, RED)                  \
    DEF_RED(gor_##NAME, shmem_or_reduce_nb, T, VAL_OR, C_OR, RED)                      \
    DEF_RED(gxor_##NAME, shmem_xor_reduce_nb, T, VAL_XOR, C_XOR, RED)                  \
    DEF_RED(gmax_##NAME, shmem_max_reduce_nb, T, VAL_MM, C_MAX, RED)                   \
    DEF_RED(gmin_##NAME, shmem_min_reduce_nb, T, VAL_MM, C_MIN, RED)                   \
    DEF_RED(gsum_##NAME, shmem_sum_reduce_nb, T, VAL_SUM, C_SUM, RED)                  \
    DEF_RED(gprod_##NAME, shmem_prod_reduce_nb, T, VAL_PROD, C_PROD, RED)              \
    DEF_RED(gin_##NAME, shmem_sum_inscan_nb, T, VAL_SUM, C_SUM, INSCAN)                \
    DEF_RED(gex_##NAME, shmem_sum_exscan_nb, T, VAL_SUM, C_SUM, EXSCAN)
DEF_GENERICS(uint, unsigned int)
DEF_GENERICS(ulong, unsigned long)
DEF_RED(gsum_double, shmem_sum_reduce_nb, double, VAL_SUM, C_SUM, RED)
DEF_RED(gmax_float, shmem_max_reduce_nb, float, VAL_MM, C_MAX, RED)
DEF_RED(gprod_complexd, shmem_prod_reduce_nb, rshmem_complexd, VAL_PROD, C_PROD, RED)
DEF_RED(xsum_int64, shmemx_int64_sum_reduce_nb, int64_t, VAL_SUM, C_SUM, RED)
DEF_RED(xxor_uint32, shmemx_uint32_xor_reduce_nb, uint32_t, VAL_XOR, C_XOR, RED)
DEF_RED(xmin_short, shmemx_short_min_reduce_nb, short, VAL_MM, C_MIN, RED)
DEF_RED(xin_long, shmemx_long_sum_inscan_nb, long, VAL_SUM, C_SUM, INSCAN)
DEF_RED(xex_complexf, shmemx_complexf_sum_exscan_nb, rshmem_complexf, VAL_SUM, C_SUM, EXSCAN)

struct entry {
    void (*st)(const struct coll_team *, int, int);
    void (*go)(const struct coll_team *, int, int, shmem_req_h *);
    void (*ck)(const struct coll_team *, int, int);
};
#define E(ID) {st_##ID, go_##ID, ck_##ID},
#define E_BITWISE(NAME, T) E(and_##NAME) E(or_##NAME) E(xor_##NAME)
#define E_MINMAX(NAME, T) E(max_##NAME) E(min_##NAME)
#define E_ARITH(NAME, T) E(sum_##NAME) E(prod_##NAME) E(in_##NAME) E(ex_##NAME)
#define E_GENERICS(NAME) \
    E(gand_##NAME) E(gor_##NAME) E(gxor_##NAME) E(gmax_##NAME) E(gmin_##NAME) E(gsum_##NAME) E(gprod_##NAME) \
    E(gin_##NAME) E(gex_##NAME)

static const struct entry table[] = {
    RSHMEM_REDUCE_BITWISE_TYPES(E_BITWISE) RSHMEM_REDUCE_MINMAX_TYPES(E_MINMAX)
    RSHMEM_REDUCE_ARITH_TYPES(E_ARITH) E_GENERICS(uint) E_GENERICS(ulong)
    E(gsum_double) E(gmax_float) E(gprod_complexd) E(xsum_int64) E(xxor_uint32) E(xmin_short) E(xin_long)
    E(xex_complexf)
};
#define NENTRIES (sizeof table / sizeof table[0])

/* The team syncs before a round's initiations: three ways, the non-blocking ones too. */
static void sync_team(const struct coll_team *t, int how) {
    shmem_req_h s = SHMEM_REQ_INVALID;
    int ret;
    switch (how % 3) {
    case 0:
        coll_sync(t);
        break;
    case 1:
        ret = shmem_team_sync_nb(t->team, &s);
        CHECK(ret == 0 && s != SHMEM_REQ_INVALID, "shmem_team_sync_nb team %s returned %d", t->name, ret);
        ret = shmem_req_wait(&s);
        CHECK(ret == 0 && s == SHMEM_REQ_INVALID, "shmem_req_wait of shmem_team_sync_nb returned %d", ret);
        ret = shmem_req_wait(&s);
        CHECK(ret == -1, "shmem_req_wait of SHMEM_REQ_INVALID returned %d, want -1", ret);
        break;
    default:
        ret = shmem_sync_nb(t->team, &s);
        CHECK(ret == 0 && s != SHMEM_REQ_INVALID, "shmem_sync_nb team %s returned %d", t->name, ret);
        while ((ret = shmem_req_test(&s)) == 1)
            ;
        CHECK(ret == 0 && s == SHMEM_REQ_INVALID, "shmem_req_test of shmem_sync_nb returned %d", ret);
        break;
    }
}

int main(void) {
    shmem_init();
    coll_teams_create();
    pool = shmem_malloc((size_t)COLL_MAX_TEAMS * PER_TEAM * 2 * SLOT);
    CHECK(pool != NULL, "shmem_malloc failed");
    long count = 0;
    int rounds = (int)((NENTRIES + PER_TEAM - 1) / PER_TEAM);
    for (int round = 0; round < rounds; round++) {
        static shmem_req_h reqs[COLL_MAX_TEAMS * PER_TEAM];
        size_t nreq = 0;
        for (int ti = 0; ti < coll_nteams; ti++) {
            const struct coll_team *t = &coll_teams[ti];
            if (t->me < 0)
                continue;
            cur_team = ti;
            for (int k = 0; k < PER_TEAM; k++)
                table[((size_t)round * PER_TEAM + (size_t)k) % NENTRIES].st(t, k, round + ti + k);
            sync_team(t, round + ti);
            for (int k = 0; k < PER_TEAM; k++)
                table[((size_t)round * PER_TEAM + (size_t)k) % NENTRIES].go(t, k, round + ti + k, &reqs[nreq++]);
        }
        nbc_complete(reqs, nreq, round);
        for (int ti = 0; ti < coll_nteams; ti++) {
            const struct coll_team *t = &coll_teams[ti];
            if (t->me < 0)
                continue;
            cur_team = ti;
            for (int k = 0; k < PER_TEAM; k++, count++)
                table[((size_t)round * PER_TEAM + (size_t)k) % NENTRIES].ck(t, k, round + ti + k);
        }
    }
    shmem_barrier_all();
    shmem_free(pool);
    coll_teams_destroy();
    if (shmem_my_pe() == 0)
        printf("nbc reductions ok (%ld on PE 0, %zu routines)\n", count, NENTRIES);
    shmem_finalize();
    return 0;
}
