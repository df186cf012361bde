/* The multi-node benchmark: PE 0 against the LAST PE (on another node whenever the job
 * spans nodes), all PEs for the barrier. Run by benches/multinode.py under an MPI
 * launcher (rshmem) or Open MPI's oshrun (OSHMEM), on one host with the network path
 * forced, or across two network namespaces.
 *
 *   put_latency       8 B shmem_putmem to the peer, then shmem_quiet
 *   get_latency       8 B shmem_getmem from the peer
 *   atomic_fetch_add_latency  shmem_long_atomic_fetch_add on the peer's word
 *   pingpong_roundtrip  PE 0 stores a sequence number on the peer with shmem_long_p and
 *                     waits (shmem_long_wait_until) until the peer stores it back: a whole
 *                     round trip
 *   put_signal_roundtrip  the same with 8 B shmem_putmem_signal (SHMEM_SIGNAL_SET) and
 *                     shmem_signal_wait_until both ways (OpenSHMEM 1.5; "NA" otherwise)
 *   put_bw            shmem_putmem of 64 KiB / 4 MiB to the peer, then shmem_quiet (MB/s)
 *   barrier_all       one shmem_barrier_all of all PEs (batches handed out as in barrier.c)
 *   broadcast, fcollect, alltoall  one collective of 8 B per PE (per pair for alltoall)
 *                     over all PEs, back to back: the team forms on SHMEM_TEAM_WORLD
 *                     (OpenSHMEM 1.5), else the active-set forms (broadcast64, fcollect64,
 *                     alltoall64) on all PEs, their pSync arrays taken in turn from 4
 *
 * PEs other than PE 0 and the peer wait in shmem_barrier_all meanwhile; the peer too,
 * except in the round trips, where it answers.
 *
 * Output (PE 0): RESULT <benchmark> <size> <npes> <value> <unit>, or NA <benchmark> <size>
 * <npes> <unit> <reason>.
 * Usage: multinode [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

#define MAXMSG (4L << 20)

struct ctx {
    char *src, *dst; /* symmetric, MAXMSG bytes each */
    long *word;      /* put/get/fetch_add target on the peer */
    long *ping, *pong;
    long seq;
    int peer;
    size_t size;
    long sink;
};

static double put_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        shmem_putmem(c->dst, c->src, c->size, c->peer);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static double get_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) shmem_getmem(c->src, c->dst, c->size, c->peer);
    return bench_now() - t0;
}

static double fadd_batch(long n, void *p) {
    struct ctx *c = p;
    long s = 0;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) s += shmem_long_atomic_fetch_add(c->word, 1, c->peer);
    double t = bench_now() - t0;
    c->sink += s;
    return t;
}

static double pingpong_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        long s = ++c->seq;
        shmem_long_p(c->ping, s, c->peer);
        shmem_long_wait_until(c->pong, SHMEM_CMP_EQ, s);
    }
    return bench_now() - t0;
}

/* the peer: answers every ping until PE 0 sends -1 */
static void pingpong_echo(struct ctx *c) {
    long last = 0;
    for (;;) {
        shmem_long_wait_until(c->ping, SHMEM_CMP_NE, last);
        last = *c->ping;
        if (last < 0) break;
        shmem_long_p(c->pong, last, 0);
    }
}

#if SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
#define HAVE_SIGNAL 1
static uint64_t sig_in; /* written by the other side's put_signal */
#define STOP UINT64_MAX

static double signal_batch(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        uint64_t s = (uint64_t)++c->seq;
        memcpy(c->src, &s, sizeof s);
        shmem_putmem_signal(c->dst, c->src, 8, &sig_in, s, SHMEM_SIGNAL_SET, c->peer);
        shmem_signal_wait_until(&sig_in, SHMEM_CMP_EQ, s);
    }
    return bench_now() - t0;
}

static void signal_echo(struct ctx *c) {
    uint64_t last = 0;
    for (;;) {
        uint64_t s = shmem_signal_wait_until(&sig_in, SHMEM_CMP_NE, last);
        last = s;
        if (s == STOP) break;
        shmem_putmem_signal(c->dst, c->dst, 8, &sig_in, s, SHMEM_SIGNAL_SET, 0);
    }
}
#endif

/* symmetric: ctl[0] the size of the next batch (0 = stop), ctl[1] its operation */
static long *ctl;

enum op { OP_BARRIER, OP_BROADCAST, OP_FCOLLECT, OP_ALLTOALL, OPS };
static const char *const op_names[OPS] = {"barrier_all", "broadcast", "fcollect", "alltoall"};

#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
#define HAVE_TEAMS 1
#else
#define PSYNCS 4
static long psync[PSYNCS][SHMEM_COLLECT_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_COLLECT_SYNC_SIZE
                                                                              : SHMEM_ALLTOALL_SYNC_SIZE];
static long calls;
#endif
#define COLL_WARMUP 200
#define COLL_CALLS 2000
static uint64_t coll_src[64], coll_dst[64]; /* 8 B per PE (alltoall: per pair) */

static void run_op(enum op op, long n) {
#ifdef HAVE_TEAMS
    for (long i = 0; i < n; i++) switch (op) {
        case OP_BARRIER: shmem_barrier_all(); break;
        case OP_BROADCAST: shmem_broadcastmem(SHMEM_TEAM_WORLD, coll_dst, coll_src, 8, 0); break;
        case OP_FCOLLECT: shmem_fcollectmem(SHMEM_TEAM_WORLD, coll_dst, coll_src, 8); break;
        case OP_ALLTOALL: shmem_alltoallmem(SHMEM_TEAM_WORLD, coll_dst, coll_src, 8); break;
        default: break;
        }
#else
    int npes = shmem_n_pes();
    for (long i = 0; i < n; i++) {
        long *ps = psync[calls++ % PSYNCS];
        switch (op) {
        case OP_BARRIER: shmem_barrier_all(); break;
        case OP_BROADCAST: shmem_broadcast64(coll_dst, coll_src, 1, 0, 0, 0, npes, ps); break;
        case OP_FCOLLECT: shmem_fcollect64(coll_dst, coll_src, 1, 0, 0, npes, ps); break;
        case OP_ALLTOALL: shmem_alltoall64(coll_dst, coll_src, 1, 0, 0, npes, ps); break;
        default: break;
        }
    }
#endif
}

static void announce(enum op op, long n) {
    for (int pe = 1; pe < shmem_n_pes(); pe++) {
        shmem_long_p(&ctl[1], op, pe);
        shmem_long_p(&ctl[0], n, pe);
    }
    ctl[0] = n;
    ctl[1] = op;
    shmem_barrier_all();
}

static double op_batch(long n, void *p) {
    enum op op = *(const enum op *)p;
    announce(op, n);
    double t0 = bench_now();
    run_op(op, n);
    return bench_now() - t0;
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "multinode: needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    struct ctx c;
    c.src = shmem_malloc(MAXMSG);
    c.dst = shmem_malloc(MAXMSG);
    long *flags = shmem_malloc(512);
    ctl = shmem_malloc(2 * sizeof *ctl);
#ifndef HAVE_TEAMS
    for (int i = 0; i < PSYNCS; i++)
        for (size_t j = 0; j < sizeof psync[i] / sizeof psync[i][0]; j++) psync[i][j] = SHMEM_SYNC_VALUE;
#endif
    if (!c.src || !c.dst || !flags || !ctl) {
        fprintf(stderr, "multinode: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    memset(c.src, me + 1, MAXMSG);
    memset(c.dst, 0, MAXMSG);
    memset(flags, 0, 512);
    *ctl = 0;
    c.ping = flags;
    c.pong = flags + 16;
    c.word = flags + 32;
    c.seq = 0;
    c.sink = 0;
    c.peer = npes - 1;
    int peer = c.peer;
    shmem_barrier_all();

    if (me == 0) {
        c.size = 8;
        bench_result("put_latency", 8, npes, 1e6 * bench_measure(put_batch, &c, budget), "us");
        bench_result("get_latency", 8, npes, 1e6 * bench_measure(get_batch, &c, budget), "us");
        bench_result("atomic_fetch_add_latency", 8, npes, 1e6 * bench_measure(fadd_batch, &c, budget),
                     "us");
        for (long size = 64L << 10; size <= MAXMSG; size *= 64) {
            c.size = (size_t)size;
            double t = bench_measure(put_batch, &c, budget);
            bench_result("put_bw", size, npes, (double)size / t / 1e6, "MB/s");
        }
    }
    shmem_barrier_all();

    if (me == 0) {
        double rtt = bench_measure(pingpong_batch, &c, budget);
        shmem_long_p(c.ping, -1, peer);
        shmem_quiet();
        bench_result("pingpong_roundtrip", 8, npes, 1e6 * rtt, "us");
    } else if (me == peer) {
        pingpong_echo(&c);
    }
    shmem_barrier_all();

#ifdef HAVE_SIGNAL
    if (me == 0) {
        c.seq = 0;
        double rtt = bench_measure(signal_batch, &c, budget);
        shmem_signal_set(&sig_in, STOP, peer);
        shmem_quiet();
        bench_result("put_signal_roundtrip", 8, npes, 1e6 * rtt, "us");
    } else if (me == peer) {
        signal_echo(&c);
    }
#else
    if (me == 0) {
        printf("NA put_signal_roundtrip 8 %d us no shmem_putmem_signal (OpenSHMEM %d.%d)\n", npes,
               SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
        fflush(stdout);
    }
#endif
    shmem_barrier_all();

    if (npes > 64) {
        if (me == 0) fprintf(stderr, "multinode: the collectives need at most 64 PEs\n");
        shmem_finalize();
        return 1;
    }
    if (me == 0) {
        double t = bench_measure(op_batch, &(enum op){OP_BARRIER}, budget);
        bench_result(op_names[OP_BARRIER], 0, npes, 1e6 * t, "us");
        announce(OP_BARRIER, 0);
    } else {
        for (;;) {
            shmem_barrier_all(); /* pairs with announce() */
            long n = ctl[0];
            if (n == 0) break;
            run_op((enum op)ctl[1], n);
        }
    }
    shmem_barrier_all();

    /* The collectives: a fixed count on every PE (no batch sizes handed out: Open MPI
     * 4.1's OSHMEM lost step with announce() around its MPI broadcasts), the mean
     * over COLL_CALLS after COLL_WARMUP, timed on PE 0. */
    for (enum op op = OP_BROADCAST; op < OPS; op++) {
        run_op(op, COLL_WARMUP);
        shmem_barrier_all();
        double t0 = bench_now();
        run_op(op, COLL_CALLS);
        double t = bench_now() - t0;
        shmem_barrier_all();
        if (me == 0) bench_result(op_names[op], 8, npes, 1e6 * t / COLL_CALLS, "us");
    }
    if (c.sink == 42) printf("\n"); /* never; keeps the fetches alive */
    shmem_free(ctl);
    shmem_free(flags);
    shmem_free(c.dst);
    shmem_free(c.src);
    shmem_finalize();
    return 0;
}
