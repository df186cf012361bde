/* rshmem-test
 * np: 1 2 3 4 5 8
 */
/* The deprecated active-set exchanges
 *     void shmem_alltoall32/64(void *dest, const void *source, size_t nelems,
 *                              int PE_start, int logPE_stride, int PE_size, long *pSync);
 *     void shmem_alltoalls32/64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
 *                               size_t nelems, int PE_start, int logPE_stride, int PE_size,
 *                               long *pSync);
 * on active sets of stride 1, 2 and 4. alltoall: nelems 0, 1, 5, 300; block j of the
 * source (elements j*nelems ..) goes to the j-th member, into its block k, where k is the
 * sender's index. alltoalls: (dst, sst) in (1,1) (2,1) (1,3) (3,2), nelems 0, 1, 4, 50;
 * element e for member j is source[(j*nelems + e) * sst] and lands in
 * dest[(k*nelems + e) * dst] of member j.
 *  - Every element of dest a member receives is the right sender's right element; every
 *    other element of dest (the gaps of the stride, the tail) is untouched.
 *  - PEs outside the set keep their dest; no PE's source changes.
 *  - pSync is all SHMEM_SYNC_VALUE right after return, and after the next
 *    shmem_barrier_all on every PE.
 * Two pSync arrays of each kind alternate; a shmem_barrier_all separates calls (for the
 * checks, and so every dest is ready before any PE calls). */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define MAXBUF 3000

static long psync_a[2][SHMEM_ALLTOALL_SYNC_SIZE];
static long psync_s[2][SHMEM_ALLTOALLS_SYNC_SIZE];
static uint32_t src32[MAXBUF], dst32[MAXBUF];
static uint64_t src64[MAXBUF], dst64[MAXBUF];

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

static int make_sets(aset *out, int npes) {
    int n = 0;
    out[n++] = (aset){0, 0, npes};
    if (npes >= 2)
        out[n++] = (aset){1, 0, npes - 1};
    for (int log = 1; log <= 2; log++)
        for (int start = 0; start < (1 << log) && start < npes; start++)
            out[n++] = (aset){start, log, (npes - start + (1 << log) - 1) >> log};
    return n;
}

static uint32_t val32(int pe, size_t i) { return 0x80000000u ^ ((uint32_t)pe << 24) ^ ((uint32_t)i * 2654435761u); }
static uint64_t val64(int pe, size_t i) { return ((uint64_t)(pe + 1) << 56) ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull); }
#define POISON32 0xDEADBEEFu
#define POISON64 0xDEADBEEFCAFEF00Dull

static int me;

static void check_psync(const long *p, int len, const char *routine, const char *what, const char *shape, aset s) {
    for (int i = 0; i < len; i++)
        CHECK(p[i] == SHMEM_SYNC_VALUE, "%s (%s, set %d/%d/%d): pSync[%d] is %ld %s, not SHMEM_SYNC_VALUE", routine, shape, s.start,
              s.logstride, s.size, i, p[i], what);
}

/* Checks dest and source on this PE after one exchange with strides dst and sst (1 and 1
 * for alltoall). */
static void check_dest(const char *routine, const char *shape, int bits, aset s, size_t n, size_t dst, size_t sst) {
    int idx = aset_index(s, me);
    for (size_t pos = 0; pos < MAXBUF; pos++) {
        int from = -1; /* index of the sender of dest[pos], or -1 if nothing lands there */
        size_t e = 0;
        if (idx >= 0 && n > 0 && pos % dst == 0 && pos / dst < (size_t)s.size * n) {
            from = (int)(pos / dst / n);
            e = pos / dst % n;
        }
        if (from >= 0) {
            int pe = aset_pe(s, from);
            size_t at = ((size_t)idx * n + e) * sst; /* where the sender keeps it */
            if (bits == 32)
                CHECK(dst32[pos] == val32(pe, at), "%s (%s, set %d/%d/%d): dest[%zu] is 0x%08x, want 0x%08x (source[%zu] of PE %d)",
                      routine, shape, s.start, s.logstride, s.size, pos, (unsigned)dst32[pos], (unsigned)val32(pe, at), at, pe);
            else
                CHECK(dst64[pos] == val64(pe, at), "%s (%s, set %d/%d/%d): dest[%zu] is 0x%016llx, want 0x%016llx (source[%zu] of PE %d)",
                      routine, shape, s.start, s.logstride, s.size, pos, (unsigned long long)dst64[pos],
                      (unsigned long long)val64(pe, at), at, pe);
        } else {
            CHECK(bits == 32 ? dst32[pos] == POISON32 : dst64[pos] == POISON64, "%s (%s, set %d/%d/%d): dest[%zu] changed, but %s",
                  routine, shape, s.start, s.logstride, s.size, pos,
                  idx < 0 ? "this PE is outside the set" : "nothing is sent there");
        }
        CHECK(src32[pos] == val32(me, pos) && src64[pos] == val64(me, pos), "%s changed source[%zu]", routine, pos);
    }
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    int npes = shmem_n_pes();
    CHECK(npes <= 8, "written for at most 8 PEs, not %d", npes);
    for (int a = 0; a < 2; a++) {
        for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
            psync_a[a][i] = SHMEM_SYNC_VALUE;
        for (int i = 0; i < SHMEM_ALLTOALLS_SYNC_SIZE; i++)
            psync_s[a][i] = SHMEM_SYNC_VALUE;
    }
    for (size_t i = 0; i < MAXBUF; i++) {
        src32[i] = val32(me, i);
        src64[i] = val64(me, i);
    }
    shmem_barrier_all();

    static const size_t a_sizes[] = {0, 1, 5, 300};
    static const size_t s_sizes[] = {0, 1, 4, 50};
    static const ptrdiff_t strides[][2] = {{1, 1}, {2, 1}, {1, 3}, {3, 2}}; /* dst, sst */
    aset sets[16];
    int nsets = make_sets(sets, npes), calls = 0;
    char shape[64];
    for (int si = 0; si < nsets; si++) {
        aset s = sets[si];
        int idx = aset_index(s, me);
        for (int strided = 0; strided < 2; strided++) {
            for (int z = 0; z < 4; z++) {
                for (int st = 0; st < (strided ? 4 : 1); st++) {
                    size_t n = strided ? s_sizes[z] : a_sizes[z];
                    ptrdiff_t dst = strided ? strides[st][0] : 1, sst = strided ? strides[st][1] : 1;
                    if (strided)
                        snprintf(shape, sizeof shape, "nelems %zu, dst %td, sst %td", n, dst, sst);
                    else
                        snprintf(shape, sizeof shape, "nelems %zu", n);
                    for (int bits = 32; bits <= 64; bits += 32) {
                        char routine[32];
                        snprintf(routine, sizeof routine, "shmem_alltoall%s%d", strided ? "s" : "", bits);
                        long *ps = strided ? psync_s[calls % 2] : psync_a[calls % 2];
                        int pslen = strided ? SHMEM_ALLTOALLS_SYNC_SIZE : SHMEM_ALLTOALL_SYNC_SIZE;
                        calls++;
                        for (size_t i = 0; i < MAXBUF; i++) {
                            dst32[i] = POISON32;
                            dst64[i] = POISON64;
                        }
                        shmem_barrier_all(); /* every dest is ready */
                        if (idx >= 0) {
                            if (strided) {
                                if (bits == 32)
                                    shmem_alltoalls32(dst32, src32, dst, sst, n, s.start, s.logstride, s.size, ps);
                                else
                                    shmem_alltoalls64(dst64, src64, dst, sst, n, s.start, s.logstride, s.size, ps);
                            } else {
                                if (bits == 32)
                                    shmem_alltoall32(dst32, src32, n, s.start, s.logstride, s.size, ps);
                                else
                                    shmem_alltoall64(dst64, src64, n, s.start, s.logstride, s.size, ps);
                            }
                            check_psync(ps, pslen, routine, "right after return", shape, s);
                            check_dest(routine, shape, bits, s, n, (size_t)dst, (size_t)sst);
                        }
                        shmem_barrier_all();
                        check_dest(routine, shape, bits, s, n, (size_t)dst, (size_t)sst);
                        check_psync(ps, pslen, routine, "after the next shmem_barrier_all", shape, s);
                    }
                }
            }
        }
    }
    if (me == 0)
        printf("%d exchanges on %d active sets ok\n", calls, nsets);
    shmem_finalize();
    return 0;
}
