/* rshmem-test
 * np: 2 3 4 8
 * variant: SHMEM_PSYNC_STRATEGY=all
 * variant: RSHMEM_NBC_THREAD=on off
 * timeout: 60
 * stdout: nbc_stress: OK
 * args: --steps 300
 * ignored-args: --steps 100000 --seed 20250607
 */
/* Random interleavings of non-blocking collectives (issue 36). Every PE draws THE SAME
 * sequence of steps from a splitmix64 generator seeded with --seed; a step is one of
 *  - initiate a collective (kind: long sum_reduce, int fcollect, long broadcast from a
 *    random root, double alltoall, team sync; random nelems 1..64) on a random team of
 *    coll.h (world, strided splits, 2D split), executed by the team's members only, into a
 *    buffer slot of that team that no outstanding request uses;
 *  - complete some outstanding requests of a random team (wait, or test until done, or
 *    shmemx_req_wait_all over them) and check their results;
 *  - a blocking collective (long sum over the team) on a random team, with that team's
 *    requests still outstanding, checked;
 * up to MAXOUT requests outstanding per team. Buffers are reused only after completion;
 * a slot's dest is filled by its owner and made ready by the team sync that precedes
 * every initiation with a result. At the end every PE completes what is left, checks it,
 * and PE 0 prints the totals. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../coll.h"
#include "../nbc.h"

#define MAXOUT 6
#define MAXN 64

static uint64_t rng;
static uint64_t next(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct op {
    int live, kind, n, root, step;
    shmem_req_h req;
};
static struct op ops[COLL_MAX_TEAMS][MAXOUT];
static long *lsrc, *ldst;
static double *dsrc, *ddst;
static long total, blocking;

static size_t at(int ti, int s) {
    return ((size_t)ti * MAXOUT + (size_t)s) * 8 * MAXN;
}
static long lv(int pe, int i, int step) {
    return (long)pe * 100003 + i * 31 + step;
}

static void check_op(const struct coll_team *t, int ti, int s) {
    struct op *o = &ops[ti][s];
    long *d = ldst + at(ti, s);
    double *dd = ddst + at(ti, s);
    for (int i = 0; i < 8 * MAXN; i++) {
        long want = -1;
        double dwant = -1;
        switch (o->kind) {
        case 0:
            if (i < o->n) {
                want = 0;
                for (int q = 0; q < t->size; q++)
                    want += lv(coll_pe(t, q), i, o->step);
            }
            break;
        case 1:
            if (i < o->n * t->size)
                want = lv(coll_pe(t, i / o->n), i % o->n, o->step);
            break;
        case 2:
            if (i < o->n)
                want = lv(coll_pe(t, o->root), i, o->step);
            break;
        case 3:
            if (i < o->n * t->size)
                dwant = (double)lv(coll_pe(t, i / o->n), t->me * o->n + i % o->n, o->step) + 0.5;
            break;
        }
        if (o->kind == 3)
            CHECK(dd[i] == dwant, "step %d team %s alltoall n %d: dest[%d] %g want %g", o->step, t->name, o->n, i, dd[i], dwant);
        else if (o->kind != 4)
            CHECK(d[i] == want, "step %d team %s kind %d n %d: dest[%d] %ld want %ld", o->step, t->name, o->kind, o->n,
                  i, d[i], want);
    }
    o->live = 0;
    total++;
}

/* Completes the outstanding requests of team ti chosen by mask, the way how says. */
static void complete(int ti, uint64_t mask, int how) {
    const struct coll_team *t = &coll_teams[ti];
    shmem_req_h reqs[MAXOUT];
    int idx[MAXOUT], n = 0;
    for (int s = 0; s < MAXOUT; s++)
        if (ops[ti][s].live && (mask >> s & 1)) {
            idx[n] = s;
            reqs[n++] = ops[ti][s].req;
        }
    if (t->me < 0 || n == 0)
        return;
    nbc_complete(reqs, (size_t)n, how);
    for (int k = 0; k < n; k++)
        check_op(t, ti, idx[k]);
}

int main(int argc, char **argv) {
    long steps = 300;
    uint64_t seed = 36;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--steps"))
            steps = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
    }
    rng = seed;
    shmem_init();
    coll_teams_create();
    size_t slots = (size_t)COLL_MAX_TEAMS * MAXOUT * 8 * MAXN;
    lsrc = shmem_malloc(slots * sizeof(long));
    ldst = shmem_malloc(slots * sizeof(long));
    dsrc = shmem_malloc(slots * sizeof(double));
    ddst = shmem_malloc(slots * sizeof(double));
    CHECK(lsrc && ldst && dsrc && ddst, "shmem_malloc failed");
    static long bs[1], bd[1];
    int pe = shmem_my_pe();
    for (long step = 0; step < steps; step++) {
        uint64_t r = next();
        int ti = (int)(r % (uint64_t)coll_nteams), what = (int)((r >> 8) % 10);
        const struct coll_team *t = &coll_teams[ti];
        if (what < 6) { /* initiate */
            int s = 0;
            while (s < MAXOUT && ops[ti][s].live)
                s++;
            if (s == MAXOUT) { /* full: complete them all first */
                complete(ti, ~0ull, (int)((r >> 16) % NBC_MODES));
                s = 0;
            }
            struct op *o = &ops[ti][s];
            o->kind = (int)((r >> 20) % 5);
            o->n = 1 + (int)((r >> 24) % MAXN);
            o->root = (int)((r >> 32) % (uint64_t)t->size);
            o->step = (int)step;
            o->live = 1;
            if (t->me < 0)
                continue;
            long *ls = lsrc + at(ti, s), *ld = ldst + at(ti, s);
            double *ds = dsrc + at(ti, s), *dd = ddst + at(ti, s);
            for (int i = 0; i < 8 * MAXN; i++) {
                ls[i] = lv(pe, i, (int)step);
                ds[i] = (double)lv(pe, i, (int)step) + 0.5;
                ld[i] = -1;
                dd[i] = -1;
            }
            if (o->kind != 4)
                coll_sync(t); /* every member's dest of this slot is ready */
            int ret = 0;
            switch (o->kind) {
            case 0: ret = shmem_long_sum_reduce_nb(t->team, ld, ls, (size_t)o->n, &o->req); break;
            case 1: ret = shmem_long_fcollect_nb(t->team, ld, ls, (size_t)o->n, &o->req); break;
            case 2: ret = shmem_long_broadcast_nb(t->team, ld, ls, (size_t)o->n, o->root, &o->req); break;
            case 3: ret = shmem_double_alltoall_nb(t->team, dd, ds, (size_t)o->n, &o->req); break;
            case 4: ret = shmem_team_sync_nb(t->team, &o->req); break;
            }
            CHECK(ret == 0, "step %ld: initiation returned %d", step, ret);
        } else if (what < 9) { /* complete some */
            complete(ti, next(), (int)((r >> 40) % NBC_MODES));
        } else if (t->me >= 0) { /* a blocking collective with requests outstanding */
            bs[0] = pe + step;
            int ret = shmem_long_sum_reduce(t->team, bd, bs, 1);
            long want = 0;
            for (int q = 0; q < t->size; q++)
                want += coll_pe(t, q) + step;
            CHECK(ret == 0 && bd[0] == want, "step %ld: blocking sum on %s: %ld want %ld", step, t->name, bd[0], want);
            blocking++;
        }
    }
    for (int ti = 0; ti < coll_nteams; ti++)
        complete(ti, ~0ull, ti);
    shmem_barrier_all();
    coll_teams_destroy();
    if (pe == 0)
        printf("nbc_stress: OK (%ld steps, PE 0 completed %ld requests, %ld blocking collectives)\n", steps, total,
               blocking);
    shmem_finalize();
    return 0;
}
