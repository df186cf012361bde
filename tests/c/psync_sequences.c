/* The sequences of team operations that the psync-footprint tool simulates
 * (src/sim/seq.rs, `sequence`), run for real: every PE takes part in the steps of
 * the teams it belongs to, checks every result, and at the end prints its
 * shmemx_psync_footprint as one line
 *
 *   FP <pe> <flags_current> <flags_peak> <scratch_current> <scratch_peak> <teams_current>
 *      <teams_peak> <baseline_current> <baseline_peak> <baseline_never_freed> <collectives>
 *      <extra_messages>
 *
 * which tests/psync_footprint.rs compares with the simulator's ledger of the same PE.
 * Usage: psync_sequences barriers | qtc | qtc-keep | strided | nb-world-K | blocking-world-K
 *                        | nb-split-K | blocking-split-K
 *
 * One iteration on a team: shmem_team_sync, a one-element max-reduction, an 8-byte
 * broadcast from root (k * 5 + 1) % size, k counting iterations over the whole sequence.
 *
 * The non-blocking sequences (src/sim/seq.rs, `sequence`, says what they do) start their
 * collectives with the real shmem_*_nb calls and complete them with shmem_req_wait, in
 * initiation order, checking every result after its wait; the blocking- twins make the same
 * calls blocking. Their i-th collective on a team is, in turn from a shift, a 512-long
 * alltoall, a 512-long sum-reduction, a 512-long broadcast from root (i * 5 + 1) % size and a
 * shmem_team_sync (sim::nb_kind); their buffers come from one shmem_malloc before anything
 * else (its barrier finds no array of the world team locked under barrier-unlock). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rsrc, rdst, bsrc, bdst;
static int me, npes;

static void fail(const char *what, long got, long want) {
    fprintf(stderr, "psync_sequences: PE %d: %s is %ld, want %ld\n", me, what, got, want);
    shmem_global_exit(1);
}

static void iteration(shmem_team_t t, int size, int k) {
    int r = shmem_team_my_pe(t);
    if (shmem_team_n_pes(t) != size)
        fail("team size", shmem_team_n_pes(t), size);
    if (shmem_team_sync(t) != 0)
        fail("shmem_team_sync", 1, 0);
    rsrc = 3L * r + k;
    if (shmem_long_max_reduce(t, &rdst, &rsrc, 1) != 0)
        fail("shmem_long_max_reduce", 1, 0);
    if (rdst != 3L * (size - 1) + k)
        fail("max", rdst, 3L * (size - 1) + k);
    int root = (k * 5 + 1) % size;
    bsrc = r == root ? 1000L * k + root : -1;
    bdst = -2;
    if (shmem_long_broadcast(t, &bdst, &bsrc, 1, root) != 0)
        fail("shmem_long_broadcast", 1, 0);
    if (bdst != 1000L * k + root)
        fail("broadcast", bdst, 1000L * k + root);
}

#define NB 512 /* longs per message: sim::NB_BYTES */

/* One collective of a non-blocking sequence, started or run, and what it must produce. */
typedef struct {
    shmem_team_t team;
    int kind, size, r, root;
    long tag, *dst, *src;
    shmem_req_h req;
} op_t;

static long *heap;
static size_t slot_longs;
static op_t ops[3][64];
static int nops[3];

static long a2a(long tag, int from, int to, int e) { return tag * 1000003L + from * 10007L + to * 101L + e; }

/* Checks the result of op o (after it completed). */
static void check(const op_t *o) {
    for (int e = 0; e < NB; e++) {
        long got, want;
        switch (o->kind) {
        case 0:
            for (int j = 0; j < o->size; j++) {
                got = o->dst[j * NB + e], want = a2a(o->tag, j, o->r, e);
                if (got != want)
                    fail("alltoall", got, want);
            }
            continue;
        case 1:
            got = o->dst[e], want = (long)o->size * (o->tag + e) + 7L * o->size * (o->size - 1) / 2;
            if (got != want)
                fail("sum", got, want);
            continue;
        case 2:
            got = o->dst[e], want = o->tag * 31 + o->root + e;
            if (got != want)
                fail("broadcast", got, want);
            continue;
        default:
            return;
        }
    }
}

/* Collective i of team t (0 world, 1 and 2 the splits) with kinds shifted by shift, on buffer
 * slot `slot`: started (nb, kept in ops[t] until wait_team) or blocking. kind: -1 for
 * sim::nb_kind's, else a kind (1: the blocking sum-reductions of nb-split). */
static void coll(int nb, shmem_team_t team, int t, int i, int shift, int kind, int slot) {
    op_t o;
    o.team = team;
    o.size = shmem_team_n_pes(team);
    o.r = shmem_team_my_pe(team);
    o.kind = kind >= 0 ? kind : (i + shift) % 4;
    o.root = (i * 5 + 1) % o.size;
    o.tag = 1000L * t + 10L * i + slot;
    o.dst = heap + slot * 2 * slot_longs;
    o.src = o.dst + slot_longs;
    for (int e = 0; e < NB; e++) {
        if (o.kind == 0)
            for (int j = 0; j < o.size; j++)
                o.src[j * NB + e] = a2a(o.tag, o.r, j, e), o.dst[j * NB + e] = -2;
        else
            o.src[e] = o.kind == 1 ? o.tag + 7L * o.r + e : o.r == o.root ? o.tag * 31 + o.root + e : -1,
            o.dst[e] = -2;
    }
    o.req = SHMEM_REQ_INVALID;
    int rc;
    switch (o.kind) {
    case 0:
        rc = nb ? shmem_long_alltoall_nb(team, o.dst, o.src, NB, &o.req) : shmem_long_alltoall(team, o.dst, o.src, NB);
        break;
    case 1:
        rc = nb ? shmem_long_sum_reduce_nb(team, o.dst, o.src, NB, &o.req)
                : shmem_long_sum_reduce(team, o.dst, o.src, NB);
        break;
    case 2:
        rc = nb ? shmem_long_broadcast_nb(team, o.dst, o.src, NB, o.root, &o.req)
                : shmem_long_broadcast(team, o.dst, o.src, NB, o.root);
        break;
    default:
        rc = nb ? shmem_team_sync_nb(team, &o.req) : shmem_team_sync(team);
    }
    if (rc != 0)
        fail(nb ? "a non-blocking collective's initiation" : "a blocking collective", rc, 0);
    if (!nb) {
        check(&o);
        return;
    }
    if (nops[t] == 64)
        fail("outstanding collectives on a team", 64, 63);
    ops[t][nops[t]++] = o;
}

/* shmem_req_wait on every outstanding request of team t, in initiation order. */
static void wait_team(int t) {
    for (int i = 0; i < nops[t]; i++) {
        if (shmem_req_wait(&ops[t][i].req) != 0)
            fail("shmem_req_wait", 1, 0);
        if (ops[t][i].req != SHMEM_REQ_INVALID)
            fail("request after shmem_req_wait is valid", 1, 0);
        check(&ops[t][i]);
    }
    nops[t] = 0;
}

/* The count K of "<prefix>-K" in seq (8 for "<prefix>"); 0 if seq is not one. */
static int counted(const char *seq, const char *prefix) {
    size_t n = strlen(prefix);
    if (strncmp(seq, prefix, n) != 0)
        return 0;
    if (seq[n] == 0)
        return 8;
    return seq[n] == '-' ? atoi(seq + n + 1) : 0;
}

static shmem_team_t split(shmem_team_t parent, int start, int stride, int size) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(parent, start, stride, size, NULL, 0, &t) != 0)
        fail("shmem_team_split_strided", 1, 0);
    return t;
}

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const char *seq = argc > 1 ? argv[1] : "";
    int k = 0, nbk = 0, nb = 0, world = 0;
    if ((nbk = counted(seq, "nb-world")) > 0 || (nbk = counted(seq, "blocking-world")) > 0)
        world = 1;
    else if ((nbk = counted(seq, "nb-split")) == 0)
        nbk = counted(seq, "blocking-split");
    nb = strncmp(seq, "nb-", 3) == 0;
    if (nbk > 63) {
        if (me == 0)
            fprintf(stderr, "psync_sequences: at most 63 outstanding collectives per team\n");
        shmem_global_exit(2);
    }
    if (nbk > 0) {
        slot_longs = (size_t)npes * NB;
        heap = shmem_malloc((3 * (size_t)nbk + 2) * 2 * slot_longs * sizeof(long));
        if (heap == NULL)
            fail("shmem_malloc", 0, 1);
    }
    if (nbk > 0 && world) {
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < nbk; i++)
                coll(nb, SHMEM_TEAM_WORLD, 0, i, 0, -1, i);
            wait_team(0);
        }
    } else if (nbk > 0) {
        /* sim::split_teams: the first three quarters and the last three quarters. */
        int na = (3 * npes + 3) / 4, sb = npes / 4;
        shmem_team_t ab[2] = {split(SHMEM_TEAM_WORLD, 0, 1, na), split(SHMEM_TEAM_WORLD, sb, 1, npes - sb)};
        for (int i = 0; i < nbk; i++) {
            coll(nb, SHMEM_TEAM_WORLD, 0, i, 0, -1, i);
            for (int t = 1; t <= 2; t++)
                if (ab[t - 1] != SHMEM_TEAM_INVALID)
                    coll(nb, ab[t - 1], t, i, t, -1, t * nbk + i);
            if (i % 4 == 3 && ab[0] != SHMEM_TEAM_INVALID)
                coll(0, ab[0], 1, i, 0, 1, 3 * nbk);
        }
        wait_team(2);
        coll(0, SHMEM_TEAM_WORLD, 0, nbk, 0, 2, 3 * nbk + 1);
        wait_team(1);
        wait_team(0);
        for (int t = 0; t < 2; t++)
            if (ab[t] != SHMEM_TEAM_INVALID)
                shmem_team_destroy(ab[t]);
    } else if (strcmp(seq, "barriers") == 0) {
        for (int i = 0; i < 16; i++)
            shmem_team_sync(SHMEM_TEAM_WORLD);
    } else if (strcmp(seq, "qtc") == 0 || strcmp(seq, "qtc-keep") == 0) {
        int destroy = strcmp(seq, "qtc") == 0;
        shmem_team_t team = SHMEM_TEAM_WORLD;
        int m = npes;
        for (;;) {
            iteration(team, m, k++);
            if (m == 1) {
                if (destroy && team != SHMEM_TEAM_WORLD)
                    shmem_team_destroy(team);
                break;
            }
            shmem_team_t next = split(team, 0, 1, m - 1);
            if (destroy && team != SHMEM_TEAM_WORLD)
                shmem_team_destroy(team);
            if (next == SHMEM_TEAM_INVALID) {
                if (me < m - 1)
                    fail("split to the first PEs left this PE out; PE", me, m - 1);
                break; /* pruned: wait at the final barrier */
            }
            team = next;
            m--;
        }
    } else if (strcmp(seq, "strided") == 0) {
        const int strides[3] = {2, 4, 8};
        for (int i = 0; i < 3; i++) {
            int s = strides[i], nt = s < npes ? s : npes;
            shmem_team_t teams[8];
            for (int o = 0; o < nt; o++)
                teams[o] = split(SHMEM_TEAM_WORLD, o, s, (npes - o + s - 1) / s);
            for (int o = 0; o < nt; o++) {
                if (teams[o] != SHMEM_TEAM_INVALID)
                    iteration(teams[o], (npes - o + s - 1) / s, k);
                k++;
            }
            for (int o = 0; o < nt; o++)
                if (teams[o] != SHMEM_TEAM_INVALID)
                    shmem_team_destroy(teams[o]);
        }
    } else {
        if (me == 0)
            fprintf(stderr, "usage: psync_sequences barriers | qtc | qtc-keep | strided | nb-world-K | "
                            "blocking-world-K | nb-split-K | blocking-split-K\n");
        shmem_global_exit(2);
    }
    shmem_barrier_all();
    shmemx_psync_footprint_t fp;
    if (shmemx_psync_footprint(&fp) != 0)
        fail("shmemx_psync_footprint", 1, 0);
    printf("FP %d %zu %zu %zu %zu %zu %zu %zu %zu %zu %llu %llu\n", me, fp.flags_current, fp.flags_peak,
           fp.scratch_current, fp.scratch_peak, fp.teams_current, fp.teams_peak, fp.baseline_current,
           fp.baseline_peak, fp.baseline_never_freed, fp.collectives, fp.extra_messages);
    shmem_finalize();
    return 0;
}
