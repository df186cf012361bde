/* Threaded PEs whose waits cannot end, each thread somewhere else. Every PE
 * but the last asks for SHMEM_THREAD_MULTIPLE and runs two threads: one
 * waits for flag == 1, which nobody writes, the other in shmem_barrier_all,
 * which the last PE never reaches: it waits for flag == 1 too, in its only
 * thread (a PE counts as blocked only by its own place, and a threaded PE's
 * is a barrier_all's). With FINALIZE=1 in the environment (2 PEs, both
 * threaded), PE 1's main thread calls shmem_finalize instead of joining its
 * threads: the library itself reports the job can never finish. */
#include <pthread.h>
#include <shmem.h>
#include <stdlib.h>

int flag;

static void *waits(void *arg) {
    (void)arg;
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
    return NULL;
}

static void *barrier(void *arg) {
    (void)arg;
    shmem_barrier_all();
    return NULL;
}

int main(void) {
    int finalize = getenv("FINALIZE") != NULL;
    /* The thread level is asked for at shmem_init, before shmem_my_pe: the
     * PE number and count as the launcher passes them (oshrun, or Open MPI's
     * mpirun for a job across nodes). */
    const char *pe = getenv("RSHMEM_PE"), *n = getenv("RSHMEM_NPES");
    if (!pe || !n) pe = getenv("OMPI_COMM_WORLD_RANK"), n = getenv("OMPI_COMM_WORLD_SIZE");
    if (!finalize && pe && n && atoi(pe) == atoi(n) - 1) {
        shmem_init();
        waits(NULL);
        return 0;
    }
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    int me = shmem_my_pe();
    if (provided != SHMEM_THREAD_MULTIPLE) shmem_global_exit(2);
    pthread_t t[2];
    pthread_create(&t[0], NULL, waits, NULL);
    if (finalize && me == 1) {
        shmem_finalize();
        return 0;
    }
    pthread_create(&t[1], NULL, barrier, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    shmem_finalize();
    return 0;
}
