/* Conjugate gradients on OpenSHMEM with the global reduction of each
 * iteration overlapped with the sparse matrix-vector product (issue 36).
 *
 * The system is the 7-point Laplacian of an n^3 grid with zero (Dirichlet)
 * boundaries, A x = b, split over the PEs in slabs of n/P planes along z. The
 * solver is pipelined CG (P. Ghysels and W. Vanroose, "Hiding global
 * synchronization latency in the preconditioned Conjugate Gradient algorithm",
 * Parallel Computing 40(7), 2014): its one reduction per iteration, the two
 * dot products gamma = (r, r) and delta = (w, r), does not depend on the
 * product q = A w that follows it, so the two can run at the same time.
 *
 *   blocking  shmem_double_sum_reduce, then the halo exchange and q = A w;
 *   nb        shmem_double_sum_reduce_nb, the halo exchange and q = A w while
 *             the reduction runs, then shmem_req_wait.
 *
 * Both do the same floating-point operations in the same order (the same
 * reduction algorithm runs in both), so they print the same checksum, bit for
 * bit. The halo exchange puts each boundary plane into the neighbour's ghost
 * plane with a put-with-signal: no collective, so nothing waits for the
 * reduction in flight. Ghost planes alternate by halo parity; a PE overwrites
 * one only after the reduction of the iteration between (which needs every
 * PE's contribution, made after its product) has completed.
 *
 *   cg [-v blocking|nb] [-n SIDE] [-i MAXITER] [-t TOL]
 *
 * It stops when ||r|| <= TOL ||b|| (TOL 0: after MAXITER iterations), then
 * computes the true residual ||b - A x|| and checks it against 10 TOL ||b||.
 * PE 0 prints a report and one RESULT line. Exit status: 0 verified (or TOL
 * 0), 1 not converged or the true residual too large, 2 bad usage or not
 * enough memory. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <shmem.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define USAGE "usage: cg [-v blocking|nb] [-n SIDE] [-i MAXITER] [-t TOL]"

enum variant { BLOCKING, NB };
static const char *variant_names[] = {"blocking", "nb"};

typedef struct {
    enum variant variant;
    int me, npes, n, nzl;
    size_t plane, local; /* n*n; nzl*n*n */
    /* symmetric */
    double *ghost;  /* [parity][side][plane]; side 0 from the PE below, 1 from above */
    uint64_t *sig;  /* [side]: ghost planes received */
    double *red;    /* [0..1] this PE's gamma and delta, [2..3] the sums */
    uint64_t expect[2];
    int halos;
    /* seconds, timed loop */
    double t_reduce, t_product, t_update;
} cg_t;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* out = A c for one plane: 6 c minus its four neighbours in the plane and the
 * planes below (b) and above (a), NULL beyond the boundary. */
static void stencil_plane(int n, double *out, const double *c, const double *b, const double *a) {
    for (int j = 0; j < n; j++) {
        const double *cj = c + (size_t)j * n;
        const double *cm = j > 0 ? cj - n : NULL, *cp = j < n - 1 ? cj + n : NULL;
        const double *bj = b ? b + (size_t)j * n : NULL, *aj = a ? a + (size_t)j * n : NULL;
        double *o = out + (size_t)j * n;
        for (int i = 0; i < n; i++) {
            double v = 6.0 * cj[i];
            if (i > 0) v -= cj[i - 1];
            if (i < n - 1) v -= cj[i + 1];
            if (cm) v -= cm[i];
            if (cp) v -= cp[i];
            if (bj) v -= bj[i];
            if (aj) v -= aj[i];
            o[i] = v;
        }
    }
}

/* out = A in: the boundary planes go to the neighbours first, the interior
 * planes are computed while they travel, then the two boundary planes. */
static void product(cg_t *cg, double *out, const double *in) {
    int parity = cg->halos++ & 1, nzl = cg->nzl, n = cg->n;
    size_t plane = cg->plane;
    double *lo = cg->ghost + (size_t)(2 * parity) * plane, *hi = lo + plane;
    if (cg->me > 0) {
        shmem_putmem_signal(hi, in, plane * sizeof(double), &cg->sig[1], 1, SHMEM_SIGNAL_ADD, cg->me - 1);
        cg->expect[0]++;
    }
    if (cg->me < cg->npes - 1) {
        shmem_putmem_signal(lo, in + (size_t)(nzl - 1) * plane, plane * sizeof(double), &cg->sig[0], 1,
                            SHMEM_SIGNAL_ADD, cg->me + 1);
        cg->expect[1]++;
    }
    for (int k = 1; k < nzl - 1; k++)
        stencil_plane(n, out + k * plane, in + k * plane, in + (k - 1) * plane, in + (k + 1) * plane);
    const double *below = NULL, *above = NULL;
    if (cg->me > 0) {
        shmem_signal_wait_until(&cg->sig[0], SHMEM_CMP_GE, cg->expect[0]);
        below = lo;
    }
    if (cg->me < cg->npes - 1) {
        shmem_signal_wait_until(&cg->sig[1], SHMEM_CMP_GE, cg->expect[1]);
        above = hi;
    }
    stencil_plane(n, out, in, below, nzl > 1 ? in + plane : above);
    if (nzl > 1)
        stencil_plane(n, out + (nzl - 1) * plane, in + (nzl - 1) * plane, in + (nzl - 2) * plane, above);
}

/* red[2..3] = the sums over the PEs of red[0..1], in this variant's way,
 * with `overlap` (q = A w) run while the nb reduction is in flight. */
static void reduce2(cg_t *cg, double *q, const double *w) {
    double t = now();
    if (cg->variant == NB) {
        shmem_req_h req;
        shmem_double_sum_reduce_nb(SHMEM_TEAM_WORLD, cg->red + 2, cg->red, 2, &req);
        double t1 = now();
        if (q) product(cg, q, w);
        double t2 = now();
        shmem_req_wait(&req);
        cg->t_reduce += (t1 - t) + (now() - t2);
        cg->t_product += t2 - t1;
        return;
    }
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, cg->red + 2, cg->red, 2);
    double t1 = now();
    if (q) product(cg, q, w);
    cg->t_reduce += t1 - t;
    cg->t_product += now() - t1;
}

/* The right-hand side: a fixed pseudo-random value in [0.5, 1.5) per global
 * cell, the same at every PE count. */
static double rhs(uint64_t g) {
    uint64_t z = g + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return 0.5 + (double)(z >> 11) * 0x1.0p-53;
}

static uint64_t mix(uint64_t g, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t z = bits ^ (g * 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
    return z ^ (z >> 33);
}

static long number(const char *s, long min, long max) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || end == s || *end || v < min || v > max ? -1 : v;
}

int main(int argc, char **argv) {
    shmem_init();
    cg_t cg;
    memset(&cg, 0, sizeof cg);
    cg.me = shmem_my_pe();
    cg.npes = shmem_n_pes();
    cg.n = 64;
    long maxit = 1000;
    double tol = 1e-8;
    const char *error = NULL;
    for (int a = 1; a < argc && !error; a += 2) {
        const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (o[0] != '-' || !o[1] || o[2] || !v) {
            error = "bad argument";
            break;
        }
        char *end;
        switch (o[1]) {
        case 'v':
            if (!strcmp(v, "blocking")) cg.variant = BLOCKING;
            else if (!strcmp(v, "nb")) cg.variant = NB;
            else error = "bad variant";
            break;
        case 'n':
            cg.n = (int)number(v, 2, 4096);
            if (cg.n < 0) error = "bad side";
            break;
        case 'i':
            maxit = number(v, 1, 100000000);
            if (maxit < 0) error = "bad iteration count";
            break;
        case 't':
            tol = strtod(v, &end);
            if (end == v || *end || !(tol >= 0)) error = "bad tolerance";
            break;
        default: error = "unknown option";
        }
    }
    if (!error && cg.n % cg.npes)
        error = "the PE count must divide the side (-n)";
    if (error) {
        if (cg.me == 0) fprintf(stderr, "cg: %s (%d PEs, side %d); %s\n", error, cg.npes, cg.n, USAGE);
        shmem_finalize();
        return 2;
    }
    int n = cg.n;
    cg.nzl = n / cg.npes;
    cg.plane = (size_t)n * n;
    cg.local = (size_t)cg.nzl * cg.plane;
    size_t local = cg.local;
    uint64_t first = (uint64_t)cg.me * local;
    cg.ghost = shmem_calloc(4 * cg.plane, sizeof(double));
    cg.sig = shmem_calloc(2, sizeof(uint64_t));
    cg.red = shmem_calloc(4, sizeof(double));
    uint64_t *hash = shmem_calloc(2, sizeof(uint64_t));
    double *v[8];
    int ok = cg.ghost && cg.sig && cg.red && hash;
    for (int i = 0; i < 8; i++) ok &= (v[i] = calloc(local, sizeof(double))) != NULL;
    if (!ok) {
        if (cg.me == 0) fprintf(stderr, "cg: not enough memory for side %d at %d PEs\n", n, cg.npes);
        shmem_global_exit(2);
    }
    double *b = v[0], *x = v[1], *r = v[2], *w = v[3], *z = v[4], *s = v[5], *p = v[6], *q = v[7];

    /* x = 0, r = b, w = A r; ||b|| (also the nb variant's first request). */
    double bb = 0;
    for (size_t e = 0; e < local; e++) {
        b[e] = r[e] = rhs(first + e);
        bb += b[e] * b[e];
    }
    cg.red[0] = bb;
    cg.red[1] = 0;
    reduce2(&cg, w, r);
    double bnorm = sqrt(cg.red[2]);
    double gl = 0, dl = 0;
    for (size_t e = 0; e < local; e++) {
        gl += r[e] * r[e];
        dl += w[e] * r[e];
    }
    cg.t_reduce = cg.t_product = 0;
    shmem_barrier_all();

    double t0 = now(), gamma = 0, gamma_old = 0, alpha_old = 0;
    long it = 0;
    int converged = 0;
    for (; it < maxit; it++) {
        cg.red[0] = gl;
        cg.red[1] = dl;
        reduce2(&cg, q, w); /* gamma_i, delta_i; q = A w_i meanwhile */
        gamma = cg.red[2];
        double delta = cg.red[3];
        if (tol > 0 && sqrt(gamma) <= tol * bnorm) {
            converged = 1;
            break;
        }
        double beta = it > 0 ? gamma / gamma_old : 0.0;
        double alpha = it > 0 ? gamma / (delta - beta * gamma / alpha_old) : gamma / delta;
        double t = now();
        gl = dl = 0;
        for (size_t e = 0; e < local; e++) {
            z[e] = q[e] + beta * z[e];
            s[e] = w[e] + beta * s[e];
            p[e] = r[e] + beta * p[e];
            x[e] += alpha * p[e];
            r[e] -= alpha * s[e];
            w[e] -= alpha * z[e];
            gl += r[e] * r[e];
            dl += w[e] * r[e];
        }
        cg.t_update += now() - t;
        gamma_old = gamma;
        alpha_old = alpha;
    }
    double seconds = now() - t0;

    /* The true residual b - A x, the sum of x and a hash of its bits. */
    product(&cg, q, x);
    double rr = 0, xs = 0;
    uint64_t h = 0;
    for (size_t e = 0; e < local; e++) {
        double d = b[e] - q[e];
        rr += d * d;
        xs += x[e];
        h += mix(first + e, x[e]);
    }
    cg.red[0] = rr;
    cg.red[1] = xs;
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, cg.red + 2, cg.red, 2);
    hash[0] = h;
    shmem_uint64_sum_reduce(SHMEM_TEAM_WORLD, hash + 1, hash, 1);
    double true_rel = sqrt(cg.red[2]) / bnorm, rel = sqrt(gamma) / bnorm;
    const char *verified = tol == 0 ? "skipped" : converged && true_rel <= 10 * tol ? "yes" : "no";
    if (cg.me == 0) {
        long its = it > 0 ? it : 1;
        printf("CG (pipelined), 7-point Laplacian on %d^3 cells, %d PEs (%d planes each), variant %s\n", n,
               cg.npes, cg.nzl, variant_names[cg.variant]);
        printf(" iterations %ld (%s), ||r||/||b|| %.6e, true %.6e, sum(x) %.17e\n", it,
               converged ? "converged" : "not converged", rel, true_rel, cg.red[3]);
        printf(" time %.6f s: per iteration %.2f us, reduction waited %.2f us, halo + product %.2f us, "
               "updates %.2f us\n",
               seconds, 1e6 * seconds / its, 1e6 * cg.t_reduce / its, 1e6 * cg.t_product / its,
               1e6 * cg.t_update / its);
        printf(" Verification = %s\n", verified);
        printf("RESULT variant=%s pes=%d n=%d iter=%ld converged=%d time=%.6f iter_us=%.3f reduce_us=%.3f "
               "product_us=%.3f update_us=%.3f resid=%.6e true_resid=%.6e xsum=%.17e checksum=0x%016" PRIx64
               " verified=%s\n",
               variant_names[cg.variant], cg.npes, n, it, converged, seconds, 1e6 * seconds / its,
               1e6 * cg.t_reduce / its, 1e6 * cg.t_product / its, 1e6 * cg.t_update / its, rel, true_rel,
               cg.red[3], hash[1], verified);
        fflush(stdout);
    }
    for (int i = 0; i < 8; i++) free(v[i]);
    shmem_barrier_all();
    shmem_free(hash);
    shmem_free(cg.red);
    shmem_free(cg.sig);
    shmem_free(cg.ghost);
    shmem_finalize();
    return strcmp(verified, "no") ? 0 : 1;
}
