/* threads mode: the seed's design (pack and unpack workers, one
 * communication thread, a flag per message) on CPU threads.
 *
 * T worker threads live for the whole run. In each iteration they take
 * messages from a shared counter, largest first, pack each and set its
 * send-ready flag; the PE's main thread is the communication thread: it waits
 * on the send-ready set and puts each message as soon as its flag is set, on
 * a context of its own, with the receiver's arrival (unpack-ready) flag as the
 * put's signal. The workers then wait on the arrival set and unpack each
 * message as it lands, and finally run the stencil on disjoint planes. In the
 * seed the CPU turns completed receives into unpack-ready flags; with
 * put-with-signal the arriving put sets the flag itself.
 *
 * Two thread barriers per iteration order the phases: start (the previous
 * stencil is done and the communication thread has quieted its puts, so the
 * arrays and send buffers are free) and exchanged (every ghost is in); the
 * stencil runs between exchanged and the next start, and one more barrier
 * ends the last. */
#include "halo.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    halo_t *h;
    pthread_barrier_t bar;
    atomic_int next_pack;   /* position in h->order of the next message to pack */
    atomic_int next_unpack; /* arrivals claimed by workers so far */
} team_t;

typedef struct {
    team_t *team;
    int id;
} worker_t;

static double *current(const halo_t *h, int it) { return h->stencil ? h->u[it & 1] : h->u[0]; }

static void *worker(void *arg) {
    const worker_t *w = arg;
    team_t *t = w->team;
    halo_t *h = t->h;
    int total = h->warmup + h->iters;
    /* Planes of this worker's share of the stencil. */
    int k0 = 1 + (int)((long)h->n[2] * w->id / h->threads);
    int k1 = (int)((long)h->n[2] * (w->id + 1) / h->threads);
    for (int it = 0; it < total; it++) {
        double *u = current(h, it);
        pthread_barrier_wait(&t->bar); /* start */
        int o;
        while ((o = atomic_fetch_add(&t->next_pack, 1)) < NDIRS) {
            int k = h->order[o];
            pack(h, u, k, h->send + h->msg[k].offset);
            shmemx_notify_set(h->ready, (size_t)k);
        }
        /* Exactly NDIRS messages arrive: each claim is one arrival to wait for. */
        while (atomic_fetch_add(&t->next_unpack, 1) < NDIRS) {
            int k = (int)shmemx_notify_wait_any(h->arrive[it & 1]);
            unpack(h, u, k, recv_slot(h, it & 1, k));
        }
        pthread_barrier_wait(&t->bar); /* exchanged */
        if (h->stencil && k0 <= k1) stencil(h->n, h->u[(it + 1) & 1], u, k0, k1);
    }
    pthread_barrier_wait(&t->bar); /* the last stencil is done */
    return NULL;
}

int run_threads(halo_t *h) {
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        fprintf(stderr, "halo: PE %d cannot create a communication context\n", h->me);
        return -1;
    }
    team_t t;
    t.h = h;
    atomic_init(&t.next_pack, 0);
    atomic_init(&t.next_unpack, 0);
    pthread_barrier_init(&t.bar, NULL, (unsigned)h->threads + 1);
    worker_t *ws = malloc((size_t)h->threads * sizeof *ws);
    pthread_t *tids = malloc((size_t)h->threads * sizeof *tids);
    int started = 0;
    if (ws && tids)
        for (; started < h->threads; started++) {
            ws[started].team = &t;
            ws[started].id = started;
            if (pthread_create(&tids[started], NULL, worker, &ws[started]) != 0) break;
        }
    if (started < h->threads) {
        /* Threads already started would wait at the first barrier forever. */
        fprintf(stderr, "halo: PE %d cannot start %d worker threads\n", h->me, h->threads);
        shmem_global_exit(2);
    }
    int total = h->warmup + h->iters;
    double stencil_from = 0, timed_from = 0;
    for (int it = 0; it < total; it++) {
        int par = it & 1, timed = it >= h->warmup;
        if (it == h->warmup) {
            shmem_barrier_all();
            timed_from = halo_now();
        }
        /* Workers touch the counters only between start and exchanged. */
        atomic_store(&t.next_pack, 0);
        atomic_store(&t.next_unpack, 0);
        pthread_barrier_wait(&t.bar); /* start */
        double t0 = halo_now();
        if (timed && it > h->warmup && h->stencil) h->t_stencil += t0 - stencil_from;
        for (int sent = 0; sent < NDIRS; sent++) {
            int k = (int)shmemx_notify_wait_any(h->ready);
            const message_t *m = &h->msg[k];
            shmemx_ctx_notify_put_nbi(ctx, h->arrive[par], (size_t)m->opposite, recv_slot(h, par, m->opposite),
                                      h->send + m->offset, m->doubles * sizeof(double), m->pe);
        }
        double t1 = halo_now();
        /* The send buffers are packed again next iteration. */
        shmem_ctx_quiet(ctx);
        pthread_barrier_wait(&t.bar); /* exchanged */
        double t2 = halo_now();
        stencil_from = t2;
        if (timed) {
            h->t_pack += t1 - t0;
            h->t_wait += t2 - t1;
            h->t_halo += t2 - t0;
        }
    }
    pthread_barrier_wait(&t.bar); /* the last stencil is done */
    double end = halo_now();
    if (h->stencil) h->t_stencil += end - stencil_from;
    h->t_iter = end - timed_from;
    for (int i = 0; i < h->threads; i++) pthread_join(tids[i], NULL);
    pthread_barrier_destroy(&t.bar);
    free(ws);
    free(tids);
    shmem_ctx_destroy(ctx);
    return 0;
}
