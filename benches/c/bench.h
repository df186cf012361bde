/* Shared helpers of the benchmark programs in benches/c/ (header only, no OpenSHMEM).
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC).
 * Adaptive iteration counts: bench_measure() grows the batch size until one batch takes
 * about budget/TARGET_BATCHES seconds (this calibration is also the warm-up), then times
 * batches of that size until `budget` seconds have passed (at least MIN_BATCHES, at most
 * MAX_BATCHES) and returns the median time per operation.
 *
 * The budget per measurement is argv[1] in seconds (default 0.25), so a whole program
 * stays well under a few seconds whatever the implementation's speed.
 */
#ifndef RSHMEM_BENCH_H
#define RSHMEM_BENCH_H

/* clock_gettime under a strict -std=c99/c11; include this header first. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TARGET_BATCHES 20 /* short batches: the median shrugs off a few disturbed ones */
#define MIN_BATCHES 7
#define MAX_BATCHES 201
#define DEFAULT_BUDGET 0.25

static inline double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds per measurement from argv[1]; DEFAULT_BUDGET when absent or invalid. */
static inline double bench_budget(int argc, char **argv) {
    if (argc > 1) {
        char *end = NULL;
        double b = strtod(argv[1], &end);
        if (end != argv[1] && b > 0.0 && b < 60.0) return b;
    }
    return DEFAULT_BUDGET;
}

/* Runs n operations and returns the seconds they took. */
typedef double (*bench_batch_fn)(long n, void *ctx);

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof v[0], bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The batch size for which one batch of `a` takes about batch_target seconds; the first
 * call is the warm-up (first touch, connection set-up, caches). When `b` is given, each
 * call of `a` is followed by one of `b` with the same size. */
static inline long bench_calibrate(bench_batch_fn a, void *ctx_a, bench_batch_fn b, void *ctx_b,
                                   double batch_target) {
    long n = 1;
    double t = a(n, ctx_a);
    if (b) (void)b(n, ctx_b);
    for (;;) {
        t = a(n, ctx_a);
        if (b) (void)b(n, ctx_b);
        if (t >= batch_target || n >= (1L << 40)) break;
        /* Grow quickly while far from the target, by doubling when close. */
        if (t * 16.0 < batch_target) n *= 8; else n *= 2;
    }
    if (t > 0.0) {
        double scaled = (double)n * batch_target / t;
        n = scaled < 1.0 ? 1 : (long)scaled;
    }
    return n;
}

/* Median seconds per operation of `fn`, see the top of this file. */
static inline double bench_measure(bench_batch_fn fn, void *ctx, double budget) {
    long n = bench_calibrate(fn, ctx, NULL, NULL, budget / TARGET_BATCHES);
    double per_op[MAX_BATCHES];
    int batches = 0;
    double start = bench_now();
    while (batches < MAX_BATCHES && (batches < MIN_BATCHES || bench_now() - start < budget)) {
        per_op[batches++] = fn(n, ctx) / (double)n;
    }
    return bench_median(per_op, batches);
}

/* Two operations measured as in bench_measure, but in alternating batches of the same
 * size (calibrated on `a`), so that both see the same machine state: for a ratio between
 * two nearly equal latencies, which separate runs on a virtual machine cannot resolve.
 * Calls alternate strictly a, b, a, b, ... from the first to the last (a partner PE may
 * rely on it). Stores the median time per operation of each in *ta and *tb. */
static inline void bench_measure_pair(bench_batch_fn a, void *ctx_a, bench_batch_fn b, void *ctx_b,
                                      double budget, double *ta, double *tb) {
    long n = bench_calibrate(a, ctx_a, b, ctx_b, budget / TARGET_BATCHES);
    double per_a[MAX_BATCHES], per_b[MAX_BATCHES];
    int batches = 0;
    double start = bench_now();
    while (batches < MAX_BATCHES && (batches < MIN_BATCHES || bench_now() - start < 2.0 * budget)) {
        per_a[batches] = a(n, ctx_a) / (double)n;
        per_b[batches] = b(n, ctx_b) / (double)n;
        batches++;
    }
    *ta = bench_median(per_a, batches);
    *tb = bench_median(per_b, batches);
}

/* One machine-readable result line; flushed at once so that it survives a crash in
 * finalize (stdout is a pipe under the launchers, hence fully buffered). */
static inline void bench_result(const char *name, long size, int npes, double value, const char *unit) {
    printf("RESULT %s %ld %d %.6g %s\n", name, size, npes, value, unit);
    fflush(stdout);
}

#endif
