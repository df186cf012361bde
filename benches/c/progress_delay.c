/* How long a put waits for a target that computes without library calls.
 *
 * PE 1 computes for COMPUTE_MS (a busy loop, no OpenSHMEM or MPI calls) while
 * PE 0 puts 8 bytes to it and times shmem_putmem and shmem_quiet. Over
 * software RMA (MPI over TCP) the put completes only when the target's MPI
 * makes progress: without a progress thread (SHMEM_PROGRESS_THREAD) the quiet
 * waits for the computation to end; with one it returns after about one
 * progress interval. Then, if IDLE_MS > 0, PE 1 sleeps IDLE_MS and reports
 * the CPU time its process used meanwhile (getrusage): the progress thread's
 * cost on an idle PE.
 *
 * With a fourth argument `sleep`, PE 1 sleeps instead of computing: the
 * delay then shows the progress thread's own latency, without the
 * computation competing with it for the CPU.
 *
 * Usage: progress_delay [COMPUTE_MS [REPS [IDLE_MS [busy|sleep]]]] (defaults 500 1 0 busy), at
 * least 2 PEs, meant for PEs on different (virtual) nodes (RSHMEM_NODE_SIZE=1
 * under mpirun). PE 0 prints
 *   RESULT delay_us <median> delay_max_us <max> put_us <median> quiet_us <median> reps <REPS> compute_ms <COMPUTE_MS>
 * where delay is put + quiet (over MPI's osc ucx the blocking put itself
 * waits for the target: its local completion is a flush)
 * and PE 1, with IDLE_MS > 0,
 *   RESULT idle_cpu_pct <percent of one CPU> idle_ms <IDLE_MS>
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>
#include <sys/resource.h>

/* PE 0 starts its put this long after the round's barrier, so that PE 1 is
 * computing by then. */
#define HEAD_START_MS 20

static long dest;

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Computes for ms milliseconds without calling the library. */
static void compute(long ms) {
    volatile unsigned long x = 1;
    double end = bench_now() + (double)ms * 1e-3;
    while (bench_now() < end)
        for (int i = 0; i < 1000; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
}

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static long arg(int argc, char **argv, int i, long dflt) {
    return argc > i ? strtol(argv[i], NULL, 10) : dflt;
}

int main(int argc, char **argv) {
    long compute_ms = arg(argc, argv, 1, 500), reps = arg(argc, argv, 2, 1), idle_ms = arg(argc, argv, 3, 0);
    int sleeping = argc > 4 && strcmp(argv[4], "sleep") == 0;
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() < 2 || compute_ms < 2 * HEAD_START_MS || reps < 1 || reps > 1000 || idle_ms < 0) {
        if (me == 0) fprintf(stderr, "progress_delay: needs 2 PEs, COMPUTE_MS >= %d, 1 <= REPS <= 1000\n", 2 * HEAD_START_MS);
        shmem_global_exit(2);
    }
    double *put_us = calloc((size_t)reps, sizeof(double)), *quiet_us = calloc((size_t)reps, sizeof(double));
    double *delay_us = calloc((size_t)reps, sizeof(double));
    if (!put_us || !quiet_us || !delay_us) shmem_global_exit(2);

    /* Warm-up while PE 1 is in the library: connections, first touch. */
    long v = 0;
    if (me == 0)
        for (int i = 0; i < 10; i++) {
            shmem_putmem(&dest, &v, sizeof v, 1);
            shmem_quiet();
        }
    shmem_barrier_all();

    for (long r = 0; r < reps; r++) {
        shmem_barrier_all();
        if (me == 1) {
            if (sleeping)
                sleep_ms(compute_ms);
            else
                compute(compute_ms);
        } else if (me == 0) {
            sleep_ms(HEAD_START_MS);
            v = r + 1;
            double t0 = bench_now();
            shmem_putmem(&dest, &v, sizeof v, 1);
            double t1 = bench_now();
            shmem_quiet();
            double t2 = bench_now();
            put_us[r] = (t1 - t0) * 1e6;
            quiet_us[r] = (t2 - t1) * 1e6;
            delay_us[r] = (t2 - t0) * 1e6;
        }
        shmem_barrier_all();
        if (me == 1 && dest != r + 1) {
            fprintf(stderr, "progress_delay: PE 1 holds %ld after round %ld\n", dest, r + 1);
            shmem_global_exit(1);
        }
    }
    if (me == 0) {
        double max = 0;
        for (long r = 0; r < reps; r++) max = delay_us[r] > max ? delay_us[r] : max;
        double delay = bench_median(delay_us, (int)reps);
        double put = bench_median(put_us, (int)reps), quiet = bench_median(quiet_us, (int)reps);
        printf("RESULT delay_us %.1f delay_max_us %.1f put_us %.1f quiet_us %.1f reps %ld compute_ms %ld\n", delay,
               max, put, quiet, reps, compute_ms);
        fflush(stdout);
    }

    if (idle_ms > 0) {
        shmem_barrier_all();
        if (me == 1) {
            double c0 = cpu_seconds();
            sleep_ms(idle_ms);
            double c1 = cpu_seconds();
            printf("RESULT idle_cpu_pct %.2f idle_ms %ld\n", (c1 - c0) * 1e5 / (double)idle_ms, idle_ms);
            fflush(stdout);
        }
        shmem_barrier_all();
    }
    free(put_us);
    free(quiet_us);
    free(delay_us);
    shmem_finalize();
    return 0;
}
