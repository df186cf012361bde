/* The machine floor, without OpenSHMEM: what the hardware gives a single node.
 *
 *   memcpy_bw           single-core memcpy of <size> bytes between two private buffers
 *                       (1 MiB and 64 MiB), MB/s with 1 MB = 10^6 bytes copied: the
 *                       ceiling for put_bw / get_bw, which are copies too.
 *   cacheline_pingpong  two processes (fork) sharing an anonymous MAP_SHARED mapping:
 *                       the parent stores an 8-byte sequence number into one cache line
 *                       and spins until the child echoes it into another; half the
 *                       round trip in microseconds: the floor for pingpong_latency.
 *                       The two processes are pinned to two different CPUs (when the
 *                       affinity mask allows two), else a busy machine may put both
 *                       spinners on one CPU and measure time slices instead.
 *   yield_handoff       the same two processes pinned to ONE CPU, each waiting for its
 *                       turn with sched_yield: microseconds per hand-over of the core
 *                       (a context switch between two address spaces). When PEs
 *                       outnumber cores, every synchronisation in which the PEs sharing
 *                       a core must all take part pays at least one of these per core.
 *
 * Output: RESULT memcpy_bw <size> 1 <MB/s> MB/s
 *         RESULT cacheline_pingpong 8 2 <microseconds> us
 *         RESULT yield_handoff 0 2 <microseconds> us
 * Usage: floor [seconds per measurement]
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, sched_setaffinity */
#include "bench.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- memcpy bandwidth ---- */

struct copy_ctx {
    char *src, *dst;
    size_t size;
};

static double copy_batch(long n, void *p) {
    struct copy_ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        memcpy(c->dst, c->src, c->size);
        /* The copy must happen: the compiler may assume anything reads dst. */
        __asm__ __volatile__("" : : "r"(c->dst) : "memory");
    }
    return bench_now() - t0;
}

/* ---- cache-line ping-pong ---- */

struct pp_ctx {
    atomic_long *ping; /* written by the parent, read by the child */
    atomic_long *pong; /* written by the child, read by the parent */
    long seq;
};

static double pingpong_batch(long n, void *p) {
    struct pp_ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        long s = ++c->seq;
        atomic_store_explicit(c->ping, s, memory_order_release);
        while (atomic_load_explicit(c->pong, memory_order_acquire) != s) {
        }
    }
    return bench_now() - t0;
}

static void pingpong_echo(struct pp_ctx *c) {
    long last = 0;
    for (;;) {
        long v;
        while ((v = atomic_load_explicit(c->ping, memory_order_acquire)) == last) {
        }
        if (v < 0) return;
        atomic_store_explicit(c->pong, v, memory_order_release);
        last = v;
    }
}

/* Turn-taking on one CPU: the parent waits for even values, the child for odd ones. */
static double handoff_batch(long n, void *p) {
    struct pp_ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        long mine = 2 * c->seq;
        while (atomic_load_explicit(c->ping, memory_order_acquire) != mine) sched_yield();
        atomic_store_explicit(c->ping, mine + 1, memory_order_release);
        c->seq++;
    }
    return bench_now() - t0;
}

static void handoff_echo(struct pp_ctx *c) {
    for (long seq = 0;; seq++) {
        long v, mine = 2 * seq + 1;
        while ((v = atomic_load_explicit(c->ping, memory_order_acquire)) != mine) {
            if (v < 0) return;
            sched_yield();
        }
        atomic_store_explicit(c->ping, mine + 1, memory_order_release);
    }
}

/* The first two CPUs of this process's affinity mask; 0 when there are fewer. */
static int two_cpus(int *a, int *b) {
    cpu_set_t set;
    int found = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++) {
        if (!CPU_ISSET(cpu, &set)) continue;
        if (found++ == 0) *a = cpu; else *b = cpu;
    }
    return found == 2;
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) perror("floor: sched_setaffinity");
}

int main(int argc, char **argv) {
    static const long sizes[] = {1L << 20, 64L << 20};
    double budget = bench_budget(argc, argv);

    size_t max = (size_t)sizes[1];
    struct copy_ctx cc;
    cc.src = malloc(max);
    cc.dst = malloc(max);
    if (!cc.src || !cc.dst) {
        perror("floor: malloc");
        return 1;
    }
    memset(cc.src, 1, max); /* first touch outside the timed region */
    memset(cc.dst, 0, max);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        cc.size = (size_t)sizes[i];
        double t = bench_measure(copy_batch, &cc, budget);
        bench_result("memcpy_bw", sizes[i], 1, (double)sizes[i] / t / 1e6, "MB/s");
    }
    free(cc.src);
    free(cc.dst);

    char *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        perror("floor: mmap");
        return 1;
    }
    struct pp_ctx pc;
    pc.ping = (atomic_long *)shared;         /* 128 bytes apart: separate cache lines, */
    pc.pong = (atomic_long *)(shared + 128); /* and not adjacent-line-prefetch pairs  */
    pc.seq = 0;
    atomic_init(pc.ping, 0);
    atomic_init(pc.pong, 0);
    int cpu_parent = 0, cpu_child = 0;
    int pinned = two_cpus(&cpu_parent, &cpu_child);
    if (!pinned) fprintf(stderr, "floor: fewer than 2 CPUs available, ping-pong processes not pinned\n");
    fflush(stdout); /* do not duplicate buffered output in the child */
    pid_t child = fork();
    if (child < 0) {
        perror("floor: fork");
        return 1;
    }
    if (child == 0) {
        if (pinned) pin(cpu_child);
        pingpong_echo(&pc);
        _exit(0);
    }
    if (pinned) pin(cpu_parent);
    double rtt = bench_measure(pingpong_batch, &pc, budget);
    atomic_store_explicit(pc.ping, -1, memory_order_release);
    int status = 0;
    if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "floor: ping-pong child failed\n");
        return 1;
    }
    bench_result("cacheline_pingpong", 8, 2, 1e6 * rtt / 2.0, "us");

    /* Both on the parent's CPU: each round is two hand-overs of that core. */
    pc.seq = 0;
    atomic_store(pc.ping, 0);
    fflush(stdout);
    child = fork();
    if (child < 0) {
        perror("floor: fork");
        return 1;
    }
    if (child == 0) {
        pin(cpu_parent);
        handoff_echo(&pc);
        _exit(0);
    }
    pin(cpu_parent);
    double round = bench_measure(handoff_batch, &pc, budget);
    /* The child waits for an odd value; a negative one ends it. */
    atomic_store_explicit(pc.ping, -1, memory_order_release);
    if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "floor: hand-over child failed\n");
        return 1;
    }
    bench_result("yield_handoff", 0, 2, 1e6 * round / 2.0, "us");
    munmap(shared, 4096);
    return 0;
}
