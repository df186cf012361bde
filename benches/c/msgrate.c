/* Message rate of 8-byte shmem_putmem_nbi issued by PE 0 (the other PEs wait in the final
 * barrier), one shmem_quiet at the end of every batch (batches take budget/20 seconds, so
 * the quiet is spread over ~10^5 operations or more).
 *
 *   put_nbi_rate           to PE 1 only (the neighbour)                  [msgrate.c]
 *   put_nbi_rate_allpeers  to PEs 1, 2, ..., npes-1, 1, 2, ... round-robin [msgrate_all.c]
 *
 * msgrate_all.c is this file compiled with ALL_PEERS defined; compare.py runs msgrate at
 * the point-to-point PE counts (--p2p-np) and msgrate_all at the collective ones (--np).
 * Every put writes its own 8-byte slot of a 64 KiB target buffer (cycling), from one
 * source word. Millions of operations per second.
 *
 * Output (PE 0): RESULT <benchmark> 8 <npes> <Mop/s> Mop/s
 * Usage: msgrate [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

#ifndef ALL_PEERS
#define ALL_PEERS 0
#endif
#define NAME (ALL_PEERS ? "put_nbi_rate_allpeers" : "put_nbi_rate")
#define MSG 8
#define SLOTS 8192 /* 64 KiB of 8-byte slots */

struct ctx {
    char *src; /* symmetric, 8 bytes */
    char *dst; /* symmetric, SLOTS * 8 bytes */
    int npes;
};

static double batch(long n, void *p) {
    struct ctx *c = p;
    int peers = c->npes - 1;
    int pe = 1;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        shmem_putmem_nbi(c->dst + (i % SLOTS) * MSG, c->src, MSG, pe);
        if (ALL_PEERS && ++pe > peers) pe = 1;
    }
    shmem_quiet();
    return bench_now() - t0;
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "msgrate: needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    struct ctx c;
    c.src = shmem_malloc(128);
    c.dst = shmem_malloc(SLOTS * MSG);
    c.npes = npes;
    if (!c.src || !c.dst) {
        fprintf(stderr, "msgrate: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    memset(c.src, me + 1, 128);
    memset(c.dst, 0, SLOTS * MSG);
    shmem_barrier_all();

    if (me == 0) bench_result(NAME, MSG, npes, 1e-6 / bench_measure(batch, &c, budget), "Mop/s");
    shmem_barrier_all();

    shmem_free(c.dst);
    shmem_free(c.src);
    shmem_finalize();
    return 0;
}
