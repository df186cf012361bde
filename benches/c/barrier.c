/* shmem_barrier_all latency at the job's PE count.
 *
 * Every PE must call the barrier the same number of times, so PE 0 chooses each batch
 * size and hands it to the others before the batch: it stores the count into `ctl` on
 * every PE with shmem_long_p, then one shmem_barrier_all (which completes those stores)
 * opens the batch; everyone reads `ctl` and runs that many barriers; 0 ends the loop.
 * PE 0 can only overwrite `ctl` after the batch's last barrier, which every PE enters
 * after having read it. Only the batch of barriers is timed (on PE 0).
 *
 * Output (PE 0): RESULT barrier 0 <npes> <microseconds per barrier> us
 * Usage: barrier [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>

static long *ctl; /* symmetric: size of the next batch, 0 = stop */

static void announce(long n) {
    int npes = shmem_n_pes();
    for (int pe = 1; pe < npes; pe++) shmem_long_p(ctl, n, pe);
    *ctl = n;
    shmem_barrier_all();
}

static double barrier_batch(long n, void *unused) {
    (void)unused;
    announce(n);
    double t0 = bench_now();
    for (long i = 0; i < n; i++) shmem_barrier_all();
    return bench_now() - t0;
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    ctl = shmem_malloc(sizeof *ctl);
    if (!ctl) {
        fprintf(stderr, "barrier: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    *ctl = 0;
    shmem_barrier_all();

    if (me == 0) {
        double t = bench_measure(barrier_batch, NULL, budget);
        announce(0);
        bench_result("barrier", 0, npes, 1e6 * t, "us");
    } else {
        for (;;) {
            shmem_barrier_all(); /* pairs with announce() */
            long n = *ctl;
            if (n == 0) break;
            for (long i = 0; i < n; i++) shmem_barrier_all();
        }
    }
    shmem_barrier_all();
    shmem_free(ctl);
    shmem_finalize();
    return 0;
}
