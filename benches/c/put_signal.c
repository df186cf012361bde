/* Put-with-signal ping-pong between PE 0 and PE 1 (any other PEs wait in the final barrier).
 * OpenSHMEM 1.5: an implementation without shmem_putmem_signal / shmem_signal_wait_until
 * cannot build this program (benches/compare.py then shows "n/a").
 *
 *   put_signal_latency  size 8 B / 64 KiB. Round s: PE 0 writes s into the first and last 8
 *                       bytes of its buffer and sends it to PE 1 with
 *                       shmem_putmem_signal(in, out, size, sig, s, SHMEM_SIGNAL_SET, 1), then
 *                       waits with shmem_signal_wait_until(sig, SHMEM_CMP_EQ, s) for PE 1's
 *                       reply; PE 1 waits for the signal (shmem_signal_wait_until(sig,
 *                       SHMEM_CMP_NE, previous round), which returns the new value) and
 *                       answers the same way. Half the round trip, in microseconds.
 *
 * The payload and the signal word are in different cache lines. Each measurement ends with
 * a STOP signal, after which PE 1 resets its signal word (between two barriers).
 * Correctness is checked, not timing: when the signal of round s arrives, the first and
 * last 8 bytes received must hold s (the data is delivered before the signal). On a mismatch the program prints the count to
 * stderr, leaves out the RESULT line and exits with status 1.
 *
 * Output (PE 0): RESULT put_signal_latency <size> <npes> <microseconds> us
 * Usage: put_signal [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <stdint.h>
#include <string.h>

#define STOP UINT64_MAX /* the last signal: PE 1 stops answering */
#define MAXSIZE (64 * 1024)

struct ctx {
    char *in;      /* symmetric, MAXSIZE bytes received */
    char *out;     /* symmetric, MAXSIZE bytes sent */
    size_t size;   /* payload bytes of this measurement */
    uint64_t *sig; /* symmetric signal word */
    uint64_t seq;  /* last round started by PE 0 */
    long bad;      /* rounds whose payload did not match their signal */
};

static void send_round(struct ctx *c, uint64_t s, int pe) {
    memcpy(c->out, &s, sizeof s);
    memcpy(c->out + c->size - sizeof s, &s, sizeof s);
    shmem_putmem_signal(c->in, c->out, c->size, c->sig, s, SHMEM_SIGNAL_SET, pe);
}

static long payload_mismatch(const struct ctx *c, uint64_t s) {
    uint64_t first, last;
    memcpy(&first, c->in, sizeof first);
    memcpy(&last, c->in + c->size - sizeof last, sizeof last);
    return first != s || last != s;
}

static double pingpong_batch(long n, void *p) {
    struct ctx *c = p;
    long bad = 0;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        uint64_t s = ++c->seq;
        send_round(c, s, 1);
        shmem_signal_wait_until(c->sig, SHMEM_CMP_EQ, s);
        bad += payload_mismatch(c, s);
    }
    double t = bench_now() - t0;
    c->bad += bad;
    return t;
}

/* PE 1: answer every round until PE 0 sends STOP. */
static void pingpong_echo(struct ctx *c) {
    uint64_t last = 0;
    for (;;) {
        last = shmem_signal_wait_until(c->sig, SHMEM_CMP_NE, last);
        if (last == STOP) break;
        c->bad += payload_mismatch(c, last);
        send_round(c, last, 0);
    }
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "put_signal: needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    /* in, out, sig: 128 bytes apart at least (adjacent-line prefetch) */
    char *mem = shmem_malloc(2 * MAXSIZE + 256);
    long *bad_on_1 = shmem_malloc(sizeof(long));
    if (!mem || !bad_on_1) {
        fprintf(stderr, "put_signal: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    memset(mem, 0, 2 * MAXSIZE + 256);
    struct ctx c;
    c.in = mem;
    c.out = mem + MAXSIZE;
    c.sig = (uint64_t *)(mem + 2 * MAXSIZE + 128);
    c.seq = 0;

    static const size_t sizes[] = {8, MAXSIZE};
    int failed = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.size = sizes[k];
        c.bad = 0;
        *bad_on_1 = 0;
        *c.sig = 0;
        shmem_barrier_all();
        if (me == 0) {
            double rtt = bench_measure(pingpong_batch, &c, budget);
            send_round(&c, STOP, 1);
            shmem_quiet();
            shmem_barrier_all(); /* PE 1 has stored its mismatch count in bad_on_1 */
            long bad1 = *bad_on_1;
            if (c.bad == 0 && bad1 == 0) {
                bench_result("put_signal_latency", (long)c.size, npes, 1e6 * rtt / 2.0, "us");
            } else {
                fprintf(stderr, "put_signal: %zu B: payload did not match the signal in %ld rounds on "
                        "PE 0, %ld on PE 1 (of %llu)\n", c.size, c.bad, bad1, (unsigned long long)c.seq);
                failed = 1;
            }
        } else {
            if (me == 1) {
                pingpong_echo(&c);
                shmem_long_p(bad_on_1, c.bad, 0);
            }
            shmem_barrier_all(); /* also completes the shmem_long_p */
        }
        shmem_barrier_all(); /* PE 0 has read bad_on_1 before it is reset */
    }

    shmem_free(bad_on_1);
    shmem_free(mem);
    shmem_finalize();
    return failed;
}
