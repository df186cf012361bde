/* rshmem-test
 * np: 1 2 3 4 5 8
 */
/* The deprecated active-set concatenations
 *     void shmem_collect32/64(void *dest, const void *source, size_t nelems,
 *                             int PE_start, int logPE_stride, int PE_size, long *pSync);
 *     void shmem_fcollect32/64(... same arguments ...);
 * on active sets of stride 1, 2 and 4. collect: every member passes its own nelems
 * (patterns: k+1, a mix with zeros, only the last member, all zero, ~500 each, where k is
 * the member's index in the set). fcollect: the same nelems everywhere, 0, 1, 7 or 500.
 *  - On every member, dest holds the members' sources concatenated in set order, and the
 *    elements after them are untouched.
 *  - PEs outside the set keep their dest; no PE's source changes.
 *  - pSync is all SHMEM_SYNC_VALUE right after return, and after the next
 *    shmem_barrier_all on every PE.
 * Two pSync arrays alternate; a shmem_barrier_all separates calls (for the checks, and so
 * every dest is ready before any PE calls). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define MAXSRC 600
#define MAXDST 6000

static long psync[2][SHMEM_COLLECT_SYNC_SIZE];
static uint32_t src32[MAXSRC], dst32[MAXDST];
static uint64_t src64[MAXSRC], dst64[MAXDST];

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

/* collect: elements member k contributes under pattern p. */
#define NPATTERNS 5
static size_t collect_n(int p, int k, int size) {
    switch (p) {
    case 0: return (size_t)k + 1;
    case 1: return (size_t)((k * 7 + 3) % 5);
    case 2: return k == size - 1 ? 3 : 0;
    case 3: return 0;
    default: return 500 + 37 * (size_t)(k % 3);
    }
}
static const size_t fcollect_sizes[] = {0, 1, 7, 500};

static int me;

static void check_psync(const long *p, const char *routine, const char *what, const char *shape, aset s) {
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
        CHECK(p[i] == SHMEM_SYNC_VALUE, "%s (%s, set %d/%d/%d): pSync[%d] is %ld %s, not SHMEM_SYNC_VALUE", routine, shape, s.start,
              s.logstride, s.size, i, p[i], what);
}

/* Checks dest on this PE after one call; count[k] elements from member k. */
static void check_dest(const char *routine, const char *shape, int bits, aset s, const size_t *count) {
    int idx = aset_index(s, me);
    size_t pos = 0;
    if (idx >= 0)
        for (int k = 0; k < s.size; k++) {
            int pe = aset_pe(s, k);
            for (size_t i = 0; i < count[k]; i++, pos++) {
                if (bits == 32)
                    CHECK(dst32[pos] == val32(pe, i), "%s (%s, set %d/%d/%d): dest[%zu] is 0x%08x, want 0x%08x (element %zu of PE %d)",
                          routine, shape, s.start, s.logstride, s.size, pos, (unsigned)dst32[pos], (unsigned)val32(pe, i), i, pe);
                else
                    CHECK(dst64[pos] == val64(pe, i),
                          "%s (%s, set %d/%d/%d): dest[%zu] is 0x%016llx, want 0x%016llx (element %zu of PE %d)", routine, shape, s.start,
                          s.logstride, s.size, pos, (unsigned long long)dst64[pos], (unsigned long long)val64(pe, i), i, pe);
            }
        }
    for (size_t i = pos; i < MAXDST; i++)
        CHECK(bits == 32 ? dst32[i] == POISON32 : dst64[i] == POISON64,
              "%s (%s, set %d/%d/%d): dest[%zu] changed, but %s", routine, shape, s.start, s.logstride, s.size, i,
              idx < 0 ? "this PE is outside the set" : "it is past the concatenation");
    for (size_t i = 0; i < MAXSRC; i++)
        CHECK(src32[i] == val32(me, i) && src64[i] == val64(me, i), "%s changed source[%zu]", routine, i);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    int npes = shmem_n_pes();
    CHECK(npes <= 64, "written for at most 64 PEs, not %d", npes);
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
            psync[a][i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < MAXSRC; i++) {
        src32[i] = val32(me, i);
        src64[i] = val64(me, i);
    }
    shmem_barrier_all();

    aset sets[16];
    int nsets = make_sets(sets, npes), calls = 0;
    size_t count[64];
    char shape[64];
    for (int si = 0; si < nsets; si++) {
        aset s = sets[si];
        int idx = aset_index(s, me);
        for (int fixed = 0; fixed < 2; fixed++) {
            int nshapes = fixed ? 4 : NPATTERNS;
            for (int p = 0; p < nshapes; p++) {
                for (int k = 0; k < s.size; k++)
                    count[k] = fixed ? fcollect_sizes[p] : collect_n(p, k, s.size);
                if (fixed)
                    snprintf(shape, sizeof shape, "nelems %zu", fcollect_sizes[p]);
                else
                    snprintf(shape, sizeof shape, "per-PE nelems pattern %d, mine %zu", p, idx >= 0 ? count[idx] : 0);
                for (int bits = 32; bits <= 64; bits += 32) {
                    char routine[32];
                    snprintf(routine, sizeof routine, "shmem_%scollect%d", fixed ? "f" : "", bits);
                    long *ps = psync[calls++ % 2];
                    for (size_t i = 0; i < MAXDST; i++) {
                        dst32[i] = POISON32;
                        dst64[i] = POISON64;
                    }
                    shmem_barrier_all(); /* every dest is ready */
                    if (idx >= 0) {
                        size_t n = count[idx];
                        if (bits == 32) {
                            if (fixed)
                                shmem_fcollect32(dst32, src32, n, s.start, s.logstride, s.size, ps);
                            else
                                shmem_collect32(dst32, src32, n, s.start, s.logstride, s.size, ps);
                        } else {
                            if (fixed)
                                shmem_fcollect64(dst64, src64, n, s.start, s.logstride, s.size, ps);
                            else
                                shmem_collect64(dst64, src64, n, s.start, s.logstride, s.size, ps);
                        }
                        check_psync(ps, routine, "right after return", shape, s);
                        check_dest(routine, shape, bits, s, count);
                    }
                    shmem_barrier_all();
                    check_dest(routine, shape, bits, s, count);
                    check_psync(ps, routine, "after the next shmem_barrier_all", shape, s);
                }
            }
        }
    }
    if (me == 0)
        printf("%d collects on %d active sets ok\n", calls, nsets);
    shmem_finalize();
    return 0;
}
