/* The cost of one notification (issue 21; seed 001, section 3.1 and Table 1: "the time
 * spent for a single read followed by a single write"), on the CPU side only.
 *
 * Every case is a ping-pong between two parties pinned to two CPUs (`cross_core`) or both
 * to the same CPU (`same_core`, for contrast): A notifies flag i and polls flag j, B polls
 * flag i and answers on flag j. One notification = half the round trip (a write seen by a
 * poller, then the poller's own write), the median over batches (bench.h).
 *
 *   atomic_*    two threads of one PE, C11 atomics on two 64-byte-aligned words (128 bytes
 *               apart: different cache lines and adjacent-line-prefetch pairs): the floor.
 *   api_*       two threads of one PE (SHMEM_THREAD_MULTIPLE): shmemx_notify_set, polled
 *               with shmemx_notify_test (a consume is a compare-and-swap).
 *   api_wait_*  the same, waiting with shmemx_notify_wait (the library's spin/yield/sleep).
 *   put_*       two PEs (run with 2 PEs): shmemx_notify_put with nbytes 0 into flag i of
 *               the other PE's copy of the set, polled there with shmemx_notify_test.
 *
 * Polling spins; on the same CPU a spinning poller would only ever see the other party
 * after its time slice ends, so there it yields after every failed poll (and across cores
 * after SPIN_LIMIT failed polls, which only a descheduled partner causes).
 *
 * Usage: oshrun -np 1 notify_cost [seconds per case]   the thread cases
 *        oshrun -np 2 notify_cost [seconds per case]   the PE cases
 * (`--bind-to none`: the program pins its threads itself.)
 * Output (PE 0): RESULT case=<name> ns=<median> min_ns=<best batch> pes=<n> cpus=<a>,<b>
 *                       rounds=<round trips per batch> batches=<n>
 *                NA case=<name> reason=<why it was not measured>
 * The api_* and put_* cases need the notification API of shmemx.h (SHMEMX_NOTIFY_READY);
 * built against a shmemx.h without it, they print NA lines.
 */
#define _GNU_SOURCE /* pthread_setaffinity_np, sched_getaffinity */
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#if defined(SHMEMX_NOTIFY_READY)
#define HAVE_NOTIFY 1
#else
#define HAVE_NOTIFY 0
#endif

/* Failed polls before a poller across cores yields (its partner was descheduled). */
#define SPIN_LIMIT (1L << 14)

enum kind { K_ATOMIC, K_API_TEST, K_API_WAIT, K_PUT };

struct pingpong {
    _Alignas(64) atomic_long ping; /* A -> B */
    _Alignas(128) atomic_long pong; /* B -> A */
    _Alignas(128) atomic_int stop;  /* threads: B returns at the next notification */
};

struct ctx {
    enum kind kind;
    int same_cpu;
    struct pingpong *pp;
    long seq;
#if HAVE_NOTIFY
    shmemx_notify_t *set; /* flag 0: A -> B, flag 1: B -> A */
#endif
    int *stop_word; /* K_PUT: symmetric; PE 0 puts 1 into PE 1's with the last notification */
    int cpu_b;
};

static inline void relax(long *spins, int same_cpu) {
    if (same_cpu || ++*spins >= SPIN_LIMIT) {
        sched_yield();
        *spins = 0;
    }
}

static int pin_self(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* Two CPUs to pin to: the first two of this process's affinity mask, else CPUs 0 and 1 when
 * the machine has them (a launcher may have bound the PE to one CPU; pinning a thread
 * outside that mask is allowed unless a cgroup forbids it, which pin_self reports). */
static int two_cpus(int *a, int *b) {
    cpu_set_t set;
    int found = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++) {
            if (!CPU_ISSET(cpu, &set)) continue;
            if (found++ == 0) *a = cpu; else *b = cpu;
        }
    }
    if (found == 2) return 1;
    if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
        *a = 0;
        *b = 1;
        return 1;
    }
    return 0;
}

/* ---- party A: one batch of n round trips ---- */

static double batch_a(long n, void *p) {
    struct ctx *c = p;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        long spins = 0;
        switch (c->kind) {
        case K_ATOMIC: {
            long s = ++c->seq;
            atomic_store_explicit(&c->pp->ping, s, memory_order_release);
            while (atomic_load_explicit(&c->pp->pong, memory_order_acquire) != s) relax(&spins, c->same_cpu);
            break;
        }
#if HAVE_NOTIFY
        case K_API_TEST:
            shmemx_notify_set(c->set, 0);
            while (!shmemx_notify_test(c->set, 1)) relax(&spins, c->same_cpu);
            break;
        case K_API_WAIT:
            shmemx_notify_set(c->set, 0);
            shmemx_notify_wait(c->set, 1);
            break;
        case K_PUT:
            shmemx_notify_put(c->set, 0, c->stop_word, c->stop_word, 0, 1);
            while (!shmemx_notify_test(c->set, 1)) relax(&spins, c->same_cpu);
            break;
#endif
        default:
            abort();
        }
    }
    return bench_now() - t0;
}

/* ---- party B: answers until told to stop ---- */

static void echo_b(struct ctx *c) {
    long last = 0;
    for (;;) {
        long spins = 0;
        switch (c->kind) {
        case K_ATOMIC: {
            long v;
            while ((v = atomic_load_explicit(&c->pp->ping, memory_order_acquire)) == last)
                relax(&spins, c->same_cpu);
            if (v < 0) return;
            atomic_store_explicit(&c->pp->pong, v, memory_order_release);
            last = v;
            break;
        }
#if HAVE_NOTIFY
        case K_API_TEST:
        case K_API_WAIT:
            if (c->kind == K_API_WAIT) {
                shmemx_notify_wait(c->set, 0);
            } else {
                while (!shmemx_notify_test(c->set, 0)) relax(&spins, c->same_cpu);
            }
            /* The consume was an acquire: A's store to stop before its set is visible. */
            if (atomic_load_explicit(&c->pp->stop, memory_order_relaxed)) return;
            shmemx_notify_set(c->set, 1);
            break;
        case K_PUT:
            while (!shmemx_notify_test(c->set, 0)) relax(&spins, c->same_cpu);
            /* The put's data (the stop word, on the last one) is visible before its flag. */
            if (*(volatile int *)c->stop_word) return;
            shmemx_notify_put(c->set, 1, c->stop_word, c->stop_word, 0, 0);
            break;
#endif
        default:
            abort();
        }
    }
}

static void *thread_b(void *p) {
    struct ctx *c = p;
    if (pin_self(c->cpu_b) != 0) fprintf(stderr, "notify_cost: cannot pin thread B to CPU %d\n", c->cpu_b);
    echo_b(c);
    return NULL;
}

/* ---- measurement: calibrate, then batches until the budget is spent (bench.h) ---- */

struct stats {
    double ns, min_ns;
    long rounds;
    int batches;
};

static struct stats measure(struct ctx *c, double budget) {
    struct stats s;
    s.rounds = bench_calibrate(batch_a, c, NULL, NULL, budget / TARGET_BATCHES);
    double per[MAX_BATCHES];
    int b = 0;
    double start = bench_now();
    while (b < MAX_BATCHES && (b < MIN_BATCHES || bench_now() - start < budget))
        per[b++] = batch_a(s.rounds, c) / (double)s.rounds;
    s.batches = b;
    s.ns = 1e9 * bench_median(per, b) / 2.0; /* per[] is sorted now */
    s.min_ns = 1e9 * per[0] / 2.0;
    return s;
}

static void result(const char *name, struct stats s, int npes, int cpu_a, int cpu_b) {
    printf("RESULT case=%s ns=%.1f min_ns=%.1f pes=%d cpus=%d,%d rounds=%ld batches=%d\n", name, s.ns,
           s.min_ns, npes, cpu_a, cpu_b, s.rounds, s.batches);
    fflush(stdout);
}

static void na(const char *name, const char *why) {
    printf("NA case=%s reason=%s\n", name, why);
    fflush(stdout);
}

/* One thread case: A is this thread on cpu_a, B a new thread on cpu_b. */
static void thread_case(const char *name, enum kind kind, int cpu_a, int cpu_b, double budget, void *set) {
    static struct pingpong pp;
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.same_cpu = cpu_a == cpu_b;
    c.pp = &pp;
    c.cpu_b = cpu_b;
#if HAVE_NOTIFY
    c.set = set;
#else
    (void)set;
#endif
    atomic_store(&pp.ping, 0);
    atomic_store(&pp.pong, 0);
    atomic_store(&pp.stop, 0);
    if (pin_self(cpu_a) != 0) {
        na(name, "cannot_pin_to_cpu");
        return;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, thread_b, &c) != 0) {
        na(name, "pthread_create_failed");
        return;
    }
    struct stats s = measure(&c, budget);
    if (kind == K_ATOMIC) {
        atomic_store_explicit(&pp.ping, -1, memory_order_release);
    } else {
#if HAVE_NOTIFY
        atomic_store_explicit(&pp.stop, 1, memory_order_relaxed);
        shmemx_notify_set(c.set, 0); /* a release: B sees stop after consuming it */
#endif
    }
    pthread_join(t, NULL);
    result(name, s, 1, cpu_a, cpu_b);
}

static void thread_cases(int cpu_a, int cpu_b, double budget) {
    static const struct {
        const char *name;
        enum kind kind;
        int same;
    } cases[] = {{"atomic_cross_core", K_ATOMIC, 0}, {"atomic_same_core", K_ATOMIC, 1},
                 {"api_cross_core", K_API_TEST, 0},   {"api_same_core", K_API_TEST, 1},
                 {"api_wait_cross_core", K_API_WAIT, 0}, {"api_wait_same_core", K_API_WAIT, 1}};
    void *set = NULL;
#if HAVE_NOTIFY
    set = shmemx_notify_alloc(2);
#endif
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        if (cases[k].kind != K_ATOMIC && !HAVE_NOTIFY) {
            na(cases[k].name, "no_notification_api_in_shmemx.h");
        } else if (!cases[k].same && cpu_a == cpu_b) {
            na(cases[k].name, "fewer_than_2_cpus");
        } else {
            thread_case(cases[k].name, cases[k].kind, cpu_a, cases[k].same ? cpu_a : cpu_b, budget, set);
        }
    }
#if HAVE_NOTIFY
    shmemx_notify_free(set);
#endif
}

/* The PE cases: PE 0 is A on cpu_a, PE 1 is B on cpu_b (or cpu_a); other PEs wait. */
static void pe_cases(int me, int cpu_a, int cpu_b, double budget) {
#if HAVE_NOTIFY
    static int pinned, all_pinned; /* static: symmetric, for the reduction */
    int *stop_word = shmem_malloc(sizeof(int));
    shmemx_notify_t *set = shmemx_notify_alloc(2);
    const struct {
        const char *name;
        int same;
    } cases[] = {{"put_cross_core", 0}, {"put_same_core", 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        if (!cases[k].same && cpu_a == cpu_b) {
            if (me == 0) na(cases[k].name, "fewer_than_2_cpus");
            continue;
        }
        struct ctx c;
        memset(&c, 0, sizeof c);
        c.kind = K_PUT;
        c.same_cpu = cases[k].same;
        c.set = set;
        c.stop_word = stop_word;
        int cpu = me == 1 && !cases[k].same ? cpu_b : cpu_a;
        pinned = me > 1 || pin_self(cpu) == 0;
        *stop_word = 0; /* the last case's stop put was completed by its closing barrier */
        shmem_barrier_all();
        shmem_int_min_reduce(SHMEM_TEAM_WORLD, &all_pinned, &pinned, 1);
        if (!all_pinned) {
            if (me == 0) na(cases[k].name, "cannot_pin_to_cpu");
            continue;
        }
        if (me == 0) {
            struct stats s = measure(&c, budget);
            static const int one = 1;
            shmemx_notify_put(set, 0, stop_word, &one, sizeof one, 1);
            result(cases[k].name, s, 2, cpu_a, cases[k].same ? cpu_a : cpu_b);
        } else if (me == 1) {
            echo_b(&c);
        }
        shmem_barrier_all();
    }
    shmemx_notify_free(set);
    shmem_free(stop_word);
#else
    (void)cpu_a;
    (void)cpu_b;
    (void)budget;
    if (me == 0) {
        na("put_cross_core", "no_notification_api_in_shmemx.h");
        na("put_same_core", "no_notification_api_in_shmemx.h");
    }
#endif
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    int provided = 0;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 || provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "notify_cost: shmem_init_thread(SHMEM_THREAD_MULTIPLE) gave level %d\n", provided);
        return 1;
    }
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int cpu_a = 0, cpu_b = 0;
    if (!two_cpus(&cpu_a, &cpu_b)) {
        if (me == 0) fprintf(stderr, "notify_cost: fewer than 2 CPUs, cross-core cases not measured\n");
        cpu_b = cpu_a;
    }
    if (npes == 1) {
        thread_cases(cpu_a, cpu_b, budget);
    } else {
        pe_cases(me, cpu_a, cpu_b, budget);
    }
    shmem_finalize();
    return 0;
}
