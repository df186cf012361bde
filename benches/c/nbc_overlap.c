/* How much of a non-blocking collective hides behind computation (issue 36).
 *
 * For each case (alltoallmem of several sizes per PE pair, a double sum
 * reduction of a few sizes) every PE measures, in one repetition and in a
 * rotating order:
 *   t_coll  K blocking collectives alone;
 *   t_comp  K compute loops alone (a dependent multiply-add chain, no library
 *           calls), calibrated at the start to last about as long as one
 *           collective;
 *   t_both  K times: start the collective (_nb), compute, shmem_req_wait;
 * each divided by K (K: enough operations for a few milliseconds), then the
 * maximum over the PEs. After REPS repetitions PE 0 prints the medians and
 *   overlap = (t_coll + t_comp - t_both) / min(t_coll, t_comp), clamped to [0, 1]:
 * 1 when the collective is hidden entirely, 0 when the two take as long as
 * one after the other. t_wait is the part of t_both spent in shmem_req_wait.
 *
 * With `sleep` as the third argument the "computation" is a nanosleep of the
 * same duration: the PE's core is then free for the thread that runs the
 * collective, which separates the mechanism's own cost from the competition
 * for cores when every core computes.
 *
 * Usage: nbc_overlap [REPS [BATCH_MS [busy|sleep]]] (defaults 15, 4, busy). PE 0 prints per case
 *   RESULT case=<name> coll=<alltoall|reduce> bytes=<B> pes=<P> k=<K> reps=<R>
 *          t_coll_us=<..> t_comp_us=<..> t_both_us=<..> t_wait_us=<..> overlap=<..> compute=<busy|sleep>
 * (bytes: per PE pair for alltoall, of the reduced array for reduce). */
#include "bench.h"

#include <shmem.h>
#include <string.h>

#define MAX_REPS 201

typedef struct {
    const char *name;
    int reduce; /* 0: alltoallmem, 1: double sum reduce */
    size_t bytes;
} case_t;

static const case_t cases[] = {
    {"alltoall-1KiB", 0, 1 << 10},   {"alltoall-64KiB", 0, 64 << 10}, {"alltoall-512KiB", 0, 512 << 10},
    {"reduce-8B", 1, 8},             {"reduce-128KiB", 1, 128 << 10},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static char *src, *dst;
static double sink;
static int sleeping; /* compute() sleeps `units` nanoseconds instead */

/* `units` steps of a dependent chain: the CPU busy, no memory traffic, no
 * library calls. */
static void compute(long units) {
    if (sleeping) {
        struct timespec ts = {units / 1000000000L, units % 1000000000L};
        while (nanosleep(&ts, &ts) != 0) {
        }
        return;
    }
    double x = sink + 1.0;
    for (long i = 0; i < units; i++) x = x * 0.999999999 + 1e-9;
    sink = x;
}

static void coll(const case_t *c) {
    if (c->reduce)
        shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)dst, (const double *)src, c->bytes / sizeof(double));
    else
        shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, c->bytes);
}

static void coll_nb(const case_t *c, shmem_req_h *req) {
    if (c->reduce)
        shmem_double_sum_reduce_nb(SHMEM_TEAM_WORLD, (double *)dst, (const double *)src, c->bytes / sizeof(double),
                                   req);
    else
        shmem_alltoallmem_nb(SHMEM_TEAM_WORLD, dst, src, c->bytes, req);
}

/* One measurement of `what` (0 coll, 1 comp, 2 both) over k operations:
 * seconds per operation on this PE; *wait gets both's time in req_wait. */
static double measure(int what, const case_t *c, long k, long units, double *wait) {
    shmem_barrier_all();
    double w = 0, t = bench_now();
    for (long i = 0; i < k; i++) {
        if (what == 0) {
            coll(c);
        } else if (what == 1) {
            compute(units);
        } else {
            shmem_req_h req;
            coll_nb(c, &req);
            compute(units);
            double t1 = bench_now();
            shmem_req_wait(&req);
            w += bench_now() - t1;
        }
    }
    double s = (bench_now() - t) / (double)k;
    if (wait) *wait = w / (double)k;
    return s;
}

/* The maximum over the PEs of v[0..n). */
static void max_over_pes(double *v, int n) {
    static double in[4], out[4];
    memcpy(in, v, (size_t)n * sizeof *v);
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, out, in, (size_t)n);
    memcpy(v, out, (size_t)n * sizeof *v);
}

static double median(double *v, int n) {
    double tmp[MAX_REPS];
    memcpy(tmp, v, (size_t)n * sizeof *v);
    return bench_median(tmp, n);
}

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    double batch = (argc > 2 ? atof(argv[2]) : 4.0) * 1e-3;
    sleeping = argc > 3 && !strcmp(argv[3], "sleep");
    if (reps < 1 || reps > MAX_REPS || !(batch > 0) || (argc > 3 && !sleeping && strcmp(argv[3], "busy"))) {
        if (me == 0) fprintf(stderr, "usage: nbc_overlap [REPS (1..%d) [BATCH_MS [busy|sleep]]]\n", MAX_REPS);
        shmem_finalize();
        return 2;
    }
    size_t most = 0;
    for (int c = 0; c < NCASES; c++) {
        size_t b = cases[c].reduce ? cases[c].bytes : cases[c].bytes * (size_t)npes;
        if (b > most) most = b;
    }
    src = shmem_malloc(most);
    dst = shmem_malloc(most);
    if (!src || !dst) {
        if (me == 0) fprintf(stderr, "nbc_overlap: cannot allocate 2 x %zu bytes of symmetric heap\n", most);
        shmem_global_exit(2);
    }
    for (size_t i = 0; i < most / sizeof(double); i++) ((double *)src)[i] = (double)(i % 1000) * 0.5;

    /* Compute units per second on this PE, alone (all PEs at once, as later). */
    long probe = 1 << 16;
    double t;
    if (sleeping) probe = 5000000; /* 5 ms in ns: the rate is then about 1e9 */
    for (;;) { /* the same decision on every PE: each measurement has a barrier */
        t = measure(1, NULL, 1, probe, NULL);
        double tmax = t;
        max_over_pes(&tmax, 1);
        if (tmax >= 5e-3 || probe >= (1L << 40)) break;
        probe *= 2;
    }
    double rate = (double)probe / t;
    for (int i = 0; i < 3; i++) {
        t = measure(1, NULL, 1, probe, NULL);
        if ((double)probe / t > rate) rate = (double)probe / t;
    }

    for (int ci = 0; ci < NCASES; ci++) {
        const case_t *c = &cases[ci];
        /* Warm-up and the size of a batch: the blocking collective's time. */
        double est = measure(0, c, 3, 0, NULL);
        est = measure(0, c, 3, 0, NULL);
        max_over_pes(&est, 1);
        long units = (long)(est * rate) + 1;
        double comp = measure(1, c, 3, units, NULL); /* a sleep lasts longer than asked */
        max_over_pes(&comp, 1);
        long k = (long)(batch / (est > comp ? est : comp)) + 1;
        (void)measure(2, c, 2, units, NULL); /* the worker thread started, its first jobs run */
        double tc[MAX_REPS], tp[MAX_REPS], tb[MAX_REPS], tw[MAX_REPS];
        for (int r = 0; r < reps; r++) {
            double v[4], wait = 0;
            for (int j = 0; j < 3; j++) {
                int what = (r + j) % 3;
                v[what] = measure(what, c, k, units, what == 2 ? &wait : NULL);
            }
            v[3] = wait;
            max_over_pes(v, 4);
            tc[r] = v[0];
            tp[r] = v[1];
            tb[r] = v[2];
            tw[r] = v[3];
        }
        double mc = median(tc, reps), mp = median(tp, reps), mb = median(tb, reps), mw = median(tw, reps);
        double lo = mc < mp ? mc : mp;
        double overlap = lo > 0 ? (mc + mp - mb) / lo : 0;
        overlap = overlap < 0 ? 0 : overlap > 1 ? 1 : overlap;
        if (me == 0) {
            printf("RESULT case=%s coll=%s bytes=%zu pes=%d k=%ld reps=%d t_coll_us=%.2f t_comp_us=%.2f "
                   "t_both_us=%.2f t_wait_us=%.2f overlap=%.3f compute=%s\n",
                   c->name, c->reduce ? "reduce" : "alltoall", c->bytes, npes, k, reps, 1e6 * mc, 1e6 * mp,
                   1e6 * mb, 1e6 * mw, overlap, sleeping ? "sleep" : "busy");
            fflush(stdout);
        }
    }
    if (sink == 12345.678) printf("%f\n", sink); /* keeps the compute loop */
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
