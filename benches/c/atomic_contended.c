/* Contended atomics: every PE (PE 0 included) runs shmem_long_atomic_fetch_add(w, 1, 0) on
 * the same word of PE 0, each call waiting for its result.
 *
 *   atomic_fetch_add_contended_rate  total operations of all PEs per second, in millions
 *
 * Batches as in barrier.c: PE 0 chooses each batch size n and hands it over (shmem_long_p
 * into `ctl` on every PE, then one untimed shmem_barrier_all); every PE then makes n calls
 * followed by one shmem_barrier_all. PE 0 times its calls and that closing barrier, so the
 * batch ends when the slowest PE is done: the rate is npes * n / time.
 * Correctness is checked, not timing: every fetched value must be larger than the one the
 * same PE fetched before, and at the end the word must equal the number of additions of all
 * PEs (warm-up and calibration included); otherwise no RESULT line and exit status 1.
 *
 * Output (PE 0): RESULT atomic_fetch_add_contended_rate 8 <npes> <Mop/s> Mop/s
 * Usage: atomic_contended [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

static long *ctl;  /* symmetric: [0] size of the next batch (0 = stop), [16] errors found */
static long *word; /* symmetric: the target, used on PE 0 only */
static long last = -1, bad = 0, issued = 0;

static void announce(long n) {
    int npes = shmem_n_pes();
    for (int pe = 1; pe < npes; pe++) shmem_long_p(ctl, n, pe);
    *ctl = n;
    shmem_barrier_all();
}

static void calls(long n) {
    long prev = last, b = 0;
    for (long i = 0; i < n; i++) {
        long v = shmem_long_atomic_fetch_add(word, 1, 0);
        b += v <= prev;
        prev = v;
    }
    last = prev;
    bad += b;
    issued += n;
}

static double batch(long n, void *unused) {
    (void)unused;
    announce(n);
    double t0 = bench_now();
    calls(n);
    shmem_barrier_all();
    return bench_now() - t0;
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    ctl = shmem_malloc(32 * sizeof(long));
    word = shmem_malloc(32 * sizeof(long));
    long *issued_all = shmem_malloc(2 * sizeof(long));
    if (!ctl || !word || !issued_all) {
        fprintf(stderr, "atomic_contended: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    memset(ctl, 0, 32 * sizeof(long));
    memset(word, 0, 32 * sizeof(long));
    memset(issued_all, 0, 2 * sizeof(long));
    shmem_barrier_all();

    int failed = 0;
    if (me == 0) {
        double t = bench_measure(batch, NULL, budget);
        announce(0);
        shmem_long_atomic_add(&issued_all[0], issued, 0);
        shmem_long_atomic_add(&issued_all[1], bad, 0);
        shmem_barrier_all(); /* every PE has added its counts */
        long got = shmem_long_atomic_fetch(word, 0);
        if (got == issued_all[0] && issued_all[1] == 0) {
            bench_result("atomic_fetch_add_contended_rate", 8, npes, 1e-6 * npes / t, "Mop/s");
        } else {
            fprintf(stderr, "atomic_contended: word is %ld after %ld additions; %ld fetched values "
                    "not increasing\n", got, issued_all[0], issued_all[1]);
            failed = 1;
        }
    } else {
        for (;;) {
            shmem_barrier_all(); /* pairs with announce() */
            long n = *ctl;
            if (n == 0) break;
            calls(n);
            shmem_barrier_all();
        }
        shmem_long_atomic_add(&issued_all[0], issued, 0);
        shmem_long_atomic_add(&issued_all[1], bad, 0);
        shmem_barrier_all();
    }
    shmem_barrier_all();
    shmem_free(issued_all);
    shmem_free(word);
    shmem_free(ctl);
    shmem_finalize();
    return failed;
}
