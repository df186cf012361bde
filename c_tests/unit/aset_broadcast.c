/* rshmem-test
 * np: 1 2 3 4 5 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 */
/* The deprecated active-set broadcasts
 *     void shmem_broadcast32/64(void *dest, const void *source, size_t nelems, int PE_root,
 *                               int PE_start, int logPE_stride, int PE_size, long *pSync);
 * from every root of the set (PE_root is an index into the active set), with 0, 1, 7 and
 * 1000 elements, on active sets of stride 1, 2 and 4 (as many as the PE count allows).
 * Every PE's source holds different data, so the data must come from the right PE.
 *  - On every member but the root, dest[0..nelems) is the root's source and dest[nelems]
 *    (a guard) is untouched.
 *  - On the root, dest is NOT updated (OpenSHMEM 1.5, active-set broadcasts: "The dest
 *    object is updated on all PEs other than the root PE").
 *  - PEs outside the set keep their dest; no PE's source changes.
 *  - pSync is all SHMEM_SYNC_VALUE right after return, and after the next
 *    shmem_barrier_all on every PE.
 * Two pSync arrays alternate between calls, and a shmem_barrier_all separates calls
 * anyway (for the checks, and so every dest is ready before any PE calls). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define MAXN 1000

static long psync[2][SHMEM_BCAST_SYNC_SIZE];
static uint32_t src32[MAXN + 1], dst32[MAXN + 1];
static uint64_t src64[MAXN + 1], dst64[MAXN + 1];

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

/* Active sets of stride 1, 2 and 4 starting at every PE below the stride (and PE 1 for
 * stride 1), with as many members as fit. */
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

static void check_psync(const long *p, const char *what, int bits, size_t n, int root, aset s) {
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        CHECK(p[i] == SHMEM_SYNC_VALUE,
              "shmem_broadcast%d(nelems %zu, PE_root %d, set %d/%d/%d): pSync[%d] is %ld %s, not SHMEM_SYNC_VALUE", bits, n, root,
              s.start, s.logstride, s.size, i, p[i], what);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            psync[a][i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i <= MAXN; i++) {
        src32[i] = val32(me, i);
        src64[i] = val64(me, i);
    }
    shmem_barrier_all();

    static const size_t sizes[] = {0, 1, 7, MAXN};
    aset sets[16];
    int nsets = make_sets(sets, npes), calls = 0;
    for (int si = 0; si < nsets; si++) {
        aset s = sets[si];
        int idx = aset_index(s, me);
        for (int root = 0; root < s.size; root++) {
            int root_pe = aset_pe(s, root);
            for (int z = 0; z < 4; z++) {
                size_t n = sizes[z];
                for (int bits = 32; bits <= 64; bits += 32) {
                    long *ps = psync[calls++ % 2];
                    for (size_t i = 0; i <= MAXN; i++) {
                        dst32[i] = POISON32;
                        dst64[i] = POISON64;
                    }
                    shmem_barrier_all(); /* every dest is ready */
                    if (idx >= 0) {
                        if (bits == 32)
                            shmem_broadcast32(dst32, src32, n, root, s.start, s.logstride, s.size, ps);
                        else
                            shmem_broadcast64(dst64, src64, n, root, s.start, s.logstride, s.size, ps);
                        check_psync(ps, "right after return", bits, n, root, s);
                    }
                    /* dest is complete on return; check before and after the barrier. */
                    for (int pass = 0; pass < 2; pass++) {
                        for (size_t i = 0; i <= MAXN; i++) {
                            int updated = idx >= 0 && idx != root && i < n;
                            const char *note = updated      ? ""
                                               : idx < 0    ? " (must be unchanged: outside the set)"
                                               : idx == root ? " (must be unchanged: the root)"
                                                             : " (must be unchanged: past nelems)";
                            if (bits == 32) {
                                uint32_t want = updated ? val32(root_pe, i) : POISON32;
                                CHECK(dst32[i] == want,
                                      "shmem_broadcast32(nelems %zu, PE_root %d = PE %d, set %d/%d/%d): dest[%zu] is 0x%08x, want 0x%08x%s",
                                      n, root, root_pe, s.start, s.logstride, s.size, i, (unsigned)dst32[i], (unsigned)want, note);
                            } else {
                                uint64_t want = updated ? val64(root_pe, i) : POISON64;
                                CHECK(dst64[i] == want,
                                      "shmem_broadcast64(nelems %zu, PE_root %d = PE %d, set %d/%d/%d): dest[%zu] is 0x%016llx, want 0x%016llx%s",
                                      n, root, root_pe, s.start, s.logstride, s.size, i, (unsigned long long)dst64[i],
                                      (unsigned long long)want, note);
                            }
                            CHECK(src32[i] == val32(me, i) && src64[i] == val64(me, i), "shmem_broadcast%d changed source[%zu]", bits, i);
                        }
                        if (pass == 0)
                            shmem_barrier_all();
                    }
                    check_psync(ps, "after the next shmem_barrier_all", bits, n, root, s);
                }
            }
        }
    }
    if (me == 0)
        printf("%d broadcasts on %d active sets ok\n", calls, nsets);
    shmem_finalize();
    return 0;
}
