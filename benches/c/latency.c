/* Point-to-point latency between PE 0 and PE 1 (any other PEs wait in the final barrier).
 *
 *   put_latency       shmem_putmem of <size> bytes to PE 1 followed by shmem_quiet, per operation
 *   get_latency       shmem_getmem of <size> bytes from PE 1, per operation
 *   put_nbi_latency   shmem_putmem_nbi of <size> bytes to PE 1 followed by shmem_quiet
 *   p_latency         shmem_long_p of one long to PE 1 followed by shmem_quiet (8 B)
 *   g_latency         shmem_long_g of one long from PE 1 (8 B)
 *   pingpong_latency  PE 0 stores a flag on PE 1 with shmem_long_p, PE 1 waits for it with
 *                     shmem_long_wait_until and answers the same way; half the round trip.
 *                     On shared memory this is the meaningful one-way latency: it includes
 *                     the time for the data to become visible to the other side.
 *
 * <size> for put_latency, get_latency and put_nbi_latency: 8 * 4^k bytes up to 512 KiB,
 * then 1 MiB (8 B, 32 B, ..., 512 KiB, 1 MiB). The many-size rows (every size but 8 B)
 * get half the budget per measurement each, so the program stays short; the 8-byte rows,
 * p/g and the ping-pong get the full budget. All buffers are shmem_malloc'd (global.c
 * measures the 8-byte operations on static variables).
 *
 * Output (PE 0): RESULT <benchmark> <size> <npes> <microseconds> us
 * Usage: latency [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

#define MSG 8
#define MAXMSG (1L << 20)

struct ctx {
    char *src;   /* symmetric, MAXMSG bytes: put source / get destination */
    char *dst;   /* symmetric, MAXMSG bytes: put target / get source */
    long *word;  /* symmetric long: p target / g source */
    long *ping;  /* symmetric flag written by PE 0 on PE 1 */
    long *pong;  /* symmetric flag written by PE 1 on PE 0 */
    long seq;    /* last ping-pong sequence number sent by PE 0 */
    size_t size;
    long sink;   /* keeps g's results alive */
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
    for (long i = 0; i < n; i++) shmem_getmem(c->src, c->dst, c->size, 1);
    return bench_now() - t0;
}

static double put_nbi_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        shmem_putmem_nbi(c->dst, c->src, c->size, 1);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static double p_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        shmem_long_p(c->word, i, 1);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static double g_batch(long n, void *p) {
    struct ctx *c = p;
    long s = 0;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) s += shmem_long_g(c->word, 1);
    double t = bench_now() - t0;
    c->sink += s;
    return t;
}

static double pingpong_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        long s = ++c->seq;
        shmem_long_p(c->ping, s, 1);
        shmem_long_wait_until(c->pong, SHMEM_CMP_EQ, s);
    }
    return bench_now() - t0;
}

/* PE 1: answer every ping until PE 0 sends -1. */
static void pingpong_echo(struct ctx *c) {
    long last = 0;
    for (;;) {
        shmem_long_wait_until(c->ping, SHMEM_CMP_NE, last);
        last = *c->ping;
        if (last < 0) break;
        shmem_long_p(c->pong, last, 0);
    }
}

/* 8 * 4^k bytes up to 512 KiB, then 1 MiB. */
static const long SIZES[] = {8, 32, 128, 512, 2L << 10, 8L << 10, 32L << 10, 128L << 10, 512L << 10,
                             MAXMSG};

static void sized(const char *name, bench_batch_fn fn, struct ctx *c, int npes, double budget) {
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        c->size = (size_t)SIZES[i];
        double b = SIZES[i] == MSG ? budget : budget / 2;
        bench_result(name, SIZES[i], npes, 1e6 * bench_measure(fn, c, b), "us");
    }
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "latency: needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    struct ctx c;
    c.src = shmem_malloc(MAXMSG);
    c.dst = shmem_malloc(MAXMSG);
    long *flags = shmem_malloc(512);
    if (!c.src || !c.dst || !flags) {
        fprintf(stderr, "latency: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    /* First touch of every page on every PE, outside the timed region. */
    memset(c.src, me + 1, MAXMSG);
    memset(c.dst, 0, MAXMSG);
    memset(flags, 0, 512);
    c.ping = flags;       /* separate cache lines (128 bytes apart: adjacent-line prefetch) */
    c.pong = flags + 16;
    c.word = flags + 32;
    c.seq = 0;
    c.sink = 0;
    shmem_barrier_all();

    if (me == 0) {
        sized("put_latency", put_batch, &c, npes, budget);
        sized("get_latency", get_batch, &c, npes, budget);
        sized("put_nbi_latency", put_nbi_batch, &c, npes, budget);
        bench_result("p_latency", MSG, npes, 1e6 * bench_measure(p_batch, &c, budget), "us");
        bench_result("g_latency", MSG, npes, 1e6 * bench_measure(g_batch, &c, budget), "us");
    }
    shmem_barrier_all();

    if (me == 0) {
        double rtt = bench_measure(pingpong_batch, &c, budget);
        shmem_long_p(c.ping, -1, 1);
        shmem_quiet();
        bench_result("pingpong_latency", MSG, npes, 1e6 * rtt / 2.0, "us");
    } else if (me == 1) {
        pingpong_echo(&c);
    }
    shmem_barrier_all();

    if (c.sink == 42) printf("\n"); /* never; keeps the compiler from dropping the g calls */
    shmem_free(flags);
    shmem_free(c.dst);
    shmem_free(c.src);
    shmem_finalize();
    return 0;
}
