/* Helpers of the programs that use MPI and OpenSHMEM together. */
#ifndef RSHMEM_C_TESTS_MPI_MIXED_H
#define RSHMEM_C_TESTS_MPI_MIXED_H

#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

/* Fails the program, naming the MPI rank and the line, when cond is false
 * (the rank, not the PE: it is known before shmem_init and after
 * shmem_finalize). */
#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            char msg_[512];                                                           \
            int rank_ = -1, up_ = 0, down_ = 0;                                       \
            MPI_Initialized(&up_);                                                    \
            MPI_Finalized(&down_);                                                    \
            if (up_ && !down_) MPI_Comm_rank(MPI_COMM_WORLD, &rank_);                 \
            snprintf(msg_, sizeof msg_, __VA_ARGS__);                                 \
            fprintf(stderr, "FAIL rank %d line %d: %s\n", rank_, __LINE__, msg_);     \
            fflush(stderr);                                                           \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

/* MPI calls must succeed (MPI_COMM_WORLD's default handler aborts anyway;
 * this names the line). */
#define MPI_OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

/* shmem atomics compute a sum, MPI_Allreduce sums it over the ranks; shmem
 * puts, then MPI_Barrier, then every PE checks what it received. Shared by
 * the programs that differ in how they start and end. */
static long mixed_counter;
static long mixed_slots[64];

static void mixed_exchange(void) {
    int me = shmem_my_pe(), n = shmem_n_pes(), rank = -1, size = -1;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    /* rshmem numbers PEs as MPI_COMM_WORLD ranks (the spec leaves it open). */
    CHECK(me == rank && n == size, "PE %d of %d but rank %d of %d", me, n, rank, size);
    CHECK(n <= 64, "at most 64 PEs, not %d", n);

    /* Every PE adds me+1 to every PE's counter: each ends at n(n+1)/2. */
    for (int pe = 0; pe < n; pe++) shmem_long_atomic_add(&mixed_counter, me + 1, pe);
    shmem_barrier_all();
    long mine = shmem_long_atomic_fetch(&mixed_counter, me), total = 0;
    long want = (long)n * (n + 1) / 2;
    CHECK(mine == want, "counter %ld, expected %ld", mine, want);
    MPI_OK(MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(total == n * want, "MPI_Allreduce gave %ld, expected %ld", total, n * want);

    /* Puts completed by shmem_quiet, ordered by MPI_Barrier alone. */
    for (int pe = 0; pe < n; pe++) shmem_long_p(&mixed_slots[me], 1000L * me + pe, pe);
    shmem_quiet();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int pe = 0; pe < n; pe++)
        CHECK(mixed_slots[pe] == 1000L * pe + me, "slot %d holds %ld, expected %ld", pe, mixed_slots[pe],
              1000L * pe + me);

    /* And the other way round: an MPI message says what shmem_g must read. */
    long token = rank == 0 ? 4242 : 0;
    MPI_OK(MPI_Bcast(&token, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    CHECK(token == 4242, "MPI_Bcast gave %ld", token);
    long far = shmem_long_g(&mixed_slots[(me + 1) % n], (me + 1) % n);
    CHECK(far == 1000L * ((me + 1) % n) + (me + 1) % n, "shmem_g read %ld", far);
    shmem_barrier_all();
}

#endif
