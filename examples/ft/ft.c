/* NAS Parallel Benchmarks' FT kernel on OpenSHMEM, with the communication of
 * its global transposes done four ways (see transpose.c and docs/ft.md).
 *
 * FT solves a 3-D diffusion equation spectrally: one forward 3-D FFT of a
 * pseudo-random initial condition, then for each time step a multiplication
 * in Fourier space by exp(-4 alpha pi^2 |k|^2 t) and an inverse 3-D FFT, whose
 * checksum is compared with the benchmark's official value (relative error
 * 1e-12). The problem, the classes and the checksums are the public benchmark
 * definition (NPB 3); the code is our own.
 *
 *   ft [-c S|W|A|B|C] [-v exchange|slabs|pencils|nbexchange] [-i ITER] [-g NXxNYxNZ] [-p INDEX] [-w 0|1]
 *
 * PE 0 prints the NAS-style report and one machine-readable RESULT line.
 * Exit status: 0 verified or unverified, 1 verification failed, 2 bad usage
 * or not enough symmetric memory. */
#include "ft.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ALPHA 1.0e-6
#define EPSILON 1.0e-12
#define CHECKPOINTS 1024

static const double official_s[6][2] = {
    {5.546087004964e+02, 4.845363331978e+02}, {5.546385409189e+02, 4.865304269511e+02},
    {5.546148406171e+02, 4.883910722336e+02}, {5.545423607415e+02, 4.901273169046e+02},
    {5.544255039624e+02, 4.917475857993e+02}, {5.542683411902e+02, 4.932597244941e+02}};
static const double official_w[6][2] = {
    {5.673612178944e+02, 5.293246849175e+02}, {5.631436885271e+02, 5.282149986629e+02},
    {5.594024089970e+02, 5.270996558037e+02}, {5.560698047020e+02, 5.260027904925e+02},
    {5.530898991250e+02, 5.249400845633e+02}, {5.504159734538e+02, 5.239212247086e+02}};
static const double official_a[6][2] = {
    {5.046735008193e+02, 5.114047905510e+02}, {5.059412319734e+02, 5.098809666433e+02},
    {5.069376896287e+02, 5.098144042213e+02}, {5.077892868474e+02, 5.101336130759e+02},
    {5.085233095391e+02, 5.104914655194e+02}, {5.091487099959e+02, 5.107917842803e+02}};
static const double official_b[20][2] = {
    {5.177643571579e+02, 5.077803458597e+02}, {5.154521291263e+02, 5.088249431599e+02},
    {5.146409228649e+02, 5.096208912659e+02}, {5.142378756213e+02, 5.101023387619e+02},
    {5.139626667737e+02, 5.103976610617e+02}, {5.137423460082e+02, 5.105948019802e+02},
    {5.135547056878e+02, 5.107404165783e+02}, {5.133910925466e+02, 5.108576573661e+02},
    {5.132470705390e+02, 5.109577278523e+02}, {5.131197729984e+02, 5.110460304483e+02},
    {5.130070319283e+02, 5.111252433800e+02}, {5.129070537032e+02, 5.111968077718e+02},
    {5.128182883502e+02, 5.112616233064e+02}, {5.127393733383e+02, 5.113203605551e+02},
    {5.126691062020e+02, 5.113735928093e+02}, {5.126064276004e+02, 5.114218460548e+02},
    {5.125504076570e+02, 5.114656139760e+02}, {5.125002331720e+02, 5.115053595966e+02},
    {5.124551951846e+02, 5.115415130407e+02}, {5.124146770029e+02, 5.115744692211e+02}};

static const double official_c[20][2] = {
    {5.195078707457e+02, 5.149019699238e+02}, {5.155422171134e+02, 5.127578201997e+02},
    {5.144678022222e+02, 5.122251847514e+02}, {5.140150594328e+02, 5.121090289018e+02},
    {5.137550426810e+02, 5.121143685824e+02}, {5.135811056728e+02, 5.121496764568e+02},
    {5.134569343165e+02, 5.121870921893e+02}, {5.133651975661e+02, 5.122193250322e+02},
    {5.132955192805e+02, 5.122454735794e+02}, {5.132410471738e+02, 5.122663649603e+02},
    {5.131971141679e+02, 5.122830879827e+02}, {5.131605205716e+02, 5.122965869718e+02},
    {5.131290734194e+02, 5.123075927445e+02}, {5.131012720314e+02, 5.123166486553e+02},
    {5.130760908195e+02, 5.123241541685e+02}, {5.130528295923e+02, 5.123304037599e+02},
    {5.130310107773e+02, 5.123356167976e+02}, {5.130103090133e+02, 5.123399592211e+02},
    {5.129905029333e+02, 5.123435588985e+02}, {5.129714421109e+02, 5.123465164008e+02}};

struct class_def {
    char name;
    int nx, ny, nz, niter;
    const double (*sums)[2];
};
static const struct class_def classes[] = {
    {'S', 64, 64, 64, 6, official_s},     {'W', 128, 128, 32, 6, official_w},
    {'A', 256, 256, 128, 6, official_a},  {'B', 512, 256, 256, 20, official_b},
    {'C', 512, 512, 512, 20, official_c},
};
#define NCLASSES (int)(sizeof classes / sizeof classes[0])

static const char *variant_names[NVARIANTS] = {"exchange", "slabs", "pencils", "nbexchange"};

double ft_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- random numbers: x_{n+1} = 5^13 x_n mod 2^46, drawn as x * 2^-46 ---- */
#define RNG_A 1220703125ULL
#define RNG_SEED 314159265ULL
#define RNG_MASK ((1ULL << 46) - 1)

static uint64_t mulmod46(uint64_t a, uint64_t b) {
    return (uint64_t)(((unsigned __int128)a * b) & RNG_MASK);
}

static uint64_t powmod46(uint64_t a, uint64_t e) {
    uint64_t r = 1;
    while (e) {
        if (e & 1) r = mulmod46(r, a);
        a = mulmod46(a, a);
        e >>= 1;
    }
    return r;
}

/* The initial condition of this PE's planes (layout A): element e of the
 * whole grid takes draws 2e+1 (real) and 2e+2 (imaginary) of one stream. */
static void initial_condition(ft_t *ft, long perturb) {
    size_t plane = (size_t)ft->nx * ft->ny;
    size_t first = (size_t)ft->me * ft->nzl * plane;
    uint64_t x = mulmod46(powmod46(RNG_A, 2 * (uint64_t)first), RNG_SEED);
    const double scale = 1.0 / (double)(1ULL << 46);
    for (size_t e = 0; e < ft->local; e++) {
        x = mulmod46(x, RNG_A);
        ft->xa[e].re = (double)x * scale;
        x = mulmod46(x, RNG_A);
        ft->xa[e].im = (double)x * scale;
    }
    if (perturb >= 0 && (size_t)perturb >= first && (size_t)perturb < first + ft->local)
        ft->xa[perturb - first].re += 1.0;
}

/* exp(-4 alpha pi^2 (ibar^2 + jbar^2 + kbar^2)) in layout B. */
static void twiddle(ft_t *ft) {
    const double ap = -4.0 * ALPHA * M_PI * M_PI;
    int nx = ft->nx, ny = ft->ny, nz = ft->nz;
    size_t e = 0;
    for (int k = 0; k < nz; k++) {
        int kb = (k + nz / 2) % nz - nz / 2;
        for (int jl = 0; jl < ft->nyl; jl++) {
            int j = ft->me * ft->nyl + jl;
            int jb = (j + ny / 2) % ny - ny / 2;
            for (int i = 0; i < nx; i++) {
                int ib = (i + nx / 2) % nx - nx / 2;
                ft->tw[e++] = exp(ap * (double)(ib * ib + jb * jb + kb * kb));
            }
        }
    }
}

/* U0 *= twiddle (so that after step t it carries twiddle^t); the inverse
 * FFT's input is a copy, U0 itself is kept. */
static void evolve(ft_t *ft) {
    for (size_t e = 0; e < ft->local; e++) {
        ft->u0[e].re *= ft->tw[e];
        ft->u0[e].im *= ft->tw[e];
        ft->wb[e] = ft->u0[e];
    }
}

static double *sum_src, *sum_dest;
#ifndef FT_SHMEM_15
static double sum_work[SHMEM_REDUCE_MIN_WRKDATA_SIZE > 2 ? SHMEM_REDUCE_MIN_WRKDATA_SIZE : 2];
static long sum_psync[2][SHMEM_REDUCE_SYNC_SIZE];
static int sum_next;
#endif

/* Sum over the 1024 checkpoints of the inverse FFT (layout A) / N. */
static void checksum(ft_t *ft, double out[2]) {
    double t = ft_now();
    double re = 0, im = 0;
    for (int j = 1; j <= CHECKPOINTS; j++) {
        int q = j % ft->nx, r = (3 * j) % ft->ny, s = (5 * j) % ft->nz;
        if (s / ft->nzl != ft->me) continue;
        const cplx *v = &ft->xa[((size_t)(s % ft->nzl) * ft->ny + r) * ft->nx + q];
        re += v->re;
        im += v->im;
    }
    sum_src[0] = re;
    sum_src[1] = im;
    double t2 = ft_now();
    ft->t_compute += t2 - t;
#ifdef FT_SHMEM_15
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, sum_dest, sum_src, 2);
#else
    shmem_double_sum_to_all(sum_dest, sum_src, 2, 0, 0, ft->npes, sum_work, sum_psync[sum_next]);
    sum_next ^= 1;
#endif
    ft->t_wait += ft_now() - t2;
    double n = (double)ft->nx * ft->ny * ft->nz;
    out[0] = sum_dest[0] / n;
    out[1] = sum_dest[1] / n;
}

static void usage(int me) {
    if (me == 0)
        fprintf(stderr, "usage: ft [-c S|W|A|B|C] [-v exchange|slabs|pencils|nbexchange] [-i ITER] [-g NXxNYxNZ]"
                        " [-p INDEX] [-w 0|1]\n");
}

static int is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

/* One whole problem; `sums` gets the checksums when it is not NULL (timed
 * run), else only the set-up and the forward FFT run (the warm-up, as NPB). */
static void run(ft_t *ft, long perturb, double (*sums)[2]) {
    ft_reset_signals(ft);
    twiddle(ft);
    initial_condition(ft, perturb);
    fft_plan_free(&ft->px);
    fft_plan_free(&ft->py);
    fft_plan_free(&ft->pz);
    if (fft_plan_init(&ft->px, ft->nx) || fft_plan_init(&ft->py, ft->ny) || fft_plan_init(&ft->pz, ft->nz)) {
        fprintf(stderr, "ft: PE %d: out of memory for the FFT tables\n", ft->me);
        shmem_global_exit(2);
    }
    fft3d_forward(ft);
    if (!sums) return;
    for (int t = 0; t < ft->niter; t++) {
        double t0 = ft_now();
        evolve(ft);
        ft->t_compute += ft_now() - t0;
        fft3d_inverse(ft);
        checksum(ft, sums[t]);
    }
}

int main(int argc, char **argv) {
    shmem_init();
    ft_t ft;
    memset(&ft, 0, sizeof ft);
    ft.me = shmem_my_pe();
    ft.npes = shmem_n_pes();
    char cls = 'S';
    const char *variant = "slabs", *grid = NULL;
    int niter = -1, warmup = 1;
    long perturb = -1;
    for (int a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!v || argv[a][0] != '-' || strlen(argv[a]) != 2) {
            usage(ft.me);
            shmem_finalize();
            return 2;
        }
        switch (argv[a][1]) {
        case 'c': cls = v[0]; break;
        case 'v': variant = v; break;
        case 'i': niter = atoi(v); break;
        case 'g': grid = v; break;
        case 'p': perturb = atol(v); break;
        case 'w': warmup = atoi(v); break;
        default: usage(ft.me); shmem_finalize(); return 2;
        }
        a++;
    }
    const struct class_def *cd = NULL;
    for (int c = 0; c < NCLASSES; c++)
        if (classes[c].name == cls) cd = &classes[c];
    int bad = !cd;
    if (cd) {
        ft.nx = cd->nx;
        ft.ny = cd->ny;
        ft.nz = cd->nz;
    }
    if (grid && sscanf(grid, "%dx%dx%d", &ft.nx, &ft.ny, &ft.nz) != 3) bad = 1;
    ft.variant = NVARIANTS;
    for (int v = 0; v < NVARIANTS; v++)
        if (!strcmp(variant, variant_names[v])) ft.variant = (enum variant)v;
#ifndef FT_NBC
    if (ft.variant == NBEXCHANGE) {
        if (ft.me == 0)
            fprintf(stderr, "ft: nbexchange needs the non-blocking team collectives (shmem_alltoallmem_nb), "
                            "which this shmem.h does not declare\n");
        shmem_finalize();
        return 2;
    }
#endif
    if (bad || ft.variant == NVARIANTS || !is_pow2(ft.nx) || !is_pow2(ft.ny) || !is_pow2(ft.nz) || niter == 0 ||
        niter < -1) {
        if (ft.me == 0) fprintf(stderr, "ft: bad arguments (class, variant, grid of powers of two, iterations)\n");
        usage(ft.me);
        shmem_finalize();
        return 2;
    }
    /* A grid equal to a class's is that class. */
    char shown = 'U';
    const double(*official)[2] = NULL;
    for (int c = 0; c < NCLASSES; c++)
        if (classes[c].nx == ft.nx && classes[c].ny == ft.ny && classes[c].nz == ft.nz) {
            shown = classes[c].name;
            if (niter == -1) niter = classes[c].niter;
            if (niter == classes[c].niter) official = classes[c].sums;
        }
    if (niter == -1) niter = 6;
    long total = (long)ft.nx * ft.ny * ft.nz;
    if (perturb < -1 || perturb >= total || (warmup != 0 && warmup != 1)) {
        if (ft.me == 0)
            fprintf(stderr, "ft: -p must be a grid index in [0, %ld), -w 0 or 1\n", total);
        usage(ft.me);
        shmem_finalize();
        return 2;
    }
    ft.niter = niter;
    if (ft.nz % ft.npes || ft.ny % ft.npes) {
        if (ft.me == 0)
            fprintf(stderr, "ft: %d PEs do not divide the grid %dx%dx%d: the PE count must divide ny = %d and nz = %d\n",
                    ft.npes, ft.nx, ft.ny, ft.nz, ft.ny, ft.nz);
        shmem_finalize();
        return 2;
    }
    ft.nzl = ft.nz / ft.npes;
    ft.nyl = ft.ny / ft.npes;
    ft.local = (size_t)ft.nx * ft.ny * ft.nzl;
    size_t bytes = ft.local * sizeof(cplx);
    int packed = ft.variant == EXCHANGE || ft.variant == NBEXCHANGE;
    int arrays = packed ? 4 : 3;
    ft.xa = shmem_malloc(bytes);
    ft.u0 = shmem_malloc(bytes);
    ft.wb = shmem_malloc(bytes);
    ft.xbuf = packed ? shmem_malloc(bytes) : NULL;
#ifdef FT_NBC
    ft.req = malloc((size_t)ft.nzl * sizeof *ft.req);
    if (!ft.req) bad = 1;
#endif
    ft.sig = shmem_calloc(2, sizeof(ft_sig_t));
    sum_src = shmem_malloc(2 * sizeof(double));
    sum_dest = shmem_malloc(2 * sizeof(double));
    ft.tw = malloc(ft.local * sizeof(double));
    int nmax = ft.nx > ft.ny ? ft.nx : ft.ny;
    nmax = nmax > ft.nz ? nmax : ft.nz;
    if (bad || !ft.xa || !ft.u0 || !ft.wb || (packed && !ft.xbuf) || !ft.sig || !sum_src || !sum_dest ||
        !ft.tw || fft_scratch_init(nmax)) {
        if (ft.me == 0)
            fprintf(stderr,
                    "ft: not enough memory: each PE needs %d arrays of %.1f MiB of symmetric heap "
                    "(set SHMEM_SYMMETRIC_SIZE, for Open MPI SMA_SYMMETRIC_SIZE, to at least %.0fM) and %.1f MiB "
                    "of its own\n",
                    arrays, bytes / 1048576.0, arrays * bytes / 1048576.0 + 16, bytes / 2 / 1048576.0);
        shmem_global_exit(2);
    }
#ifndef FT_SHMEM_15
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) sum_psync[s][i] = SHMEM_SYNC_VALUE;
#endif
    if (ft.me == 0) {
        printf("\n\n NAS Parallel Benchmarks (rshmem example) - FT Benchmark\n\n");
        printf(" Size                : %4dx%4dx%4d\n", ft.nx, ft.ny, ft.nz);
        printf(" Iterations          :     %7d\n", ft.niter);
        printf(" Number of PEs       :     %7d\n", ft.npes);
        printf(" Variant             : %s\n", variant_names[ft.variant]);
        printf(" Layout              : 1-D slabs (%d planes, %d rows per PE)\n", ft.nzl, ft.nyl);
        printf(" FFT                 : %s\n", fft_name());
#ifdef FT_SHMEM_15
        printf(" OpenSHMEM routines  : 1.5 (team all-to-all, put-with-signal, team reduction)\n");
#else
        printf(" OpenSHMEM routines  : 1.4 (alltoall64, put + fence + atomic add, sum_to_all)\n");
#endif
        if (perturb >= 0) printf(" Perturbed element   : %ld (real part + 1)\n", perturb);
        printf("\n");
        fflush(stdout);
    }
    if (warmup) run(&ft, perturb, NULL);
    double(*sums)[2] = calloc((size_t)ft.niter, sizeof *sums);
    ft.t_compute = ft.t_wait = ft.t_transpose = 0;
    ft.messages = 0;
    shmem_barrier_all();
    double t0 = ft_now();
    run(&ft, perturb, sums);
    double seconds = ft_now() - t0;

    int failed = 0;
    if (ft.me == 0) {
        for (int t = 0; t < ft.niter; t++) {
            printf(" T = %4d     Checksum = %22.12e %22.12e\n", t + 1, sums[t][0], sums[t][1]);
            if (official) {
                double dr = sums[t][0] - official[t][0], di = sums[t][1] - official[t][1];
                double err = sqrt(dr * dr + di * di) /
                             sqrt(official[t][0] * official[t][0] + official[t][1] * official[t][1]);
                if (!(err <= EPSILON)) failed = 1;
            }
        }
        const char *verified = !official ? "UNVERIFIED" : failed ? "UNSUCCESSFUL" : "SUCCESSFUL";
        if (official)
            printf(" Result verification %s\n", failed ? "failed" : "successful");
        else
            printf(" No official checksums for this size and iteration count: not verified\n");
        double n = (double)ft.nx * ft.ny * ft.nz;
        double mops = seconds > 0
                          ? 1e-6 * n * (14.8157 + 7.19641 * log(n) + (5.23518 + 7.21113 * log(n)) * ft.niter) / seconds
                          : 0.0;
        printf("\n FT Benchmark Completed.\n");
        printf(" Class           =                        %c\n", shown);
        printf(" Size            =           %4dx%4dx%4d\n", ft.nx, ft.ny, ft.nz);
        printf(" Iterations      =                  %7d\n", ft.niter);
        printf(" Time in seconds =             %12.4f\n", seconds);
        printf(" Total PEs       =                  %7d\n", ft.npes);
        printf(" Mop/s total     =             %12.2f\n", mops);
        printf(" Mop/s/PE        =             %12.2f\n", mops / ft.npes);
        printf(" Variant         = %24s\n", variant_names[ft.variant]);
        printf(" Time split (PE 0): compute %.4f s, waiting %.4f s, transpose %.4f s, %ld messages\n",
               ft.t_compute, ft.t_wait, ft.t_transpose, ft.messages);
        printf(" Verification    =             %12s\n", verified);
        printf("RESULT class=%c variant=%s pes=%d nx=%d ny=%d nz=%d iter=%d time=%.6f mops=%.2f verified=%s"
               " compute=%.6f wait=%.6f transpose=%.6f fft=%s messages=%ld\n",
               shown, variant_names[ft.variant], ft.npes, ft.nx, ft.ny, ft.nz, ft.niter, seconds, mops, verified,
               ft.t_compute, ft.t_wait, ft.t_transpose, fft_name(), ft.messages);
        fflush(stdout);
    }
    /* Every PE exits with PE 0's verdict. */
    static int verdict;
    if (ft.me == 0) verdict = failed;
    shmem_barrier_all();
    int mine = shmem_int_g(&verdict, 0);
    shmem_barrier_all();
    free(sums);
    free(ft.tw);
#ifdef FT_NBC
    free(ft.req);
#endif
    fft_plan_free(&ft.px);
    fft_plan_free(&ft.py);
    fft_plan_free(&ft.pz);
    shmem_free(sum_dest);
    shmem_free(sum_src);
    shmem_free(ft.sig);
    shmem_free(ft.xbuf);
    shmem_free(ft.wb);
    shmem_free(ft.u0);
    shmem_free(ft.xa);
    shmem_finalize();
    return mine ? 1 : 0;
}
