/* rshmem-test
 * np: 2 4 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 * stdout: legacy idiom ok
 * timeout: 120
 */
/* The legacy idiom of many OpenSHMEM test suites and applications: active-set
 * collectives back to back on two pSync arrays used in turn, with no barrier between the
 * calls; after each call every PE checks its dest and refills it with a sentinel.
 * The refill of call k must never wipe data of call k + 1, so no PE may write another
 * PE's dest before that PE has entered the call the data belongs to (a root that runs
 * ahead writes into an inbox, never into dest).
 *   1. shmem_broadcast64 / 32: root fixed at 0, then a root that changes on every call;
 *      sizes below the eager limit (8 B, 256 B), above it (8 KiB) and a mix cycling
 *      through all of them on the same pSync pair; on the whole world and on the odd PEs
 *      (logPE_stride 1) when there are 4 PEs or more. The root's dest must stay as it is.
 *   2. shmem_fcollect64 and shmem_alltoall64, 1 element per PE (fits the inbox) and
 *      1024 (does not), and a mix.
 *   3. shmem_long_sum_to_all, 1 and 1024 elements.
 * Every call's data is new (a function of the call number), so data of another call is
 * told apart from the right data, and the sentinel from both. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "../common.h"

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

/* RSHMEM_TEST_ITERS overrides the calls per kind (the MPI suite runs fewer over TCP) */
static long ITERS = 1500;
#define BIG 1024 /* longs: 8 KiB, above every eager limit */
#define SENTINEL (-7L)
#define PSYNC_LEN SHMEM_SYNC_SIZE

static long psync[2][PSYNC_LEN];
static long pwrk[2][BIG / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long *src, *dst; /* symmetric, 8 * BIG longs each (alltoall at 8 PEs) */
static int me, npes;

static long val(long k, int pe, long i) { return (k * 64 + pe) * 8192 + i + 1; }

static void refill(long n) {
    for (long i = 0; i < n; i++)
        dst[i] = SENTINEL;
}

static void psync_init(void) {
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < PSYNC_LEN; i++)
            psync[a][i] = SHMEM_SYNC_VALUE;
    refill(8L * BIG);
    shmem_barrier_all();
}

/* ITERS broadcasts on the active set (start, log, size): call k has root k % size
 * (moving_root) or 0, and sizes[k % nsizes] longs. */
static void broadcasts(const char *name, int start, int log, int size, int moving_root, int bits,
                       const long *sizes, int nsizes) {
    int idx = (me - start) % (1 << log) == 0 && me >= start ? (me - start) >> log : -1;
    if (idx >= size)
        idx = -1;
    psync_init();
    if (idx < 0)
        return;
    for (long k = 0; k < ITERS; k++) {
        int root = moving_root ? (int)(k % size) : 0;
        long n = sizes[k % nsizes];
        long bytes = n * 8;
        long nel = bits == 64 ? n : 2 * n; /* elements of the routine's width */
        if (idx == root)
            for (long i = 0; i < n; i++)
                src[i] = val(k, me, i);
        if (bits == 64)
            shmem_broadcast64(dst, src, (size_t)nel, root, start, log, size, psync[k & 1]);
        else
            shmem_broadcast32(dst, src, (size_t)nel, root, start, log, size, psync[k & 1]);
        int root_pe = start + (root << log);
        for (long i = 0; i < n; i++) {
            long want = idx == root ? SENTINEL : val(k, root_pe, i);
            CHECK(dst[i] == want,
                  "%s call %ld (broadcast%d of %ld bytes, root %d = PE %d): dest[%ld] is %ld, want %ld%s", name, k,
                  bits, bytes, root, root_pe, i, dst[i], want,
                  dst[i] == SENTINEL ? " (the sentinel: data was written before this PE's refill)"
                                     : idx == root ? " (the root's dest must not change)" : "");
        }
        CHECK(dst[n] == SENTINEL, "%s call %ld: dest[%ld] past the data is %ld", name, k, n, dst[n]);
        refill(n);
    }
}

static void fcollects(const long *sizes, int nsizes) {
    psync_init();
    for (long k = 0; k < ITERS; k++) {
        long n = sizes[k % nsizes];
        for (long i = 0; i < n; i++)
            src[i] = val(k, me, i);
        shmem_fcollect64(dst, src, (size_t)n, 0, 0, npes, psync[k & 1]);
        for (int p = 0; p < npes; p++)
            for (long i = 0; i < n; i++)
                CHECK(dst[p * n + i] == val(k, p, i), "fcollect call %ld (%ld longs): dest[%ld] (from PE %d) is %ld, want %ld",
                      k, n, p * n + i, p, dst[p * n + i], val(k, p, i));
        refill(npes * n);
    }
}

static void alltoalls(const long *sizes, int nsizes) {
    psync_init();
    for (long k = 0; k < ITERS; k++) {
        long n = sizes[k % nsizes];
        for (int p = 0; p < npes; p++)
            for (long i = 0; i < n; i++)
                src[p * n + i] = val(k, me, p * BIG + i);
        shmem_alltoall64(dst, src, (size_t)n, 0, 0, npes, psync[k & 1]);
        for (int p = 0; p < npes; p++)
            for (long i = 0; i < n; i++) {
                long want = val(k, p, me * BIG + i);
                CHECK(dst[p * n + i] == want, "alltoall call %ld (%ld longs): dest[%ld] (from PE %d) is %ld, want %ld", k, n,
                      p * n + i, p, dst[p * n + i], want);
            }
        refill(npes * n);
    }
}

static void sums(const long *sizes, int nsizes) {
    psync_init();
    for (long k = 0; k < ITERS; k++) {
        long n = sizes[k % nsizes];
        for (long i = 0; i < n; i++)
            src[i] = val(k, me, i);
        shmem_long_sum_to_all(dst, src, (int)n, 0, 0, npes, pwrk[k & 1], psync[k & 1]);
        for (long i = 0; i < n; i++) {
            long want = 0;
            for (int p = 0; p < npes; p++)
                want += val(k, p, i);
            CHECK(dst[i] == want, "sum call %ld (%ld longs): dest[%ld] is %ld, want %ld", k, n, i, dst[i], want);
        }
        refill(n);
    }
}

int main(void) {
    shmem_init();
    if (getenv("RSHMEM_TEST_ITERS"))
        ITERS = atol(getenv("RSHMEM_TEST_ITERS"));
    me = shmem_my_pe();
    npes = shmem_n_pes();
    src = shmem_malloc(8 * BIG * sizeof(long));
    dst = shmem_malloc((8 * BIG + 1) * sizeof(long));
    CHECK(src && dst, "shmem_malloc failed");

    static const long small[] = {1}, mid[] = {32}, big[] = {BIG}, mix[] = {1, BIG, 32, 3};
    static const long *const sets[] = {small, mid, big, mix};
    static const int nset[] = {1, 1, 1, 4};
    static const char *const names[] = {"8 B", "256 B", "8 KiB", "mixed sizes"};
    for (int s = 0; s < 4; s++)
        for (int moving = 0; moving < 2; moving++) {
            char name[64];
            snprintf(name, sizeof name, "world, %s, %s root", names[s], moving ? "moving" : "fixed");
            broadcasts(name, 0, 0, npes, moving, 64, sets[s], nset[s]);
            broadcasts(name, 0, 0, npes, moving, 32, sets[s], nset[s]);
            if (npes >= 4) {
                snprintf(name, sizeof name, "odd PEs, %s, %s root", names[s], moving ? "moving" : "fixed");
                broadcasts(name, 1, 1, npes / 2, moving, 64, sets[s], nset[s]);
            }
        }
    static const long one[] = {1}, many[] = {BIG}, both[] = {1, BIG};
    fcollects(one, 1);
    fcollects(many, 1);
    fcollects(both, 2);
    alltoalls(one, 1);
    alltoalls(many, 1);
    alltoalls(both, 2);
    sums(one, 1);
    sums(many, 1);
    shmem_barrier_all();
    if (me == 0)
        printf("legacy idiom ok\n");
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
