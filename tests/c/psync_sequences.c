/* The sequences of team operations that the psync-footprint tool simulates
 * (src/sim.rs, `sequence`), run for real: every PE takes part in the steps of
 * the teams it belongs to, checks every result, and at the end prints its
 * shmemx_psync_footprint as one line
 *
 *   FP <pe> <flags_current> <flags_peak> <scratch_current> <scratch_peak> <teams_current>
 *      <teams_peak> <baseline_current> <baseline_peak> <baseline_never_freed> <collectives>
 *      <extra_messages>
 *
 * which tests/psync_footprint.rs compares with the simulator's ledger of the same PE.
 * Usage: psync_sequences barriers | qtc | qtc-keep | strided
 *
 * One iteration on a team: shmem_team_sync, a one-element max-reduction, an 8-byte
 * broadcast from root (k * 5 + 1) % size, k counting iterations over the whole sequence. */
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
    int k = 0;
    if (strcmp(seq, "barriers") == 0) {
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
            fprintf(stderr, "usage: psync_sequences barriers | qtc | qtc-keep | strided\n");
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
