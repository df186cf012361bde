/* rshmem-test
 * np: 2 4 8
 * stdout: non-member calls ok
 * stderr: rshmem: warning: shmem_barrier (PE 0 of {np}): not in the active set (PE_start 1, logPE_stride 0, PE_size
 * stderr: rshmem: warning: shmem_int_sum_to_all (PE 1 of {np}): not in the active set (PE_start 0, logPE_stride 1, PE_size
 */
/* PEs outside an active set that call an active-set collective anyway (undefined in
 * OpenSHMEM 1.5; widely used programs do it, and Open MPI returns without effect). Every
 * PE calls every active-set routine, three times each, on two active sets in turn:
 *   A: PEs 1 .. npes-1 (PE 0 is outside), and
 *   B: the even PEs, logPE_stride 1 (the odd PEs are outside).
 * Routines: shmem_barrier, shmem_sync, shmem_broadcast32/64, shmem_collect32/64,
 * shmem_fcollect32/64, shmem_alltoall32/64, shmem_alltoalls32/64 and every
 * shmem_TYPE_OP_to_all.
 *  - Members get the right results (the non-members' absence changes nothing for them).
 *  - A non-member's call returns without effect: its dest and pSync are unchanged.
 *  - A non-member's standard error gets exactly one line per routine, the first time
 *    (not one per call, not one per active set):
 *      rshmem: warning: <routine> (PE <me> of <npes>): not in the active set (PE_start s,
 *      logPE_stride l, PE_size n); the call has no effect
 *    The program captures its own standard error (fd 2) in a temporary file around the
 *    calls, counts the lines per routine, and writes them back to its real stderr.
 * A shmem_barrier_all separates the calls (dest ready, pSync free). */
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common.h"

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

#define REPS 3
#define NEL 3
#define MAXR 128 /* routines */
#define SENT 77

static long psync[SHMEM_SYNC_SIZE];
static long double srcbuf[64], dstbuf[64], wrkbuf[64];
static int me, npes;

typedef struct {
    int start, log, size;
} aset;

static aset set; /* the active set of the current call */
static int idx;  /* this PE's index in it, -1 outside */

static const char *routines[MAXR]; /* every routine called, once */
static int nroutines;

static void called(const char *r) {
    for (int i = 0; i < nroutines; i++)
        if (strcmp(routines[i], r) == 0)
            return;
    CHECK(nroutines < MAXR, "too many routines");
    routines[nroutines++] = r;
}

static void use_set(aset s) {
    set = s;
    int d = me - s.start;
    idx = d >= 0 && d % (1 << s.log) == 0 && (d >> s.log) < s.size ? d >> s.log : -1;
}

/* Before a call: every dest byte SENT, pSync clean, everyone ready. */
static void before(void) {
    memset(dstbuf, SENT, sizeof dstbuf);
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
}

/* After a call on a non-member: nothing changed. */
static void unchanged(const char *r) {
    const unsigned char *d = (const unsigned char *)dstbuf;
    for (size_t i = 0; i < sizeof dstbuf; i++)
        CHECK(d[i] == SENT, "%s: PE %d outside the active set: dest byte %zu changed to %d", r, me, i, d[i]);
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        CHECK(psync[i] == SHMEM_SYNC_VALUE, "%s: PE %d outside the active set: pSync[%d] changed to %ld", r, me, i,
              psync[i]);
}

static void after(const char *r) {
    called(r);
    if (idx < 0)
        unchanged(r);
    shmem_barrier_all();
}

static void barriers(void) {
    before();
    shmem_barrier(set.start, set.log, set.size, psync);
    after("shmem_barrier");
    before();
    shmem_sync(set.start, set.log, set.size, psync);
    after("shmem_sync");
}

/* 32- and 64-bit data movement: element i of member m's source is val(m, i). */
static unsigned long long val(int m, int i) { return 1000u * (unsigned)(m + 1) + (unsigned)i; }

#define MOVES(BITS, T)                                                                                             \
    static void moves##BITS(void) {                                                                                \
        T *s = (T *)srcbuf, *d = (T *)dstbuf;                                                                      \
        const char *r;                                                                                             \
        int n = set.size;                                                                                          \
        /* broadcast from member 1 % n */                                                                          \
        int root = 1 % n;                                                                                          \
        for (int i = 0; i < NEL; i++) s[i] = (T)val(idx, i);                                                       \
        before();                                                                                                  \
        shmem_broadcast##BITS(d, s, NEL, root, set.start, set.log, set.size, psync);                               \
        r = "shmem_broadcast" #BITS;                                                                               \
        if (idx >= 0 && idx != root)                                                                               \
            for (int i = 0; i < NEL; i++)                                                                          \
                CHECK(d[i] == (T)val(root, i), "%s: member %d: dest[%d] is %llu", r, idx, i,                       \
                      (unsigned long long)d[i]);                                                                   \
        after(r);                                                                                                  \
        /* collect: member m gives m + 1 elements */                                                               \
        for (int i = 0; i < NEL; i++) s[i] = (T)val(idx, i);                                                       \
        before();                                                                                                  \
        shmem_collect##BITS(d, s, (size_t)(idx >= 0 ? idx % NEL + 1 : 1), set.start, set.log, set.size, psync);    \
        r = "shmem_collect" #BITS;                                                                                 \
        if (idx >= 0)                                                                                              \
            for (int m = 0, at = 0; m < n; m++)                                                                    \
                for (int i = 0; i <= m % NEL; i++, at++)                                                           \
                    CHECK(d[at] == (T)val(m, i), "%s: member %d: dest[%d] is %llu", r, idx, at,                    \
                          (unsigned long long)d[at]);                                                              \
        after(r);                                                                                                  \
        before();                                                                                                  \
        shmem_fcollect##BITS(d, s, NEL, set.start, set.log, set.size, psync);                                      \
        r = "shmem_fcollect" #BITS;                                                                                \
        if (idx >= 0)                                                                                              \
            for (int m = 0; m < n; m++)                                                                            \
                for (int i = 0; i < NEL; i++)                                                                      \
                    CHECK(d[m * NEL + i] == (T)val(m, i), "%s: member %d: dest[%d] is %llu", r, idx, m * NEL + i, \
                          (unsigned long long)d[m * NEL + i]);                                                     \
        after(r);                                                                                                  \
        /* alltoall: block j of member m's source is val(m, j) */                                                  \
        for (int j = 0; j < n; j++) s[j] = (T)val(idx, j);                                                         \
        before();                                                                                                  \
        shmem_alltoall##BITS(d, s, 1, set.start, set.log, set.size, psync);                                        \
        r = "shmem_alltoall" #BITS;                                                                                \
        if (idx >= 0)                                                                                              \
            for (int m = 0; m < n; m++)                                                                            \
                CHECK(d[m] == (T)val(m, idx), "%s: member %d: dest[%d] is %llu", r, idx, m,                        \
                      (unsigned long long)d[m]);                                                                   \
        after(r);                                                                                                  \
        before();                                                                                                  \
        shmem_alltoalls##BITS(d, s, 2, 1, 1, set.start, set.log, set.size, psync);                                 \
        r = "shmem_alltoalls" #BITS;                                                                               \
        if (idx >= 0)                                                                                              \
            for (int m = 0; m < n; m++)                                                                            \
                CHECK(d[2 * m] == (T)val(m, idx), "%s: member %d: dest[%d] is %llu", r, idx, 2 * m,                \
                      (unsigned long long)d[2 * m]);                                                               \
        after(r);                                                                                                  \
    }
MOVES(32, uint32_t)
MOVES(64, uint64_t)

/* Reductions: member m's source is m + 1 in every element. */
enum { SUM, PROD, MAX, MIN, AND, OR, XOR };

static long expect(int op, int n) {
    long v = op == SUM || op == OR || op == XOR ? 0 : op == AND ? -1 : 1;
    for (int m = 1; m <= n; m++)
        v = op == SUM ? v + m : op == PROD ? v * m : op == MAX ? (m > v ? m : v) : op == MIN ? (m < v ? m : v)
            : op == AND ? v & m : op == OR ? v | m : v ^ m;
    return v;
}

#define TO_ALL(N, T, OP, CODE)                                                                                    \
    {                                                                                                              \
        T *s = (T *)srcbuf, *d = (T *)dstbuf;                                                                      \
        for (int i = 0; i < NEL; i++) s[i] = (T)(idx + 1);                                                         \
        before();                                                                                                  \
        shmem_##N##_##OP##_to_all(d, s, NEL, set.start, set.log, set.size, (T *)wrkbuf, psync);                    \
        const char *r = "shmem_" #N "_" #OP "_to_all";                                                             \
        if (idx >= 0)                                                                                              \
            for (int i = 0; i < NEL; i++)                                                                          \
                CHECK(d[i] == (T)expect(CODE, set.size), "%s: member %d: dest[%d] is wrong (want %ld)", r, idx, i, \
                      expect(CODE, set.size));                                                                     \
        after(r);                                                                                                  \
    }
#define BITWISE(N, T) TO_ALL(N, T, and, AND) TO_ALL(N, T, or, OR) TO_ALL(N, T, xor, XOR)
#define MINMAX(N, T) TO_ALL(N, T, max, MAX) TO_ALL(N, T, min, MIN)
#define ARITH(N, T) TO_ALL(N, T, sum, SUM) TO_ALL(N, T, prod, PROD)

static void reductions(void) {
    RSHMEM_TO_ALL_BITWISE_TYPES(BITWISE)
    RSHMEM_TO_ALL_MINMAX_TYPES(MINMAX)
    RSHMEM_TO_ALL_ARITH_TYPES(ARITH)
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    aset sets[2] = {{1, 0, npes - 1}, {0, 1, (npes + 1) / 2}};

    /* Capture fd 2 on every PE (members must print nothing). */
    fflush(stderr);
    int saved = dup(2);
    FILE *cap = tmpfile();
    CHECK(saved >= 0 && cap != NULL, "cannot capture stderr");
    CHECK(dup2(fileno(cap), 2) == 2, "dup2 failed");

    int outside = 0; /* sets this PE is outside of */
    for (int rep = 0; rep < REPS; rep++)
        for (int k = 0; k < 2; k++) {
            use_set(sets[k]);
            outside += rep == 0 && idx < 0;
            barriers();
            moves32();
            moves64();
            reductions();
        }

    fflush(stderr);
    CHECK(dup2(saved, 2) == 2, "cannot restore stderr");
    rewind(cap);
    static char lines[4 * MAXR][256];
    int nlines = 0;
    while (nlines < 4 * MAXR && fgets(lines[nlines], sizeof lines[0], cap))
        nlines++;
    for (int i = 0; i < nlines; i++)
        fputs(lines[i], stderr); /* for the reader, and the stderr: lines above */

    /* The first set this PE is outside of is the one named in every warning (A for PE 0,
     * B for the odd PEs; PE 1 of 2 is outside B only). */
    int first = -1;
    for (int k = 0; k < 2 && first < 0; k++) {
        use_set(sets[k]);
        if (idx < 0)
            first = k;
    }
    CHECK(nlines == (outside ? nroutines : 0), "PE %d (outside %d of the 2 active sets): %d lines on stderr, want %d",
          me, outside, nlines, outside ? nroutines : 0);
    for (int r = 0; r < nroutines && outside; r++) {
        char want[256];
        snprintf(want, sizeof want,
                 "rshmem: warning: %s (PE %d of %d): not in the active set (PE_start %d, logPE_stride %d, PE_size %d); "
                 "the call has no effect\n",
                 routines[r], me, npes, sets[first].start, sets[first].log, sets[first].size);
        int count = 0;
        for (int i = 0; i < nlines; i++)
            count += strcmp(lines[i], want) == 0;
        CHECK(count == 1, "PE %d: %d lines \"%.*s\", want exactly 1", me, count, (int)strlen(want) - 1, want);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("non-member calls ok (%d routines)\n", nroutines);
    shmem_finalize();
    return 0;
}
