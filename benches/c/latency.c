/* Small-message latency between PE 0 and PE 1 (any other PEs wait in the final barrier).
 *
 *   put_latency       8-byte shmem_putmem to PE 1 followed by shmem_quiet, per operation
 *   get_latency       8-byte shmem_getmem from PE 1, per operation
 *   pingpong_latency  PE 0 stores a flag on PE 1 with shmem_long_p, PE 1 waits for it with
 *                     shmem_long_wait_until and answers the same way; half the round trip.
 *                     On shared memory this is the meaningful one-way latency: it includes
 *                     the time for the data to become visible to the other side.
 *
 * Output (PE 0): RESULT <benchmark> 8 <npes> <microseconds> us
 * Usage: latency [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

#define MSG 8

struct ctx {
    char *buf;   /* symmetric, 256 bytes: put target / get source / get destination */
    long *ping;  /* symmetric flag written by PE 0 on PE 1 */
    long *pong;  /* symmetric flag written by PE 1 on PE 0 */
    long seq;    /* last ping-pong sequence number sent by PE 0 */
};

static double put_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        shmem_putmem(c->buf, c->buf + 64, MSG, 1);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static double get_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) shmem_getmem(c->buf + 128, c->buf, MSG, 1);
    return bench_now() - t0;
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
    c.buf = shmem_malloc(256);
    long *flags = shmem_malloc(256);
    if (!c.buf || !flags) {
        fprintf(stderr, "latency: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    memset(c.buf, me + 1, 256);
    memset(flags, 0, 256);
    c.ping = flags;       /* separate cache lines (128 bytes apart: adjacent-line prefetch) */
    c.pong = flags + 16;
    c.seq = 0;
    shmem_barrier_all();

    if (me == 0) {
        bench_result("put_latency", MSG, npes, 1e6 * bench_measure(put_batch, &c, budget), "us");
        bench_result("get_latency", MSG, npes, 1e6 * bench_measure(get_batch, &c, budget), "us");
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

    shmem_free(flags);
    shmem_free(c.buf);
    shmem_finalize();
    return 0;
}
