/* rshmem-test
 * np: 1 2 4
 * stdout: quiet test ok
 */
/* OSSS-UCX's non-blocking completion checks and interoperability query:
 *  - shmemx_quiet_test and shmemx_fence_test answer 1 with nothing outstanding;
 *  - after puts (blocking and _nbi) and a non-blocking get, polling shmemx_quiet_test
 *    until it answers 1 completes them: the get's data is here, and the right
 *    neighbour, told by an atomic set issued after the answer, finds the puts' data;
 *  - the same with shmemx_fence_test between the data and the flag (same target: the
 *    fence orders them), and the context forms, SHMEM_CTX_INVALID answering 1;
 *  - shmemx_query_interoperability: the PEs are MPI ranks, and shmem_init initialised
 *    MPI, exactly when an MPI launcher started the job (its rank variable is set);
 *    never UPC threads, and MPI_Init never initialises rshmem. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define N 512

static long data[N], got[N], flag;

/* Polls `test` until it answers 1 (at most a few seconds' worth of calls). */
static void poll_until(int (*test)(void), const char *what) {
    long calls = 0;
    while (!test()) {
        CHECK(++calls < 100000000L, "%s never answered 1", what);
    }
}

static int ctx_quiet_test(void) { return shmemx_ctx_quiet_test(SHMEM_CTX_DEFAULT); }
static int ctx_fence_test(void) { return shmemx_ctx_fence_test(SHMEM_CTX_DEFAULT); }

static void round_trip(int round, int (*complete)(void), const char *what) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    static long src[N];
    for (int i = 0; i < N; i++)
        src[i] = (long)round * 1000000 + me * 1000 + i;
    shmem_long_put(data, src, N / 2, right);
    shmem_long_put_nbi(data + N / 2, src + N / 2, N / 2, right);
    shmem_long_get_nbi(got, data, N, right);
    poll_until(complete, what);
    shmem_long_atomic_set(&flag, round, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, round);
    for (int i = 0; i < N; i++)
        CHECK(data[i] == (long)round * 1000000 + left * 1000 + i, "%s, round %d: data[%d] = %ld from PE %d", what,
              round, i, data[i], left);
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    CHECK(shmemx_quiet_test() == 1 && shmemx_fence_test() == 1, "nothing outstanding, yet a test answered 0");
    CHECK(shmemx_ctx_quiet_test(SHMEM_CTX_INVALID) == 1 && shmemx_ctx_fence_test(SHMEM_CTX_INVALID) == 1,
          "SHMEM_CTX_INVALID answered 0");

    /* The get after the puts to the same PE: the quiet completes both, and the get reads
     * what was there before or after them; only its completion is checked here. */
    round_trip(1, shmemx_quiet_test, "shmemx_quiet_test");
    round_trip(2, ctx_quiet_test, "shmemx_ctx_quiet_test");
    /* A fence orders the flag after the data; the get still needs a quiet. */
    round_trip(3, shmemx_fence_test, "shmemx_fence_test");
    shmem_quiet();
    shmem_barrier_all();
    round_trip(4, ctx_fence_test, "shmemx_ctx_fence_test");
    shmem_quiet();

    int by_mpi = getenv("OMPI_COMM_WORLD_RANK") != NULL || getenv("PMI_RANK") != NULL;
    CHECK(shmemx_query_interoperability(UPC_THREADS_ARE_PES) == 0, "UPC_THREADS_ARE_PES answered 1");
    CHECK(shmemx_query_interoperability(MPI_INITIALIZES_SHMEM) == 0, "MPI_INITIALIZES_SHMEM answered 1");
    CHECK(shmemx_query_interoperability(MPI_PROCESSES_ARE_PES) == by_mpi, "MPI_PROCESSES_ARE_PES answered %d",
          shmemx_query_interoperability(MPI_PROCESSES_ARE_PES));
    CHECK(shmemx_query_interoperability(SHMEM_INITIALIZES_MPI) == by_mpi, "SHMEM_INITIALIZES_MPI answered %d",
          shmemx_query_interoperability(SHMEM_INITIALIZES_MPI));

    shmem_barrier_all();
    if (me == 0)
        printf("quiet test ok\n");
    shmem_finalize();
    return 0;
}
