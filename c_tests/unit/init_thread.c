/* rshmem-test
 * np: 1 2 4 8
 * cflags: -pthread
 */
/* shmem_init_thread(SHMEM_THREAD_MULTIPLE) and shmem_query_thread; then several
 * threads of every PE put into distinct slots of the right neighbour at once. */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define NTHREADS 4
#define PER_THREAD 64

static long slots[NTHREADS * PER_THREAD];

static void *worker(void *arg) {
    int t = (int)(long)arg;
    int me = shmem_my_pe(), right = (me + 1) % shmem_n_pes();
    for (int i = 0; i < PER_THREAD; i++) {
        int k = t * PER_THREAD + i;
        shmem_long_p(&slots[k], 1000L * me + k, right);
    }
    shmem_quiet();
    return NULL;
}

int main(void) {
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(rc == 0, "shmem_init_thread returned %d", rc);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d, wanted SHMEM_THREAD_MULTIPLE (%d)", provided,
          SHMEM_THREAD_MULTIPLE);
    int queried = -1;
    shmem_query_thread(&queried);
    CHECK(queried == provided, "shmem_query_thread gave %d, init gave %d", queried, provided);
    CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED && SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
              SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
          "thread level constants are not increasing");

    int me = shmem_my_pe(), npes = shmem_n_pes();
    int left = (me + npes - 1) % npes;
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    for (int k = 0; k < NTHREADS * PER_THREAD; k++)
        CHECK(slots[k] == 1000L * left + k, "slot %d is %ld, wanted %ld", k, slots[k], 1000L * left + k);

    shmem_finalize();
    return 0;
}
