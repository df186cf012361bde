/* rshmem-test
 * np: 1 2 3 4 8
 * cflags: -std=c99
 */
/* The deprecated active-set collectives from strict C99, where shmem.h has no _Generic:
 * shmem_sync is then the plain function void shmem_sync(int, int, int, long *) (also
 * called through a function pointer, as are shmem_barrier and a few others: real
 * functions, not macros). A handful of routines, each on a stride-1 or stride-2 set,
 * checked against a serial computation, with pSync checked right after return and after
 * the next shmem_barrier_all:
 *   shmem_barrier, shmem_sync (puts visible after them; quiet before shmem_sync),
 *   shmem_broadcast64 (root's dest not updated), shmem_collect32, shmem_fcollect64,
 *   shmem_alltoall32, shmem_alltoalls64, and shmem_int_sum_to_all,
 *   shmem_double_max_to_all, shmem_longlong_xor_to_all, shmem_short_or_to_all,
 *   shmem_longdouble_min_to_all, shmem_complexf_prod_to_all. */
#include <complex.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define N 40
#define MAXPES 64

static long ps_barrier[SHMEM_BARRIER_SYNC_SIZE];
static long ps_sync[SHMEM_SYNC_SIZE > SHMEM_BARRIER_SYNC_SIZE ? SHMEM_SYNC_SIZE : SHMEM_BARRIER_SYNC_SIZE];
static long ps_bcast[SHMEM_BCAST_SYNC_SIZE];
static long ps_collect[SHMEM_COLLECT_SYNC_SIZE];
static long ps_a2a[SHMEM_ALLTOALL_SYNC_SIZE];
static long ps_a2as[SHMEM_ALLTOALLS_SYNC_SIZE];
static long ps_reduce[SHMEM_REDUCE_SYNC_SIZE];

static int slots[MAXPES];
static uint64_t b_src[N], b_dst[N];
static uint32_t c_src[8], c_dst[8 * MAXPES];
static uint64_t f_src[N], f_dst[N * MAXPES];
static uint32_t a_src[4 * MAXPES], a_dst[4 * MAXPES];
static uint64_t s_src[3 * MAXPES], s_dst[2 * 3 * MAXPES];
static int i_src[N], i_dst[N], i_wrk[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static double d_src[N], d_dst[N], d_wrk[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long long l_src[N], l_dst[N], l_wrk[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static short h_src[N], h_dst[N], h_wrk[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long double q_src[N], q_dst[N], q_wrk[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static float _Complex z_src[N], z_dst[N], z_wrk[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];

static int me, npes;

static void check_ps(const long *p, int len, const char *routine, const char *when) {
    int i;
    for (i = 0; i < len; i++)
        CHECK(p[i] == SHMEM_SYNC_VALUE, "%s: pSync[%d] is %ld %s, not SHMEM_SYNC_VALUE", routine, i, p[i], when);
}
#define CHECK_PS(p, routine) check_ps(p, (int)(sizeof p / sizeof p[0]), routine, "right after return")
/* All PEs, after the collective on the members. */
#define CHECK_PS_AFTER(p, routine)                                                    \
    do {                                                                              \
        shmem_barrier_all();                                                          \
        check_ps(p, (int)(sizeof p / sizeof p[0]), routine, "after the next barrier"); \
    } while (0)

static unsigned long long mix(int pe, int j, int salt) {
    unsigned long long x = (unsigned long long)(pe + 1) * 0x9E3779B97F4A7C15ull ^ (unsigned long long)(j + 3) * 0xC2B2AE3D27D4EB4Full ^
                           (unsigned long long)(salt + 11) * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return x;
}

/* The set: start, log2 stride, size; member k is start + k << log. */
static int S0, LOG, SIZE;
static int pe_of(int k) { return S0 + (k << LOG); }
static int my_index(void) {
    int d = me - S0;
    if (d < 0 || (d & ((1 << LOG) - 1)) != 0 || (d >> LOG) >= SIZE)
        return -1;
    return d >> LOG;
}

/* Reduction data: exact results in any order. */
#define G_I(pe, j) ((int)(mix(pe, j, 6) % 2001) - 1000)
#define G_D(pe, j) ((double)((int)(mix(pe, j, 7) % 201) - 100) + 0.5)
#define G_L(pe, j) ((long long)mix(pe, j, 8))
#define G_H(pe, j) ((short)(1u << (mix(pe, j, 9) % 16)))
#define G_Q(pe, j) ((long double)((int)(mix(pe, j, 10) % 2001) - 1000) / 8)
#define G_Z(pe, j) zfactor((int)(mix(pe, j, 11) % 5))
#define F_SUM(a, b) ((a) + (b))
#define F_PROD(a, b) ((a) * (b))
#define F_MAX(a, b) ((a) > (b) ? (a) : (b))
#define F_MIN(a, b) ((a) < (b) ? (a) : (b))
#define F_XOR(a, b) ((a) ^ (b))
#define F_OR(a, b) ((a) | (b))
static float _Complex zfactor(int w) {
    switch (w) {
    case 0: return -1.0f;
    case 1: return (float _Complex)I;
    case 2: return 1.0f + (float _Complex)I;
    case 3: return 0.5f;
    default: return 1.0f;
    }
}

static void test_sync(void) {
    void (*barrier_fn)(int, int, int, long *) = shmem_barrier;
    void (*sync_fn)(int, int, int, long *) = shmem_sync;
    int idx = my_index(), k, r;
    for (r = 0; r < 4; r++) {
        int i;
        for (i = 0; i < MAXPES; i++)
            slots[i] = 0;
        shmem_barrier_all();
        if (idx >= 0) {
            for (k = 0; k < SIZE; k++)
                shmem_int_p(&slots[idx], 1000 * r + me + 1, pe_of(k));
            switch (r) {
            case 0: shmem_barrier(S0, LOG, SIZE, ps_barrier); break;
            case 1: barrier_fn(S0, LOG, SIZE, ps_barrier); break;
            case 2: shmem_quiet(); shmem_sync(S0, LOG, SIZE, ps_sync); break;
            default: shmem_quiet(); sync_fn(S0, LOG, SIZE, ps_sync); break;
            }
            check_ps(r < 2 ? ps_barrier : ps_sync, r < 2 ? SHMEM_BARRIER_SYNC_SIZE : (int)(sizeof ps_sync / sizeof ps_sync[0]),
                     r < 2 ? "shmem_barrier" : "shmem_sync", "right after return");
            for (k = 0; k < SIZE; k++)
                CHECK(slots[k] == 1000 * r + pe_of(k) + 1, "%s%s: put from PE %d not visible (%d)", r < 2 ? "shmem_barrier" : "shmem_sync",
                      r % 2 ? " through a function pointer" : "", pe_of(k), slots[k]);
        }
        CHECK_PS_AFTER(ps_barrier, "shmem_barrier");
        CHECK_PS_AFTER(ps_sync, "shmem_sync");
    }
}

static void test_data(void) {
    void (*bcast_fn)(void *, const void *, size_t, int, int, int, int, long *) = shmem_broadcast64;
    void (*sum_fn)(int *, const int *, int, int, int, int, int *, long *) = shmem_int_sum_to_all;
    int idx = my_index(), j, k;
    int root = SIZE > 1 ? 1 : 0;

    /* broadcast64 through a pointer */
    for (j = 0; j < N; j++) {
        b_src[j] = mix(me, j, 1);
        b_dst[j] = 0;
    }
    shmem_barrier_all();
    if (idx >= 0) {
        bcast_fn(b_dst, b_src, N, root, S0, LOG, SIZE, ps_bcast);
        CHECK_PS(ps_bcast, "shmem_broadcast64");
        for (j = 0; j < N; j++)
            CHECK(b_dst[j] == (idx == root ? 0 : mix(pe_of(root), j, 1)), "shmem_broadcast64: dest[%d] is 0x%llx%s", j,
                  (unsigned long long)b_dst[j], idx == root ? " on the root, which is not updated" : "");
    }
    CHECK_PS_AFTER(ps_bcast, "shmem_broadcast64");

    /* collect32: member k gives k % 4 elements */
    for (j = 0; j < 8; j++)
        c_src[j] = (uint32_t)mix(me, j, 2);
    shmem_barrier_all();
    if (idx >= 0) {
        size_t pos = 0;
        shmem_collect32(c_dst, c_src, (size_t)(idx % 4), S0, LOG, SIZE, ps_collect);
        CHECK_PS(ps_collect, "shmem_collect32");
        for (k = 0; k < SIZE; k++)
            for (j = 0; j < k % 4; j++, pos++)
                CHECK(c_dst[pos] == (uint32_t)mix(pe_of(k), j, 2), "shmem_collect32 (member k gives k %% 4 elements): dest[%zu] is 0x%x, want 0x%x",
                      pos, (unsigned)c_dst[pos], (unsigned)(uint32_t)mix(pe_of(k), j, 2));
    }
    CHECK_PS_AFTER(ps_collect, "shmem_collect32");

    /* fcollect64 */
    for (j = 0; j < N; j++)
        f_src[j] = mix(me, j, 3);
    shmem_barrier_all();
    if (idx >= 0) {
        shmem_fcollect64(f_dst, f_src, N, S0, LOG, SIZE, ps_collect);
        CHECK_PS(ps_collect, "shmem_fcollect64");
        for (k = 0; k < SIZE; k++)
            for (j = 0; j < N; j++)
                CHECK(f_dst[k * N + j] == mix(pe_of(k), j, 3), "shmem_fcollect64: dest[%d] is 0x%llx, want 0x%llx", k * N + j,
                      (unsigned long long)f_dst[k * N + j], mix(pe_of(k), j, 3));
    }
    CHECK_PS_AFTER(ps_collect, "shmem_fcollect64");

    /* alltoall32, 4 elements per PE */
    for (j = 0; j < 4 * MAXPES; j++)
        a_src[j] = (uint32_t)mix(me, j, 4);
    shmem_barrier_all();
    if (idx >= 0) {
        shmem_alltoall32(a_dst, a_src, 4, S0, LOG, SIZE, ps_a2a);
        CHECK_PS(ps_a2a, "shmem_alltoall32");
        for (k = 0; k < SIZE; k++)
            for (j = 0; j < 4; j++)
                CHECK(a_dst[k * 4 + j] == (uint32_t)mix(pe_of(k), idx * 4 + j, 4), "shmem_alltoall32: dest[%d] is 0x%x, want 0x%x", k * 4 + j,
                      (unsigned)a_dst[k * 4 + j], (unsigned)(uint32_t)mix(pe_of(k), idx * 4 + j, 4));
    }
    CHECK_PS_AFTER(ps_a2a, "shmem_alltoall32");

    /* alltoalls64: 3 elements per PE, dst 2, sst 1 */
    for (j = 0; j < 3 * MAXPES; j++)
        s_src[j] = mix(me, j, 5);
    for (j = 0; j < 2 * 3 * MAXPES; j++)
        s_dst[j] = 7;
    shmem_barrier_all();
    if (idx >= 0) {
        shmem_alltoalls64(s_dst, s_src, 2, 1, 3, S0, LOG, SIZE, ps_a2as);
        CHECK_PS(ps_a2as, "shmem_alltoalls64");
        for (j = 0; j < 2 * 3 * SIZE; j++) {
            uint64_t want = j % 2 ? 7 : mix(pe_of(j / 2 / 3), idx * 3 + j / 2 % 3, 5);
            CHECK(s_dst[j] == want, "shmem_alltoalls64 (dst 2, sst 1): dest[%d] is 0x%llx, want 0x%llx", j, (unsigned long long)s_dst[j],
                  (unsigned long long)want);
        }
    }
    CHECK_PS_AFTER(ps_a2as, "shmem_alltoalls64");

    /* reductions: one pSync, a barrier between uses (shmem_int_sum_to_all through a pointer) */
#define REDUCE(T, FN, NAME, SRC, DST, WRK, GEN, FOLD)                                                                       \
    do {                                                                                                                    \
        for (j = 0; j < N; j++)                                                                                             \
            SRC[j] = GEN(me, j);                                                                                            \
        shmem_barrier_all();                                                                                                \
        if (idx >= 0) {                                                                                                     \
            FN(DST, SRC, N, S0, LOG, SIZE, WRK, ps_reduce);                                                                 \
            CHECK_PS(ps_reduce, NAME);                                                                                      \
            for (j = 0; j < N; j++) {                                                                                       \
                T ref_ = GEN(pe_of(0), j);                                                                                  \
                for (k = 1; k < SIZE; k++)                                                                                  \
                    ref_ = FOLD(ref_, GEN(pe_of(k), j));                                                                    \
                if (!(DST[j] == ref_)) {                                                                                    \
                    double _Complex g_ = (double _Complex)DST[j], w_ = (double _Complex)ref_;                               \
                    CHECK(0, "%s on %d/%d/%d: dest[%d] is %.17g%+.17gi, want %.17g%+.17gi", NAME, S0, LOG, SIZE, j, creal(g_), \
                          cimag(g_), creal(w_), cimag(w_));                                                                 \
                }                                                                                                           \
            }                                                                                                               \
        }                                                                                                                   \
        CHECK_PS_AFTER(ps_reduce, NAME);                                                                                    \
    } while (0)
    REDUCE(int, sum_fn, "shmem_int_sum_to_all", i_src, i_dst, i_wrk, G_I, F_SUM);
    REDUCE(double, shmem_double_max_to_all, "shmem_double_max_to_all", d_src, d_dst, d_wrk, G_D, F_MAX);
    REDUCE(long long, shmem_longlong_xor_to_all, "shmem_longlong_xor_to_all", l_src, l_dst, l_wrk, G_L, F_XOR);
    REDUCE(short, shmem_short_or_to_all, "shmem_short_or_to_all", h_src, h_dst, h_wrk, G_H, F_OR);
    REDUCE(long double, shmem_longdouble_min_to_all, "shmem_longdouble_min_to_all", q_src, q_dst, q_wrk, G_Q, F_MIN);
    REDUCE(float _Complex, shmem_complexf_prod_to_all, "shmem_complexf_prod_to_all", z_src, z_dst, z_wrk, G_Z, F_PROD);
}

int main(void) {
    int round;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "written for at most %d PEs", MAXPES);
    {
        int i;
        for (i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
            ps_barrier[i] = SHMEM_SYNC_VALUE;
        for (i = 0; i < (int)(sizeof ps_sync / sizeof ps_sync[0]); i++)
            ps_sync[i] = SHMEM_SYNC_VALUE;
        for (i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            ps_bcast[i] = SHMEM_SYNC_VALUE;
        for (i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
            ps_collect[i] = SHMEM_SYNC_VALUE;
        for (i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
            ps_a2a[i] = SHMEM_SYNC_VALUE;
        for (i = 0; i < SHMEM_ALLTOALLS_SYNC_SIZE; i++)
            ps_a2as[i] = SHMEM_SYNC_VALUE;
        for (i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
            ps_reduce[i] = SHMEM_SYNC_VALUE;
    }
    shmem_barrier_all();
    for (round = 0; round < 2; round++) {
        /* round 0: all PEs; round 1: the even PEs */
        S0 = 0;
        LOG = round;
        SIZE = round ? (npes + 1) / 2 : npes;
        test_sync();
        test_data();
    }
    if (me == 0)
        printf("C99 active-set collectives ok\n");
    shmem_finalize();
    return 0;
}
