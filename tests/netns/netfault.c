/* The job of tests/netfault.rs, which takes the link between the two nodes
 * down under it: every PE works with a PE of the other node in a loop for
 * SECONDS (the first argument), each round checked: a put of N longs, a
 * fetch-add, a barrier, the data and the counter received from that node, a
 * get back, another barrier. PE 0 prints "netfault started" once the job
 * runs, every PE prints each round that took longer than a second, and PE 0
 * "netfault ok: R rounds in S s, longest L s" at the end; a wrong value
 * prints "PE i: FAILED ..." and exits 1. Any even number of PEs, the first
 * half on one node. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 512

static long inbox[N], mine[N], got[N];
static long counter;
static int stop;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* What PE pe sends in round r at index i. */
static long val(int pe, long r, int i) { return (long)pe * 1000000007L + r * 1009 + i; }

static void failed(int me, const char *what, long r, long detail) {
    printf("PE %d: FAILED %s in round %ld (%ld)\n", me, what, r, detail);
    fflush(stdout);
    shmem_global_exit(1);
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int far = (me + npes / 2) % npes;         /* a PE of the other node */
    int from = (me + npes - npes / 2) % npes; /* the PE whose far PE is this one */
    shmem_barrier_all();
    if (me == 0) {
        printf("netfault started\n");
        fflush(stdout);
    }
    double t0 = now(), longest = 0;
    long r;
    for (r = 1;; r++) {
        double a = now();
        for (int i = 0; i < N; i++)
            mine[i] = val(me, r, i);
        shmem_long_put(inbox, mine, N, far);
        long old = shmem_long_atomic_fetch_add(&counter, 1, far);
        if (old != r - 1)
            failed(me, "fetch_add's old value", r, old);
        shmem_barrier_all();
        for (int i = 0; i < N; i++)
            if (inbox[i] != val(from, r, i))
                failed(me, "put from the other node", r, i);
        if (counter != r)
            failed(me, "counter", r, counter);
        shmem_long_get(got, mine, N, far);
        for (int i = 0; i < N; i++)
            if (got[i] != val(far, r, i))
                failed(me, "get from the other node", r, i);
        if (me == 0 && now() - t0 >= seconds)
            for (int pe = 0; pe < npes; pe++)
                shmem_int_p(&stop, 1, pe);
        shmem_barrier_all();
        double took = now() - a;
        if (took > longest)
            longest = took;
        if (took > 1.0) {
            printf("PE %d: round %ld took %.1f s\n", me, r, took);
            fflush(stdout);
        }
        if (stop)
            break;
    }
    if (me == 0)
        printf("netfault ok: %ld rounds in %.1f s, longest %.2f s\n", r, now() - t0, longest);
    shmem_finalize();
    return 0;
}
