/* The halo exchange of one iteration in bulk and notify modes, and the
 * strided pack/unpack copies every mode uses.
 *
 * Receive slots are symmetric and double-buffered by iteration parity: a
 * neighbour can send iteration it+1 only after it has received this PE's
 * message of iteration it, which this PE sends only after unpacking
 * everything of it-1, so a slot is never overwritten before it is unpacked
 * and no barrier is needed between iterations. */
#include "halo.h"

#include <string.h>

/* Copies the cells of box b (x fastest, then y, then z) between the array and
 * a contiguous buffer: one memcpy per row of the box, or the 3 doubles of a
 * cell when rows are one cell long (the x faces and the edges along y or z). */
static void copy_box(const int n[3], const box_t *b, double *u, double *buf, int to_buf) {
    size_t row = (size_t)(b->hi[0] - b->lo[0] + 1) * NVARS;
    for (int k = b->lo[2]; k <= b->hi[2]; k++)
        for (int j = b->lo[1]; j <= b->hi[1]; j++, buf += row) {
            double *cells = &u[cell_index(n, b->lo[0], j, k) * NVARS];
            double *dst = to_buf ? buf : cells;
            const double *src = to_buf ? cells : buf;
            if (row == NVARS)
                for (int v = 0; v < NVARS; v++) dst[v] = src[v];
            else
                memcpy(dst, src, row * sizeof(double));
        }
}

void pack(const halo_t *h, const double *u, int k, double *buf) {
    /* The array is only read (to_buf). */
    copy_box(h->n, &h->msg[k].send, (double *)u, buf, 1);
}

void unpack(const halo_t *h, double *u, int k, const double *buf) {
    copy_box(h->n, &h->msg[k].recv, u, (double *)buf, 0);
}

/* This PE's slot (symmetric) for the message from direction k in the
 * receive area of `parity`. */
double *recv_slot(const halo_t *h, int parity, int k) {
    return h->recv + (size_t)parity * h->area + h->msg[k].offset;
}

/* The seed's baseline: pack all, put all, wait for all, unpack all. Each put
 * carries its own signal word; the value is the iteration number + 1, so the
 * words never need resetting. */
void exchange_bulk(halo_t *h, double *u, int it, int timed) {
    int par = it & 1;
    double t0 = halo_now();
    for (int k = 0; k < NDIRS; k++) pack(h, u, k, h->send + h->msg[k].offset);
    for (int k = 0; k < NDIRS; k++) {
        const message_t *m = &h->msg[k];
        shmem_putmem_signal_nbi(recv_slot(h, par, m->opposite), h->send + m->offset, m->doubles * sizeof(double),
                                &h->sig[par * NDIRS + m->opposite], (uint64_t)it + 1, SHMEM_SIGNAL_SET, m->pe);
    }
    double t1 = halo_now();
    shmem_uint64_wait_until_all(&h->sig[par * NDIRS], NDIRS, NULL, SHMEM_CMP_EQ, (uint64_t)it + 1);
    /* The send buffers are packed again next iteration. */
    shmem_quiet();
    double t2 = halo_now();
    for (int k = 0; k < NDIRS; k++) unpack(h, u, k, recv_slot(h, par, k));
    double t3 = halo_now();
    if (timed) {
        h->t_pack += t1 - t0;
        h->t_wait += t2 - t1;
        h->t_unpack += t3 - t2;
        h->t_halo += t3 - t0;
    }
}

/* Per-message notifications: each message is put as soon as it is packed,
 * largest first, and each arrival is unpacked as soon as its flag is READY,
 * in arrival order. */
void exchange_notify(halo_t *h, double *u, int it, int timed) {
    int par = it & 1;
    double t0 = halo_now();
    for (int o = 0; o < NDIRS; o++) {
        int k = h->order[o];
        const message_t *m = &h->msg[k];
        double *buf = h->send + m->offset;
        pack(h, u, k, buf);
        shmemx_notify_put_nbi(h->arrive[par], (size_t)m->opposite, recv_slot(h, par, m->opposite), buf,
                              m->doubles * sizeof(double), m->pe);
    }
    double t1 = halo_now(), waited = 0, unpacking = 0;
    for (int n = 0; n < NDIRS; n++) {
        double a = halo_now();
        int k = (int)shmemx_notify_wait_any(h->arrive[par]);
        double b = halo_now();
        unpack(h, u, k, recv_slot(h, par, k));
        waited += b - a;
        unpacking += halo_now() - b;
    }
    double t2 = halo_now();
    shmem_quiet();
    double t3 = halo_now();
    if (timed) {
        h->t_pack += t1 - t0;
        h->t_wait += waited + (t3 - t2);
        h->t_unpack += unpacking;
        h->t_halo += t3 - t0;
    }
}
