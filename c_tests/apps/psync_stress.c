/* rshmem-test
 * np: 4 8
 * variant: SHMEM_PSYNC_STRATEGY=all
 * timeout: 30
 * stdout: psync_stress: OK
 * args: --steps 2000
 * ignored-args: --steps 20000 --seed 20250101
 */
/* Stress of the team collectives and of the reuse of their synchronisation memory: a long
 * random sequence of team splits, team destructions and collectives on overlapping teams,
 * with no barrier between operations.
 *
 * Every PE draws THE SAME global sequence of operations from a splitmix64 generator seeded
 * with --seed, and executes only the operations of the teams it belongs to (a split: the
 * members of the parent). The sequence is a total order that every team sees as a
 * subsequence, which is what keeps the program free of deadlock without any barrier
 * between steps (there is one at the start and one at the end). The live teams are
 * SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and at most MAX_USER teams made by the sequence;
 * membership is tracked by arithmetic on every PE and checked against the handles the
 * library returns (SHMEM_TEAM_INVALID exactly on non-members; shmem_team_n_pes, _my_pe and
 * _translate_pe agree). Each step is one of:
 *   - shmem_team_split_strided of a random live parent (random start, size and stride,
 *     negative strides and 1-PE teams included), or shmem_team_split_2d (random xrange,
 *     up to the parent's size + 1): the new teams join the list;
 *   - shmem_team_destroy of a random live user team (its handle must then be stale);
 *   - shmem_team_sync (after each member set a word on the next member and called
 *     shmem_quiet, so the sync must make it visible), shmem_barrier_all, shmem_sync_all;
 *   - broadcast (typed and shmem_broadcastmem, random root), typed reductions (sum, prod,
 *     max, min, and, or, xor over integer, floating and complex types, in place sometimes),
 *     fcollect, collect (a different length on every member), alltoall, alltoalls (random
 *     strides), sum_inscan / sum_exscan;
 * on a random live team, with random sizes: zero sometimes, mostly small, sometimes more
 * than 64 KiB (the chunked and ring paths). Source data are a function of (step, world PE,
 * element index), exact for reductions (bit patterns for unsigned types, small integers or
 * quarters otherwise), so every member computes every expected element locally and checks
 * all of them, the source left unchanged (out of place) and guard bytes around dest.
 * Buffers are allocated once, before the sequence (shmem_malloc is collective over the
 * world).
 *
 * Arguments: --steps N (default 600), --seed S (default 1), --trace (every PE prints each
 * operation it takes part in on stderr, for a hang). At the end PE 0 prints the synchronisation
 * memory footprint (shmemx_psync_footprint) and "psync_stress: OK <steps> steps". */
#include <complex.h>
#include <shmem.h>
#include <shmemx.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_USER 12                /* live user teams at most */
#define MAX_TEAMS (2 + MAX_USER)   /* plus SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED */
#define BUF_BYTES (192 * 1024)     /* a collective's source or dest, at most */
#define PAD 64                     /* guard bytes checked past dest; room for unaligned offsets */
#define LARGE_MIN (64 * 1024 + 8)  /* "large" operations move more than 64 KiB */
#define LARGE_MAX (160 * 1024)
#define MAX_PES 1024               /* for the per-member lengths of collect */

static int me, npes, trace;
static unsigned long long seed = 1;
static long nsteps = 600, step = -1;
static const char *strategy;
static unsigned char *src, *dst; /* symmetric, BUF_BYTES + 2 * PAD bytes each */
static long *mbox;               /* symmetric, npes: mbox[p] = last step at which world PE p signalled this PE */

/* ---- Teams ------------------------------------------------------------------------------ */

struct team {
    shmem_team_t h;          /* SHMEM_TEAM_INVALID on a PE outside the team */
    int start, stride, size; /* members: world PEs start + k * stride, k < size */
    int rank;                /* this PE's rank, -1 outside */
    int user;                /* made by the sequence (may be destroyed) */
    char name[24];
};

static struct team teams[MAX_TEAMS];
static int nteams, nuser, next_id;

static int wpe(const struct team *t, int r) {
    return t->start + r * t->stride;
}

static int rank_of(int start, int stride, int size, int pe) {
    int d = pe - start;
    if (stride == 0)
        return d == 0 ? 0 : -1;
    if (d % stride != 0)
        return -1;
    int r = d / stride;
    return r >= 0 && r < size ? r : -1;
}

/* ---- Failure reports -------------------------------------------------------------------- */

static const char *cur_op = "setup";
static const struct team *cur_team;
static char cur_args[160];

static void fail(int line, const char *msg) {
    const struct team *t = cur_team;
    char tdesc[128] = "-";
    if (t)
        snprintf(tdesc, sizeof tdesc, "%s [start %d stride %d size %d, my rank %d]", t->name, t->start, t->stride,
                 t->size, t->rank);
    fprintf(stderr,
            "psync_stress: FAIL on PE %d of %d (line %d): seed %llu, step %ld, %s on team %s%s%s, "
            "SHMEM_PSYNC_STRATEGY=%s: %s\n",
            me, npes, line, seed, step, cur_op, tdesc, cur_args[0] ? ", " : "", cur_args, strategy, msg);
    fflush(stderr);
    shmem_global_exit(1);
}

#define FAIL(...)                                   \
    do {                                            \
        char m_[512];                               \
        snprintf(m_, sizeof m_, __VA_ARGS__);       \
        fail(__LINE__, m_);                         \
    } while (0)
#define ENSURE(cond, ...)      \
    do {                       \
        if (!(cond))           \
            FAIL(__VA_ARGS__); \
    } while (0)

static const char *fmtv(char *buf, size_t n, long double _Complex v) {
    if (cimagl(v) != 0)
        snprintf(buf, n, "%.21Lg%+.21Lgi", creall(v), cimagl(v));
    else
        snprintf(buf, n, "%.21Lg", creall(v));
    return buf;
}

/* ---- Random numbers and data -------------------------------------------------------------- */

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The global sequence: splitmix64, the same on every PE. */
static uint64_t rng;
static uint64_t rnd(void) {
    rng += 0x9E3779B97F4A7C15ull;
    return mix64(rng);
}
static long rndn(long n) { /* [0, n) */
    return n > 0 ? (long)(rnd() % (uint64_t)n) : 0;
}
static long rnd_range(long lo, long hi) { /* [lo, hi] */
    return lo + rndn(hi - lo + 1);
}

/* The data of element i of world PE pe at the current step. */
static uint64_t hash3(int pe, size_t i) {
    return mix64(mix64(mix64((uint64_t)step * 0x9E3779B97F4A7C15ull + 12345) ^ ((uint64_t)pe + 0x632BE59BD9B4E019ull)) ^
                 (uint64_t)i);
}

static uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

/* Guard byte j of dest at the current step. */
static unsigned char gbyte(size_t j) {
    return (unsigned char)(0xA5u ^ (j * 29u) ^ (size_t)step);
}
static void guard_fill(unsigned char *b, size_t from, size_t to) {
    for (size_t j = from; j < to; j++)
        b[j] = gbyte(j);
}
static void guard_check(const unsigned char *b, size_t from, size_t to, const char *what) {
    for (size_t j = from; j < to; j++)
        ENSURE(b[j] == gbyte(j), "%s byte %zu, outside the result, is 0x%02x: expected it untouched (0x%02x)", what, j,
               b[j], gbyte(j));
}

/* Elements per block for a collective on blocks blocks of elsize-byte elements spread
 * spread apart: 0 sometimes, mostly up to 16, often up to a few thousand, sometimes more than
 * 64 KiB in all. Always fits in BUF_BYTES. */
static size_t pick_n(size_t elsize, size_t blocks, size_t spread) {
    size_t unit = elsize * blocks * spread, cap = BUF_BYTES / unit;
    long r = rndn(100);
    size_t n;
    if (r < 6)
        n = 0;
    else if (r < 55)
        n = 1 + (size_t)rndn(16);
    else if (r < 90)
        n = 17 + (size_t)rndn(4000);
    else
        n = ((size_t)rnd_range(LARGE_MIN, LARGE_MAX) + elsize * blocks - 1) / (elsize * blocks);
    return n < cap ? n : cap;
}

/* ---- Data-movement collectives, for any element type ---------------------------------------- */

struct mtype {
    const char *name;
    size_t size;
    void (*gen)(void *out, uint64_t h);
    int (*eq)(const void *a, const void *b);
    void (*fmt)(char *buf, size_t n, const void *v);
    int (*bcast)(shmem_team_t, void *, const void *, size_t, int);
    int (*fcollect)(shmem_team_t, void *, const void *, size_t);
    int (*collect)(shmem_team_t, void *, const void *, size_t);
    int (*alltoall)(shmem_team_t, void *, const void *, size_t);
    int (*alltoalls)(shmem_team_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t);
};

#define MOVE_TYPES(X)                                                                           \
    X(uint8, uint8_t) X(short, short) X(int32, int32_t) X(float, float) X(long, long) X(double, double) \
        X(longdouble, long double) X(uint64, uint64_t)

#define DEF_MT(NAME, T)                                                                                   \
    static void gen_##NAME(void *o, uint64_t h) {                                                         \
        T v = (T)h;                                                                                       \
        memcpy(o, &v, sizeof v);                                                                          \
    }                                                                                                     \
    static int eq_##NAME(const void *a, const void *b) {                                                  \
        T x, y;                                                                                           \
        memcpy(&x, a, sizeof x);                                                                          \
        memcpy(&y, b, sizeof y);                                                                          \
        return x == y;                                                                                    \
    }                                                                                                     \
    static void fmt_##NAME(char *buf, size_t n, const void *v) {                                          \
        T x;                                                                                              \
        memcpy(&x, v, sizeof x);                                                                          \
        snprintf(buf, n, "%.21Lg", (long double)x);                                                       \
    }                                                                                                     \
    static int bc_##NAME(shmem_team_t t, void *d, const void *s, size_t n, int r) {                       \
        return shmem_##NAME##_broadcast(t, d, s, n, r);                                                   \
    }                                                                                                     \
    static int fc_##NAME(shmem_team_t t, void *d, const void *s, size_t n) {                              \
        return shmem_##NAME##_fcollect(t, d, s, n);                                                       \
    }                                                                                                     \
    static int co_##NAME(shmem_team_t t, void *d, const void *s, size_t n) {                              \
        return shmem_##NAME##_collect(t, d, s, n);                                                        \
    }                                                                                                     \
    static int aa_##NAME(shmem_team_t t, void *d, const void *s, size_t n) {                              \
        return shmem_##NAME##_alltoall(t, d, s, n);                                                       \
    }                                                                                                     \
    static int as_##NAME(shmem_team_t t, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, size_t n) { \
        return shmem_##NAME##_alltoalls(t, d, s, ds, ss, n);                                              \
    }
MOVE_TYPES(DEF_MT)

static int bc_mem(shmem_team_t t, void *d, const void *s, size_t n, int r) {
    return shmem_broadcastmem(t, d, s, n, r);
}
static int fc_mem(shmem_team_t t, void *d, const void *s, size_t n) {
    return shmem_fcollectmem(t, d, s, n);
}
static int co_mem(shmem_team_t t, void *d, const void *s, size_t n) {
    return shmem_collectmem(t, d, s, n);
}
static int aa_mem(shmem_team_t t, void *d, const void *s, size_t n) {
    return shmem_alltoallmem(t, d, s, n);
}
static int as_mem(shmem_team_t t, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, size_t n) {
    return shmem_alltoallsmem(t, d, s, ds, ss, n);
}

#define MT_ENTRY(NAME, T) \
    {#NAME, sizeof(T), gen_##NAME, eq_##NAME, fmt_##NAME, bc_##NAME, fc_##NAME, co_##NAME, aa_##NAME, as_##NAME},
static const struct mtype mtypes[] = {
    MOVE_TYPES(MT_ENTRY){"mem", 1, gen_uint8, eq_uint8, fmt_uint8, bc_mem, fc_mem, co_mem, aa_mem, as_mem},
};
#define NMT ((long)(sizeof mtypes / sizeof mtypes[0]))
#define MT_MEM (NMT - 1)

/* Checks that got holds element idx of world PE pe's data; pos is its place in buf. */
static void expect(const struct mtype *m, const void *got, int pe, size_t idx, const char *buf, size_t pos) {
    unsigned char want[32];
    m->gen(want, hash3(pe, idx));
    if (!m->eq(got, want)) {
        char g[64], w[64];
        m->fmt(g, sizeof g, got);
        m->fmt(w, sizeof w, want);
        FAIL("%s element %zu is %s, expected %s (element %zu of world PE %d's source)", buf, pos, g, w, idx, pe);
    }
}

static void fill_source(const struct mtype *m, unsigned char *s, size_t count) {
    for (size_t i = 0; i < count; i++)
        m->gen(s + i * m->size, hash3(me, i));
}

static void check_source(const struct mtype *m, const unsigned char *s, size_t count) {
    for (size_t i = 0; i < count; i++)
        expect(m, s + i * m->size, me, i, "source (must not change)", i);
}

static void check_ret(int ret) {
    ENSURE(ret == 0, "returned %d", ret);
}

static void op_broadcast(const struct team *t, const struct mtype *m, size_t n, int root, size_t off) {
    unsigned char *s = src + off, *d = dst + off;
    size_t nb = n * m->size;
    fill_source(m, s, n);
    guard_fill(dst, 0, off + nb + PAD);
    check_ret(m->bcast(t->h, d, s, n, root));
    for (size_t i = 0; i < n; i++)
        expect(m, d + i * m->size, wpe(t, root), i, "dest", i);
    guard_check(dst, 0, off, "dest");
    guard_check(dst, off + nb, off + nb + PAD, "dest");
    check_source(m, s, n);
}

static void op_fcollect(const struct team *t, const struct mtype *m, size_t n, size_t off) {
    unsigned char *s = src + off, *d = dst + off;
    size_t nb = n * m->size, total = nb * (size_t)t->size;
    fill_source(m, s, n);
    guard_fill(dst, 0, off + total + PAD);
    check_ret(m->fcollect(t->h, d, s, n));
    for (int k = 0; k < t->size; k++)
        for (size_t i = 0; i < n; i++)
            expect(m, d + ((size_t)k * n + i) * m->size, wpe(t, k), i, "dest", (size_t)k * n + i);
    guard_check(dst, 0, off, "dest");
    guard_check(dst, off + total, off + total + PAD, "dest");
    check_source(m, s, n);
}

static void op_collect(const struct team *t, const struct mtype *m, const size_t *lens, size_t off) {
    unsigned char *s = src + off, *d = dst + off;
    size_t mine = lens[t->rank], total = 0;
    for (int k = 0; k < t->size; k++)
        total += lens[k] * m->size;
    fill_source(m, s, mine);
    guard_fill(dst, 0, off + total + PAD);
    check_ret(m->collect(t->h, d, s, mine));
    size_t pos = 0;
    for (int k = 0; k < t->size; k++)
        for (size_t i = 0; i < lens[k]; i++, pos++)
            expect(m, d + pos * m->size, wpe(t, k), i, "dest", pos);
    guard_check(dst, 0, off, "dest");
    guard_check(dst, off + total, off + total + PAD, "dest");
    check_source(m, s, mine);
}

static void op_alltoall(const struct team *t, const struct mtype *m, size_t n, size_t off) {
    unsigned char *s = src + off, *d = dst + off;
    size_t all = n * (size_t)t->size, total = all * m->size;
    fill_source(m, s, all);
    guard_fill(dst, 0, off + total + PAD);
    check_ret(m->alltoall(t->h, d, s, n));
    for (int k = 0; k < t->size; k++)
        for (size_t e = 0; e < n; e++)
            expect(m, d + ((size_t)k * n + e) * m->size, wpe(t, k), (size_t)t->rank * n + e, "dest",
                   (size_t)k * n + e);
    guard_check(dst, 0, off, "dest");
    guard_check(dst, off + total, off + total + PAD, "dest");
    check_source(m, s, all);
}

/* Element e of the block for member j is source[(j * n + e) * ss] = data index j * n + e;
 * the elements of source between them hold data indices from BUF_BYTES on. */
static void op_alltoalls(const struct team *t, const struct mtype *m, size_t n, ptrdiff_t ds, ptrdiff_t ss,
                         size_t off) {
    unsigned char *s = src + off, *d = dst + off;
    size_t all = n * (size_t)t->size, es = m->size;
    size_t sspan = all ? (all - 1) * (size_t)ss + 1 : 0, dspan = all ? (all - 1) * (size_t)ds + 1 : 0;
    for (size_t p = 0; p < sspan; p++)
        m->gen(s + p * es, hash3(me, p % (size_t)ss ? BUF_BYTES + p : p / (size_t)ss));
    guard_fill(dst, 0, off + dspan * es + PAD);
    check_ret(m->alltoalls(t->h, d, s, ds, ss, n));
    for (size_t p = 0; p < dspan; p++) {
        if (p % (size_t)ds == 0) {
            size_t q = p / (size_t)ds, k = q / n, e = q % n;
            expect(m, d + p * es, wpe(t, (int)k), (size_t)t->rank * n + e, "dest", p);
        } else {
            guard_check(dst, off + p * es, off + (p + 1) * es, "dest (between strided elements)");
        }
    }
    guard_check(dst, 0, off, "dest");
    guard_check(dst, off + dspan * es, off + dspan * es + PAD, "dest");
    for (size_t p = 0; p < sspan; p++)
        expect(m, s + p * es, me, p % (size_t)ss ? BUF_BYTES + p : p / (size_t)ss, "source (must not change)", p);
}

/* ---- Reductions and scans ----------------------------------------------------------------- */

/* Source values, exact for the operator: h is the element's hash. */
#define G_BITS(T, h) ((T)(h))
#define G_SMALL(T, h) ((T)((long long)((h) % 2001) - 1000))
#define G_DENSE(T, h) ((T)((h) | rotl((h), 21) | rotl((h), 43)))  /* 7/8 of the bits set: for and */
#define G_SPARSE(T, h) ((T)((h) & rotl((h), 21) & rotl((h), 43))) /* 1/8 of the bits set: for or */
static const signed char prodv[8] = {1, -1, 2, 1, -2, 3, 1, -1};
#define G_PROD(T, h) ((T)prodv[(h) % 8])
static const double fprodv[8] = {1, -1, 2, 0.5, -0.5, 1.5, 1, -2};
#define G_FPROD(T, h) ((T)fprodv[(h) % 8])
#define G_FSMALL(T, h) ((T)((double)((long long)((h) % 8001) - 4000) * 0.25))
#define G_FWIDE(T, h) ((T)((long long)((h) % 33554433) - 16777216))
#define G_CSMALL(T, h)                                                  \
    ((T)((double)((long long)((h) % 8001) - 4000) * 0.25 +              \
         (double)((long long)(((h) >> 32) % 8001) - 4000) * 0.25 * I))

#define F_sum(a, b) ((a) + (b))
#define F_prod(a, b) ((a) * (b))
#define F_max(a, b) ((a) > (b) ? (a) : (b))
#define F_min(a, b) ((a) < (b) ? (a) : (b))
#define F_and(a, b) ((a) & (b))
#define F_or(a, b) ((a) | (b))
#define F_xor(a, b) ((a) ^ (b))

#define REDUCTIONS(X)                                                                                              \
    X(int, int, sum, G_SMALL) X(int, int, prod, G_PROD) X(int, int, max, G_BITS) X(int, int, min, G_BITS)          \
    X(long, long, sum, G_SMALL) X(long, long, max, G_BITS) X(long, long, min, G_BITS)                              \
    X(longlong, long long, sum, G_SMALL) X(longlong, long long, prod, G_PROD)                                      \
    X(short, short, sum, G_SMALL) X(short, short, min, G_BITS)                                                     \
    X(uint, unsigned int, sum, G_BITS) X(uint, unsigned int, prod, G_BITS) X(uint, unsigned int, and, G_DENSE)     \
    X(uint, unsigned int, or, G_SPARSE) X(uint, unsigned int, xor, G_BITS)                                         \
    X(ushort, unsigned short, sum, G_BITS) X(ushort, unsigned short, and, G_DENSE)                                 \
    X(uint8, uint8_t, sum, G_BITS) X(uint8, uint8_t, xor, G_BITS) X(uint8, uint8_t, max, G_BITS)                   \
    X(int32, int32_t, and, G_DENSE) X(int32, int32_t, xor, G_BITS)                                                 \
    X(int64, int64_t, or, G_SPARSE) X(int64, int64_t, max, G_BITS) X(int64, int64_t, prod, G_PROD)                 \
    X(uint64, uint64_t, sum, G_BITS) X(uint64, uint64_t, prod, G_BITS) X(uint64, uint64_t, and, G_DENSE)           \
    X(uint64, uint64_t, or, G_SPARSE) X(uint64, uint64_t, xor, G_BITS) X(uint64, uint64_t, max, G_BITS)            \
    X(uint64, uint64_t, min, G_BITS) X(size, size_t, sum, G_BITS)                                                  \
    X(float, float, sum, G_FSMALL) X(float, float, max, G_FWIDE) X(float, float, prod, G_FPROD)                    \
    X(double, double, sum, G_FSMALL) X(double, double, max, G_FWIDE) X(double, double, min, G_FWIDE)               \
    X(double, double, prod, G_FPROD) X(longdouble, long double, sum, G_FSMALL)                                     \
    X(longdouble, long double, min, G_FWIDE) X(complexd, double _Complex, sum, G_CSMALL)                           \
    X(complexf, float _Complex, prod, G_FPROD)

/* Element i of a result: dest[i] must equal want, and (out of place) source[i] must still
 * hold this PE's value. */
#define CHECK_ELEMENT(T, GEN, d, s, i, want, inplace)                                                     \
    do {                                                                                                  \
        if (!((d)[i] == (want))) {                                                                        \
            char g_[96], w_[96];                                                                          \
            FAIL("dest[%zu] is %s, expected %s", (i), fmtv(g_, sizeof g_, (d)[i]), fmtv(w_, sizeof w_, (want))); \
        }                                                                                                 \
        if (!(inplace)) {                                                                                 \
            uint64_t h_ = hash3(me, (i));                                                                 \
            T own_ = GEN(T, h_);                                                                          \
            if (!((s)[i] == own_)) {                                                                      \
                char g_[96], w_[96];                                                                      \
                FAIL("source[%zu] changed: it is %s, was %s", (i), fmtv(g_, sizeof g_, (s)[i]),           \
                     fmtv(w_, sizeof w_, own_));                                                          \
            }                                                                                             \
        }                                                                                                 \
    } while (0)

/* One reduction of n elements on t (dest == source when inplace), checked element by element. */
#define DEF_RED(NAME, T, OP, GEN)                                                                             \
    static void red_##NAME##_##OP(const struct team *t, size_t n, int inplace) {                            \
        T *s = (T *)(void *)src, *d = inplace ? s : (T *)(void *)dst;                                         \
        unsigned char *db = inplace ? src : dst;                                                              \
        size_t nb = n * sizeof(T);                                                                            \
        guard_fill(db, inplace ? nb : 0, nb + PAD);                                                           \
        for (size_t i = 0; i < n; i++) {                                                                      \
            uint64_t h = hash3(me, i);                                                                        \
            s[i] = GEN(T, h);                                                                                 \
        }                                                                                                     \
        check_ret(shmem_##NAME##_##OP##_reduce(t->h, d, s, n));                                               \
        for (size_t i = 0; i < n; i++) {                                                                      \
            uint64_t h = hash3(wpe(t, 0), i);                                                                 \
            T want = GEN(T, h);                                                                               \
            for (int k = 1; k < t->size; k++) {                                                               \
                h = hash3(wpe(t, k), i);                                                                      \
                T v = GEN(T, h);                                                                              \
                want = (T)F_##OP(want, v);                                                                    \
            }                                                                                                 \
            CHECK_ELEMENT(T, GEN, d, s, i, want, inplace);                                                    \
        }                                                                                                     \
        guard_check(db, nb, nb + PAD, "dest");                                                                \
    }
REDUCTIONS(DEF_RED)

struct red {
    const char *name;
    size_t size;
    void (*run)(const struct team *t, size_t n, int inplace);
};
#define RED_ENTRY(NAME, T, OP, GEN) {"shmem_" #NAME "_" #OP "_reduce", sizeof(T), red_##NAME##_##OP},
static const struct red reds[] = {REDUCTIONS(RED_ENTRY)};
#define NRED ((long)(sizeof reds / sizeof reds[0]))

#define SCANS(X)                                                                                   \
    X(int, int, G_SMALL) X(long, long, G_SMALL) X(int16, int16_t, G_SMALL) X(uint8, uint8_t, G_BITS) \
        X(uint64, uint64_t, G_BITS) X(double, double, G_FSMALL) X(complexd, double _Complex, G_CSMALL)

/* A prefix sum of n elements on t: rank r gets the sum over ranks 0..r (inclusive) or
 * 0..r-1 (exclusive; 0 on rank 0). */
#define DEF_SCAN(NAME, T, GEN)                                                                                \
    static void scan_##NAME(const struct team *t, size_t n, int inplace, int inclusive) {                    \
        T *s = (T *)(void *)src, *d = inplace ? s : (T *)(void *)dst;                                         \
        unsigned char *db = inplace ? src : dst;                                                              \
        size_t nb = n * sizeof(T);                                                                            \
        guard_fill(db, inplace ? nb : 0, nb + PAD);                                                           \
        for (size_t i = 0; i < n; i++) {                                                                      \
            uint64_t h = hash3(me, i);                                                                        \
            s[i] = GEN(T, h);                                                                                 \
        }                                                                                                     \
        check_ret(inclusive ? shmem_##NAME##_sum_inscan(t->h, d, s, n) : shmem_##NAME##_sum_exscan(t->h, d, s, n)); \
        int upto = inclusive ? t->rank + 1 : t->rank;                                                         \
        for (size_t i = 0; i < n; i++) {                                                                      \
            T want = 0;                                                                                       \
            for (int k = 0; k < upto; k++) {                                                                  \
                uint64_t h = hash3(wpe(t, k), i);                                                             \
                T v = GEN(T, h);                                                                              \
                want = (T)(want + v);                                                                         \
            }                                                                                                 \
            CHECK_ELEMENT(T, GEN, d, s, i, want, inplace);                                                    \
        }                                                                                                     \
        guard_check(db, nb, nb + PAD, "dest");                                                                \
    }
SCANS(DEF_SCAN)

struct scan {
    const char *name;
    size_t size;
    void (*run)(const struct team *t, size_t n, int inplace, int inclusive);
};
#define SCAN_ENTRY(NAME, T, GEN) {#NAME, sizeof(T), scan_##NAME},
static const struct scan scans[] = {SCANS(SCAN_ENTRY)};
#define NSCAN ((long)(sizeof scans / sizeof scans[0]))

/* ---- Synchronisation: a word set on the next member before, checked after ------------------ */

/* Sets this PE's word on the next member of t to the current step (before a sync). */
static void signal_next(const struct team *t) {
    shmem_long_atomic_set(&mbox[me], step, wpe(t, (t->rank + 1) % t->size));
}

/* After the sync: the previous member's word here shows this step (or a later one: that
 * member may already be past a later sync with this PE). */
static void check_prev(const struct team *t) {
    int prev = wpe(t, (t->rank + t->size - 1) % t->size);
    long v = shmem_long_atomic_fetch(&mbox[prev], me);
    ENSURE(v >= step,
           "the word world PE %d (the previous member) set on this PE before the sync holds step %ld, not %ld or "
           "later: the sync returned before it arrived",
           prev, v, step);
}

/* ---- Team management -------------------------------------------------------------------------- */

/* Appends a team (on every PE) with handle h as this PE's split returned it (h is ignored on
 * PEs outside the parent, which did not call the split), and checks it. Its members are the
 * parent's ranks pstart + k * pstride, k < size. */
static void add_team(shmem_team_t h, int in_parent, const struct team *parent, int pstart, int pstride, int size,
                     const char *kind) {
    struct team *t = &teams[nteams++];
    t->start = parent->start + pstart * parent->stride;
    t->stride = pstride * parent->stride;
    t->size = size;
    t->rank = rank_of(t->start, t->stride, t->size, me);
    t->user = 1;
    t->h = in_parent ? h : SHMEM_TEAM_INVALID;
    snprintf(t->name, sizeof t->name, "%s#%d", kind, next_id++);
    nuser++;
    if (!in_parent)
        return;
    if (t->rank < 0) {
        ENSURE(h == SHMEM_TEAM_INVALID,
               "new team %s [start %d stride %d size %d]: this PE is not a member but got a handle", t->name, t->start,
               t->stride, t->size);
        return;
    }
    ENSURE(h != SHMEM_TEAM_INVALID, "new team %s [start %d stride %d size %d]: a member got SHMEM_TEAM_INVALID",
           t->name, t->start, t->stride, t->size);
    ENSURE(shmem_team_n_pes(h) == size, "new team %s: shmem_team_n_pes is %d, expected %d", t->name,
           shmem_team_n_pes(h), size);
    ENSURE(shmem_team_my_pe(h) == t->rank, "new team %s: shmem_team_my_pe is %d, expected %d", t->name,
           shmem_team_my_pe(h), t->rank);
    ENSURE(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, h) == t->rank,
           "new team %s: translate_pe(WORLD, %d, team) is %d, expected %d", t->name, me,
           shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, h), t->rank);
    for (int r = 0; r < size; r++) {
        int w = shmem_team_translate_pe(h, r, SHMEM_TEAM_WORLD);
        ENSURE(w == wpe(t, r), "new team %s: translate_pe(team, %d, WORLD) is %d, expected %d", t->name, r, w,
               wpe(t, r));
        int p = shmem_team_translate_pe(h, r, parent->h);
        ENSURE(p == pstart + r * pstride, "new team %s: translate_pe(team, %d, parent %s) is %d, expected %d",
               t->name, r, parent->name, p, pstart + r * pstride);
    }
}

static void op_split(void) {
    struct team *p = &teams[rndn(nteams)];
    int ps = p->size, size, stride, start;
    size = rndn(5) == 0 ? 1 : (int)rnd_range(1, ps);
    if (size == 1) {
        stride = (int)rnd_range(-2, 2);
        start = (int)rndn(ps);
    } else {
        int s = (int)rnd_range(1, (ps - 1) / (size - 1)), span = (size - 1) * s;
        stride = rndn(3) == 0 ? -s : s;
        start = stride < 0 ? (int)rnd_range(span, ps - 1) : (int)rndn(ps - span);
    }
    cur_op = "shmem_team_split_strided";
    cur_team = p;
    snprintf(cur_args, sizeof cur_args, "start %d stride %d size %d", start, stride, size);
    shmem_team_t h = SHMEM_TEAM_INVALID;
    if (p->rank >= 0) {
        if (trace)
            fprintf(stderr, "PE %d step %ld: %s on %s, %s\n", me, step, cur_op, p->name, cur_args);
        check_ret(shmem_team_split_strided(p->h, start, stride, size, NULL, 0, &h));
    }
    add_team(h, p->rank >= 0, p, start, stride, size, "split");
}

/* Returns 0 (and does nothing) when the split would make too many teams. */
static int op_split_2d(void) {
    struct team *p = &teams[rndn(nteams)];
    int ps = p->size, xrange = (int)rnd_range(1, ps + 1);
    int xr = xrange < ps ? xrange : ps, rows = (ps + xr - 1) / xr;
    if (nuser + rows + xr > MAX_USER)
        return 0;
    cur_op = "shmem_team_split_2d";
    cur_team = p;
    snprintf(cur_args, sizeof cur_args, "xrange %d", xrange);
    shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
    int in = p->rank >= 0, x = in ? p->rank % xr : -1, y = in ? p->rank / xr : -1;
    if (in) {
        if (trace)
            fprintf(stderr, "PE %d step %ld: %s on %s, %s\n", me, step, cur_op, p->name, cur_args);
        check_ret(shmem_team_split_2d(p->h, xrange, NULL, 0, &xt, NULL, 0, &yt));
        ENSURE(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID, "a member of the parent got SHMEM_TEAM_INVALID");
    }
    for (int r = 0; r < rows; r++) {
        int len = ps - r * xr < xr ? ps - r * xr : xr;
        add_team(r == y ? xt : SHMEM_TEAM_INVALID, in, p, r * xr, 1, len, "row");
    }
    for (int c = 0; c < xr; c++)
        add_team(c == x ? yt : SHMEM_TEAM_INVALID, in, p, c, xr, (ps - c + xr - 1) / xr, "col");
    return 1;
}

static void destroy_team(int k) {
    struct team *t = &teams[k];
    cur_op = "shmem_team_destroy";
    cur_team = t;
    cur_args[0] = 0;
    if (t->rank >= 0) {
        if (trace)
            fprintf(stderr, "PE %d step %ld: %s of %s\n", me, step, cur_op, t->name);
        shmem_team_destroy(t->h);
        ENSURE(shmem_team_n_pes(t->h) == -1,
               "after shmem_team_destroy, shmem_team_n_pes of the old handle is %d, not -1", shmem_team_n_pes(t->h));
    }
    memmove(&teams[k], &teams[k + 1], (size_t)(nteams - k - 1) * sizeof teams[0]);
    nteams--;
    nuser--;
}

/* ---- The sequence ---------------------------------------------------------------------------- */

enum {
    OP_SPLIT, OP_SPLIT2D, OP_DESTROY, OP_SYNC, OP_BARRIER_ALL, OP_SYNC_ALL, OP_BCAST, OP_REDUCE, OP_FCOLLECT,
    OP_COLLECT, OP_ALLTOALL, OP_ALLTOALLS, OP_SCAN, NOPS
};
static const char *op_names[NOPS] = {"split",     "split_2d",  "destroy", "team_sync", "barrier_all",
                                     "sync_all",  "broadcast", "reduce",  "fcollect",  "collect",
                                     "alltoall",  "alltoalls", "scan"};
static long op_count[NOPS], op_large, ops_here;

static int pick_op(void) {
    int w[NOPS] = {0};
    w[OP_SPLIT] = nuser < MAX_USER ? 8 : 0;
    w[OP_SPLIT2D] = nuser + 2 <= MAX_USER ? 3 : 0;
    w[OP_DESTROY] = nuser;
    w[OP_SYNC] = 7;
    w[OP_BARRIER_ALL] = 2;
    w[OP_SYNC_ALL] = 1;
    w[OP_BCAST] = 12;
    w[OP_REDUCE] = 20;
    w[OP_FCOLLECT] = 7;
    w[OP_COLLECT] = 7;
    w[OP_ALLTOALL] = 7;
    w[OP_ALLTOALLS] = 4;
    w[OP_SCAN] = 6;
    int total = 0;
    for (int i = 0; i < NOPS; i++)
        total += w[i];
    long r = rndn(total);
    for (int i = 0; i < NOPS; i++) {
        if (r < w[i])
            return i;
        r -= w[i];
    }
    return OP_SYNC;
}

/* The name of routine what ("broadcast", "fcollect", ...) for element type m. */
static const char *routine(const struct mtype *m, const char *what) {
    static char name[64];
    if (m == &mtypes[MT_MEM])
        snprintf(name, sizeof name, "shmem_%smem", what);
    else
        snprintf(name, sizeof name, "shmem_%s_%s", m->name, what);
    return name;
}

static void begin(const char *op, const struct team *t) {
    cur_op = op;
    cur_team = t;
    if (trace && t->rank >= 0)
        fprintf(stderr, "PE %d step %ld: %s on %s, %s\n", me, step, op, t->name, cur_args);
    if (t->rank >= 0)
        ops_here++;
}

static void run_step(void) {
    int op = pick_op();
    struct team *t = &teams[rndn(nteams)];
    const struct mtype *m = &mtypes[rndn(NMT)];
    size_t off = m == &mtypes[MT_MEM] ? (size_t)rndn(8) : 0;
    cur_args[0] = 0;
    switch (op) {
    case OP_SPLIT:
        op_split();
        break;
    case OP_SPLIT2D:
        if (!op_split_2d()) {
            op = OP_SYNC;
            goto sync;
        }
        break;
    case OP_DESTROY:
        destroy_team(2 + (int)rndn(nuser));
        break;
    case OP_SYNC:
    sync:
        begin("shmem_team_sync", t);
        if (t->rank >= 0) {
            signal_next(t);
            shmem_quiet();
            check_ret(shmem_team_sync(t->h));
            check_prev(t);
        }
        break;
    case OP_BARRIER_ALL:
        t = &teams[0];
        begin("shmem_barrier_all", t);
        signal_next(t);
        shmem_barrier_all();
        check_prev(t);
        break;
    case OP_SYNC_ALL:
        t = &teams[0];
        begin("shmem_sync_all", t);
        signal_next(t);
        shmem_quiet();
        shmem_sync_all();
        check_prev(t);
        break;
    case OP_BCAST: {
        size_t n = pick_n(m->size, 1, 1);
        int root = (int)rndn(t->size);
        op_large += n * m->size >= LARGE_MIN;
        snprintf(cur_args, sizeof cur_args, "nelems %zu, root %d (world PE %d), buffer offset %zu", n, root,
                 wpe(t, root), off);
        begin(routine(m, "broadcast"), t);
        if (t->rank >= 0)
            op_broadcast(t, m, n, root, off);
        break;
    }
    case OP_REDUCE: {
        const struct red *r = &reds[rndn(NRED)];
        size_t n = pick_n(r->size, 1, 1);
        int inplace = rndn(4) == 0;
        op_large += n * r->size >= LARGE_MIN;
        snprintf(cur_args, sizeof cur_args, "nreduce %zu%s", n, inplace ? ", in place" : "");
        begin(r->name, t);
        if (t->rank >= 0)
            r->run(t, n, inplace);
        break;
    }
    case OP_FCOLLECT: {
        size_t n = pick_n(m->size, (size_t)t->size, 1);
        op_large += n * m->size * (size_t)t->size >= LARGE_MIN;
        snprintf(cur_args, sizeof cur_args, "nelems %zu, buffer offset %zu", n, off);
        begin(routine(m, "fcollect"), t);
        if (t->rank >= 0)
            op_fcollect(t, m, n, off);
        break;
    }
    case OP_COLLECT: {
        size_t most = pick_n(m->size, (size_t)t->size, 1), lens[MAX_PES], total = 0;
        for (int k = 0; k < t->size; k++) {
            lens[k] = (size_t)rndn((long)most + 1);
            total += lens[k];
        }
        op_large += total * m->size >= LARGE_MIN;
        snprintf(cur_args, sizeof cur_args, "nelems %zu on this PE (%zu in all), buffer offset %zu",
                 t->rank >= 0 ? lens[t->rank] : 0, total, off);
        begin(routine(m, "collect"), t);
        if (t->rank >= 0)
            op_collect(t, m, lens, off);
        break;
    }
    case OP_ALLTOALL: {
        size_t n = pick_n(m->size, (size_t)t->size, 1);
        op_large += n * m->size * (size_t)t->size >= LARGE_MIN;
        snprintf(cur_args, sizeof cur_args, "nelems %zu, buffer offset %zu", n, off);
        begin(routine(m, "alltoall"), t);
        if (t->rank >= 0)
            op_alltoall(t, m, n, off);
        break;
    }
    case OP_ALLTOALLS: {
        ptrdiff_t ds = 1 + rndn(3), ss = 1 + rndn(3);
        size_t n = pick_n(m->size, (size_t)t->size, (size_t)(ds > ss ? ds : ss));
        snprintf(cur_args, sizeof cur_args, "nelems %zu, dst %td, sst %td, buffer offset %zu", n, ds, ss, off);
        begin(routine(m, "alltoalls"), t);
        if (t->rank >= 0)
            op_alltoalls(t, m, n, ds, ss, off);
        break;
    }
    case OP_SCAN: {
        const struct scan *s = &scans[rndn(NSCAN)];
        size_t n = pick_n(s->size, 1, 1);
        int inplace = rndn(4) == 0, inclusive = (int)rndn(2);
        op_large += n * s->size >= LARGE_MIN;
        static char name[64];
        snprintf(name, sizeof name, "shmem_%s_sum_%s", s->name, inclusive ? "inscan" : "exscan");
        snprintf(cur_args, sizeof cur_args, "nelems %zu%s", n, inplace ? ", in place" : "");
        begin(name, t);
        if (t->rank >= 0)
            s->run(t, n, inplace, inclusive);
        break;
    }
    }
    op_count[op]++;
}

static void usage(const char *prog) {
    if (me == 0)
        fprintf(stderr, "usage: %s [--steps N] [--seed S] [--trace]\n", prog);
    exit(2);
}

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    strategy = getenv("SHMEM_PSYNC_STRATEGY");
    if (!strategy)
        strategy = "(unset: the default)";
    ENSURE(npes <= MAX_PES, "written for at most %d PEs", MAX_PES);
    for (int i = 1; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
            nsteps = strtol(argv[++i], &end, 10);
            if (*end || nsteps < 0)
                usage(argv[0]);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], &end, 10);
            if (*end)
                usage(argv[0]);
        } else if (!strcmp(argv[i], "--trace")) {
            trace = 1;
        } else {
            usage(argv[0]);
        }
    }
    rng = seed;

    src = shmem_malloc(BUF_BYTES + 2 * PAD);
    dst = shmem_malloc(BUF_BYTES + 2 * PAD);
    mbox = shmem_malloc((size_t)npes * sizeof(long));
    ENSURE(src && dst && mbox, "shmem_malloc failed");
    for (int p = 0; p < npes; p++)
        mbox[p] = -1;
    shmemx_psync_footprint_t fp0, fp;
    ENSURE(shmemx_psync_footprint(&fp0) == 0, "shmemx_psync_footprint failed");

    teams[0] = (struct team){SHMEM_TEAM_WORLD, 0, 1, npes, me, 0, "world"};
    teams[1] = (struct team){SHMEM_TEAM_SHARED, 0, 1, npes, me, 0, "shared"};
    nteams = 2;
    ENSURE(shmem_team_n_pes(SHMEM_TEAM_SHARED) == npes && shmem_team_my_pe(SHMEM_TEAM_SHARED) == me,
           "SHMEM_TEAM_SHARED is not the whole job on one node");
    shmem_barrier_all();

    for (step = 0; step < nsteps; step++)
        run_step();

    cur_op = "the end";
    cur_team = NULL;
    cur_args[0] = 0;
    shmem_barrier_all();
    while (nuser > 0)
        destroy_team(2);
    ENSURE(shmemx_psync_footprint(&fp) == 0, "shmemx_psync_footprint failed");
    if (me == 0) {
        printf("psync_stress: %d PEs, seed %llu, strategy %s:", npes, seed, fp.strategy ? fp.strategy : "?");
        for (int i = 0; i < NOPS; i++)
            printf(" %s %ld", op_names[i], op_count[i]);
        printf(" (%ld over 64 KiB); PE 0 took part in %ld collectives\n", op_large, ops_here);
        printf("psync_stress: footprint %s: flags %zu B (peak %zu, %zu at the start), "
               "scratch %zu B (peak %zu, %zu at the start), teams %zu (peak %zu)\n",
               fp.strategy ? fp.strategy : "?", fp.flags_current, fp.flags_peak, fp0.flags_current, fp.scratch_current,
               fp.scratch_peak, fp0.scratch_current, fp.teams_current, fp.teams_peak);
        printf("psync_stress: OK %ld steps\n", nsteps);
        fflush(stdout);
    }
    shmem_free(mbox);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
