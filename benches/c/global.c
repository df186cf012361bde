/* 8-byte point-to-point latency between PE 0 and PE 1 on GLOBAL (static, data/bss segment)
 * symmetric variables instead of shmem_malloc'd ones; any other PEs wait in the final
 * barrier. The same operations as latency.c and atomic.c, so each row compares with its
 * heap counterpart (put_latency_global with put_latency, ...):
 *
 *   put_latency_global       shmem_putmem of 8 bytes to PE 1, then shmem_quiet
 *   get_latency_global       shmem_getmem of 8 bytes from PE 1
 *   p_latency_global         shmem_long_p to PE 1, then shmem_quiet
 *   g_latency_global         shmem_long_g from PE 1
 *   pingpong_latency_global  shmem_long_p + shmem_long_wait_until ping-pong, half the round trip
 *   atomic_fetch_add_latency_global  shmem_long_atomic_fetch_add(w, 1, 1), each waiting for
 *                            its result; checked as in atomic.c (every fetched value must be
 *                            the previous one + 1, PE 1's word must end at the number of
 *                            additions issued), otherwise no RESULT line and exit status 1
 *
 * Every variable has a cache line pair (128 bytes) of its own.
 *
 * Each global row also has a heap twin (put_latency_heap_twin, ...): the same loop on
 * shmem_malloc'd objects, measured in batches alternating with the global ones (bench.h's
 * bench_measure_pair), so that the ratio global/heap is not swamped by the run-to-run
 * noise of a virtual machine (the ping-pong in particular is bimodal there).
 *
 * Output (PE 0): RESULT <benchmark> 8 <npes> <microseconds> us
 * Usage: global [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

#define MSG 8
#define LINE __attribute__((aligned(128)))

static char g_src[MSG] LINE;
static char g_dst[MSG] LINE;
static long g_word LINE;
static long g_ping LINE; /* written by PE 0 on PE 1 */
static long g_pong LINE; /* written by PE 1 on PE 0 */
static long g_atom LINE; /* fetch_add target on PE 1 */
static long g_pad LINE;  /* keeps the next object off g_atom's line pair */

/* The objects one measurement works on: the globals above, or heap twins. */
struct vars {
    char *src, *dst;
    long *word, *ping, *pong, *atom;
};

struct ctx {
    struct vars v;
    long seq;     /* last ping-pong sequence number */
    long sink;    /* keeps g's results alive */
    long issued;  /* fetch_adds issued on g_atom */
    long expect;  /* next value fetch_add must return */
    long bad;     /* fetch_add results that were not `expect` */
};

static double put_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        shmem_putmem(c->v.dst, c->v.src, MSG, 1);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static double get_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) shmem_getmem(c->v.src, c->v.dst, MSG, 1);
    return bench_now() - t0;
}

static double p_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        shmem_long_p(c->v.word, i, 1);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static double g_batch(long n, void *p) {
    struct ctx *c = p;
    long s = 0;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) s += shmem_long_g(c->v.word, 1);
    double t = bench_now() - t0;
    c->sink += s;
    return t;
}

static double pingpong_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        long s = ++c->seq;
        shmem_long_p(c->v.ping, s, 1);
        shmem_long_wait_until(c->v.pong, SHMEM_CMP_EQ, s);
    }
    double t = bench_now() - t0;
    /* Untimed hand-over: PE 1 answers it, then waits on the other set of objects. */
    long h = -(++c->seq);
    shmem_long_p(c->v.ping, h, 1);
    shmem_long_wait_until(c->v.pong, SHMEM_CMP_EQ, h);
    return t;
}

/* PE 1: answer every ping until PE 0 sends PINGPONG_STOP. Batches alternate between the
 * globals (a) and the heap twins (b), starting with a (bench_measure_pair), and each ends
 * with a negative hand-over value, after which PE 1 waits on the other set. */
#define PINGPONG_STOP (-1L - (1L << 62))
static void pingpong_echo(struct vars *a, struct vars *b) {
    struct vars *set[2] = {a, b};
    long last[2] = {0, 0};
    int s = 0;
    for (;;) {
        shmem_long_wait_until(set[s]->ping, SHMEM_CMP_NE, last[s]);
        long v = last[s] = *set[s]->ping;
        if (v == PINGPONG_STOP) break;
        shmem_long_p(set[s]->pong, v, 0);
        if (v < 0) s = 1 - s;
    }
}

static double fetch_add_batch(long n, void *p) {
    struct ctx *c = p;
    long expect = c->expect, bad = 0;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        long v = shmem_long_atomic_fetch_add(c->v.atom, 1, 1);
        bad += v != expect;
        expect = v + 1;
    }
    double t = bench_now() - t0;
    c->expect = expect;
    c->bad += bad;
    c->issued += n;
    return t;
}

/* Measures one operation on globals (cg) and heap twins (ch), interleaved; prints both. */
static void pair(const char *name, const char *twin, bench_batch_fn fn, struct ctx *cg, struct ctx *ch,
                 double budget, int npes, double scale) {
    double tg, th;
    bench_measure_pair(fn, cg, fn, ch, budget, &tg, &th);
    bench_result(name, MSG, npes, 1e6 * tg * scale, "us");
    bench_result(twin, MSG, npes, 1e6 * th * scale, "us");
}

static int check_fetch_add(struct ctx *c, const char *what) {
    shmem_quiet();
    long got = shmem_long_atomic_fetch(c->v.atom, 1);
    if (got == c->issued && c->bad == 0) return 0;
    fprintf(stderr, "global: fetch_add on %s: PE 1's word is %ld after %ld additions; %ld fetched "
            "values out of sequence\n", what, got, c->issued, c->bad);
    return 1;
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "global: needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    /* Heap twins, each on a cache line pair of its own like the globals. */
    char *heap = shmem_align(128, 6 * 128);
    if (!heap) {
        fprintf(stderr, "global: shmem_align failed on PE %d\n", me);
        return 1;
    }
    memset(heap, 0, 6 * 128);
    struct ctx cg = {{g_src, g_dst, &g_word, &g_ping, &g_pong, &g_atom}, 0, 0, 0, 0, 0};
    struct ctx ch = {{heap, heap + 128, (long *)(heap + 256), (long *)(heap + 384), (long *)(heap + 512),
                      (long *)(heap + 640)}, 0, 0, 0, 0, 0};
    for (int i = 0; i < MSG; i++) g_src[i] = heap[i] = (char)(me + 1);
    g_pad = 0;
    shmem_barrier_all();

    int failed = 0;
    if (me == 0) {
        pair("put_latency_global", "put_latency_heap_twin", put_batch, &cg, &ch, budget, npes, 1.0);
        pair("get_latency_global", "get_latency_heap_twin", get_batch, &cg, &ch, budget, npes, 1.0);
        pair("p_latency_global", "p_latency_heap_twin", p_batch, &cg, &ch, budget, npes, 1.0);
        pair("g_latency_global", "g_latency_heap_twin", g_batch, &cg, &ch, budget, npes, 1.0);
        double tg, th;
        bench_measure_pair(fetch_add_batch, &cg, fetch_add_batch, &ch, budget, &tg, &th);
        failed = check_fetch_add(&cg, "globals") | check_fetch_add(&ch, "the heap");
        if (!failed) {
            bench_result("atomic_fetch_add_latency_global", MSG, npes, 1e6 * tg, "us");
            bench_result("atomic_fetch_add_latency_heap_twin", MSG, npes, 1e6 * th, "us");
        }
    }
    shmem_barrier_all();

    if (me == 0) {
        pair("pingpong_latency_global", "pingpong_latency_heap_twin", pingpong_batch, &cg, &ch, budget, npes,
             0.5);
        shmem_long_p(cg.v.ping, PINGPONG_STOP, 1); /* PE 1 is back on the globals */
        shmem_quiet();
    } else if (me == 1) {
        pingpong_echo(&cg.v, &ch.v);
    }
    shmem_barrier_all();

    if (cg.sink + ch.sink == 42 && g_pad == 1) printf("\n"); /* never; keeps the g calls */
    shmem_free(heap);
    shmem_finalize();
    return failed;
}
