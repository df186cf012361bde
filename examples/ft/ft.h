/* NAS FT on OpenSHMEM: shared declarations of the example's three files.
 *
 * ft.c        classes, command line, initial condition, time steps, checksums,
 *             verification and the report;
 * fft.c       the batched 1-D FFT (radix-2 Stockham) and how it walks rows and
 *             columns of the local arrays;
 * transpose.c the distributed 3-D FFT: the four ways of doing its global
 *             transpose (exchange, slabs, pencils, nbexchange).
 *
 * Layouts (P PEs, me = this PE, nzl = nz/P, nyl = ny/P, i fastest everywhere):
 *   A ("z-slabs"): a[kl][j][i]  planes k = me*nzl + kl, every j and i;
 *   B ("y-slabs"): b[k][jl][i]  every k, rows j = me*nyl + jl, every i.
 * The forward 3-D FFT starts in A and ends in B, the inverse starts in B and
 * ends in A; the time steps work in B and the checksums read A. */
#ifndef FT_H
#define FT_H

#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    double re, im;
} cplx;

/* The 1.5 routines this program uses when the header has them; Open MPI 4.1's
 * OSHMEM is OpenSHMEM 1.4, so the same source builds there with the 1.4 forms. */
#if defined(SHMEM_MAJOR_VERSION) && (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION) >= 105
#define FT_SHMEM_15 1
#endif
/* The non-blocking team collectives (shmem_alltoallmem_nb, shmem_req_wait) of
 * the draft of OpenSHMEM's pull request 456, which rshmem's header has: the
 * nbexchange variant needs them and is refused without. */
#if defined(FT_SHMEM_15) && defined(SHMEM_REQ_INVALID)
#define FT_NBC 1
#endif
#if defined(SHMEM_SIGNAL_ADD)
typedef uint64_t ft_sig_t;
#else
typedef long ft_sig_t;
#endif

enum variant { EXCHANGE, SLABS, PENCILS, NBEXCHANGE, NVARIANTS };

typedef struct {
    int n, logn;
    cplx *w; /* w[r] = exp(+2*pi*i*r/n), r < n */
} fft_plan;

typedef struct {
    /* problem */
    int nx, ny, nz, niter;
    enum variant variant;
    /* decomposition */
    int me, npes, nzl, nyl;
    size_t local; /* complex elements per PE in either layout: nx*ny*nz/P */
    /* arrays (symmetric unless noted) */
    cplx *xa;     /* layout A: initial condition, forward input, inverse output */
    cplx *u0;     /* layout B: the spectrum U0, evolved in place */
    cplx *wb;     /* layout B: U0 * twiddle^t, the inverse FFT's input */
    cplx *xbuf;   /* exchange, nbexchange: packed blocks for the all-to-all */
#ifdef FT_NBC
    shmem_req_h *req; /* nbexchange, private: one request per plane (nzl) */
#endif
    double *tw;   /* layout B, private: exp(-4 alpha pi^2 (ibar^2 + jbar^2 + kbar^2)) */
    ft_sig_t *sig; /* [0] forward puts received, [1] inverse puts received */
    ft_sig_t expect_fwd, expect_inv;
    fft_plan px, py, pz;
    /* accounting for the report (timed run) */
    double t_compute, t_wait, t_transpose;
    long messages;
} ft_t;

/* fft.c */
int fft_plan_init(fft_plan *p, int n);
void fft_plan_free(fft_plan *p);
int fft_scratch_init(int nmax);
/* In place: `count` contiguous rows of length p->n starting at rows. */
void fft_rows(const fft_plan *p, int sign, cplx *rows, int count);
/* In place: columns c in [0, ncols), element j of column c at base[j*stride + c]. */
void fft_cols(const fft_plan *p, int sign, cplx *base, size_t stride, size_t ncols);
/* Rows processed together by fft_rows (pencil sends follow such a batch). */
int fft_row_batch(void);
/* "stockham" or "fftw": the 1-D FFT this build uses. */
const char *fft_name(void);

/* transpose.c */
void fft3d_forward(ft_t *ft);  /* xa (A) -> u0 (B) */
void fft3d_inverse(ft_t *ft);  /* wb (B) -> xa (A) */
void ft_reset_signals(ft_t *ft);

double ft_now(void);

#endif
