/* Collective latencies at the job's PE count, all PEs taking part, timed on PE 0.
 *
 *   barrier_all        shmem_barrier_all()
 *   barrier_activeset  shmem_barrier(0, 0, npes, pSync)
 *   team_sync          shmem_team_sync(SHMEM_TEAM_WORLD)                          [1.5]
 *   broadcast64        shmem_broadcast64(dst, src, size / 8, 0, 0, 0, npes, pSync), root 0
 *   broadcastmem       shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, size, 0)   [1.5]
 *   fcollect64         shmem_fcollect64(dst, src, 1, 0, 0, npes, pSync): 8 B per PE
 *   fcollectmem        shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, 8)         [1.5]
 *   alltoall64         shmem_alltoall64(dst, src, size / 8, 0, 0, npes, pSync): per pair
 *   alltoallmem        shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, size)      [1.5]
 *   long_sum_to_all    shmem_long_sum_to_all(dst, src, size / 8, 0, 0, npes, pWrk, pSync)
 *   long_sum_reduce    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, size / 8) [1.5]
 *   double_sum_to_all  shmem_double_sum_to_all(dst, src, size / 8, 0, 0, npes, pWrk, pSync)
 *   double_sum_reduce  shmem_double_sum_reduce(SHMEM_TEAM_WORLD, dst, src, size / 8) [1.5]
 *
 * Broadcasts are measured with 8 bytes (one long), 64 KiB and 1 MiB, reductions with 1,
 * 4096 (32 KiB) and 128Ki (1 MiB) elements, alltoalls with 8 B and 64 KiB per pair of PEs.
 * The double sums are the rows benches/c/mpi_coll.c's MPI_Allreduce is compared with (the
 * sums are of small integers, exact in doubles).
 * The routines marked [1.5] are OpenSHMEM 1.5 (teams); against an older shmem.h (Open MPI
 * 4.1 implements 1.4) they are compiled out and the program prints, instead of their
 * RESULT lines, `NA <benchmark> <size> <npes> us <reason>` lines (compare.py shows n/a).
 *
 * Batches as in barrier.c: every PE must make the same calls, so PE 0 chooses each batch
 * (which collective, how many calls) and hands it over: shmem_long_p into `ctl` on every
 * PE, then one untimed shmem_barrier_all; every PE then makes that many calls back to back,
 * followed by one shmem_barrier_all. PE 0 times the calls and that closing barrier, so a
 * PE that returns early (the root of a broadcast need not wait for the others) cannot hide
 * the completion on the other PEs; the barrier adds 1/n of a barrier to every call. The
 * value is the median over the batches of the time per call (bench.h).
 *
 * Active-set pSync/pWrk use: every pSync array is symmetric (shmem_malloc), set to
 * SHMEM_SYNC_VALUE on every PE before a shmem_barrier_all that precedes its first use, and
 * consecutive calls alternate between two pSync arrays (and two pWrk arrays for the
 * reductions), the documented way to reuse them without a barrier for calls with the same
 * active set. Each routine has its own pair. Batches are separated by barriers.
 *
 * Correctness is checked, not timing: after each measurement one more call with fresh
 * data (the destination poisoned beforehand) is checked on every PE (broadcast: the
 * root's data on every non-root PE, and on the root too for the team routine; fcollect,
 * alltoall, sum: the expected values), and a team routine must return 0. On an error the
 * program prints it to stderr, leaves out that RESULT line and exits with status 1.
 *
 * Output (PE 0): RESULT <benchmark> <bytes> <npes> <microseconds per call> us
 *   bytes: 0 for barrier_all, barrier_activeset and team_sync; the message for broadcasts;
 *   per PE for fcollect; per pair of PEs for alltoall; the array reduced for sums.
 * Usage: coll [seconds per measurement]
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

#if defined(SHMEM_MAJOR_VERSION) && (SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5)
#define HAVE_TEAMS 1
#else
#define HAVE_TEAMS 0
#endif

/* The active-set routines are deprecated in OpenSHMEM 1.5; they are measured on purpose. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

#define BIG (1L << 20) /* bytes of the large broadcast and reduction */
#define A2A_BIG (64L << 10) /* bytes per pair of the large alltoall */
#define MID_SUM (4096L * 8) /* bytes of the medium reduction: 4096 longs */

enum kind {
    BARRIER_ALL, BARRIER_ASET, TEAM_SYNC, BCAST64, BCASTMEM, FCOLLECT64, FCOLLECTMEM,
    ALLTOALL64, ALLTOALLMEM, SUM_TO_ALL, SUM_REDUCE, DSUM_TO_ALL, DSUM_REDUCE, NKINDS
};

struct op {
    const char *name;
    enum kind kind;
    long bytes;
    int team; /* OpenSHMEM 1.5 team-based routine */
};

static const struct op ops[] = {
    {"barrier_all", BARRIER_ALL, 0, 0},
    {"barrier_activeset", BARRIER_ASET, 0, 0},
    {"team_sync", TEAM_SYNC, 0, 1},
    {"broadcast64", BCAST64, 8, 0},
    {"broadcast64", BCAST64, A2A_BIG, 0},
    {"broadcast64", BCAST64, BIG, 0},
    {"broadcastmem", BCASTMEM, 8, 1},
    {"broadcastmem", BCASTMEM, A2A_BIG, 1},
    {"broadcastmem", BCASTMEM, BIG, 1},
    {"fcollect64", FCOLLECT64, 8, 0},
    {"fcollectmem", FCOLLECTMEM, 8, 1},
    {"alltoall64", ALLTOALL64, 8, 0},
    {"alltoall64", ALLTOALL64, A2A_BIG, 0},
    {"alltoallmem", ALLTOALLMEM, 8, 1},
    {"alltoallmem", ALLTOALLMEM, A2A_BIG, 1},
    {"long_sum_to_all", SUM_TO_ALL, 8, 0},
    {"long_sum_to_all", SUM_TO_ALL, MID_SUM, 0},
    {"long_sum_to_all", SUM_TO_ALL, BIG, 0},
    {"long_sum_reduce", SUM_REDUCE, 8, 1},
    {"long_sum_reduce", SUM_REDUCE, MID_SUM, 1},
    {"long_sum_reduce", SUM_REDUCE, BIG, 1},
    {"double_sum_to_all", DSUM_TO_ALL, 8, 0},
    {"double_sum_to_all", DSUM_TO_ALL, MID_SUM, 0},
    {"double_sum_to_all", DSUM_TO_ALL, BIG, 0},
    {"double_sum_reduce", DSUM_REDUCE, 8, 1},
    {"double_sum_reduce", DSUM_REDUCE, MID_SUM, 1},
    {"double_sum_reduce", DSUM_REDUCE, BIG, 1},
};
#define NOPS ((long)(sizeof ops / sizeof ops[0]))

#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define PSYNC_LEN                                                                          \
    MAX2(MAX2(SHMEM_BARRIER_SYNC_SIZE, SHMEM_BCAST_SYNC_SIZE),                             \
         MAX2(MAX2(SHMEM_COLLECT_SYNC_SIZE, SHMEM_REDUCE_SYNC_SIZE), SHMEM_ALLTOALL_SYNC_SIZE))
#define PWRK_LEN MAX2(BIG / 8 / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE)

/* All symmetric (shmem_malloc). */
static long *ctl;         /* [0] op index (-1: stop), [1] calls (0: check), [2] errors found */
static long *psync;       /* NKINDS pairs of PSYNC_LEN longs */
static long *pwrk[2];     /* PWRK_LEN longs each */
static double *dwrk[2];   /* PWRK_LEN doubles each */
static long *src, *dst;   /* bufbytes() each */
static int me, npes;

static long bufbytes(void) { return MAX2(BIG, A2A_BIG * npes); }

static long *psync_of(enum kind k, long parity) {
    return psync + ((long)k * 2 + (parity & 1)) * PSYNC_LEN;
}

static int call_rc; /* OR of the team routines' return values since the last check */

/* n calls of ops[i] back to back, alternating pSync/pWrk. */
static void calls(long i, long n) {
    const struct op *o = &ops[i];
    size_t nlong = (size_t)o->bytes / 8;
    long *ps0 = psync_of(o->kind, 0), *ps1 = psync_of(o->kind, 1);
    int rc = 0;
    switch (o->kind) {
    case BARRIER_ALL:
        for (long c = 0; c < n; c++) shmem_barrier_all();
        break;
    case BARRIER_ASET:
        for (long c = 0; c < n; c++) shmem_barrier(0, 0, npes, c & 1 ? ps1 : ps0);
        break;
    case BCAST64:
        for (long c = 0; c < n; c++)
            shmem_broadcast64(dst, src, nlong, 0, 0, 0, npes, c & 1 ? ps1 : ps0);
        break;
    case FCOLLECT64:
        for (long c = 0; c < n; c++) shmem_fcollect64(dst, src, 1, 0, 0, npes, c & 1 ? ps1 : ps0);
        break;
    case ALLTOALL64:
        for (long c = 0; c < n; c++) shmem_alltoall64(dst, src, nlong, 0, 0, npes, c & 1 ? ps1 : ps0);
        break;
    case SUM_TO_ALL:
        for (long c = 0; c < n; c++)
            shmem_long_sum_to_all(dst, src, (int)nlong, 0, 0, npes, pwrk[c & 1], c & 1 ? ps1 : ps0);
        break;
    case DSUM_TO_ALL:
        for (long c = 0; c < n; c++)
            shmem_double_sum_to_all((double *)dst, (double *)src, (int)nlong, 0, 0, npes, dwrk[c & 1],
                                    c & 1 ? ps1 : ps0);
        break;
#if HAVE_TEAMS
    case TEAM_SYNC:
        for (long c = 0; c < n; c++) rc |= shmem_team_sync(SHMEM_TEAM_WORLD);
        break;
    case BCASTMEM:
        for (long c = 0; c < n; c++)
            rc |= shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, (size_t)o->bytes, 0);
        break;
    case FCOLLECTMEM:
        for (long c = 0; c < n; c++) rc |= shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, 8);
        break;
    case ALLTOALLMEM:
        for (long c = 0; c < n; c++)
            rc |= shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, (size_t)o->bytes);
        break;
    case SUM_REDUCE:
        for (long c = 0; c < n; c++) rc |= shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, nlong);
        break;
    case DSUM_REDUCE:
        for (long c = 0; c < n; c++)
            rc |= shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)dst, (double *)src, nlong);
        break;
#endif
    default:
        fprintf(stderr, "coll: %s is not compiled in\n", o->name);
        rc = 1;
    }
    call_rc |= rc;
}

/* One checked call of ops[i] with data derived from `seed`; returns the errors this PE saw. */
static long check(long i, long seed) {
    const struct op *o = &ops[i];
    long nlong = o->bytes / 8, bad = 0;
    long cap = bufbytes() / 8;
    double *dsrc = (double *)src, *ddst = (double *)dst;
    for (long j = 0; j < cap; j++) dst[j] = -1;
    switch (o->kind) {
    case BCAST64: case BCASTMEM:
        for (long j = 0; j < nlong; j++) src[j] = me == 0 ? seed * 1000003 + j : -2;
        break;
    case FCOLLECT64: case FCOLLECTMEM:
        src[0] = seed * 4096 + me;
        break;
    case ALLTOALL64: case ALLTOALLMEM:
        for (long p = 0; p < npes; p++)
            for (long j = 0; j < nlong; j++) src[p * nlong + j] = ((seed * 4096 + me) * 4096 + p) * 65536 + j;
        break;
    case SUM_TO_ALL: case SUM_REDUCE:
        for (long j = 0; j < nlong; j++) src[j] = seed + me + j;
        break;
    case DSUM_TO_ALL: case DSUM_REDUCE:
        for (long j = 0; j < nlong; j++) dsrc[j] = (double)(seed + me + j);
        break;
    default:
        break;
    }
    shmem_barrier_all(); /* every destination poisoned, every source ready */
    calls(i, 1);
    bad += call_rc != 0; /* in this call or in the measurement before it */
    call_rc = 0;
    switch (o->kind) {
    case BCAST64: case BCASTMEM:
        if (me != 0 || o->kind == BCASTMEM) /* the active-set root's dst is not written */
            for (long j = 0; j < nlong; j++) bad += dst[j] != seed * 1000003 + j;
        break;
    case FCOLLECT64: case FCOLLECTMEM:
        for (long p = 0; p < npes; p++) bad += dst[p] != seed * 4096 + p;
        break;
    case ALLTOALL64: case ALLTOALLMEM:
        for (long p = 0; p < npes; p++)
            for (long j = 0; j < nlong; j++)
                bad += dst[p * nlong + j] != ((seed * 4096 + p) * 4096 + me) * 65536 + j;
        break;
    case SUM_TO_ALL: case SUM_REDUCE:
        for (long j = 0; j < nlong; j++)
            bad += dst[j] != (long)npes * (seed + j) + (long)npes * (npes - 1) / 2;
        break;
    case DSUM_TO_ALL: case DSUM_REDUCE:
        for (long j = 0; j < nlong; j++)
            bad += ddst[j] != (double)((long)npes * (seed + j) + (long)npes * (npes - 1) / 2);
        break;
    default:
        break;
    }
    return bad;
}

/* PE 0: hands (op, n) to every PE and opens the batch (see the top of this file). */
static void announce(long op, long n) {
    for (int pe = 1; pe < npes; pe++) {
        shmem_long_p(&ctl[0], op, pe);
        shmem_long_p(&ctl[1], n, pe);
    }
    ctl[0] = op;
    ctl[1] = n;
    shmem_barrier_all();
}

static double batch(long n, void *p) {
    long i = *(long *)p;
    announce(i, n);
    double t0 = bench_now();
    calls(i, n);
    shmem_barrier_all();
    return bench_now() - t0;
}

/* Every PE: the batch or check PE 0 announced. Returns the errors of a check. */
static long follow(long i, long n, long seed) {
    if (n > 0) {
        calls(i, n);
        shmem_barrier_all();
        return 0;
    }
    long bad = check(i, seed);
    if (bad) shmem_long_atomic_add(&ctl[2], bad, 0);
    shmem_barrier_all(); /* PE 0 reads ctl[2] after it */
    return bad;
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    size_t bufsize = (size_t)bufbytes();
    ctl = shmem_malloc(3 * sizeof *ctl);
    psync = shmem_malloc((size_t)NKINDS * 2 * PSYNC_LEN * sizeof *psync);
    pwrk[0] = shmem_malloc(PWRK_LEN * sizeof(long));
    pwrk[1] = shmem_malloc(PWRK_LEN * sizeof(long));
    dwrk[0] = shmem_malloc(PWRK_LEN * sizeof(double));
    dwrk[1] = shmem_malloc(PWRK_LEN * sizeof(double));
    src = shmem_malloc(bufsize);
    dst = shmem_malloc(bufsize);
    if (!ctl || !psync || !pwrk[0] || !pwrk[1] || !dwrk[0] || !dwrk[1] || !src || !dst) {
        fprintf(stderr, "coll: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    memset(ctl, 0, 3 * sizeof *ctl);
    for (long j = 0; j < (long)NKINDS * 2 * PSYNC_LEN; j++) psync[j] = SHMEM_SYNC_VALUE;
    memset(src, 0, bufsize);
    memset(dst, 0, bufsize);
    shmem_barrier_all(); /* every pSync initialised before its first use */

    int failed = 0;
    if (me == 0) {
        for (long i = 0; i < NOPS; i++) {
            const struct op *o = &ops[i];
            if (o->team && !HAVE_TEAMS) {
                printf("NA %s %ld %d us OpenSHMEM %d.%d: no team-based collectives\n", o->name,
                       o->bytes, npes, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
                fflush(stdout);
                continue;
            }
            double t = bench_measure(batch, &i, budget);
            ctl[2] = 0;
            announce(i, 0);
            follow(i, 0, i + 1);
            long bad = ctl[2];
            if (bad == 0) {
                bench_result(o->name, o->bytes, npes, 1e6 * t, "us");
            } else {
                fprintf(stderr, "coll: %s %ld B, %d PEs: the check found %ld wrong values or "
                        "non-zero return values (over all PEs)\n", o->name, o->bytes, npes, bad);
                failed = 1;
            }
        }
        announce(-1, 0);
    } else {
        for (;;) {
            shmem_barrier_all(); /* pairs with announce() */
            long i = ctl[0], n = ctl[1];
            if (i < 0) break;
            follow(i, n, i + 1);
        }
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    shmem_free(dwrk[1]);
    shmem_free(dwrk[0]);
    shmem_free(pwrk[1]);
    shmem_free(pwrk[0]);
    shmem_free(psync);
    shmem_free(ctl);
    shmem_finalize();
    return failed;
}
