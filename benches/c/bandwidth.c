/* Bulk transfer bandwidth between PE 0 and PE 1 (any other PEs wait in the final barrier).
 *
 *   put_bw  shmem_putmem of <size> bytes to PE 1 followed by shmem_quiet, per iteration
 *   get_bw  shmem_getmem of <size> bytes from PE 1, per iteration
 *
 * for <size> = 1 MiB and 64 MiB. MB/s with 1 MB = 10^6 bytes (bytes moved / seconds).
 * Two 64 MiB buffers come from shmem_malloc: run with SHMEM_SYMMETRIC_SIZE >= 160M
 * (benches/compare.py sets 256M for every implementation).
 *
 * Output (PE 0): RESULT <benchmark> <size> <npes> <MB/s> MB/s
 * Usage: bandwidth [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

#define MAX_SIZE (64L << 20)

struct ctx {
    char *src; /* symmetric, MAX_SIZE */
    char *dst; /* symmetric, MAX_SIZE */
    size_t size;
};

static double put_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        shmem_putmem(c->dst, c->src, c->size, 1);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static double get_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) shmem_getmem(c->dst, c->src, c->size, 1);
    return bench_now() - t0;
}

int main(int argc, char **argv) {
    static const long sizes[] = {1L << 20, 64L << 20};
    double budget = bench_budget(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "bandwidth: needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    struct ctx c;
    c.src = shmem_malloc(MAX_SIZE);
    c.dst = shmem_malloc(MAX_SIZE);
    if (!c.src || !c.dst) {
        fprintf(stderr, "bandwidth: shmem_malloc(%ld) failed on PE %d (SHMEM_SYMMETRIC_SIZE too small?)\n",
                MAX_SIZE, me);
        return 1;
    }
    /* First touch of every page on every PE, outside the timed region. */
    memset(c.src, me + 1, MAX_SIZE);
    memset(c.dst, 0, MAX_SIZE);
    shmem_barrier_all();

    if (me == 0) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            c.size = (size_t)sizes[i];
            double t = bench_measure(put_batch, &c, budget);
            bench_result("put_bw", sizes[i], npes, (double)sizes[i] / t / 1e6, "MB/s");
        }
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            c.size = (size_t)sizes[i];
            double t = bench_measure(get_batch, &c, budget);
            bench_result("get_bw", sizes[i], npes, (double)sizes[i] / t / 1e6, "MB/s");
        }
    }
    shmem_barrier_all();

    shmem_free(c.dst);
    shmem_free(c.src);
    shmem_finalize();
    return 0;
}
