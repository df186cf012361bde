/* rshmem-test
 * np: 1 2 4
 * stderr: rshmem: warning: shmem_ctx_destroy (PE 0 of {np}): argument #1 'ctx' = 0x
 * stderr: is a SHMEM_CTX_PRIVATE context of thread 1001, used by thread 1002
 * stdout: gettid ok
 */
/* Sandia OpenSHMEM's shmemx_register_gettid, called before shmem_init_thread as SOS's
 * own test does: the program's thread ids (here 1000 + a thread number kept in
 * thread-specific data) name the thread a SHMEM_CTX_PRIVATE context belongs to. Eight
 * threads each create a private context, add to every PE's counter through it and destroy
 * it: no warning, and every counter is right. Then thread 1 creates a private context
 * and thread 2 destroys it: the one warning names both by the registered ids (the
 * kernel's thread ids would be other numbers). Registering NULL goes back to the kernel's
 * ids: a context created and destroyed by one thread after that warns nothing either. */
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>

#include "../common.h"

#define T 8

static int counter;
static pthread_key_t key;
static int me, npes;
static shmem_ctx_t handed;

static uint64_t my_gettid(void) {
    uint64_t *id = pthread_getspecific(key);
    return id ? *id : 999;
}

static void *worker(void *arg) {
    pthread_setspecific(key, arg);
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create failed");
    for (int pe = 0; pe < npes; pe++)
        shmem_ctx_int_atomic_add(ctx, &counter, 1, pe);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    return NULL;
}

static void *creator(void *arg) {
    pthread_setspecific(key, arg);
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &handed) == 0, "shmem_ctx_create failed");
    return NULL;
}

static void *destroyer(void *arg) {
    pthread_setspecific(key, arg);
    shmem_ctx_destroy(handed);
    return NULL;
}

static void run(void *(*f)(void *), uint64_t *id) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, f, id) == 0, "pthread_create failed");
    CHECK(pthread_join(t, NULL) == 0, "pthread_join failed");
}

int main(void) {
    CHECK(pthread_key_create(&key, NULL) == 0, "pthread_key_create failed");
    shmemx_register_gettid(&my_gettid);
    int provided = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0 && provided == SHMEM_THREAD_MULTIPLE,
          "shmem_init_thread gave %d", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();

    pthread_t threads[T];
    uint64_t ids[T + 2];
    for (int i = 0; i < T; i++) {
        ids[i] = 2000 + (uint64_t)i;
        CHECK(pthread_create(&threads[i], NULL, worker, &ids[i]) == 0, "pthread_create failed");
    }
    for (int i = 0; i < T; i++)
        CHECK(pthread_join(threads[i], NULL) == 0, "pthread_join failed");
    shmem_barrier_all();
    CHECK(counter == T * npes, "counter %d, want %d", counter, T * npes);

    if (me == 0) {
        ids[T] = 1001;
        ids[T + 1] = 1002;
        run(creator, &ids[T]);
        run(destroyer, &ids[T + 1]);
    }

    shmemx_register_gettid(NULL);
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create failed");
    shmem_ctx_destroy(ctx);

    shmem_barrier_all();
    if (me == 0)
        printf("gettid ok\n");
    shmem_finalize();
    return 0;
}
