/* Semaphore ping-pong between PE 0 and PE 1 (any other PEs wait in the barrier that closes
 * each measurement), beside the OpenSHMEM 1.5 put-with-signal doing the same job.
 * rshmem only: shmemx_sem_* and shmemx_memput_signal are rshmem extensions (shmemx.h,
 * docs/semaphores.md); with another implementation this program does not build and
 * benches/compare.py shows "n/a".
 *
 *   sem_memput_signal_latency  size 8 B / 64 KiB. Round s: PE 0 writes s into the first and
 *                     last 8 bytes of its buffer and sends it to PE 1 with
 *                     shmemx_memput_signal(in, out, size, sem, 1, 1), then takes the reply
 *                     with shmemx_sem_wait(sem) on its own copy; PE 1 waits the same way and
 *                     sends the bytes it received back with shmemx_memput_signal(.., 0).
 *                     Half the round trip, in microseconds.
 *   put_signal_add_latency  the same rounds with shmem_putmem_signal(in, src, size, sig, 1,
 *                     SHMEM_SIGNAL_ADD, pe) and shmem_signal_wait_until(sig, SHMEM_CMP_GE, s):
 *                     each side waits for a strictly increasing count, as a semaphore
 *                     emulated with OpenSHMEM 1.5 signals would (there is no atomic
 *                     wait-and-decrement).
 *   sem_post_latency  size 0: shmemx_sem_post(sem, pe) and shmemx_sem_wait(sem) alone, no
 *                     data. Half the round trip.
 *
 * The payload, the signal word and the stop word are in different cache lines (the
 * semaphore is an object of its own). To end a measurement PE 0 sets PE 1's stop word
 * (shmem_long_p, shmem_fence) and sends one more round, which PE 1 takes without answering;
 * both semaphore copies are then back at 0. Correctness is checked, not timing: when the
 * post (signal) of round s arrives, the first and last 8 bytes received must hold s (the
 * data is delivered before the post). On a mismatch the program prints the count to
 * stderr, leaves out that RESULT line and exits with status 1.
 *
 * Output (PE 0): RESULT <benchmark> <size> <npes> <microseconds> us
 * Usage: semaphore [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <string.h>

#define MAXSIZE (64 * 1024)

enum kind { SEM_MEMPUT, SIGNAL_ADD, SEM_POST };

static const char *const NAMES[] = {"sem_memput_signal_latency", "put_signal_add_latency",
                                    "sem_post_latency"};

struct ctx {
    enum kind kind;
    size_t size;        /* payload bytes (0 for SEM_POST) */
    char *in;           /* symmetric, MAXSIZE bytes received */
    char *out;          /* symmetric, MAXSIZE bytes sent by PE 0 */
    uint64_t *sig;      /* symmetric signal word (SIGNAL_ADD) */
    long *stop;         /* symmetric: set on PE 1 before the last round */
    shmemx_sem_t *sem;  /* every PE's copy starts (and ends each measurement) at 0 */
    uint64_t seq;       /* last round started by PE 0 */
    long bad;           /* rounds whose payload did not match */
};

/* One one-way trip to `pe` with `src` as the payload. */
static void send_round(struct ctx *c, const char *src, int pe) {
    switch (c->kind) {
    case SEM_MEMPUT:
        shmemx_memput_signal(c->in, src, c->size, c->sem, 1, pe);
        break;
    case SIGNAL_ADD:
        shmem_putmem_signal(c->in, src, c->size, c->sig, 1, SHMEM_SIGNAL_ADD, pe);
        break;
    case SEM_POST:
        shmemx_sem_post(c->sem, pe);
        break;
    }
}

/* Waits for round s (the s-th arrival of this measurement on this PE). */
static void receive_round(struct ctx *c, uint64_t s) {
    if (c->kind == SIGNAL_ADD)
        shmem_signal_wait_until(c->sig, SHMEM_CMP_GE, s);
    else
        shmemx_sem_wait(c->sem);
}

static void stamp(struct ctx *c, uint64_t s) {
    if (c->size == 0) return;
    memcpy(c->out, &s, sizeof s);
    memcpy(c->out + c->size - sizeof s, &s, sizeof s);
}

static long payload_mismatch(const struct ctx *c, uint64_t s) {
    if (c->size == 0) return 0;
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
        stamp(c, s);
        send_round(c, c->out, 1);
        receive_round(c, s);
        bad += payload_mismatch(c, s);
    }
    double t = bench_now() - t0;
    c->bad += bad;
    return t;
}

/* PE 1: answer every round, echoing the payload, until the stop word is set. */
static void pingpong_echo(struct ctx *c) {
    for (uint64_t s = 1;; s++) {
        receive_round(c, s);
        if (*c->stop) break; /* set before the round's post: visible after the wait */
        c->bad += payload_mismatch(c, s);
        send_round(c, c->in, 0);
    }
}

/* One measurement; PE 0 returns 1 if a payload mismatched (on either PE). */
static int measure(struct ctx *c, enum kind kind, size_t size, long *bad_on_1, double budget) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    c->kind = kind;
    c->size = size;
    c->seq = 0;
    c->bad = 0;
    *c->sig = 0;
    *c->stop = 0;
    *bad_on_1 = 0;
    shmem_barrier_all(); /* nobody writes these before everybody has reset them */

    int failed = 0;
    if (me == 0) {
        double rtt = bench_measure(pingpong_batch, c, budget);
        shmem_long_p(c->stop, 1, 1);
        shmem_fence();
        c->seq++;
        stamp(c, c->seq);
        send_round(c, c->out, 1);
        shmem_quiet();
        shmem_barrier_all(); /* PE 1 has stored its mismatch count in bad_on_1 */
        long bad1 = *bad_on_1;
        if (c->bad == 0 && bad1 == 0) {
            bench_result(NAMES[kind], (long)size, npes, 1e6 * rtt / 2.0, "us");
        } else {
            fprintf(stderr, "semaphore: %s %zu B: payload did not match the post in %ld rounds on "
                    "PE 0, %ld on PE 1 (of %llu)\n", NAMES[kind], size, c->bad, bad1,
                    (unsigned long long)c->seq);
            failed = 1;
        }
    } else {
        if (me == 1) {
            pingpong_echo(c);
            shmem_long_p(bad_on_1, c->bad, 0);
        }
        shmem_barrier_all(); /* also completes the shmem_long_p */
    }
    return failed;
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "semaphore: needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    /* in, out, then the signal, stop and mismatch words 128 bytes apart (adjacent-line
     * prefetch). */
    char *mem = shmem_malloc(2 * MAXSIZE + 512);
    shmemx_sem_t *sem = shmemx_sem_alloc(SHMEMX_SEM_INTEGER | SHMEMX_SEM_SPRODUCER | SHMEMX_SEM_SCONSUMER);
    if (!mem || !sem) {
        fprintf(stderr, "semaphore: allocation failed on PE %d\n", me);
        return 1;
    }
    memset(mem, 0, 2 * MAXSIZE + 512);
    struct ctx c;
    c.in = mem;
    c.out = mem + MAXSIZE + 128;
    c.sig = (uint64_t *)(mem + 2 * MAXSIZE + 256);
    c.stop = (long *)(mem + 2 * MAXSIZE + 384);
    long *bad_on_1 = (long *)(mem + 2 * MAXSIZE + 128);
    c.sem = sem;

    int failed = 0;
    failed |= measure(&c, SEM_MEMPUT, 8, bad_on_1, budget);
    failed |= measure(&c, SEM_MEMPUT, MAXSIZE, bad_on_1, budget);
    failed |= measure(&c, SIGNAL_ADD, 8, bad_on_1, budget);
    failed |= measure(&c, SIGNAL_ADD, MAXSIZE, bad_on_1, budget);
    failed |= measure(&c, SEM_POST, 0, bad_on_1, budget);
    shmem_barrier_all();

    shmemx_sem_free(sem);
    shmem_free(mem);
    shmem_finalize();
    return failed;
}
