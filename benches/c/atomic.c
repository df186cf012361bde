/* Remote atomics from PE 0 on a word of PE 1 (PE 1 and any other PEs wait in a barrier).
 *
 *   atomic_fetch_add_latency  shmem_long_atomic_fetch_add(w, 1, 1), one after the other:
 *                             each waits for its result, so this is a latency; microseconds
 *   atomic_add_rate           shmem_long_atomic_add(w, 1, 1) back to back, one shmem_quiet
 *                             at the end of every batch (so the quiet is included, but
 *                             spread over the batch); millions of operations per second
 *   atomic_add_latency        shmem_long_atomic_add(w, 1, 1) followed by shmem_quiet, per
 *                             operation; microseconds
 *   atomic_compare_swap_latency  shmem_long_atomic_compare_swap(w, v, v + 1, 1), v the
 *                             word's current value (always succeeds); microseconds
 *   atomic_fetch_latency      shmem_long_atomic_fetch(w, 1) of a word nobody changes;
 *                             microseconds
 *
 * All check correctness, not timing: every value fetched by fetch_add and compare_swap must
 * be the previous one + 1 (for compare_swap: the value compared, i.e. every swap
 * succeeded), every fetch must return the word's value, and after the measurement (and a
 * shmem_quiet) PE 1's word, read with shmem_long_atomic_fetch, must equal the number of
 * additions (swaps) PE 0 issued (warm-up and calibration batches included). On a mismatch the program prints the error to stderr,
 * leaves out that RESULT line and exits with status 1.
 *
 * Output (PE 0): RESULT atomic_fetch_add_latency 8 <npes> <microseconds> us
 *                RESULT atomic_add_rate 8 <npes> <millions of operations/s> Mop/s
 *                RESULT atomic_{add,compare_swap,fetch}_latency 8 <npes> <microseconds> us
 * Usage: atomic [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

struct ctx {
    long *w;      /* symmetric target word on PE 1 */
    long issued;  /* additions issued on it so far */
    long expect;  /* next value fetch_add must return */
    long bad;     /* fetch_add results that were not `expect` */
};

static double fetch_add_batch(long n, void *p) {
    struct ctx *c = p;
    long expect = c->expect, bad = 0;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        long v = shmem_long_atomic_fetch_add(c->w, 1, 1);
        bad += v != expect;
        expect = v + 1;
    }
    double t = bench_now() - t0;
    c->expect = expect;
    c->bad += bad;
    c->issued += n;
    return t;
}

static double add_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) shmem_long_atomic_add(c->w, 1, 1);
    shmem_quiet();
    double t = bench_now() - t0;
    c->issued += n;
    return t;
}

static double add_quiet_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        shmem_long_atomic_add(c->w, 1, 1);
        shmem_quiet();
    }
    double t = bench_now() - t0;
    c->issued += n;
    return t;
}

static double cswap_batch(long n, void *p) {
    struct ctx *c = p;
    long expect = c->expect, bad = 0;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        long v = shmem_long_atomic_compare_swap(c->w, expect, expect + 1, 1);
        bad += v != expect;
        expect = v + 1;
    }
    double t = bench_now() - t0;
    c->expect = expect;
    c->bad += bad;
    c->issued += n;
    return t;
}

static double fetch_batch(long n, void *p) {
    struct ctx *c = p;
    long bad = 0;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) bad += shmem_long_atomic_fetch(c->w, 1) != c->issued;
    double t = bench_now() - t0;
    c->bad += bad;
    return t;
}

/* 0 when PE 1's word holds exactly the additions issued, else prints why. */
static int check(const char *what, struct ctx *c) {
    shmem_quiet();
    long got = shmem_long_atomic_fetch(c->w, 1);
    int ok = got == c->issued && c->bad == 0;
    if (!ok)
        fprintf(stderr, "atomic: %s: PE 1's word is %ld after %ld additions (expected %ld); "
                "%ld fetched values out of sequence\n", what, got, c->issued, c->issued, c->bad);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "atomic: needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    long *words = shmem_malloc(512);
    if (!words) {
        fprintf(stderr, "atomic: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    memset(words, 0, 512);
    shmem_barrier_all();

    int failed = 0;
    if (me == 0) {
        /* Two words 128 bytes apart: separate cache lines (and adjacent-line-prefetch pairs). */
        struct ctx fa = {words, 0, 0, 0};
        double t = bench_measure(fetch_add_batch, &fa, budget);
        if (check("fetch_add", &fa) == 0)
            bench_result("atomic_fetch_add_latency", 8, npes, 1e6 * t, "us");
        else
            failed = 1;

        struct ctx add = {words + 16, 0, 0, 0};
        t = bench_measure(add_batch, &add, budget);
        if (check("add", &add) == 0)
            bench_result("atomic_add_rate", 8, npes, 1e-6 / t, "Mop/s");
        else
            failed = 1;

        struct ctx add_lat = {words + 32, 0, 0, 0};
        t = bench_measure(add_quiet_batch, &add_lat, budget);
        if (check("add + quiet", &add_lat) == 0)
            bench_result("atomic_add_latency", 8, npes, 1e6 * t, "us");
        else
            failed = 1;

        struct ctx cs = {words + 48, 0, 0, 0};
        t = bench_measure(cswap_batch, &cs, budget);
        if (check("compare_swap", &cs) == 0)
            bench_result("atomic_compare_swap_latency", 8, npes, 1e6 * t, "us");
        else
            failed = 1;

        /* The word compare_swap left at cs.issued: fetch must return that. */
        struct ctx fe = {words + 48, cs.issued, 0, 0};
        t = bench_measure(fetch_batch, &fe, budget);
        if (check("fetch", &fe) == 0)
            bench_result("atomic_fetch_latency", 8, npes, 1e6 * t, "us");
        else
            failed = 1;
    }
    shmem_barrier_all();

    shmem_free(words);
    shmem_finalize();
    return failed;
}
