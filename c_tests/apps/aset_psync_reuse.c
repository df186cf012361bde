/* rshmem-test
 * np: 1 2 3 4 8
 */
/* pSync reuse the way classic SHMEM codes do it, with the deprecated active-set
 * collectives. OpenSHMEM 1.5 allows reusing a pSync array once every collective that used
 * it has completed on all participating PEs; a barrier is not needed when a collective in
 * between guarantees it.
 *
 * Phase 1: 500 iterations on all PEs, without any barrier. Each iteration runs
 *     reduce  -> broadcast64 -> fcollect32/64 -> reduce (in place)
 * The reductions and fcollects alternate between two pSync arrays P[0], P[1] (so each
 * array is used by both kinds) and the reductions alternate two pWrk arrays the same way.
 * A PE cannot complete a reduction or an fcollect before every PE has entered it, hence
 * left the collective before it: so a PE that enters collective c has left none of its
 * peers inside collective c-2, which used the same array. A broadcast gives no such
 * guarantee (its root may return before the others arrive), so the broadcasts alternate
 * their own pair B[0], B[1], and two broadcasts are always separated by a reduction. The
 * reduction types and ops rotate (int sum, double max, long xor, long long prod; float sum,
 * short and, int min, complexd sum), sizes and roots change every iteration, the data
 * depend on the iteration, and every PE checks every result against a serial computation
 * (so a stale result or one from the wrong call fails), that the broadcast root's dest is
 * not updated, and that pSync is all SHMEM_SYNC_VALUE right after every return.
 *
 * Phase 2: ONE pSync array for everything, with a shmem_barrier_all between uses: 200
 * iterations rotating reduce, broadcast32, collect64 (per-PE sizes) and alltoall64 over
 * the whole set, the even PEs and the odd PEs, checking results and pSync (right after
 * every return, and on every PE at the end). */
#include <complex.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define MAXSYNC                                                                                                        \
    MAX2(MAX2(MAX2(SHMEM_BARRIER_SYNC_SIZE, SHMEM_BCAST_SYNC_SIZE), MAX2(SHMEM_COLLECT_SYNC_SIZE, SHMEM_REDUCE_SYNC_SIZE)), \
         MAX2(MAX2(SHMEM_ALLTOALL_SYNC_SIZE, SHMEM_ALLTOALLS_SYNC_SIZE), SHMEM_SYNC_SIZE))

#define ITERS 500
#define ITERS2 200
#define MAXR 64   /* reduction elements */
#define MAXB 32   /* broadcast elements */
#define MAXF 16   /* fcollect elements per PE */
#define MAXPES 64

static long P[2][MAXSYNC];  /* reductions and fcollects */
static long B[2][MAXSYNC];  /* broadcasts */
static long one[MAXSYNC];   /* phase 2 */

static uint64_t bsrc[MAXB], bdst[MAXB];
static uint64_t fsrc[MAXF], fdst[MAXF * MAXPES];
static uint32_t fsrc32[MAXF], fdst32[MAXF * MAXPES];

static int me, npes;

static unsigned long long mix(int pe, int j, int it) {
    unsigned long long x = (unsigned long long)(pe + 1) * 0x9E3779B97F4A7C15ull ^ (unsigned long long)(j + 3) * 0xC2B2AE3D27D4EB4Full ^
                           (unsigned long long)(it + 11) * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return x;
}

static void check_psync(const long *p, const char *what, int it) {
    for (int i = 0; i < MAXSYNC; i++)
        CHECK(p[i] == SHMEM_SYNC_VALUE, "%s, iteration %d: pSync[%d] is %ld right after return, not SHMEM_SYNC_VALUE", what, it, i, p[i]);
}

/* Source data of the reductions; exact results in any order. */
#define G_INT_SUM(pe, j, it) ((int)(mix(pe, j, it) % 2001) - 1000)
#define G_DOUBLE_MAX(pe, j, it) ((double)((int)(mix(pe, j, it) % 97) - 48) + 0.5)
#define G_LONG_XOR(pe, j, it) ((long)mix(pe, j, it))
#define G_LL_PROD(pe, j, it) ((long long)((int)(mix(pe, j, it) % 3) - 1 == 0 ? 2 : (int)(mix(pe, j, it) % 3) - 1))
#define G_FLOAT_SUM(pe, j, it) ((float)((int)(mix(pe, j, it) % 201) - 100) + 0.25f)
#define G_SHORT_AND(pe, j, it) ((short)~(1u << (mix(pe, j, it) % 16)))
#define G_INT_MIN(pe, j, it) ((int)(mix(pe, j, it) % 100001) - 50000)
#define G_CD_SUM(pe, j, it) ((double)((int)(mix(pe, j, it) % 201) - 100) + 0.5 * (double)((int)(mix(pe, j, it + 7) % 41) - 20) * I)
#define F_SUM(a, b) ((a) + (b))
#define F_MAX(a, b) ((a) > (b) ? (a) : (b))
#define F_MIN(a, b) ((a) < (b) ? (a) : (b))
#define F_XOR(a, b) ((a) ^ (b))
#define F_AND(a, b) ((a) & (b))
#define F_PROD(a, b) ((a) * (b))

/* Symmetric, untyped buffers for the reductions (their type changes every iteration). */
static void *rsrc[2], *rdst[2], *wrk[2];

/* One reduction over all PEs with pSync P[c % 2] and pWrk wrk[c % 2], checked. */
#define RUN_REDUCE(NAME, T, GEN, FOLD, INPLACE)                                                                          \
    do {                                                                                                                 \
        int slot_ = c % 2;                                                                                               \
        T *src_ = (T *)rsrc[slot_], *dst_ = (INPLACE) ? src_ : (T *)rdst[slot_];                                         \
        for (int j = 0; j < nred; j++)                                                                                   \
            src_[j] = GEN(me, j, it);                                                                                    \
        shmem_##NAME##_to_all(dst_, src_, nred, 0, 0, npes, (T *)wrk[slot_], P[slot_]);                                  \
        check_psync(P[slot_], "shmem_" #NAME "_to_all", it);                                                             \
        for (int j = 0; j < nred; j++) {                                                                                 \
            T ref_ = GEN(0, j, it);                                                                                      \
            for (int pe_ = 1; pe_ < npes; pe_++)                                                                         \
                ref_ = FOLD(ref_, GEN(pe_, j, it));                                                                      \
            if (!(dst_[j] == ref_)) {                                                                                    \
                double _Complex g_ = (double _Complex)dst_[j], w_ = (double _Complex)ref_;                               \
                CHECK(0, "shmem_" #NAME "_to_all, iteration %d, nreduce %d%s: dest[%d] is %.17g%+.17gi, want %.17g%+.17gi", \
                      it, nred, (INPLACE) ? " (in place)" : "", j, creal(g_), cimag(g_), creal(w_), cimag(w_));           \
            }                                                                                                            \
        }                                                                                                                \
        c++;                                                                                                             \
    } while (0)

static void phase1(void) {
    int c = 0; /* collectives that used P so far */
    for (int it = 0; it < ITERS; it++) {
        int nred = 1 + (it * 7) % MAXR;

        /* 1. a reduction */
        switch (it % 4) {
        case 0: RUN_REDUCE(int_sum, int, G_INT_SUM, F_SUM, 0); break;
        case 1: RUN_REDUCE(double_max, double, G_DOUBLE_MAX, F_MAX, 0); break;
        case 2: RUN_REDUCE(long_xor, long, G_LONG_XOR, F_XOR, 0); break;
        default: RUN_REDUCE(longlong_prod, long long, G_LL_PROD, F_PROD, 0); break;
        }

        /* 2. a broadcast from a rotating root, with its own pair of pSync arrays */
        int root = (it * 5 + 1) % npes;
        size_t nb = 1 + (size_t)(it * 3) % MAXB;
        uint64_t before[MAXB];
        if (me == root)
            for (size_t j = 0; j < nb; j++)
                bsrc[j] = mix(root, (int)j, it + 1000);
        memcpy(before, bdst, sizeof before);
        shmem_broadcast64(bdst, bsrc, nb, root, 0, 0, npes, B[it % 2]);
        check_psync(B[it % 2], "shmem_broadcast64", it);
        for (size_t j = 0; j < nb; j++) {
            uint64_t want = me == root ? before[j] : mix(root, (int)j, it + 1000);
            CHECK(bdst[j] == want, "shmem_broadcast64, iteration %d, root %d, nelems %zu: dest[%zu] is 0x%llx, want 0x%llx%s", it, root, nb,
                  j, (unsigned long long)bdst[j], (unsigned long long)want, me == root ? " (the root's dest is not updated)" : "");
        }

        /* 3. an fcollect, 32 or 64 bits */
        size_t nf = 1 + (size_t)it % MAXF;
        if (it % 2) {
            for (size_t j = 0; j < nf; j++)
                fsrc[j] = mix(me, (int)j, it + 2000);
            shmem_fcollect64(fdst, fsrc, nf, 0, 0, npes, P[c % 2]);
            check_psync(P[c % 2], "shmem_fcollect64", it);
            for (int pe = 0; pe < npes; pe++)
                for (size_t j = 0; j < nf; j++)
                    CHECK(fdst[pe * nf + j] == mix(pe, (int)j, it + 2000),
                          "shmem_fcollect64, iteration %d, nelems %zu: dest[%zu] is 0x%llx, want element %zu of PE %d = 0x%llx", it, nf,
                          pe * nf + j, (unsigned long long)fdst[pe * nf + j], j, pe, mix(pe, (int)j, it + 2000));
        } else {
            for (size_t j = 0; j < nf; j++)
                fsrc32[j] = (uint32_t)mix(me, (int)j, it + 2000);
            shmem_fcollect32(fdst32, fsrc32, nf, 0, 0, npes, P[c % 2]);
            check_psync(P[c % 2], "shmem_fcollect32", it);
            for (int pe = 0; pe < npes; pe++)
                for (size_t j = 0; j < nf; j++)
                    CHECK(fdst32[pe * nf + j] == (uint32_t)mix(pe, (int)j, it + 2000),
                          "shmem_fcollect32, iteration %d, nelems %zu: dest[%zu] is 0x%x, want element %zu of PE %d = 0x%x", it, nf,
                          pe * nf + j, (unsigned)fdst32[pe * nf + j], j, pe, (unsigned)(uint32_t)mix(pe, (int)j, it + 2000));
        }
        c++;

        /* 4. another reduction, in place */
        nred = 1 + (it * 11 + 5) % MAXR;
        switch (it % 4) {
        case 0: RUN_REDUCE(float_sum, float, G_FLOAT_SUM, F_SUM, 1); break;
        case 1: RUN_REDUCE(short_and, short, G_SHORT_AND, F_AND, 1); break;
        case 2: RUN_REDUCE(int_min, int, G_INT_MIN, F_MIN, 1); break;
        default: RUN_REDUCE(complexd_sum, double _Complex, G_CD_SUM, F_SUM, 1); break;
        }
    }
}

typedef struct {
    int start, logstride, size;
} aset;

static int aset_pe(aset s, int k) { return s.start + (k << s.logstride); }

static int aset_index(aset s, int pe) {
    int d = pe - s.start;
    if (d < 0 || (d & ((1 << s.logstride) - 1)) != 0)
        return -1;
    d >>= s.logstride;
    return d < s.size ? d : -1;
}

static void check_one(const char *what, int it) {
    for (int i = 0; i < MAXSYNC; i++)
        CHECK(one[i] == SHMEM_SYNC_VALUE, "phase 2, %s, iteration %d: pSync[%d] is %ld, not SHMEM_SYNC_VALUE", what, it, i, one[i]);
}

static void phase2(void) {
    aset sets[3];
    int nsets = 0;
    sets[nsets++] = (aset){0, 0, npes};
    sets[nsets++] = (aset){0, 1, (npes + 1) / 2};
    if (npes >= 2)
        sets[nsets++] = (aset){1, 1, npes / 2};
    long *lsrc = shmem_malloc(MAXR * sizeof(long)), *ldst = shmem_malloc(MAXR * sizeof(long));
    long *lwrk = shmem_malloc((MAXR / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE) * sizeof(long));
    uint32_t *b32s = shmem_malloc(MAXB * sizeof(uint32_t)), *b32d = shmem_malloc(MAXB * sizeof(uint32_t));
    uint64_t *cs = shmem_malloc(8 * sizeof(uint64_t)), *cd = shmem_malloc(8 * MAXPES * sizeof(uint64_t));
    CHECK(lsrc && ldst && lwrk && b32s && b32d && cs && cd, "shmem_malloc failed");
    memset(b32d, 0, MAXB * sizeof(uint32_t));
    shmem_barrier_all();

    for (int it = 0; it < ITERS2; it++) {
        aset s = sets[it % nsets];
        int idx = aset_index(s, me);
        const char *what = "";
        if (idx >= 0) {
            switch (it % 4) {
            case 0: { /* shmem_long_sum_to_all */
                int n = 1 + it % 40;
                what = "shmem_long_sum_to_all";
                for (int j = 0; j < n; j++)
                    lsrc[j] = (long)(mix(me, j, it) % 1000001) - 500000;
                shmem_long_sum_to_all(ldst, lsrc, n, s.start, s.logstride, s.size, lwrk, one);
                check_one(what, it);
                for (int j = 0; j < n; j++) {
                    long ref = 0;
                    for (int k = 0; k < s.size; k++)
                        ref += (long)(mix(aset_pe(s, k), j, it) % 1000001) - 500000;
                    CHECK(ldst[j] == ref, "phase 2, %s, iteration %d, set %d/%d/%d: dest[%d] is %ld, want %ld", what, it, s.start,
                          s.logstride, s.size, j, ldst[j], ref);
                }
                break;
            }
            case 1: { /* shmem_broadcast32 */
                int root = it % s.size, root_pe = aset_pe(s, root);
                size_t n = 1 + (size_t)it % MAXB;
                uint32_t before[MAXB];
                what = "shmem_broadcast32";
                for (size_t j = 0; j < n; j++)
                    b32s[j] = (uint32_t)mix(me, (int)j, it);
                memcpy(before, b32d, sizeof before);
                shmem_broadcast32(b32d, b32s, n, root, s.start, s.logstride, s.size, one);
                check_one(what, it);
                for (size_t j = 0; j < n; j++) {
                    uint32_t want = idx == root ? before[j] : (uint32_t)mix(root_pe, (int)j, it);
                    CHECK(b32d[j] == want, "phase 2, %s, iteration %d, set %d/%d/%d, PE_root %d: dest[%zu] is 0x%x, want 0x%x%s", what, it,
                          s.start, s.logstride, s.size, root, j, (unsigned)b32d[j], (unsigned)want,
                          idx == root ? " (the root's dest is not updated)" : "");
                }
                break;
            }
            case 2: { /* shmem_collect64, member k contributes (k + it) % 5 elements */
                what = "shmem_collect64";
                size_t mine = (size_t)(idx + it) % 5;
                for (size_t j = 0; j < mine; j++)
                    cs[j] = mix(me, (int)j, it);
                shmem_collect64(cd, cs, mine, s.start, s.logstride, s.size, one);
                check_one(what, it);
                size_t pos = 0;
                for (int k = 0; k < s.size; k++)
                    for (size_t j = 0; j < (size_t)(k + it) % 5; j++, pos++)
                        CHECK(cd[pos] == mix(aset_pe(s, k), (int)j, it),
                              "phase 2, %s, iteration %d, set %d/%d/%d: dest[%zu] is 0x%llx, want element %zu of PE %d", what, it, s.start,
                              s.logstride, s.size, pos, (unsigned long long)cd[pos], j, aset_pe(s, k));
                break;
            }
            default: { /* shmem_alltoall64, nelems 1..3 */
                what = "shmem_alltoall64";
                size_t n = 1 + (size_t)it % 3;
                for (size_t j = 0; j < n * (size_t)s.size; j++)
                    lsrc[j] = (long)mix(me, (int)j, it);
                shmem_alltoall64(ldst, lsrc, n, s.start, s.logstride, s.size, one);
                check_one(what, it);
                for (int k = 0; k < s.size; k++)
                    for (size_t e = 0; e < n; e++) {
                        long want = (long)mix(aset_pe(s, k), (int)((size_t)idx * n + e), it);
                        CHECK(ldst[k * n + e] == want, "phase 2, %s, iteration %d, set %d/%d/%d: dest[%zu] is %ld, want %ld (from PE %d)",
                              what, it, s.start, s.logstride, s.size, k * n + e, ldst[k * n + e], want, aset_pe(s, k));
                    }
                break;
            }
            }
        }
        /* The only synchronisation between two uses of the one pSync. (pSync is not checked
         * after it inside the loop: the members of the next collective may already be using
         * it. Right after return, above, it is safe: nobody can use it again before this PE
         * has entered the barrier.) */
        shmem_barrier_all();
    }
    check_one("at the end, after the last shmem_barrier_all", ITERS2 - 1);
    shmem_free(cd);
    shmem_free(cs);
    shmem_free(b32d);
    shmem_free(b32s);
    shmem_free(lwrk);
    shmem_free(ldst);
    shmem_free(lsrc);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "written for at most %d PEs, not %d", MAXPES, npes);
    for (int i = 0; i < MAXSYNC; i++)
        P[0][i] = P[1][i] = B[0][i] = B[1][i] = one[i] = SHMEM_SYNC_VALUE;
    size_t elem = sizeof(long double _Complex) > sizeof(double _Complex) ? sizeof(long double _Complex) : sizeof(double _Complex);
    for (int a = 0; a < 2; a++) {
        rsrc[a] = shmem_malloc(MAXR * elem);
        rdst[a] = shmem_malloc(MAXR * elem);
        wrk[a] = shmem_malloc((MAXR / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE) * elem);
        CHECK(rsrc[a] && rdst[a] && wrk[a], "shmem_malloc failed");
    }
    memset(bdst, 0, sizeof bdst);
    shmem_barrier_all(); /* pSync initialised everywhere before first use */

    phase1();
    shmem_barrier_all();
    for (int i = 0; i < MAXSYNC; i++)
        CHECK(P[0][i] == SHMEM_SYNC_VALUE && P[1][i] == SHMEM_SYNC_VALUE && B[0][i] == SHMEM_SYNC_VALUE && B[1][i] == SHMEM_SYNC_VALUE,
              "after phase 1 and a barrier: pSync element %d is %ld %ld %ld %ld", i, P[0][i], P[1][i], B[0][i], B[1][i]);
    if (me == 0)
        printf("phase 1: %d iterations of reduce/broadcast/fcollect/reduce with alternating pSync ok\n", ITERS);

    phase2();
    if (me == 0)
        printf("phase 2: %d collectives with one pSync and barriers ok\n", ITERS2);
    for (int a = 0; a < 2; a++) {
        shmem_free(wrk[a]);
        shmem_free(rdst[a]);
        shmem_free(rsrc[a]);
    }
    shmem_finalize();
    return 0;
}
