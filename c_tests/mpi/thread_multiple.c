/* (b) MPI_Init_thread(MPI_THREAD_MULTIPLE), then
 * shmem_init_thread(SHMEM_THREAD_MULTIPLE): threads use shmem atomics and
 * MPI collectives (each on its own communicator) at the same time. */
#include <pthread.h>

#include "mixed.h"

#define THREADS 3
#define ROUNDS 200

static long hits;
static MPI_Comm comms[THREADS];

static void *work(void *arg) {
    int t = (int)(long)arg, me = shmem_my_pe(), n = shmem_n_pes();
    for (int i = 0; i < ROUNDS; i++) {
        shmem_long_atomic_inc(&hits, (me + 1) % n);
        if (i % 50 == 0) {
            int one = 1, sum = 0;
            MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comms[t]));
            CHECK(sum == n, "thread %d: MPI_Allreduce gave %d", t, sum);
        }
    }
    shmem_quiet();
    return NULL;
}

int main(int argc, char **argv) {
    int provided = -1;
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI provides thread level %d", provided);
    int granted = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &granted) == 0, "shmem_init_thread failed");
    CHECK(granted == SHMEM_THREAD_MULTIPLE, "shmem granted thread level %d", granted);
    mixed_exchange();
    for (int t = 0; t < THREADS; t++) MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++) CHECK(pthread_create(&th[t], NULL, work, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    shmem_barrier_all();
    CHECK(hits == THREADS * ROUNDS, "%ld increments arrived, expected %d", hits, THREADS * ROUNDS);
    for (int t = 0; t < THREADS; t++) MPI_OK(MPI_Comm_free(&comms[t]));
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_finalize();
    MPI_OK(MPI_Finalize());
    if (me == 0) printf("thread_multiple: ok %d\n", n);
    return 0;
}
