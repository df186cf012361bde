/* The distributed 3-D FFT of the NAS FT example and its global transpose,
 * done four ways (seed 003: Bell, Bonachea, Nishtala, Yelick):
 *
 * exchange  every local 1-D FFT first, then the blocks are packed and one
 *           all-to-all moves them: communication after computation;
 * slabs     as soon as the rows bound for one PE are transformed, one
 *           non-blocking put-with-signal sends them straight to their place in
 *           the other layout, while the next rows are computed: P messages per
 *           plane;
 * pencils   the same for every row: nx complex numbers per message, many more
 *           and smaller messages, sent even earlier;
 * nbexchange the pipelining of slabs with collectives: as soon as one plane's
 *           1-D FFTs are done, one non-blocking all-to-all
 *           (shmem_alltoallmem_nb) starts moving it while the next plane is
 *           computed; the requests are waited in order at the end, each
 *           plane's unpacking (forward) or column FFTs (inverse) overlapping
 *           the all-to-alls still running: nzl messages per transpose.
 *
 * slabs and pencils need no packing: a slab of layout A (one plane's rows of a
 * destination) is contiguous in layout B, and so is a plane of B in layout A.
 * The receiver learns that its data is complete from a signal counter per
 * direction, not from a barrier: the last message to each PE is a
 * put-with-signal (ADD 1) after a fence, which orders the earlier puts to
 * that PE before it, so each PE waits for P signals. (A signal on every
 * message would be simpler, but across nodes each put-with-signal waits for
 * its data to land, and the overlap would be gone.) Every
 * variant does the same floating-point operations on the same numbers, so
 * their checksums are bit-identical. */
#include "ft.h"

#include <string.h>

#ifndef FT_SHMEM_15
static long psync_a2a[2][SHMEM_ALLTOALL_SYNC_SIZE];
static int psync_a2a_next;
#endif

void ft_reset_signals(ft_t *ft) {
    ft->sig[0] = 0;
    ft->sig[1] = 0;
    ft->expect_fwd = 0;
    ft->expect_inv = 0;
#ifndef FT_SHMEM_15
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++) psync_a2a[s][i] = SHMEM_SYNC_VALUE;
    psync_a2a_next = 0;
#endif
    /* Nobody sends before every PE has cleared its counters. */
    shmem_barrier_all();
}

static void put(ft_t *ft, cplx *dest, const cplx *src, size_t n, int pe) {
    shmem_putmem_nbi(dest, src, n * sizeof(cplx), pe);
    ft->messages++;
}

/* The last message to pe: every earlier put to pe is delivered before the
 * signal. Across nodes the fence is where this PE waits for its earlier puts
 * to land, so its time counts as waiting, not as issuing puts. */
static void put_last(ft_t *ft, cplx *dest, const cplx *src, size_t n, ft_sig_t *sig, int pe) {
    double t = ft_now();
    shmem_fence();
    double waited = ft_now() - t;
    ft->t_wait += waited;
    ft->t_transpose -= waited; /* the caller times the whole send as transpose */
#if defined(SHMEM_SIGNAL_ADD)
    shmem_putmem_signal_nbi(dest, src, n * sizeof(cplx), sig, 1, SHMEM_SIGNAL_ADD, pe);
#else
    /* OpenSHMEM 1.4 has no put-with-signal: the fence orders the data before the counter update. */
    shmem_putmem_nbi(dest, src, n * sizeof(cplx), pe);
    shmem_fence();
    shmem_long_atomic_add(sig, 1, pe);
#endif
    ft->messages++;
}

static void wait_for(ft_t *ft, ft_sig_t *sig, ft_sig_t value) {
    double t = ft_now();
    shmem_quiet(); /* our own puts out of the source buffer before it is reused */
#if defined(SHMEM_SIGNAL_ADD)
    shmem_signal_wait_until(sig, SHMEM_CMP_GE, value);
#else
    shmem_long_wait_until(sig, SHMEM_CMP_GE, value);
#endif
    ft->t_wait += ft_now() - t;
}

/* Block p of `src` (bytes per PE) to PE p's `dest`, block q of dest from PE q. */
static void alltoall(ft_t *ft, cplx *dest, const cplx *src, size_t n) {
#ifdef FT_SHMEM_15
    shmem_alltoallmem(SHMEM_TEAM_WORLD, dest, src, n * sizeof(cplx));
#else
    /* Two pSync arrays in turn: the all-to-all between two uses of one array
     * has ended everywhere only after every PE left the earlier one. */
    shmem_alltoall64(dest, src, n * 2, 0, 0, ft->npes, psync_a2a[psync_a2a_next]);
    psync_a2a_next ^= 1;
#endif
    ft->messages++;
}

#ifdef FT_NBC
/* Starts the all-to-all of one plane (n complex numbers per PE), request r. */
static void alltoall_start(ft_t *ft, cplx *dest, const cplx *src, size_t n, int r) {
    shmem_alltoallmem_nb(SHMEM_TEAM_WORLD, dest, src, n * sizeof(cplx), &ft->req[r]);
    ft->messages++;
}

static void alltoall_wait(ft_t *ft, int r) {
    double t = ft_now();
    shmem_req_wait(&ft->req[r]);
    ft->t_wait += ft_now() - t;
}
#endif

/* Rows of one block, transformed in batches and sent to their place on pe
 * (row r at dest + r*dest_stride): with slabs as one message once all are
 * done, with pencils each row as soon as its batch is done. `last`: nothing
 * more goes to pe in this transpose, so the final message carries the signal. */
static void rows_then_send(ft_t *ft, int sign, cplx *rows, int nrows, cplx *dest, size_t dest_stride,
                           int pe, ft_sig_t *sig, int last) {
    int nx = ft->nx;
    if (ft->variant != PENCILS) {
        double t = ft_now();
        fft_rows(&ft->px, sign, rows, nrows);
        double t2 = ft_now();
        ft->t_compute += t2 - t;
        if (ft->variant == SLABS) {
            if (last)
                put_last(ft, dest, rows, (size_t)nrows * nx, sig, pe);
            else
                put(ft, dest, rows, (size_t)nrows * nx, pe);
            ft->t_transpose += ft_now() - t2;
        }
        return;
    }
    int batch = fft_row_batch();
    for (int r0 = 0; r0 < nrows; r0 += batch) {
        int b = nrows - r0 < batch ? nrows - r0 : batch;
        double t = ft_now();
        fft_rows(&ft->px, sign, rows + (size_t)r0 * nx, b);
        double t2 = ft_now();
        ft->t_compute += t2 - t;
        for (int r = r0; r < r0 + b; r++) {
            if (last && r == nrows - 1)
                put_last(ft, dest + (size_t)r * dest_stride, rows + (size_t)r * nx, (size_t)nx, sig, pe);
            else
                put(ft, dest + (size_t)r * dest_stride, rows + (size_t)r * nx, (size_t)nx, pe);
        }
        ft->t_transpose += ft_now() - t2;
    }
}

void fft3d_forward(ft_t *ft) {
    int P = ft->npes, me = ft->me, nx = ft->nx, ny = ft->ny, nzl = ft->nzl, nyl = ft->nyl;
    size_t plane = (size_t)nx * ny, slab = (size_t)nyl * nx;
    for (int kl = 0; kl < nzl; kl++) {
        cplx *pl = ft->xa + kl * plane;
        int k = me * nzl + kl;
        double t = ft_now();
        fft_cols(&ft->py, +1, pl, (size_t)nx, (size_t)nx);
        ft->t_compute += ft_now() - t;
        /* Rows bound for the next PE first, so that PEs do not all send to
         * the same one at once. */
        for (int r = 0; r < P; r++) {
            int q = (me + 1 + r) % P;
            rows_then_send(ft, +1, pl + q * slab, nyl, ft->u0 + (size_t)k * slab, (size_t)nx, q, &ft->sig[0],
                           kl == nzl - 1);
        }
#ifdef FT_NBC
        /* nbexchange: the plane's block q (its rows q*nyl..) is contiguous, so
         * it goes as it is; PE p's block lands at xbuf + kl*plane + p*slab. */
        if (ft->variant == NBEXCHANGE) {
            t = ft_now();
            alltoall_start(ft, ft->xbuf + kl * plane, pl, slab, kl);
            ft->t_transpose += ft_now() - t;
        }
#endif
    }
#ifdef FT_NBC
    if (ft->variant == NBEXCHANGE) {
        /* In initiation order; plane kl of PE p is plane k = p*nzl + kl, whose
         * rows of this PE belong at u0 + k*slab. */
        for (int kl = 0; kl < nzl; kl++) {
            alltoall_wait(ft, kl);
            double t1 = ft_now();
            for (int p = 0; p < P; p++)
                memcpy(ft->u0 + ((size_t)p * nzl + kl) * slab, ft->xbuf + kl * plane + (size_t)p * slab,
                       slab * sizeof(cplx));
            ft->t_transpose += ft_now() - t1;
        }
    } else
#endif
    if (ft->variant == EXCHANGE) {
        double t = ft_now();
        for (int q = 0; q < P; q++)
            for (int kl = 0; kl < nzl; kl++)
                memcpy(ft->xbuf + ((size_t)q * nzl + kl) * slab, ft->xa + kl * plane + q * slab,
                       slab * sizeof(cplx));
        alltoall(ft, ft->u0, ft->xbuf, (size_t)nzl * slab);
        ft->t_transpose += ft_now() - t;
    } else {
        ft->expect_fwd += (ft_sig_t)P; /* one signal from each PE */
        wait_for(ft, &ft->sig[0], ft->expect_fwd);
    }
    double t = ft_now();
    fft_cols(&ft->pz, +1, ft->u0, slab, slab);
    ft->t_compute += ft_now() - t;
}

#ifdef FT_NBC
/* The inverse transpose of nbexchange, after the z FFTs: plane kl of every
 * destination at once. Its blocks (plane p*nzl + kl of layout B for PE p) are
 * nzl*slab apart, so they are packed into xbuf + kl*plane first; each lands
 * where it belongs in layout A (rows me*nyl.. of PE p's plane kl), and the y
 * FFTs of a plane run as soon as its all-to-all has ended. */
static void inverse_nb(ft_t *ft) {
    int P = ft->npes, me = ft->me, nx = ft->nx, ny = ft->ny, nzl = ft->nzl, nyl = ft->nyl;
    size_t plane = (size_t)nx * ny, slab = (size_t)nyl * nx;
    for (int kl = 0; kl < nzl; kl++) {
        for (int r = 0; r < P; r++) {
            int p = (me + 1 + r) % P;
            rows_then_send(ft, -1, ft->wb + ((size_t)p * nzl + kl) * slab, nyl, NULL, 0, p, NULL, 0);
        }
        double t = ft_now();
        for (int p = 0; p < P; p++)
            memcpy(ft->xbuf + kl * plane + (size_t)p * slab, ft->wb + ((size_t)p * nzl + kl) * slab,
                   slab * sizeof(cplx));
        alltoall_start(ft, ft->xa + kl * plane, ft->xbuf + kl * plane, slab, kl);
        ft->t_transpose += ft_now() - t;
    }
    for (int kl = 0; kl < nzl; kl++) {
        alltoall_wait(ft, kl);
        double t = ft_now();
        fft_cols(&ft->py, -1, ft->xa + kl * plane, (size_t)nx, (size_t)nx);
        ft->t_compute += ft_now() - t;
    }
}
#endif

void fft3d_inverse(ft_t *ft) {
    int P = ft->npes, me = ft->me, nx = ft->nx, ny = ft->ny, nzl = ft->nzl, nyl = ft->nyl;
    size_t plane = (size_t)nx * ny, slab = (size_t)nyl * nx;
    double t = ft_now();
    fft_cols(&ft->pz, -1, ft->wb, slab, slab);
    ft->t_compute += ft_now() - t;
#ifdef FT_NBC
    if (ft->variant == NBEXCHANGE) {
        inverse_nb(ft);
        return;
    }
#endif
    /* Plane k of layout B is, in layout A, rows me*nyl.. of plane k of PE k/nzl. */
    for (int r = 0; r < P; r++) {
        int p = (me + 1 + r) % P;
        for (int kl = 0; kl < nzl; kl++) {
            int k = p * nzl + kl;
            rows_then_send(ft, -1, ft->wb + (size_t)k * slab, nyl, ft->xa + kl * plane + me * slab,
                           (size_t)nx, p, &ft->sig[1], kl == nzl - 1);
        }
    }
    if (ft->variant == EXCHANGE) {
        t = ft_now();
        alltoall(ft, ft->xbuf, ft->wb, (size_t)nzl * slab);
        for (int q = 0; q < P; q++)
            for (int kl = 0; kl < nzl; kl++)
                memcpy(ft->xa + kl * plane + q * slab, ft->xbuf + ((size_t)q * nzl + kl) * slab,
                       slab * sizeof(cplx));
        ft->t_transpose += ft_now() - t;
    } else {
        ft->expect_inv += (ft_sig_t)P;
        wait_for(ft, &ft->sig[1], ft->expect_inv);
    }
    t = ft_now();
    for (int kl = 0; kl < nzl; kl++) fft_cols(&ft->py, -1, ft->xa + kl * plane, (size_t)nx, (size_t)nx);
    ft->t_compute += ft_now() - t;
}
