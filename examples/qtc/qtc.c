/*
 * qtc.c: quality-threshold clustering (SHOC's QTC) on shrinking OpenSHMEM teams.
 *
 * The algorithm, the data and the distribution of the work are those of SHOC's QTC
 * benchmark (src/cuda/level2/qtclustering, MPI "true parallel" build), written against
 * OpenSHMEM 1.5 teams instead of MPI communicators:
 *
 *   Data.  N points in a 20x20 square, made in groups of random size (< N/30) that lie on
 *   circles of random radius around random centres (SHOC's generate_synthetic_data, with
 *   splitmix64 instead of glibc random() so that the data are the same everywhere). Two
 *   points are neighbours when their distance is below the threshold t (strictly). Only
 *   the neighbour lists are stored (CSR: sorted indices and float distances), never an
 *   NxN matrix. PE 0 generates them and broadcasts them: every PE holds all the data.
 *
 *   Clustering.  Each outer iteration finds, over every point s not yet clustered, the
 *   candidate cluster of s: start from {s}; the pool is s's unclustered neighbours;
 *   repeatedly add the pool point whose largest distance to the cluster's members is
 *   the smallest (complete linkage; ties: the smallest point index), as long as that
 *   distance is <= t. (As in SHOC, the neighbour and the diameter thresholds are the
 *   same, so a candidate is a clique of the neighbour graph, grown while the members
 *   have a common unclustered neighbour.) The largest candidate wins (ties: the smallest
 *   seed), its points are removed, and the loop goes on while the winner has more than
 *   one point. The points left at the end are singletons. The cluster count printed is
 *   SHOC's "Cluster count", the number of iterations (the last winner may be one point).
 *
 *   Parallel.  Seeds are dealt cyclically from the list of unclustered points over the
 *   PEs of the current team T (size m, rank r: seeds at positions r, r+m, ...). Per
 *   iteration: shmem_team_sync(T); a local search, which skips a seed that cannot beat
 *   the PE's best so far (exact pruning, so the result does not depend on the split);
 *   one shmem_long_max_reduce of key = card << 32 | (N - 1 - seed), which picks the
 *   largest cluster and, among equals, the smallest seed; the PE that owns the winning
 *   seed builds its members and shmem_int_broadcast sends them to the team (the root
 *   changes almost every iteration). As the unclustered points dwindle, fewer PEs are
 *   needed (SHOC's rule, k points per PE): T is split into its first `active` PEs with
 *   shmem_team_split_strided and the old team is destroyed; the PEs left out wait in
 *   shmem_barrier_all. So the job runs on teams of P, P-1, ..., 1 PEs (with the default
 *   k = ceil(N/P)), which is what the pSync footprint printed at the end measures.
 *
 *   Verification (on by default).  PE 0 checks that the clusters and singletons cover
 *   every point exactly once, that every cluster's diameter is <= t (every pair), and
 *   that the sequence of (seed, cardinality) equals the one a serial run of the same
 *   code computes (one PE, every seed); it prints the sequence's 64-bit FNV-1a hash,
 *   which is the same for every number of PEs, k, strategy and option. --check also
 *   makes every team member rebuild each winner and compare it with the broadcast.
 *
 * Build and run (see README.md):
 *   oshcc -O2 qtc.c -o qtc -lm
 *   oshrun -np 8 ./qtc                 # N=4096, t=1
 *   SHMEM_PSYNC_STRATEGY=pairwise-rd oshrun -np 8 ./qtc -k 512
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIDTH 20.0       /* the points lie in [0, WIDTH] x [0, WIDTH] (SHOC's MAX_WIDTH/HEIGHT) */
#define BCAST_CHUNK (1L << 20) /* bytes per broadcast of the input data */

/* ---------------------------------------------------------------- options */

struct options {
    long n;           /* points */
    double t;         /* threshold: the largest cluster diameter */
    long k;           /* points per PE of SHOC's participant rule (0: ceil(N/P)) */
    uint64_t seed;    /* of the data generator */
    int resplit;      /* -r: a new team every iteration */
    int no_destroy;   /* --no-destroy: never destroy a team (as SHOC never frees communicators) */
    int check;        /* --check: every member rebuilds every winner */
    int verify;       /* compare with the serial reference (--no-verify: off) */
    int verbose;      /* -v */
};

static void usage(FILE *f, const char *prog) {
    fprintf(f,
            "usage: %s [-s 1..5] [-n N] [-t threshold] [-k points_per_pe] [-S seed] [-r]\n"
            "          [--no-destroy] [--check] [--no-verify] [-v]\n"
            "  -s SIZE       SHOC's presets: 1: N=4096 t=1, 2: 8192/1, 3: 16384/1, 4: 16384/4,\n"
            "                5: 26624/1 (-n and -t override them)\n"
            "  -n N          points (default 4096)\n"
            "  -t T          cluster diameter threshold (default 1)\n"
            "  -k K          points per PE: a team of ceil(remaining/K) PEs once remaining\n"
            "                <= (P-1)*K (default ceil(N/P); -k 512 is SHOC's rule)\n"
            "  -S SEED       seed of the data generator (default 1)\n"
            "  -r            split a new team every iteration (and destroy the old one)\n"
            "  --no-destroy  never destroy a team (SHOC never frees its communicators)\n"
            "  --check       every team member rebuilds each winning cluster and compares\n"
            "                it with the broadcast members\n"
            "  --no-verify   skip the serial reference (the partition and the diameters are\n"
            "                still checked)\n"
            "  -v            print the data, every iteration and every team change\n",
            prog);
}

/* A number in [lo, hi]; 0 if valid. */
static int parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Parses the options: 0 if they are valid, 1 for -h/--help, -1 otherwise (with the reason
 * in why). Every PE parses the same arguments, so every PE reaches the same verdict. */
static int parse(int argc, char **argv, struct options *o, char *why, size_t whylen) {
    static const long preset_n[] = {4096, 8192, 16384, 16384, 26624};
    static const double preset_t[] = {1, 1, 1, 4, 1};
    long size = 1, n = -1;
    double t = -1;
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->verify = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return 1;
        if (strcmp(a, "-r") == 0) {
            o->resplit = 1;
            continue;
        } else if (strcmp(a, "--no-destroy") == 0) {
            o->no_destroy = 1;
            continue;
        } else if (strcmp(a, "--check") == 0) {
            o->check = 1;
            continue;
        } else if (strcmp(a, "--no-verify") == 0) {
            o->verify = 0;
            continue;
        } else if (strcmp(a, "-v") == 0) {
            o->verbose = 1;
            continue;
        }
        int valued = strcmp(a, "-s") == 0 || strcmp(a, "-n") == 0 || strcmp(a, "-k") == 0 ||
                     strcmp(a, "-t") == 0 || strcmp(a, "-S") == 0;
        if (!valued) {
            snprintf(why, whylen, "unknown option '%s'", a);
            return -1;
        }
        if (i + 1 == argc) {
            snprintf(why, whylen, "option %s needs a value", a);
            return -1;
        }
        const char *v = argv[++i];
        int ok;
        if (a[1] == 's') {
            ok = parse_long(v, 1, 5, &size) == 0;
        } else if (a[1] == 'n') {
            ok = parse_long(v, 1, 1L << 26, &n) == 0;
        } else if (a[1] == 'k') {
            ok = parse_long(v, 1, 1L << 40, &o->k) == 0;
        } else if (a[1] == 't') {
            char *end;
            t = strtod(v, &end);
            ok = end != v && *end == '\0' && t > 0 && t <= 1e6;
        } else {
            char *end;
            o->seed = strtoull(v, &end, 0);
            ok = *v != '-' && end != v && *end == '\0';
        }
        if (!ok) {
            snprintf(why, whylen, "invalid value '%s' for %s", v, a);
            return -1;
        }
    }
    o->n = n > 0 ? n : preset_n[size - 1];
    o->t = t > 0 ? t : preset_t[size - 1];
    return 0;
}

/* ---------------------------------------------------------------- helpers */

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *xmalloc(size_t bytes, const char *what) {
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "qtc: PE %d: out of memory (%zu bytes for %s)\n", shmem_my_pe(), bytes, what);
        shmem_global_exit(1);
    }
    return p;
}

/* shmem_malloc is collective over the world: every PE asks for the same size. */
static void *xshmalloc(size_t bytes, const char *what) {
    void *p = shmem_malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr,
                "qtc: PE %d: shmem_malloc of %zu bytes for %s failed (raise SHMEM_SYMMETRIC_SIZE)\n",
                shmem_my_pe(), bytes, what);
        shmem_global_exit(1);
    }
    return p;
}

/* splitmix64 (Steele, Lea, Flood), and a double in [0, 1) from its top 53 bits. */
static uint64_t rng_state;
static uint64_t splitmix64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double frand(void) {
    return (double)(splitmix64() >> 11) * 0x1p-53;
}

/* 64-bit FNV-1a of the (seed, cardinality) sequence, 4 little-endian bytes each. */
#define FNV_OFFSET 14695981039346656037ULL
static uint64_t fnv_u32(uint64_t h, uint32_t v) {
    for (int b = 0; b < 4; b++) {
        h ^= (v >> (8 * b)) & 0xff;
        h *= 1099511628211ULL;
    }
    return h;
}

/* ---------------------------------------------------------------- data */

/* The neighbour lists, on every PE (symmetric, so that PE 0 can broadcast them). */
struct data {
    long n;            /* points */
    double t;          /* threshold */
    long nnz;          /* neighbour entries (twice the neighbour pairs) */
    long maxdeg;       /* the largest neighbour count */
    long *off;         /* [n + 1]: point i's neighbours are nbr[off[i] .. off[i+1]) */
    int *nbr;          /* [nnz]: sorted by index in every list */
    float *dist;       /* [nnz]: the distances */
};

/* SHOC's generator: groups of points on circles of random radius around random centres.
 * Coordinates are floats as in SHOC; every product that matters is exact in double, so the
 * data do not depend on the compiler contracting a*b+c into a fused multiply-add. */
static float *generate_points(long n, uint64_t seed) {
    float *pts = xmalloc(2 * (size_t)n * sizeof(float), "the points");
    long gmax = n / 30 >= 2 ? n / 30 : 2; /* SHOC: random() % (N/30) */
    rng_state = seed;
    long count = 0;
    while (count < n) {
        float cx = (float)(frand() * WIDTH);
        float cy = (float)(frand() * WIDTH);
        float radius = (float)(frand() * (WIDTH / 2));
        long group = (long)(splitmix64() % (uint64_t)gmax);
        if (group > n - count)
            group = n - count;
        while (group > 0) {
            double sign = frand() < 0.5 ? -1.0 : 1.0;
            float r = (float)(frand() * radius);
            float dx = (float)((2.0 * frand() - 1.0) * r);
            float dy = (float)(sqrt((double)r * r - (double)dx * dx) * sign);
            float x = cx + dx, y = cy + dy;
            if (x < 0 || x > WIDTH || y < 0 || y > WIDTH)
                continue; /* outside the square: draw again */
            pts[2 * count] = x;
            pts[2 * count + 1] = y;
            count++;
            group--;
        }
    }
    return pts;
}

/* Squared distance, exact up to one rounding (so FMA-proof). */
static double dist2(const float *pts, long i, long j) {
    float dx = pts[2 * i] - pts[2 * j], dy = pts[2 * i + 1] - pts[2 * j + 1];
    return (double)dx * dx + (double)dy * dy;
}

static long header_src[3], header_dst[3]; /* symmetric: n, nnz, maxdeg */

/* PE 0 generates the data; every PE ends with the whole CSR in symmetric memory. */
static void build_data(struct data *d, const struct options *o, int me) {
    long n = o->n;
    double t2 = o->t * o->t;
    float *pts = NULL;
    long *deg = NULL;
    d->n = n;
    d->t = o->t;
    if (me == 0) {
        pts = generate_points(n, o->seed);
        deg = xmalloc((size_t)n * sizeof(long), "the degrees");
        memset(deg, 0, (size_t)n * sizeof(long));
        for (long i = 0; i < n; i++)
            for (long j = i + 1; j < n; j++)
                if (dist2(pts, i, j) < t2) {
                    deg[i]++;
                    deg[j]++;
                }
        long nnz = 0, maxdeg = 0;
        for (long i = 0; i < n; i++) {
            nnz += deg[i];
            if (deg[i] > maxdeg)
                maxdeg = deg[i];
        }
        header_src[0] = n;
        header_src[1] = nnz;
        header_src[2] = maxdeg;
    }
    shmem_long_broadcast(SHMEM_TEAM_WORLD, header_dst, header_src, 3, 0);
    if (header_dst[0] != n) {
        fprintf(stderr, "qtc: PE %d: broadcast header says N=%ld, expected %ld\n", me, header_dst[0], n);
        shmem_global_exit(1);
    }
    d->nnz = header_dst[1];
    d->maxdeg = header_dst[2];
    d->off = xshmalloc((size_t)(n + 1) * sizeof(long), "the neighbour offsets");
    d->nbr = xshmalloc((size_t)d->nnz * sizeof(int), "the neighbour lists");
    d->dist = xshmalloc((size_t)d->nnz * sizeof(float), "the neighbour distances");

    /* PE 0 fills the lists in a private copy: for i in order, pairs (i, j > i) append j to
     * i's list and i to j's, so every list comes out sorted. */
    long *off = NULL;
    int *nbr = NULL;
    float *dist = NULL;
    if (me == 0) {
        off = xmalloc((size_t)(n + 1) * sizeof(long), "the offsets");
        nbr = xmalloc((size_t)d->nnz * sizeof(int), "the lists");
        dist = xmalloc((size_t)d->nnz * sizeof(float), "the distances");
        off[0] = 0;
        for (long i = 0; i < n; i++)
            off[i + 1] = off[i] + deg[i];
        long *fill = deg; /* reused: next free slot of each list */
        for (long i = 0; i < n; i++)
            fill[i] = off[i];
        for (long i = 0; i < n; i++)
            for (long j = i + 1; j < n; j++) {
                double q = dist2(pts, i, j);
                if (q < t2) {
                    float dd = (float)sqrt(q);
                    nbr[fill[i]] = (int)j;
                    dist[fill[i]++] = dd;
                    nbr[fill[j]] = (int)i;
                    dist[fill[j]++] = dd;
                }
            }
        free(pts);
        free(deg);
    }

    /* Broadcast the three arrays from PE 0 through a symmetric staging buffer. */
    long total = (long)((n + 1) * sizeof(long) + d->nnz * (sizeof(int) + sizeof(float)));
    long chunk = total < BCAST_CHUNK ? total : BCAST_CHUNK;
    char *stage = xshmalloc((size_t)chunk, "the broadcast buffer");
    struct {
        void *dst;
        const void *src;
        long bytes;
    } parts[3] = {{d->off, off, (n + 1) * (long)sizeof(long)},
                  {d->nbr, nbr, d->nnz * (long)sizeof(int)},
                  {d->dist, dist, d->nnz * (long)sizeof(float)}};
    for (int p = 0; p < 3; p++)
        for (long at = 0; at < parts[p].bytes; at += chunk) {
            long len = parts[p].bytes - at < chunk ? parts[p].bytes - at : chunk;
            if (me == 0)
                memcpy(stage, (const char *)parts[p].src + at, (size_t)len);
            shmem_broadcastmem(SHMEM_TEAM_WORLD, (char *)parts[p].dst + at, stage, (size_t)len, 0);
        }
    shmem_free(stage);
    free(off);
    free(nbr);
    free(dist);
}

/* Distance between two points, or -1 if they are not neighbours. */
static double lookup(const struct data *d, int a, int b) {
    long lo = d->off[a], hi = d->off[a + 1];
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (d->nbr[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->off[a + 1] && d->nbr[lo] == b ? (double)d->dist[lo] : -1.0;
}

/* ---------------------------------------------------------------- clustering state */

struct state {
    unsigned char *clustered; /* [n]: 1 once in a cluster */
    int *udeg;                /* [n]: unclustered neighbours */
    int *ung;                 /* the unclustered points, in increasing order */
    long nung;
    int *pool;                /* [maxdeg]: candidate pool (indices, increasing) */
    float *pdist;             /* [maxdeg]: largest distance of each pool point to the cluster */
};

static void state_init(struct state *s, const struct data *d) {
    long n = d->n, md = d->maxdeg > 0 ? d->maxdeg : 1;
    s->clustered = xmalloc((size_t)n, "the clustered mask");
    s->udeg = xmalloc((size_t)n * sizeof(int), "the degrees");
    s->ung = xmalloc((size_t)n * sizeof(int), "the ungrouped list");
    s->pool = xmalloc((size_t)md * sizeof(int), "the pool");
    s->pdist = xmalloc((size_t)md * sizeof(float), "the pool distances");
    memset(s->clustered, 0, (size_t)n);
    for (long i = 0; i < n; i++) {
        s->udeg[i] = (int)(d->off[i + 1] - d->off[i]);
        s->ung[i] = (int)i;
    }
    s->nung = n;
}

static void state_free(struct state *s) {
    free(s->clustered);
    free(s->udeg);
    free(s->ung);
    free(s->pool);
    free(s->pdist);
}

/* The candidate cluster of seed `seed` over the unclustered points: its cardinality, and
 * its members in `members` (seed first, then in the order they were added) if not NULL.
 * Gives up and returns 0 as soon as it cannot beat (bound_card, bound_seed): larger, or
 * as large with a smaller seed (bound_card 0: no bound).
 *
 * Complete linkage, as SHOC's generate_candidate_cluster: each pool point keeps its
 * largest distance to the members; the point with the smallest one (ties: smallest
 * index) joins while that distance is <= t. A point stays in the pool only while it is
 * a neighbour of every member and within t of all of them (its distance never shrinks),
 * so after each addition the pool is merged with the newcomer's sorted neighbour list. */
static long candidate(const struct data *d, struct state *s, int seed, long bound_card, int bound_seed,
                      int *members) {
    int *pool = s->pool;
    float *pd = s->pdist;
    const double t = d->t;
    long n = 0, card = 1, best = -1;
    for (long j = d->off[seed]; j < d->off[seed + 1]; j++) {
        int q = d->nbr[j];
        if (!s->clustered[q] && (double)d->dist[j] <= t) {
            pool[n] = q;
            pd[n] = d->dist[j];
            if (best < 0 || pd[n] < pd[best])
                best = n;
            n++;
        }
    }
    if (members != NULL)
        members[0] = seed;
    for (;;) {
        /* at most card + n points from here */
        if (card + n < bound_card || (card + n == bound_card && seed > bound_seed))
            return 0;
        if (n == 0)
            break; /* pool empty (every pool point is within t) */
        int c = pool[best];
        if (members != NULL)
            members[card] = c;
        card++;
        /* merge the rest of the pool with c's neighbours; keep those still within t */
        long j = d->off[c], je = d->off[c + 1], w = 0;
        long nb = -1;
        for (long i = 0; i < n; i++) {
            if (i == best)
                continue;
            int q = pool[i];
            while (j < je && d->nbr[j] < q)
                j++;
            if (j == je)
                break;
            if (d->nbr[j] != q)
                continue; /* not a neighbour of c: out of reach for good */
            float nd = pd[i] > d->dist[j] ? pd[i] : d->dist[j];
            if ((double)nd > t)
                continue;
            pool[w] = q;
            pd[w] = nd;
            if (nb < 0 || nd < pd[nb])
                nb = w;
            w++;
        }
        n = w;
        best = nb;
    }
    return card;
}

/* This PE's best candidate over the unclustered points at positions r, r+m, ... of the
 * list (SHOC's cyclic deal): its key card << 32 | (n - 1 - seed), or 0 if it has no seed.
 * A seed's cluster holds at most its unclustered neighbours plus itself, so a seed that
 * could not beat the best so far even with all of them (larger, or as large with a
 * smaller index) is skipped: exact pruning, the result is the best of all. */
static long local_best(const struct data *d, struct state *s, long r, long m) {
    long best_card = 0;
    int best_seed = -1;
    for (long i = r; i < s->nung; i += m) {
        int seed = s->ung[i];
        long most = (long)s->udeg[seed] + 1;
        if (most < best_card || (most == best_card && seed > best_seed))
            continue;
        long c = candidate(d, s, seed, best_card, best_seed, NULL);
        if (c > best_card || (c == best_card && c > 0 && seed < best_seed)) {
            best_card = c;
            best_seed = seed;
        }
    }
    return best_card > 0 ? best_card << 32 | (d->n - 1 - best_seed) : 0;
}

/* Position of point p in the unclustered list (it is there). */
static long position(const struct state *s, int p) {
    long lo = 0, hi = s->nung;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (s->ung[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Removes a cluster's members from the state: -1, or the position of the first member
 * that is not an unclustered point (out of range, clustered already, or repeated), where
 * it stops. */
static long remove_cluster(const struct data *d, struct state *s, const int *members, long card) {
    for (long i = 0; i < card; i++) {
        int p = members[i];
        if (p < 0 || p >= d->n || s->clustered[p])
            return i;
        s->clustered[p] = 1;
        for (long j = d->off[p]; j < d->off[p + 1]; j++)
            s->udeg[d->nbr[j]]--;
    }
    long w = 0;
    for (long i = 0; i < s->nung; i++)
        if (!s->clustered[s->ung[i]])
            s->ung[w++] = s->ung[i];
    s->nung = w;
    return -1;
}

/* The clusters found, in order: seeds, cardinalities, members. */
struct record {
    long count;
    int *seed;
    long *card;
    long *start; /* [count + 1] into members */
    int *members;
};

static void record_init(struct record *rec, long n) {
    rec->count = 0;
    rec->seed = xmalloc((size_t)n * sizeof(int), "the record");
    rec->card = xmalloc((size_t)n * sizeof(long), "the record");
    rec->start = xmalloc((size_t)(n + 1) * sizeof(long), "the record");
    rec->members = xmalloc((size_t)n * sizeof(int), "the record");
    rec->start[0] = 0;
}

static void record_add(struct record *rec, int seed, long card, const int *members) {
    long at = rec->start[rec->count];
    rec->seed[rec->count] = seed;
    rec->card[rec->count] = card;
    memcpy(rec->members + at, members, (size_t)card * sizeof(int));
    rec->start[++rec->count] = at + card;
}

static uint64_t record_hash(const struct record *rec) {
    uint64_t h = FNV_OFFSET;
    for (long i = 0; i < rec->count; i++) {
        h = fnv_u32(h, (uint32_t)rec->seed[i]);
        h = fnv_u32(h, (uint32_t)rec->card[i]);
    }
    return h;
}

/* The serial reference: the same code on a team of one PE, every seed. */
static void serial_reference(const struct data *d, struct record *ref) {
    struct state s;
    state_init(&s, d);
    int *members = xmalloc((size_t)(d->maxdeg + 1) * sizeof(int), "the members");
    long remaining = d->n;
    for (;;) {
        long key = local_best(d, &s, 0, 1);
        long card = key >> 32;
        int seed = (int)(d->n - 1 - (key & 0xffffffffL));
        candidate(d, &s, seed, 0, 0, members);
        record_add(ref, seed, card, members);
        remove_cluster(d, &s, members, card);
        remaining -= card;
        if (card <= 1 || remaining == 0)
            break;
    }
    free(members);
    state_free(&s);
}

/* Checks (a) every point in exactly one cluster or left over as a singleton, and (b)
 * every cluster's diameter <= t. Prints what is wrong; 0 if all is well. */
static int check_partition(const struct data *d, const struct record *rec, long singletons) {
    long n = d->n, covered = 0, errors = 0;
    unsigned char *seen = xmalloc((size_t)n, "the coverage");
    memset(seen, 0, (size_t)n);
    for (long c = 0; c < rec->count; c++)
        for (long i = rec->start[c]; i < rec->start[c + 1]; i++) {
            int p = rec->members[i];
            if (p < 0 || p >= n) {
                if (errors++ < 10)
                    fprintf(stderr, "qtc: verify: cluster %ld holds point %d, outside [0, %ld)\n", c, p, n);
                continue;
            }
            if (seen[p]++ && errors++ < 10)
                fprintf(stderr, "qtc: verify: point %d is in more than one cluster (again in cluster %ld)\n", p,
                        c);
            covered++;
        }
    long missing = 0;
    for (long p = 0; p < n; p++)
        missing += seen[p] == 0;
    if (covered + singletons != n || missing != singletons) {
        fprintf(stderr,
                "qtc: verify: clusters hold %ld points and %ld are left as singletons, but %ld points are in no "
                "cluster (N=%ld)\n",
                covered, singletons, missing, n);
        errors++;
    }
    for (long c = 0; c < rec->count; c++)
        for (long i = rec->start[c]; i < rec->start[c + 1]; i++)
            for (long j = i + 1; j < rec->start[c + 1]; j++) {
                int a = rec->members[i], b = rec->members[j];
                if (a < 0 || a >= n || b < 0 || b >= n)
                    continue;
                double dd = lookup(d, a, b);
                if ((dd < 0 || dd > d->t) && errors++ < 10)
                    fprintf(stderr, "qtc: verify: cluster %ld (seed %d): points %d and %d are %s (t=%g)\n", c,
                            rec->seed[c], a, b, dd < 0 ? "not neighbours (distance >= t)" : "farther apart than t",
                            d->t);
            }
    if (errors > 10)
        fprintf(stderr, "qtc: verify: %ld problems in all\n", errors);
    free(seen);
    return errors > 0;
}

/* ---------------------------------------------------------------- the parallel loop */

static long key_mine, key_all; /* symmetric: the per-iteration max-reduction */

/* Footprint fields reduced over the PEs (symmetric). */
enum { F_FLAGS_CUR, F_FLAGS_PEAK, F_SCR_CUR, F_SCR_PEAK, F_TEAMS_CUR, F_TEAMS_PEAK, F_BASE_CUR,
       F_BASE_PEAK, F_BASE_NEVER, F_COLL, F_SYNC, F_EXTRA, F_FAILED, F_COUNT };
static long fp_mine[F_COUNT], fp_max[F_COUNT], fp_sum[F_COUNT];

/* SHOC's calculate_participants: all P PEs while there is work for more than P-1 of them,
 * then one PE per k remaining points. */
static long active_pes(long remaining, long npes, long k) {
    if (remaining > (npes - 1) * k)
        return npes;
    long a = (remaining + k - 1) / k;
    return a > 0 ? a : 1;
}

static void die_team(const char *what, int me) {
    fprintf(stderr, "qtc: PE %d: %s failed\n", me, what);
    shmem_global_exit(1);
}

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    struct options o;
    char why[256];
    int parsed = parse(argc, argv, &o, why, sizeof why);
    if (parsed != 0) {
        if (me == 0) {
            if (parsed < 0)
                fprintf(stderr, "qtc: %s\n", why);
            usage(parsed < 0 ? stderr : stdout, argv[0]);
        }
        shmem_finalize();
        return parsed < 0 ? 2 : 0;
    }
    if (o.k == 0)
        o.k = (o.n + npes - 1) / npes;
    if (o.verbose)
        setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows as it happens, even in a pipe */

    struct data d;
    build_data(&d, &o, me);
    if (me == 0 && o.verbose)
        printf("data: N=%ld t=%g seed=%llu: %ld neighbour pairs, mean degree %.1f, max degree %ld\n", d.n, d.t,
               (unsigned long long)o.seed, d.nnz / 2, (double)d.nnz / (double)d.n, d.maxdeg);

    struct state s;
    state_init(&s, &d);
    struct record rec;
    record_init(&rec, d.n);
    int *msrc = xshmalloc((size_t)(d.maxdeg + 1) * sizeof(int), "the member buffer");
    int *mdst = xshmalloc((size_t)(d.maxdeg + 1) * sizeof(int), "the member buffer");
    int *mine = o.check ? xmalloc((size_t)(d.maxdeg + 1) * sizeof(int), "the check buffer") : NULL;
    int *sizes = xmalloc((size_t)(d.n + 2) * sizeof(int), "the team sizes");
    long nsizes = 0;

    shmem_barrier_all();
    double t0 = seconds();

    shmem_team_t team = SHMEM_TEAM_WORLD;
    int m = npes, rank = me, recorded = 0;
    long remaining = d.n;
    for (;;) {
        /* Shrink the team (or, with -r, make a new one anyway). */
        long act = active_pes(remaining, npes, o.k);
        if (act < m || o.resplit) {
            int size = act < m ? (int)act : m;
            shmem_team_t next = SHMEM_TEAM_INVALID;
            if (shmem_team_split_strided(team, 0, 1, size, NULL, 0, &next) != 0)
                die_team("shmem_team_split_strided", me);
            if (team != SHMEM_TEAM_WORLD && !o.no_destroy)
                shmem_team_destroy(team);
            team = next;
            recorded = 0;
            if (team == SHMEM_TEAM_INVALID) {
                if (me < size)
                    die_team("shmem_team_split_strided (no team for a member)", me);
                if (o.verbose)
                    printf("PE %d: leaves the clustering at iteration %ld (team of %d)\n", me, rec.count + 1, size);
                break;
            }
            m = shmem_team_n_pes(team);
            rank = shmem_team_my_pe(team);
            if (m != size || rank != me) {
                fprintf(stderr, "qtc: PE %d: the new team has %d PEs and rank %d, expected %d and %d\n", me, m,
                        rank, size, me);
                shmem_global_exit(1);
            }
            if (me == 0 && o.verbose && !o.resplit)
                printf("iteration %ld: %ld points left, team of %d PEs\n", rec.count + 1, remaining, m);
        }
        if (!recorded) {
            sizes[nsizes++] = m;
            recorded = 1;
        }

        /* One iteration: SHOC's barrier, the local search, the winner, its members. */
        shmem_team_sync(team);
        key_mine = local_best(&d, &s, rank, m);
        shmem_long_max_reduce(team, &key_all, &key_mine, 1);
        long card = key_all >> 32;
        int seed = (int)(d.n - 1 - (key_all & 0xffffffffL));
        if (card < 1 || card > d.maxdeg + 1 || seed < 0 || seed >= d.n || s.clustered[seed]) {
            fprintf(stderr, "qtc: PE %d: iteration %ld: the max-reduction gave key %#lx (card %ld, seed %d)\n", me,
                    rec.count + 1, (unsigned long)key_all, card, seed);
            shmem_global_exit(1);
        }
        int owner = (int)(position(&s, seed) % m);
        if (rank == owner && candidate(&d, &s, seed, 0, 0, msrc) != card) {
            fprintf(stderr, "qtc: PE %d: iteration %ld: rebuilding seed %d does not give %ld points\n", me,
                    rec.count + 1, seed, card);
            shmem_global_exit(1);
        }
        shmem_int_broadcast(team, mdst, msrc, (size_t)card, owner);
        if (o.check) {
            long c = candidate(&d, &s, seed, 0, 0, mine);
            long bad = c != card ? 0 : -1;
            for (long i = 0; i < card && bad < 0; i++)
                if (mine[i] != mdst[i])
                    bad = i;
            if (bad >= 0) {
                fprintf(stderr,
                        "qtc: --check: PE %d: iteration %ld (team of %d, root %d): the broadcast cluster of seed %d "
                        "differs from the local one at member %ld (%d received, %d expected; %ld points here, "
                        "%ld broadcast)\n",
                        me, rec.count + 1, m, owner, seed, bad, mdst[bad], c == card ? mine[bad] : -1, c, card);
                shmem_global_exit(1);
            }
        }
        if (me == 0 && o.verbose)
            printf("iteration %ld: seed %d, %ld points (root %d of %d)\n", rec.count + 1, seed, card, owner, m);
        long bad = mdst[0] != seed ? 0 : remove_cluster(&d, &s, mdst, card);
        if (bad >= 0) {
            fprintf(stderr,
                    "qtc: PE %d: iteration %ld (team of %d, root %d): the broadcast cluster of seed %d has member "
                    "%ld = %d, which is %s\n",
                    me, rec.count + 1, m, owner, seed, bad, mdst[bad],
                    bad == 0 && mdst[0] != seed ? "not the seed"
                    : mdst[bad] < 0 || mdst[bad] >= d.n ? "not a point"
                                                         : "clustered already (or repeated)");
            shmem_global_exit(1);
        }
        record_add(&rec, seed, card, mdst);
        remaining -= card;
        if (card <= 1 || remaining == 0)
            break;
    }
    double elapsed = seconds() - t0;

    /* Everyone, the PEs left out early included, meets here. */
    shmem_barrier_all();

    /* Verification on PE 0, which is in every team and so saw every cluster. */
    int failed = 0;
    uint64_t hash = record_hash(&rec), ref_hash = 0;
    long ref_count = 0;
    if (me == 0) {
        failed = check_partition(&d, &rec, remaining);
        if (o.verify) {
            struct record ref;
            record_init(&ref, d.n);
            serial_reference(&d, &ref);
            ref_hash = record_hash(&ref);
            ref_count = ref.count;
            long i = 0;
            while (i < rec.count && i < ref.count && rec.seed[i] == ref.seed[i] && rec.card[i] == ref.card[i])
                i++;
            if (i < rec.count || i < ref.count) {
                fprintf(stderr, "qtc: verify: the clusters differ from the serial reference at iteration %ld: ",
                        i + 1);
                if (i < rec.count && i < ref.count)
                    fprintf(stderr, "seed %d with %ld points, the reference has seed %d with %ld\n", rec.seed[i],
                            rec.card[i], ref.seed[i], ref.card[i]);
                else
                    fprintf(stderr, "%ld clusters, the reference has %ld\n", rec.count, ref.count);
                failed = 1;
            }
            free(ref.seed);
            free(ref.card);
            free(ref.start);
            free(ref.members);
        }
    }

    /* The pSync footprint of every PE: the largest and the sum over the PEs. */
    shmemx_psync_footprint_t fp;
    shmemx_psync_footprint(&fp);
    fp_mine[F_FLAGS_CUR] = (long)fp.flags_current;
    fp_mine[F_FLAGS_PEAK] = (long)fp.flags_peak;
    fp_mine[F_SCR_CUR] = (long)fp.scratch_current;
    fp_mine[F_SCR_PEAK] = (long)fp.scratch_peak;
    fp_mine[F_TEAMS_CUR] = (long)fp.teams_current;
    fp_mine[F_TEAMS_PEAK] = (long)fp.teams_peak;
    fp_mine[F_BASE_CUR] = (long)fp.baseline_current;
    fp_mine[F_BASE_PEAK] = (long)fp.baseline_peak;
    fp_mine[F_BASE_NEVER] = (long)fp.baseline_never_freed;
    fp_mine[F_COLL] = (long)fp.collectives;
    fp_mine[F_SYNC] = (long)fp.sync_messages;
    fp_mine[F_EXTRA] = (long)fp.extra_messages;
    fp_mine[F_FAILED] = failed;
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, fp_max, fp_mine, F_COUNT);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, fp_sum, fp_mine, F_COUNT);
    failed = fp_max[F_FAILED] != 0;

    if (me == 0) {
        char opts[64] = "";
        snprintf(opts, sizeof opts, "%s%s%s%s", o.resplit ? " -r" : "", o.no_destroy ? " --no-destroy" : "",
                 o.check ? " --check" : "", o.verify ? "" : " --no-verify");
        printf("QTC N=%ld t=%g PEs=%d k=%ld seed=%llu strategy=%s%s\n", d.n, d.t, npes, o.k,
               (unsigned long long)o.seed, fp.strategy, opts);
        /* team sizes; runs of one size (with -r) as SIZExCOUNT */
        printf("clusters: %ld (+%ld singletons), teams: %ld (", rec.count, remaining, nsizes);
        for (long i = 0; i < nsizes;) {
            long j = i;
            while (j < nsizes && sizes[j] == sizes[i])
                j++;
            printf("%s%d", i > 0 ? "," : "", sizes[i]);
            if (j - i > 1)
                printf("x%ld", j - i);
            i = j;
        }
        printf(")\n");
        const char *verdict = failed ? "FAILED" : o.verify ? "OK" : "off";
        if (failed && o.verify && ref_hash != hash)
            printf("verify: FAILED (hash 0x%016llx, the serial reference has 0x%016llx and %ld clusters)\n",
                   (unsigned long long)hash, (unsigned long long)ref_hash, ref_count);
        else if (failed)
            printf("verify: FAILED (hash 0x%016llx; see the messages above)\n", (unsigned long long)hash);
        else if (o.verify)
            printf("verify: OK (hash 0x%016llx, identical to the serial reference)\n", (unsigned long long)hash);
        else
            printf("verify: off (hash 0x%016llx; clusters and diameters checked, no serial reference)\n",
                   (unsigned long long)hash);
        double coll = (double)(fp_sum[F_COLL] > 0 ? fp_sum[F_COLL] : 1);
        double sync_per = (double)fp_sum[F_SYNC] / coll, extra_per = (double)fp_sum[F_EXTRA] / coll;
        printf("pSync bytes/PE (max over PEs): flags cur %ld peak %ld, scratch cur %ld peak %ld | traditional "
               "baseline: peak %ld, never freed %ld\n",
               fp_max[F_FLAGS_CUR], fp_max[F_FLAGS_PEAK], fp_max[F_SCR_CUR], fp_max[F_SCR_PEAK],
               fp_max[F_BASE_PEAK], fp_max[F_BASE_NEVER]);
        printf("sync messages/collective: %.2f, extra %.2f (collectives %ld, max over PEs)\n", sync_per, extra_per,
               fp_max[F_COLL]);
        printf("time: %.3f s\n", elapsed);
        printf("RESULT strategy=%s npes=%d n=%ld t=%g k=%ld clusters=%ld singletons=%ld teams=%ld sizes=", fp.strategy,
               npes, d.n, d.t, o.k, rec.count, remaining, nsizes);
        for (long i = 0; i < nsizes; i++)
            printf("%s%d", i > 0 ? "," : "", sizes[i]);
        printf(" verify=%s hash=0x%016llx flags_cur=%ld flags_peak=%ld scratch_cur=%ld scratch_peak=%ld "
               "base_peak=%ld base_never=%ld sync_msgs=%.2f extra_msgs=%.2f collectives=%ld seconds=%.3f\n",
               verdict, (unsigned long long)hash, fp_max[F_FLAGS_CUR], fp_max[F_FLAGS_PEAK], fp_max[F_SCR_CUR],
               fp_max[F_SCR_PEAK], fp_max[F_BASE_PEAK], fp_max[F_BASE_NEVER], sync_per, extra_per, fp_max[F_COLL],
               elapsed);
        fflush(stdout);
    }

    /* The last team goes (the footprint above still counted it), unless SHOC-style. */
    if (team != SHMEM_TEAM_WORLD && team != SHMEM_TEAM_INVALID && !o.no_destroy)
        shmem_team_destroy(team);
    shmem_free(msrc);
    shmem_free(mdst);
    shmem_free(d.off);
    shmem_free(d.nbr);
    shmem_free(d.dist);
    free(mine);
    free(sizes);
    free(rec.seed);
    free(rec.card);
    free(rec.start);
    free(rec.members);
    state_free(&s);
    shmem_finalize();
    return failed ? 1 : 0;
}
