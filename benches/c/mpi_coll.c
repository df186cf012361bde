/* The MPI collectives a program would call instead of coll.c's team collectives, measured
 * the way coll.c measures those: the anchor of issue 22's targets (benches/README.md).
 *
 *   mpi_barrier               MPI_Barrier                              (coll.c: team_sync)
 *   mpi_bcast                 MPI_Bcast of 8 B / 64 KiB / 1 MiB, root 0 (broadcastmem)
 *   mpi_allreduce_double_sum  MPI_Allreduce MPI_SUM of 1 / 4096 / 128Ki doubles
 *                             (8 B / 32 KiB / 1 MiB)                   (double_sum_reduce)
 *   mpi_allgather             MPI_Allgather of 8 B per rank            (fcollectmem)
 *   mpi_alltoall              MPI_Alltoall of 8 B / 64 KiB per pair    (alltoallmem)
 *
 * All on MPI_COMM_WORLD with MPI_BYTE (MPI_DOUBLE for the sums). Plain MPI: build with
 * `mpicc`, run with `mpirun -np N`.
 *
 * Batches as in coll.c: every rank must make the same calls, so rank 0 chooses each batch
 * (which collective, how many calls) and hands it over (an untimed MPI_Bcast of the two
 * numbers: the counterpart of coll.c's shmem_long_p and shmem_barrier_all); every rank
 * then makes that many calls back to back, followed by one MPI_Barrier. Rank 0 times the
 * calls and that closing barrier, so a rank that returns early (the root of a broadcast)
 * cannot hide the completion on the others. The value is the median over the batches of
 * the time per call (bench.h, which does not depend on OpenSHMEM).
 *
 * Correctness is checked as in coll.c: after each measurement one more call with fresh
 * data (the destination poisoned beforehand) is checked on every rank (broadcast: the
 * root's data on every rank; allgather, alltoall, sum: the expected values; the sums are of
 * small integers, exact in doubles), and every call must return MPI_SUCCESS. On an error
 * the program prints it to stderr, leaves out that RESULT line and exits with status 1.
 *
 * Output (rank 0): RESULT <benchmark> <bytes> <ranks> <microseconds per call> us
 *   bytes: 0 for the barrier; the message for broadcasts; per rank for allgather; per pair
 *   for alltoall; the array reduced for sums (as coll.c).
 * Usage: mpi_coll [seconds per measurement]
 */
#include "bench.h"

#include <mpi.h>
#include <string.h>

#define BIG (1L << 20)      /* bytes of the large broadcast and reduction */
#define A2A_BIG (64L << 10) /* bytes per pair of the large alltoall; also the mid broadcast */
#define MID_SUM (4096L * 8) /* bytes of the medium reduction: 4096 doubles */

enum kind { BARRIER, BCAST, ALLREDUCE, ALLGATHER, ALLTOALL };

struct op {
    const char *name;
    enum kind kind;
    long bytes;
};

static const struct op ops[] = {
    {"mpi_barrier", BARRIER, 0},
    {"mpi_bcast", BCAST, 8},
    {"mpi_bcast", BCAST, A2A_BIG},
    {"mpi_bcast", BCAST, BIG},
    {"mpi_allgather", ALLGATHER, 8},
    {"mpi_alltoall", ALLTOALL, 8},
    {"mpi_alltoall", ALLTOALL, A2A_BIG},
    {"mpi_allreduce_double_sum", ALLREDUCE, 8},
    {"mpi_allreduce_double_sum", ALLREDUCE, MID_SUM},
    {"mpi_allreduce_double_sum", ALLREDUCE, BIG},
};
#define NOPS ((long)(sizeof ops / sizeof ops[0]))

#define MAX2(a, b) ((a) > (b) ? (a) : (b))

static char *src, *dst; /* bufbytes() each */
static int me, npes;
static int call_rc; /* OR of the calls' return values since the last check */

static long bufbytes(void) { return MAX2(BIG, A2A_BIG * npes); }

/* n calls of ops[i] back to back. */
static void calls(long i, long n) {
    const struct op *o = &ops[i];
    int count = (int)o->bytes;
    int rc = MPI_SUCCESS;
    switch (o->kind) {
    case BARRIER:
        for (long c = 0; c < n; c++) rc |= MPI_Barrier(MPI_COMM_WORLD);
        break;
    case BCAST:
        for (long c = 0; c < n; c++) rc |= MPI_Bcast(dst, count, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case ALLREDUCE:
        for (long c = 0; c < n; c++)
            rc |= MPI_Allreduce(src, dst, count / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case ALLGATHER:
        for (long c = 0; c < n; c++)
            rc |= MPI_Allgather(src, count, MPI_BYTE, dst, count, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case ALLTOALL:
        for (long c = 0; c < n; c++)
            rc |= MPI_Alltoall(src, count, MPI_BYTE, dst, count, MPI_BYTE, MPI_COMM_WORLD);
        break;
    }
    call_rc |= rc;
}

/* One checked call of ops[i] with data derived from `seed`; returns the errors this rank saw. */
static long check(long i, long seed) {
    const struct op *o = &ops[i];
    long nlong = o->bytes / 8, bad = 0;
    long *s = (long *)src, *d = (long *)dst;
    double *ds = (double *)src, *dd = (double *)dst;
    for (long j = 0; j < bufbytes() / 8; j++) d[j] = -1;
    switch (o->kind) {
    case BCAST: /* one buffer: the root's holds the data, the others' the poison */
        if (me == 0)
            for (long j = 0; j < nlong; j++) d[j] = seed * 1000003 + j;
        break;
    case ALLGATHER:
        s[0] = seed * 4096 + me;
        break;
    case ALLTOALL:
        for (long p = 0; p < npes; p++)
            for (long j = 0; j < nlong; j++) s[p * nlong + j] = ((seed * 4096 + me) * 4096 + p) * 65536 + j;
        break;
    case ALLREDUCE:
        for (long j = 0; j < nlong; j++) ds[j] = (double)(seed + me + j);
        break;
    default:
        break;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* as coll.c: every destination poisoned, every source ready */
    calls(i, 1);
    bad += call_rc != MPI_SUCCESS; /* in this call or in the measurement before it */
    call_rc = MPI_SUCCESS;
    switch (o->kind) {
    case BCAST:
        for (long j = 0; j < nlong; j++) bad += d[j] != seed * 1000003 + j;
        break;
    case ALLGATHER:
        for (long p = 0; p < npes; p++) bad += d[p] != seed * 4096 + p;
        break;
    case ALLTOALL:
        for (long p = 0; p < npes; p++)
            for (long j = 0; j < nlong; j++) bad += d[p * nlong + j] != ((seed * 4096 + p) * 4096 + me) * 65536 + j;
        break;
    case ALLREDUCE:
        for (long j = 0; j < nlong; j++)
            bad += dd[j] != (double)((long)npes * (seed + j) + (long)npes * (npes - 1) / 2);
        break;
    default:
        break;
    }
    return bad;
}

/* Every rank: takes part in rank 0's hand-over of (op, n); op -1 stops, n 0 is a check. */
static void handover(long *op, long *n) {
    long ctl[2] = {*op, *n};
    MPI_Bcast(ctl, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    *op = ctl[0];
    *n = ctl[1];
}

static double batch(long n, void *p) {
    long i = *(long *)p;
    handover(&i, &n);
    double t0 = bench_now();
    calls(i, n);
    MPI_Barrier(MPI_COMM_WORLD);
    return bench_now() - t0;
}

/* Every rank: the batch or check rank 0 handed over. Returns the errors of a check over
 * all ranks (on rank 0). */
static long follow(long i, long n, long seed) {
    if (n > 0) {
        calls(i, n);
        MPI_Barrier(MPI_COMM_WORLD);
        return 0;
    }
    long bad = check(i, seed), total = 0;
    MPI_Reduce(&bad, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    return total;
}

int main(int argc, char **argv) {
    double budget = bench_budget(argc, argv);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    size_t bufsize = (size_t)bufbytes();
    src = malloc(bufsize);
    dst = malloc(bufsize);
    if (!src || !dst) {
        fprintf(stderr, "mpi_coll: malloc failed on rank %d\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(src, 0, bufsize);
    memset(dst, 0, bufsize);

    int failed = 0;
    if (me == 0) {
        for (long i = 0; i < NOPS; i++) {
            const struct op *o = &ops[i];
            double t = bench_measure(batch, &i, budget);
            long op = i, n = 0;
            handover(&op, &n);
            long bad = follow(i, 0, i + 1);
            if (bad == 0) {
                bench_result(o->name, o->bytes, npes, 1e6 * t, "us");
            } else {
                fprintf(stderr, "mpi_coll: %s %ld B, %d ranks: the check found %ld wrong values or "
                        "failed calls (over all ranks)\n", o->name, o->bytes, npes, bad);
                failed = 1;
            }
        }
        long op = -1, n = 0;
        handover(&op, &n);
    } else {
        for (;;) {
            long i = 0, n = 0;
            handover(&i, &n);
            if (i < 0) break;
            follow(i, n, i + 1);
        }
    }
    free(dst);
    free(src);
    MPI_Finalize();
    return failed;
}
