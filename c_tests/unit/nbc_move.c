/* rshmem-test
 * np: 1 2 3 4 8
 * variant: RSHMEM_NBC_THREAD=on off
 * stdout: nbc data movement ok
 * timeout: 120
 */
/* The non-blocking data-movement collectives (issue 36): shmem_TYPENAME_{broadcast,collect,
 * fcollect,alltoall,alltoalls}_nb for the 24 types of RSHMEM_RMA_TYPES, the sized forms
 * shmem_{broadcast,...,alltoalls}{8,16,32,64,128}_nb, the mem forms, the C11 generic names
 * (shmem_broadcast_nb(...) etc. for a few types) and the shmemx_ aliases of the public
 * Open MPI branch (shmemx_int64_alltoall_nb, shmemx_alltoall64_nb, ...).
 *
 * Rounds: in each, for every team of coll.h this PE belongs to (world, strided splits, the
 * two teams of a 2D split: overlapping teams), in the same order on every PE, it fills the
 * buffers of two entries of the table below, syncs the team (a blocking shmem_team_sync or
 * shmem_team_sync_nb + wait, alternately), and initiates the five collectives of each
 * entry: ten requests outstanding per team, up to 60 over the teams at once. Only then
 * does it complete them all, in one of the ways of nbc.h (wait in reverse or in order,
 * test loops, wait_all, wait_any, test_some/test_all; the mode changes every round), and
 * checks every element of every dest byte by byte (the guard past the written part too)
 * and that every source is unchanged. The counts vary by round: nelems 1..5, collect's
 * contribution 0..2 elements by rank, the broadcast root by round. Buffers are reused only
 * after completion and the next round's team sync. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

#include "../coll.h"
#include "../nbc.h"

typedef int (*bcast_fn)(shmem_team_t, void *, const void *, size_t, int, shmem_req_h *);
typedef int (*move_fn)(shmem_team_t, void *, const void *, size_t, shmem_req_h *);
typedef int (*strided_fn)(shmem_team_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, shmem_req_h *);

struct entry {
    const char *name;
    size_t es; /* element size, bytes */
    bcast_fn bcast;
    move_fn collect, fcollect, alltoall;
    strided_fn alltoalls;
};

/* Typed wrappers: the routines with their own pointer types, called as C declares them. */
#define DEF_TYPED(PFX, NAME, T)                                                                            \
    static int PFX##bc_##NAME(shmem_team_t t, void *d, const void *s, size_t n, int root, shmem_req_h *r) { \
        return PFX##NAME##_broadcast_nb(t, (T *)d, (const T *)s, n, root, r);                              \
    }                                                                                                      \
    static int PFX##co_##NAME(shmem_team_t t, void *d, const void *s, size_t n, shmem_req_h *r) {          \
        return PFX##NAME##_collect_nb(t, (T *)d, (const T *)s, n, r);                                      \
    }                                                                                                      \
    static int PFX##fc_##NAME(shmem_team_t t, void *d, const void *s, size_t n, shmem_req_h *r) {          \
        return PFX##NAME##_fcollect_nb(t, (T *)d, (const T *)s, n, r);                                     \
    }                                                                                                      \
    static int PFX##aa_##NAME(shmem_team_t t, void *d, const void *s, size_t n, shmem_req_h *r) {          \
        return PFX##NAME##_alltoall_nb(t, (T *)d, (const T *)s, n, r);                                     \
    }                                                                                                      \
    static int PFX##as_##NAME(shmem_team_t t, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                              shmem_req_h *r) {                                                            \
        return PFX##NAME##_alltoalls_nb(t, (T *)d, (const T *)s, dst, sst, n, r);                          \
    }
#define DEF_STD(NAME, T) DEF_TYPED(shmem_, NAME, T)
RSHMEM_RMA_TYPES(DEF_STD)
DEF_TYPED(shmemx_, int64, int64_t)
DEF_TYPED(shmemx_, double, double)

/* The C11 generic names (shmem_broadcast_nb(team, dest, ...) chosen by dest's type). */
#define DEF_GENERIC(NAME, T)                                                                            \
    static int gbc_##NAME(shmem_team_t t, void *d, const void *s, size_t n, int root, shmem_req_h *r) { \
        return shmem_broadcast_nb(t, (T *)d, (const T *)s, n, root, r);                                 \
    }                                                                                                   \
    static int gco_##NAME(shmem_team_t t, void *d, const void *s, size_t n, shmem_req_h *r) {           \
        return shmem_collect_nb(t, (T *)d, (const T *)s, n, r);                                         \
    }                                                                                                   \
    static int gfc_##NAME(shmem_team_t t, void *d, const void *s, size_t n, shmem_req_h *r) {           \
        return shmem_fcollect_nb(t, (T *)d, (const T *)s, n, r);                                        \
    }                                                                                                   \
    static int gaa_##NAME(shmem_team_t t, void *d, const void *s, size_t n, shmem_req_h *r) {           \
        return shmem_alltoall_nb(t, (T *)d, (const T *)s, n, r);                                        \
    }                                                                                                   \
    static int gas_##NAME(shmem_team_t t, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                          shmem_req_h *r) {                                                             \
        return shmem_alltoalls_nb(t, (T *)d, (const T *)s, dst, sst, n, r);                             \
    }
DEF_GENERIC(char, char)
DEF_GENERIC(int, int)
DEF_GENERIC(ulonglong, unsigned long long)
DEF_GENERIC(longdouble, long double)
/* shmemx_alltoall_nb, the public branch's generic name */
static int gxaa_int(shmem_team_t t, void *d, const void *s, size_t n, shmem_req_h *r) {
    return shmemx_alltoall_nb(t, (int *)d, (const int *)s, n, r);
}

#define ENTRY_STD(NAME, T) {"shmem_" #NAME, sizeof(T), shmem_bc_##NAME, shmem_co_##NAME, shmem_fc_##NAME, \
                            shmem_aa_##NAME, shmem_as_##NAME},
#define ENTRY_SIZED(N) {"shmem_*" #N, N / 8, shmem_broadcast##N##_nb, shmem_collect##N##_nb, \
                        shmem_fcollect##N##_nb, shmem_alltoall##N##_nb, shmem_alltoalls##N##_nb},
#define ENTRY_XSIZED(N) {"shmemx_*" #N, N / 8, shmemx_broadcast##N##_nb, shmemx_collect##N##_nb, \
                         shmemx_fcollect##N##_nb, shmemx_alltoall##N##_nb, shmemx_alltoalls##N##_nb},
#define ENTRY_GEN(NAME, T) {"generic " #T, sizeof(T), gbc_##NAME, gco_##NAME, gfc_##NAME, gaa_##NAME, gas_##NAME},

static const struct entry table[] = {
    RSHMEM_RMA_TYPES(ENTRY_STD)
    RSHMEM_SIZES(ENTRY_SIZED)
    {"shmem_*mem", 1, shmem_broadcastmem_nb, shmem_collectmem_nb, shmem_fcollectmem_nb, shmem_alltoallmem_nb,
     shmem_alltoallsmem_nb},
    RSHMEM_SIZES(ENTRY_XSIZED)
    {"shmemx_*mem", 1, shmemx_broadcastmem_nb, shmemx_collectmem_nb, shmemx_fcollectmem_nb,
     shmemx_alltoallmem_nb, shmemx_alltoallsmem_nb},
    {"shmemx_int64", 8, shmemx_bc_int64, shmemx_co_int64, shmemx_fc_int64, shmemx_aa_int64, shmemx_as_int64},
    {"shmemx_double", 8, shmemx_bc_double, shmemx_co_double, shmemx_fc_double, shmemx_aa_double,
     shmemx_as_double},
    ENTRY_GEN(char, char) ENTRY_GEN(int, int) ENTRY_GEN(ulonglong, unsigned long long)
    ENTRY_GEN(longdouble, long double)
    {"generic shmemx_alltoall_nb int", sizeof(int), gbc_int, gco_int, gfc_int, gxaa_int, gas_int},
};
#define NENTRIES (sizeof table / sizeof table[0])

#define PER_TEAM 2   /* entries in flight per team and round */
#define NOPS 5       /* collectives per entry */
#define SLOT 2048    /* bytes per buffer: >= 16 bytes x 8 PEs x 5 elements x stride 2 */
#define DST_STRIDE 2 /* alltoalls strides */
#define SRC_STRIDE 3

static unsigned char *pool; /* [team][entry in flight][op][src, dst] slots */

static unsigned char *slot(int team, int k, int op, int dst) {
    return pool + ((((size_t)team * PER_TEAM + (size_t)k) * NOPS + (size_t)op) * 2 + (size_t)dst) * SLOT;
}

/* Byte b of element idx as world PE pe sends it in round salt of op: never 0 (the guard). */
static unsigned char val(int pe, size_t idx, size_t b, int salt, int op) {
    return (unsigned char)(coll_hash((uint64_t)pe, idx * 16 + b, (uint64_t)(salt * 8 + op)) % 255 + 1);
}

static size_t ne_of(int salt) {
    return 1 + (size_t)(salt % 5);
}
static size_t cn_of(int rank, int salt) {
    return (size_t)((rank + salt) % 3);
}

static void put_elem(unsigned char *p, size_t idx, size_t es, int pe, size_t vidx, int salt, int op) {
    for (size_t b = 0; b < es; b++)
        p[idx * es + b] = val(pe, vidx, b, salt, op);
}

static void fill(const struct coll_team *t, int ti, int k, const struct entry *e, int salt) {
    int pe = shmem_my_pe(), n = t->size;
    size_t es = e->es, ne = ne_of(salt), sne = (size_t)n * ne;
    for (int op = 0; op < NOPS; op++) {
        memset(slot(ti, k, op, 0), 0, SLOT);
        memset(slot(ti, k, op, 1), 0, SLOT);
    }
    for (size_t i = 0; i < ne; i++) {
        put_elem(slot(ti, k, 0, 0), i, es, pe, i, salt, 0);
        put_elem(slot(ti, k, 2, 0), i, es, pe, i, salt, 2);
    }
    for (size_t i = 0; i < cn_of(t->me, salt); i++)
        put_elem(slot(ti, k, 1, 0), i, es, pe, i, salt, 1);
    for (size_t i = 0; i < sne; i++) {
        put_elem(slot(ti, k, 3, 0), i, es, pe, i, salt, 3);
        put_elem(slot(ti, k, 4, 0), i * SRC_STRIDE, es, pe, i, salt, 4);
    }
}

static void start(const struct coll_team *t, int ti, int k, const struct entry *e, int salt, shmem_req_h *r) {
    size_t ne = ne_of(salt);
    int root = salt % t->size, ret;
#define S(op) slot(ti, k, op, 0)
#define D(op) slot(ti, k, op, 1)
    ret = e->bcast(t->team, D(0), S(0), ne, root, &r[0]);
    CHECK(ret == 0, "%s broadcast_nb team %s returned %d", e->name, t->name, ret);
    ret = e->collect(t->team, D(1), S(1), cn_of(t->me, salt), &r[1]);
    CHECK(ret == 0, "%s collect_nb team %s returned %d", e->name, t->name, ret);
    ret = e->fcollect(t->team, D(2), S(2), ne, &r[2]);
    CHECK(ret == 0, "%s fcollect_nb team %s returned %d", e->name, t->name, ret);
    ret = e->alltoall(t->team, D(3), S(3), ne, &r[3]);
    CHECK(ret == 0, "%s alltoall_nb team %s returned %d", e->name, t->name, ret);
    ret = e->alltoalls(t->team, D(4), S(4), DST_STRIDE, SRC_STRIDE, ne, &r[4]);
    CHECK(ret == 0, "%s alltoalls_nb team %s returned %d", e->name, t->name, ret);
    for (int op = 0; op < NOPS; op++)
        CHECK(r[op] != SHMEM_REQ_INVALID, "%s op %d team %s: no request handle", e->name, op, t->name);
}

static const char *const op_names[NOPS] = {"broadcast_nb", "collect_nb", "fcollect_nb", "alltoall_nb",
                                           "alltoalls_nb"};

/* Compares SLOT bytes at got with want, element by element. */
static void compare(const unsigned char *got, const unsigned char *want, size_t es, const struct entry *e, int op,
                    const struct coll_team *t, int salt, const char *what) {
    for (size_t i = 0; i < SLOT; i++)
        CHECK(got[i] == want[i],
              "%s %s team %s (rank %d of %d) round %d nelems %zu: %s element %zu byte %zu is %u, want %u",
              e->name, op_names[op], t->name, t->me, t->size, salt, ne_of(salt), what, i / es, i % es, got[i],
              want[i]);
}

static void check(const struct coll_team *t, int ti, int k, const struct entry *e, int salt) {
    static unsigned char want[SLOT];
    int n = t->size, me = t->me, root = salt % n;
    size_t es = e->es, ne = ne_of(salt);
    memset(want, 0, SLOT); /* broadcast: the root's source, on every member */
    for (size_t i = 0; i < ne; i++)
        put_elem(want, i, es, coll_pe(t, root), i, salt, 0);
    compare(D(0), want, es, e, 0, t, salt, "dest");
    memset(want, 0, SLOT); /* collect: each rank's contribution, in rank order */
    size_t off = 0;
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < cn_of(r, salt); i++)
            put_elem(want, off++, es, coll_pe(t, r), i, salt, 1);
    compare(D(1), want, es, e, 1, t, salt, "dest");
    memset(want, 0, SLOT);
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < ne; i++)
            put_elem(want, (size_t)r * ne + i, es, coll_pe(t, r), i, salt, 2);
    compare(D(2), want, es, e, 2, t, salt, "dest");
    memset(want, 0, SLOT); /* alltoall: block me of each rank's source */
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < ne; i++)
            put_elem(want, (size_t)r * ne + i, es, coll_pe(t, r), (size_t)me * ne + i, salt, 3);
    compare(D(3), want, es, e, 3, t, salt, "dest");
    memset(want, 0, SLOT);
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < ne; i++)
            put_elem(want, ((size_t)r * ne + i) * DST_STRIDE, es, coll_pe(t, r), (size_t)me * ne + i, salt, 4);
    compare(D(4), want, es, e, 4, t, salt, "dest");
    /* the sources, unchanged */
    int pe = shmem_my_pe();
    for (int op = 0; op < NOPS; op++) {
        memset(want, 0, SLOT);
        size_t cnt = op == 1 ? cn_of(me, salt) : op >= 3 ? (size_t)n * ne : ne;
        for (size_t i = 0; i < cnt; i++)
            put_elem(want, op == 4 ? i * SRC_STRIDE : i, es, pe, i, salt, op);
        compare(S(op), want, es, e, op, t, salt, "source");
    }
}

int main(void) {
    shmem_init();
    coll_teams_create();
    pool = shmem_malloc((size_t)COLL_MAX_TEAMS * PER_TEAM * NOPS * 2 * SLOT);
    CHECK(pool != NULL, "shmem_malloc failed");
    long count = 0;
    int rounds = (int)((NENTRIES + PER_TEAM - 1) / PER_TEAM);
    for (int round = 0; round < rounds; round++) {
        static shmem_req_h reqs[COLL_MAX_TEAMS * PER_TEAM * NOPS];
        size_t nreq = 0;
        for (int ti = 0; ti < coll_nteams; ti++) {
            const struct coll_team *t = &coll_teams[ti];
            if (t->me < 0)
                continue;
            for (int k = 0; k < PER_TEAM; k++) {
                size_t ei = ((size_t)round * PER_TEAM + (size_t)k) % NENTRIES;
                fill(t, ti, k, &table[ei], round + ti + k);
            }
            if ((round + ti) % 2) {
                shmem_req_h s = SHMEM_REQ_INVALID;
                CHECK(shmem_team_sync_nb(t->team, &s) == 0, "shmem_team_sync_nb failed");
                CHECK(shmem_req_wait(&s) == 0 && s == SHMEM_REQ_INVALID, "shmem_req_wait of a sync_nb");
            } else {
                coll_sync(t);
            }
            for (int k = 0; k < PER_TEAM; k++) {
                size_t ei = ((size_t)round * PER_TEAM + (size_t)k) % NENTRIES;
                start(t, ti, k, &table[ei], round + ti + k, &reqs[nreq]);
                nreq += NOPS;
            }
        }
        nbc_complete(reqs, nreq, round);
        for (int ti = 0; ti < coll_nteams; ti++) {
            const struct coll_team *t = &coll_teams[ti];
            if (t->me < 0)
                continue;
            for (int k = 0; k < PER_TEAM; k++) {
                size_t ei = ((size_t)round * PER_TEAM + (size_t)k) % NENTRIES;
                check(t, ti, k, &table[ei], round + ti + k);
                count += NOPS;
            }
        }
    }
    shmem_barrier_all();
    shmem_free(pool);
    coll_teams_destroy();
    if (shmem_my_pe() == 0)
        printf("nbc data movement ok (%ld collectives on PE 0, %zu entries)\n", count, NENTRIES);
    shmem_finalize();
    return 0;
}
