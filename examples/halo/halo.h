/* 3-D halo exchange with per-message notifications: shared declarations of
 * the example's files.
 *
 * halo.c     command line, set-up, the iteration loop, timing and the report;
 * grid.c     the PE grid, the 26 neighbours and the regions their messages
 *            pack from and unpack into;
 * exchange.c the exchange of one iteration in bulk and notify modes, and
 *            the pack/unpack copies;
 * threads.c  threads mode: persistent worker threads and the communication
 *            thread;
 * stencil.c  initial values, the 27-point stencil and the checksum;
 * verify.c   the serial reference run and the cell-by-cell comparison.
 *
 * Layout: a PE's array holds (nx+2)(ny+2)(nz+2) cells (ghost width 1), i
 * fastest, 3 doubles per cell (array of structures). Interior cells are
 * 1..n in each dimension; 0 and n+1 are ghosts. */
#ifndef HALO_H
#define HALO_H

/* pthread barriers and clock_gettime under -std=c11. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <shmem.h>
#include <shmemx.h>
#include <stddef.h>
#include <stdint.h>

#define NVARS 3
#define NDIRS 26
/* Global domains up to this many cells are also computed serially on PE 0. */
#define VERIFY_MAX_CELLS (1L << 18)

enum mode { MODE_BULK, MODE_NOTIFY, MODE_THREADS };

/* Inclusive local cell ranges [lo, hi] in x, y, z. */
typedef struct {
    int lo[3], hi[3];
} box_t;

/* Message k of a PE: to the neighbour in direction dir, landing in that
 * neighbour's receive slot `opposite`. */
typedef struct {
    int dir[3];     /* -1, 0 or 1 per dimension */
    int opposite;   /* index of -dir */
    int pe;         /* the neighbour in direction dir (periodic) */
    box_t send;     /* interior cells packed into this message */
    box_t recv;     /* ghost cells filled from the message received from dir */
    size_t doubles; /* the message's length in doubles (same for send and recv) */
    size_t offset;  /* where its buffer starts, in doubles, in send and receive areas */
} message_t;

typedef struct {
    /* options */
    enum mode mode;
    int iters, warmup, threads, stencil;
    long perturb;
    /* decomposition */
    int me, npes;
    int grid[3], coord[3];
    int n[3];         /* interior cells per side on every PE */
    long global[3];   /* global cells per side */
    size_t cells;     /* (nx+2)(ny+2)(nz+2) */
    message_t msg[NDIRS];
    int order[NDIRS]; /* message indices, largest first */
    size_t area;      /* doubles of one receive area (all 26 slots) */
    size_t bytes;     /* bytes sent per iteration */
    /* memory: u[] and recv and sig are symmetric */
    double *u[2];
    double *recv;  /* 2 areas, by iteration parity */
    uint64_t *sig; /* bulk: 2 x 26 signal words */
    double *send;  /* one area of send buffers, message k at msg[k].offset */
    shmemx_notify_t *arrive[2]; /* notify, threads: arrival flags by parity */
    shmemx_notify_t *ready;     /* threads: send-ready flags */
    /* seconds, summed over the timed iterations */
    double t_pack, t_wait, t_unpack, t_stencil, t_halo, t_iter;
} halo_t;

double halo_now(void);

/* grid.c */
void grid_dims(int npes, int grid[3]);
void grid_setup(halo_t *h);
size_t cell_index(const int n[3], int i, int j, int k);
long global_coord(const halo_t *h, int pe_coord, int d, int local);

/* exchange.c: one iteration's exchange (it counts from 0 over warm-up and
 * timed iterations); times go to h->t_* when timed. */
void pack(const halo_t *h, const double *u, int k, double *buf);
void unpack(const halo_t *h, double *u, int k, const double *buf);
double *recv_slot(const halo_t *h, int parity, int k);
void exchange_bulk(halo_t *h, double *u, int it, int timed);
void exchange_notify(halo_t *h, double *u, int it, int timed);

/* threads.c: the whole run of w + i iterations in threads mode. Returns 0,
 * or -1 when the context cannot be created (message printed); a worker
 * thread that cannot be started ends the job (exit status 2). */
int run_threads(halo_t *h);

/* stencil.c */
double initial_value(long gidx, int v);
void init_values(const halo_t *h, double *u, long perturb);
void stencil(const int n[3], double *out, const double *in, int k0, int k1);
uint64_t cell_mix(long gidx, int v, double value);
uint64_t local_checksum(const halo_t *h, const double *u);

/* verify.c: PE 0 only; compares every PE's final array with a serial run.
 * Returns 1 when they agree, 0 otherwise (the difference printed). */
int verify(const halo_t *h, const double *final_u);

#endif
