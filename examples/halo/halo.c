/* A 3-D halo exchange on OpenSHMEM in three ways, after the seed "Non-Blocking
 * GPU-CPU Notifications to Enable More GPU-CPU Parallelism" (Elis, Pearce,
 * Boehme, Burmark, Schulz; HPCAsia 2024) and its Comb configuration: each PE
 * owns a sub-cube of a periodic 3-D domain (3 doubles per cell), exchanges 26
 * halo messages per iteration with its neighbours and applies a 27-point
 * stencil (see README.md).
 *
 *   halo [-m bulk|notify|threads] [-c 200|400|800 | -n SIDE | -G SIDE] [-i ITER]
 *        [-w WARMUP] [-t THREADS] [-g PXxPYxPZ] [-s 0|1] [-p INDEX]
 *
 * PE 0 prints a report and one machine-readable RESULT line. Exit status: 0
 * verified (or too large to verify), 1 verification failed, 2 bad usage or
 * not enough symmetric memory. */
#include "halo.h"

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *mode_names[] = {"bulk", "notify", "threads"};

double halo_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* How the domain's size was given. */
enum size_kind { SIZE_GLOBAL, SIZE_PER_PE };

typedef struct {
    enum size_kind kind;
    long side;
    int grid[3]; /* 0: from the PE count */
    char error[256];
} size_opts_t;

/* A whole decimal number in [min, max], or -1 with an error. */
static long number(const char *s, long min, long max) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) return -1;
    return v;
}

#define USAGE                                                                                                          \
    "usage: halo [-m bulk|notify|threads] [-c 200|400|800 | -n SIDE | -G SIDE] [-i ITER] [-w WARMUP] [-t THREADS] "  \
    "[-g PXxPYxPZ] [-s 0|1] [-p INDEX]"

/* Parses the command line into h and z; a problem goes to z->error. */
static void parse(int argc, char **argv, halo_t *h, size_opts_t *z) {
    h->mode = MODE_BULK;
    h->iters = 10;
    h->warmup = 2;
    h->threads = 2;
    h->stencil = 1;
    h->perturb = -1;
    z->kind = SIZE_GLOBAL;
    z->side = 24;
    z->grid[0] = z->grid[1] = z->grid[2] = 0;
    z->error[0] = 0;
    int sizes = 0;
    for (int a = 1; a < argc; a += 2) {
        const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        long x = 0;
        if (o[0] != '-' || !o[1] || o[2] || !v) {
            snprintf(z->error, sizeof z->error, "bad argument '%s'; %s", o, USAGE);
            return;
        }
        switch (o[1]) {
        case 'm':
            x = -1;
            for (int m = 0; m < 3; m++)
                if (!strcmp(v, mode_names[m])) x = m;
            h->mode = (enum mode)x;
            break;
        case 'c':
            x = number(v, 200, 800);
            if (x != 200 && x != 400 && x != 800) x = -1;
            z->kind = SIZE_PER_PE;
            z->side = x / 4; /* the seed's cube over its 64 ranks (4x4x4) */
            sizes++;
            break;
        case 'n':
        case 'G':
            x = number(v, 1, 100000);
            z->kind = o[1] == 'n' ? SIZE_PER_PE : SIZE_GLOBAL;
            z->side = x;
            sizes++;
            break;
        case 'i': x = h->iters = (int)number(v, 1, 1000000); break;
        case 'w': x = h->warmup = (int)number(v, 0, 1000000); break;
        case 't': x = h->threads = (int)number(v, 1, 1024); break;
        case 's': x = h->stencil = (int)number(v, 0, 1); break;
        case 'p': x = h->perturb = number(v, 0, LONG_MAX); break;
        case 'g': {
            char extra;
            if (sscanf(v, "%dx%dx%d%c", &z->grid[0], &z->grid[1], &z->grid[2], &extra) != 3 || z->grid[0] < 1 ||
                z->grid[1] < 1 || z->grid[2] < 1)
                x = -1;
            break;
        }
        default: snprintf(z->error, sizeof z->error, "unknown option '%s'; %s", o, USAGE); return;
        }
        if (x < 0) {
            snprintf(z->error, sizeof z->error, "bad value '%s' for %s; %s", v, o, USAGE);
            return;
        }
    }
    if (sizes > 1) snprintf(z->error, sizeof z->error, "give at most one of -c, -n and -G; %s", USAGE);
}

/* The grid and the sub-domain for this PE count, or an error in z. */
static void decompose(halo_t *h, size_opts_t *z) {
    if (z->grid[0]) {
        long product = (long)z->grid[0] * z->grid[1] * z->grid[2];
        if (product != h->npes) {
            snprintf(z->error, sizeof z->error, "the grid -g %dx%dx%d has %ld PEs, but the job has %d", z->grid[0],
                     z->grid[1], z->grid[2], product, h->npes);
            return;
        }
        memcpy(h->grid, z->grid, sizeof h->grid);
    } else {
        grid_dims(h->npes, h->grid);
    }
    for (int d = 0; d < 3; d++) {
        if (z->kind == SIZE_PER_PE) {
            h->n[d] = (int)z->side;
        } else if (z->side % h->grid[d]) {
            snprintf(z->error, sizeof z->error,
                     "the PE grid %dx%dx%d does not divide the global cube side %ld (-G %ld): each grid dimension "
                     "must divide it",
                     h->grid[0], h->grid[1], h->grid[2], z->side, z->side);
            return;
        } else {
            h->n[d] = (int)(z->side / h->grid[d]);
        }
    }
    long total = (long)h->grid[0] * h->n[0] * h->grid[1] * h->n[1] * h->grid[2] * h->n[2];
    if (h->perturb >= total)
        snprintf(z->error, sizeof z->error, "-p %ld is not a cell index of the domain [0, %ld)", h->perturb, total);
}

/* Allocates the symmetric arrays, receive slots and flags; 0, or -1 (all PEs
 * alike, since symmetric allocation is collective) with the message printed. */
static int allocate(halo_t *h) {
    size_t array = h->cells * NVARS * sizeof(double), slots = 2 * h->area * sizeof(double);
    h->u[0] = shmem_malloc(array);
    h->u[1] = h->stencil ? shmem_malloc(array) : NULL;
    h->recv = shmem_malloc(slots);
    h->sig = shmem_calloc(2 * NDIRS, sizeof(uint64_t));
    if (!h->u[0] || (h->stencil && !h->u[1]) || !h->recv || !h->sig) {
        if (h->me == 0) {
            double mib = (double)((1 + h->stencil) * array + slots) / 1048576.0;
            fprintf(stderr,
                    "halo: not enough symmetric heap: each PE needs %.1f MiB (%d array%s of %.1f MiB and %.1f MiB of "
                    "receive slots); set SHMEM_SYMMETRIC_SIZE to at least %.0fM\n",
                    mib, 1 + h->stencil, h->stencil ? "s" : "", (double)array / 1048576.0,
                    (double)slots / 1048576.0, mib + 16);
        }
        return -1;
    }
    h->send = malloc(h->area * sizeof(double));
    if (!h->send) {
        fprintf(stderr, "halo: PE %d: out of memory for the send buffers\n", h->me);
        shmem_global_exit(2);
    }
    if (h->mode != MODE_BULK) {
        h->arrive[0] = shmemx_notify_alloc(NDIRS);
        h->arrive[1] = shmemx_notify_alloc(NDIRS);
    }
    if (h->mode == MODE_THREADS) h->ready = shmemx_notify_alloc(NDIRS);
    return 0;
}

static void release(halo_t *h) {
    if (h->ready) shmemx_notify_free(h->ready);
    for (int p = 0; p < 2; p++)
        if (h->arrive[p]) shmemx_notify_free(h->arrive[p]);
    free(h->send);
    shmem_free(h->sig);
    shmem_free(h->recv);
    shmem_free(h->u[1]);
    shmem_free(h->u[0]);
}

static double *current(const halo_t *h, int it) { return h->stencil ? h->u[it & 1] : h->u[0]; }

/* bulk and notify: the main thread does everything. */
static void run_single(halo_t *h) {
    int total = h->warmup + h->iters;
    double from = 0;
    for (int it = 0; it < total; it++) {
        int timed = it >= h->warmup;
        if (it == h->warmup) {
            /* The timed iterations start together. */
            shmem_barrier_all();
            from = halo_now();
        }
        double *u = current(h, it);
        if (h->mode == MODE_BULK)
            exchange_bulk(h, u, it, timed);
        else
            exchange_notify(h, u, it, timed);
        if (h->stencil) {
            double t = halo_now();
            stencil(h->n, current(h, it + 1), u, 1, h->n[2]);
            if (timed) h->t_stencil += halo_now() - t;
        }
    }
    h->t_iter = halo_now() - from;
}

static uint64_t *red_u64;
static double *red_src, *red_dst;
static int verdict;

int main(int argc, char **argv) {
    halo_t h;
    memset(&h, 0, sizeof h);
    size_opts_t z;
    parse(argc, argv, &h, &z);
    int provided = SHMEM_THREAD_SINGLE;
    if (!z.error[0] && h.mode == MODE_THREADS) {
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
        if (provided != SHMEM_THREAD_MULTIPLE)
            snprintf(z.error, sizeof z.error, "threads mode needs SHMEM_THREAD_MULTIPLE, the library gives %d",
                     provided);
    } else {
        shmem_init();
    }
    h.me = shmem_my_pe();
    h.npes = shmem_n_pes();
    if (!z.error[0]) decompose(&h, &z);
    if (z.error[0]) {
        if (h.me == 0) fprintf(stderr, "halo: %s\n", z.error);
        shmem_finalize();
        return 2;
    }
    grid_setup(&h);
    if (allocate(&h)) {
        release(&h);
        shmem_finalize();
        return 2;
    }
    red_u64 = shmem_malloc(2 * sizeof(uint64_t));
    red_src = shmem_malloc(2 * sizeof(double));
    red_dst = shmem_malloc(2 * sizeof(double));
    if (h.mode != MODE_THREADS) h.threads = 1;
    long cells = h.global[0] * h.global[1] * h.global[2];
    if (h.me == 0) {
        printf("halo: 3-D halo exchange, 26 messages per PE per iteration, 27-point stencil\n");
        printf(" mode          %s%s\n", mode_names[h.mode],
               h.mode == MODE_THREADS ? " (worker threads + a communication thread)" : "");
        printf(" PEs           %d, grid %dx%dx%d\n", h.npes, h.grid[0], h.grid[1], h.grid[2]);
        printf(" domain        %ldx%ldx%ld cells (periodic), %dx%dx%d per PE, %d doubles per cell\n", h.global[0],
               h.global[1], h.global[2], h.n[0], h.n[1], h.n[2], NVARS);
        printf(" messages      26 per iteration from PE 0: %zu bytes (largest %zu, smallest %zu)\n", h.bytes,
               h.msg[h.order[0]].doubles * sizeof(double), h.msg[h.order[NDIRS - 1]].doubles * sizeof(double));
        printf(" iterations    %d timed after %d warm-up%s\n", h.iters, h.warmup,
               h.stencil ? "" : ", no stencil (exchange only)");
        if (h.perturb >= 0) printf(" perturbed     cell %ld (variable 0 + 1)\n", h.perturb);
        fflush(stdout);
    }
    init_values(&h, h.u[0], h.perturb);
    if (h.u[1]) memset(h.u[1], 0, h.cells * NVARS * sizeof(double));
    shmem_barrier_all();
    if (h.mode == MODE_THREADS) {
        if (run_threads(&h)) shmem_global_exit(2);
    } else {
        run_single(&h);
    }
    const double *final_u = current(&h, h.warmup + h.iters);

    red_u64[0] = local_checksum(&h, final_u);
    shmem_uint64_sum_reduce(SHMEM_TEAM_WORLD, red_u64 + 1, red_u64, 1);
    red_src[0] = h.t_halo / h.iters;
    red_src[1] = h.t_iter / h.iters;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, red_dst, red_src, 2);
    /* Every PE's final array stays as it is until PE 0 has compared it. */
    shmem_barrier_all();
    const char *verified = "skipped";
    if (h.me == 0) {
        if (cells <= VERIFY_MAX_CELLS) {
            verdict = verify(&h, final_u) ? 0 : 1;
            verified = verdict ? "no" : "yes";
        }
        double us = 1e6 / h.iters;
        printf(" halo exchange %.1f us per iteration (max over PEs): pack %.1f, wait %.1f, unpack %.1f (PE 0)\n",
               red_dst[0] * 1e6, h.t_pack * us, h.t_wait * us, h.t_unpack * us);
        printf(" stencil       %.1f us per iteration (PE 0)\n", h.t_stencil * us);
        printf(" iteration     %.1f us (max over PEs)\n", red_dst[1] * 1e6);
        printf(" checksum      0x%016" PRIx64 "\n", red_u64[1]);
        const char *how = verdict ? "FAILED (the serial run differs)" : "every cell equals the serial run's";
        printf(" verification  %s\n", cells <= VERIFY_MAX_CELLS ? how : "skipped (more than 2^18 cells)");
        printf("RESULT mode=%s pes=%d grid=%dx%dx%d sub=%dx%dx%d iters=%d threads=%d halo_us=%.1f pack_us=%.1f "
               "wait_us=%.1f unpack_us=%.1f stencil_us=%.1f iter_us=%.1f bytes=%zu messages=%d checksum=0x%016" PRIx64
               " verified=%s\n",
               mode_names[h.mode], h.npes, h.grid[0], h.grid[1], h.grid[2], h.n[0], h.n[1], h.n[2], h.iters,
               h.threads, red_dst[0] * 1e6, h.t_pack * us, h.t_wait * us, h.t_unpack * us, h.t_stencil * us,
               red_dst[1] * 1e6, h.bytes, NDIRS, red_u64[1], verified);
        fflush(stdout);
    }
    /* Every PE exits with PE 0's verdict. */
    shmem_barrier_all();
    int failed = shmem_int_g(&verdict, 0);
    shmem_barrier_all();
    shmem_free(red_dst);
    shmem_free(red_src);
    shmem_free(red_u64);
    release(&h);
    shmem_finalize();
    return failed ? 1 : 0;
}
