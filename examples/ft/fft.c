/* The 1-D FFTs of the NAS FT example: radix-4 Stockham autosort (with one
 * radix-2 pass when log2 n is odd), batched.
 *
 * A batch holds b transforms of length n interleaved: element j of transform t
 * is at x[j*b + t]. Stockham needs no bit reversal: each of the ~log4(n) passes
 * reads one buffer and writes the other, and its innermost loop runs over a
 * contiguous stretch (b elements at the first pass, doubling at each pass),
 * which the compiler vectorises. Columns of a 3-D array (stride nx or more)
 * are copied b at a time into such a batch and back, as NAS's own cffts2/3 do;
 * rows are copied transposed.
 *
 * Built with -DFT_FFTW (and FFTW 3's flags), the batches go to FFTW instead,
 * planned once per size, batch and direction (the seed used FFTW).
 *
 * Direction: sign +1 computes X_m = sum_j x_j exp(+2 pi i j m / n) (the
 * benchmark's forward transform), sign -1 the conjugate; neither is scaled. */
#include "ft.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef FT_FFTW
#include <fftw3.h>
#endif

/* Transforms per batch: 16 columns of 512 points are 128 KiB per buffer,
 * which with its twin stays in a 512 KiB L2 cache. */
#ifndef FT_BATCH
#define FT_BATCH 16
#endif
#define BATCH FT_BATCH

static cplx *scratch_x, *scratch_y;

int fft_row_batch(void) { return BATCH; }

#ifdef FT_FFTW
const char *fft_name(void) { return "fftw"; }

/* Plans by (log2 n, batch, direction), out of place from scratch_x to scratch_y. */
static fftw_plan plans[32][BATCH + 1][2];

static cplx *batch_fft(const fft_plan *p, int sign, int b, cplx *x, cplx *y) {
    fftw_plan *plan = &plans[p->logn][b][sign > 0];
    if (!*plan) {
        int n = p->n;
        /* FFTW's BACKWARD is exp(+2 pi i ...), the benchmark's forward. */
        *plan = fftw_plan_many_dft(1, &n, b, (fftw_complex *)x, NULL, b, 1, (fftw_complex *)y, NULL, b, 1,
                                   sign > 0 ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
        if (!*plan) abort();
    }
    fftw_execute_dft(*plan, (fftw_complex *)x, (fftw_complex *)y);
    return y;
}
#else
const char *fft_name(void) { return "stockham"; }
#endif

int fft_plan_init(fft_plan *p, int n) {
    p->n = n;
    p->logn = 0;
    while ((1 << p->logn) < n) p->logn++;
    if ((1 << p->logn) != n) return -1;
    p->w = malloc(sizeof(cplx) * (size_t)n);
    if (!p->w) return -1;
    for (int r = 0; r < n; r++) {
        double a = 2.0 * M_PI * (double)r / (double)n;
        p->w[r].re = cos(a);
        p->w[r].im = sin(a);
    }
    return 0;
}

void fft_plan_free(fft_plan *p) {
    free(p->w);
    p->w = NULL;
}

int fft_scratch_init(int nmax) {
    free(scratch_x);
    free(scratch_y);
    scratch_x = aligned_alloc(64, sizeof(cplx) * (size_t)nmax * BATCH);
    scratch_y = aligned_alloc(64, sizeof(cplx) * (size_t)nmax * BATCH);
    return scratch_x && scratch_y ? 0 : -1;
}

#ifndef FT_FFTW
/* One radix-2 pass: length len, stride s (transforms of the pass below). */
static void pass2(const cplx *w, size_t step, int sign, int len, size_t s, const cplx *x, cplx *y) {
    int m = len / 2;
    for (int q = 0; q < m; q++) {
        double wr = w[q * step].re, wi = sign * w[q * step].im;
        const cplx *restrict a = x + s * q;
        const cplx *restrict c = x + s * (q + m);
        cplx *restrict y0 = y + s * (2 * q);
        cplx *restrict y1 = y + s * (2 * q + 1);
        for (size_t r = 0; r < s; r++) {
            double ar = a[r].re, ai = a[r].im, cr = c[r].re, ci = c[r].im;
            double dr = ar - cr, di = ai - ci;
            y0[r].re = ar + cr;
            y0[r].im = ai + ci;
            y1[r].re = dr * wr - di * wi;
            y1[r].im = dr * wi + di * wr;
        }
    }
}

/* One radix-4 pass: the four-point DFT of x[p], x[p+len/4], x[p+len/2],
 * x[p+3len/4], then the twiddles w^p, w^2p, w^3p (w = exp(sign 2 pi i/len)). */
static void pass4(const cplx *w, size_t step, int sign, int len, size_t s, const cplx *x, cplx *y) {
    int m = len / 4;
    double sg = (double)sign;
    for (int q = 0; q < m; q++) {
        double w1r = w[q * step].re, w1i = sg * w[q * step].im;
        double w2r = w[2 * q * step].re, w2i = sg * w[2 * q * step].im;
        double w3r = w[3 * q * step].re, w3i = sg * w[3 * q * step].im;
        const cplx *restrict a = x + s * q;
        const cplx *restrict b = x + s * (q + m);
        const cplx *restrict c = x + s * (q + 2 * m);
        const cplx *restrict d = x + s * (q + 3 * m);
        cplx *restrict y0 = y + s * (4 * q);
        cplx *restrict y1 = y + s * (4 * q + 1);
        cplx *restrict y2 = y + s * (4 * q + 2);
        cplx *restrict y3 = y + s * (4 * q + 3);
        for (size_t r = 0; r < s; r++) {
            double apcr = a[r].re + c[r].re, apci = a[r].im + c[r].im;
            double amcr = a[r].re - c[r].re, amci = a[r].im - c[r].im;
            double bpdr = b[r].re + d[r].re, bpdi = b[r].im + d[r].im;
            /* sign * i * (b - d) */
            double jr = -sg * (b[r].im - d[r].im), ji = sg * (b[r].re - d[r].re);
            double t1r = amcr + jr, t1i = amci + ji;
            double t2r = apcr - bpdr, t2i = apci - bpdi;
            double t3r = amcr - jr, t3i = amci - ji;
            y0[r].re = apcr + bpdr;
            y0[r].im = apci + bpdi;
            y1[r].re = t1r * w1r - t1i * w1i;
            y1[r].im = t1r * w1i + t1i * w1r;
            y2[r].re = t2r * w2r - t2i * w2i;
            y2[r].im = t2r * w2i + t2i * w2r;
            y3[r].re = t3r * w3r - t3i * w3i;
            y3[r].im = t3r * w3i + t3i * w3r;
        }
    }
}

/* b interleaved transforms in x (y: scratch of the same size); returns the
 * buffer that holds the result. */
static cplx *batch_fft(const fft_plan *p, int sign, int b, cplx *x, cplx *y) {
    size_t s = (size_t)b, step = 1;
    int len = p->n;
    while (len > 1) {
        if (len % 4 == 0) {
            pass4(p->w, step, sign, len, s, x, y);
            len /= 4, s *= 4, step *= 4;
        } else {
            pass2(p->w, step, sign, len, s, x, y);
            len /= 2, s *= 2, step *= 2;
        }
        cplx *t = x;
        x = y;
        y = t;
    }
    return x;
}
#endif

void fft_rows(const fft_plan *p, int sign, cplx *rows, int count) {
    int n = p->n;
    for (int r0 = 0; r0 < count; r0 += BATCH) {
        int b = count - r0 < BATCH ? count - r0 : BATCH;
        cplx *base = rows + (size_t)r0 * n;
        for (int t = 0; t < b; t++)
            for (int j = 0; j < n; j++) scratch_x[(size_t)j * b + t] = base[(size_t)t * n + j];
        cplx *out = batch_fft(p, sign, b, scratch_x, scratch_y);
        for (int t = 0; t < b; t++)
            for (int j = 0; j < n; j++) base[(size_t)t * n + j] = out[(size_t)j * b + t];
    }
}

void fft_cols(const fft_plan *p, int sign, cplx *base, size_t stride, size_t ncols) {
    int n = p->n;
    for (size_t c0 = 0; c0 < ncols; c0 += BATCH) {
        int b = ncols - c0 < BATCH ? (int)(ncols - c0) : BATCH;
        for (int j = 0; j < n; j++)
            memcpy(scratch_x + (size_t)j * b, base + (size_t)j * stride + c0, sizeof(cplx) * b);
        cplx *out = batch_fft(p, sign, b, scratch_x, scratch_y);
        for (int j = 0; j < n; j++)
            memcpy(base + (size_t)j * stride + c0, out + (size_t)j * b, sizeof(cplx) * b);
    }
}
