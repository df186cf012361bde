/* rshmem-test
 * np: 1 2 3 4 7 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 */
/* The deprecated active-set synchronisation routines
 *     void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
 *     void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
 * (shmem_sync in its 4-argument form; in C11 it is the _Generic macro that also takes a
 * team) on the whole set, the even PEs (logPE_stride 1), the odd PEs, PEs 1..npes-1, a
 * stride-4 set and a single PE. Only members call.
 *  - Before the call every member puts a stamp into a slot on every member: after
 *    shmem_barrier the stamps of all members must be there (the barrier completes puts);
 *    with shmem_sync the writers call shmem_quiet first (shmem_sync only synchronises).
 *    Two slot buffers alternate between rounds, so a round's puts never race with the
 *    previous round's reads (a writer in round r+2 has passed round r+1's
 *    synchronisation, which the reader entered after its round-r checks).
 *  - The routines complete without the PEs outside the set: those wait for a flag that
 *    a member puts only after all of its rounds.
 *  - pSync holds SHMEM_SYNC_VALUE in every element when the routine returns (on the
 *    calling PE, at once) and after the next shmem_barrier_all on every PE. Only the last
 *    call of a series is checked at return: before that, the other members may already
 *    be in the next call with the same pSync (allowed for the same active set) and be
 *    writing to this PE's copy.
 *  - 1000 back-to-back shmem_barrier calls with the same pSync (allowed for the same
 *    active set) on the whole set and on PEs 1..npes-1, each completing a put to the
 *    next member of the set; 1000 back-to-back shmem_sync calls on the whole set. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define SYNC_LEN (SHMEM_SYNC_SIZE > SHMEM_BARRIER_SYNC_SIZE ? SHMEM_SYNC_SIZE : SHMEM_BARRIER_SYNC_SIZE)
#define ROUNDS 20
#define BACK_TO_BACK 1000

static long psync_barrier[SHMEM_BARRIER_SYNC_SIZE];
static long psync_sync[SYNC_LEN];
static int released;  /* set on PEs outside the active set when its members are done */
static long ring[2];  /* back-to-back rounds: value from the previous member */

typedef struct {
    int start, logstride, size;
    const char *name;
} aset;

static int aset_pe(aset s, int k) { return s.start + (k << s.logstride); }

/* Index of pe in the active set, or -1. */
static int aset_index(aset s, int pe) {
    int d = pe - s.start;
    if (d < 0 || (d & ((1 << s.logstride) - 1)) != 0)
        return -1;
    d >>= s.logstride;
    return d < s.size ? d : -1;
}

/* Every valid set in the list that the PE count allows. */
static int make_sets(aset *out, int npes) {
    int n = 0;
    out[n++] = (aset){0, 0, npes, "all PEs"};
    out[n++] = (aset){0, 1, (npes + 1) / 2, "even PEs"};
    if (npes >= 2) {
        out[n++] = (aset){1, 1, npes / 2, "odd PEs"};
        out[n++] = (aset){1, 0, npes - 1, "PEs 1..npes-1"};
    }
    if (npes >= 3)
        out[n++] = (aset){2, 2, (npes - 2 + 3) / 4, "PEs 2, 6, ..."};
    out[n++] = (aset){npes - 1, 0, 1, "the last PE alone"};
    return n;
}

static void check_psync(const long *p, int len, const char *routine, const char *when, aset s) {
    for (int i = 0; i < len; i++)
        CHECK(p[i] == SHMEM_SYNC_VALUE, "%s on %s (start %d, logstride %d, size %d): pSync[%d] is %ld %s, not SHMEM_SYNC_VALUE %ld",
              routine, s.name, s.start, s.logstride, s.size, i, p[i], when, (long)SHMEM_SYNC_VALUE);
}

static int stamp(int set, int kind, int round, int writer) {
    return 1 + writer + 100 * round + 10000 * kind + 100000 * set;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync_barrier[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SYNC_LEN; i++)
        psync_sync[i] = SHMEM_SYNC_VALUE;
    int *slots = shmem_malloc(2 * (size_t)npes * sizeof(int)); /* slots[buf * npes + writer index] */
    CHECK(slots != NULL, "shmem_malloc failed");
    shmem_barrier_all();

    aset sets[8];
    int nsets = make_sets(sets, npes);
    for (int si = 0; si < nsets; si++) {
        aset s = sets[si];
        int idx = aset_index(s, me);
        for (int kind = 0; kind < 2; kind++) {
            const char *routine = kind == 0 ? "shmem_barrier" : "shmem_sync";
            for (int i = 0; i < 2 * npes; i++)
                slots[i] = 0;
            released = 0;
            shmem_barrier_all();
            int tag = 1 + si * 2 + kind;
            if (idx >= 0) {
                for (int r = 0; r < ROUNDS; r++) {
                    int buf = r % 2;
                    for (int k = 0; k < s.size; k++)
                        shmem_int_p(&slots[buf * npes + idx], stamp(si, kind, r, me), aset_pe(s, k));
                    if (kind == 0) {
                        shmem_barrier(s.start, s.logstride, s.size, psync_barrier);
                        if (r == ROUNDS - 1)
                            check_psync(psync_barrier, SHMEM_BARRIER_SYNC_SIZE, routine, "right after return", s);
                    } else {
                        shmem_quiet();
                        shmem_sync(s.start, s.logstride, s.size, psync_sync);
                        if (r == ROUNDS - 1)
                            check_psync(psync_sync, SYNC_LEN, routine, "right after return", s);
                    }
                    for (int k = 0; k < s.size; k++) {
                        int got = slots[buf * npes + k], want = stamp(si, kind, r, aset_pe(s, k));
                        CHECK(got == want, "%s on %s, round %d: the put from PE %d is not visible after the call (slot holds %d, want %d)",
                              routine, s.name, r, aset_pe(s, k), got, want);
                    }
                }
                if (idx == 0)
                    for (int pe = 0; pe < npes; pe++)
                        if (aset_index(s, pe) < 0)
                            shmem_int_p(&released, tag, pe);
            } else {
                /* Outside the set: the members finish without us. */
                shmem_int_wait_until(&released, SHMEM_CMP_EQ, tag);
                for (int i = 0; i < 2 * npes; i++)
                    CHECK(slots[i] == 0, "%s on %s: PE %d is outside the set but its slot %d changed to %d", routine, s.name, me, i,
                          slots[i]);
            }
            shmem_barrier_all();
            check_psync(psync_barrier, SHMEM_BARRIER_SYNC_SIZE, routine, "after the next shmem_barrier_all", s);
            check_psync(psync_sync, SYNC_LEN, routine, "after the next shmem_barrier_all", s);
        }
    }

    /* Back-to-back barriers with the same pSync; each completes a put to the next member. */
    aset b2b[2] = {{0, 0, npes, "all PEs"}, {1, 0, npes - 1, "PEs 1..npes-1"}};
    for (int si = 0; si < (npes >= 2 ? 2 : 1); si++) {
        aset s = b2b[si];
        int idx = aset_index(s, me);
        ring[0] = ring[1] = -1;
        shmem_barrier_all();
        if (idx >= 0) {
            int next = aset_pe(s, (idx + 1) % s.size), prev = aset_pe(s, (idx + s.size - 1) % s.size);
            for (long r = 0; r < BACK_TO_BACK; r++) {
                shmem_long_p(&ring[r % 2], r * 1000 + me, next);
                shmem_barrier(s.start, s.logstride, s.size, psync_barrier);
                CHECK(ring[r % 2] == r * 1000 + prev, "back-to-back shmem_barrier on %s, call %ld: value from PE %d is %ld, want %ld",
                      s.name, r, prev, ring[r % 2], r * 1000 + prev);
            }
            check_psync(psync_barrier, SHMEM_BARRIER_SYNC_SIZE, "back-to-back shmem_barrier", "right after return", s);
        }
        shmem_barrier_all();
        check_psync(psync_barrier, SHMEM_BARRIER_SYNC_SIZE, "back-to-back shmem_barrier", "after the next shmem_barrier_all", s);
    }
    for (int r = 0; r < BACK_TO_BACK; r++)
        shmem_sync(0, 0, npes, psync_sync);
    check_psync(psync_sync, SYNC_LEN, "back-to-back shmem_sync", "right after return", sets[0]);
    shmem_barrier_all();
    check_psync(psync_sync, SYNC_LEN, "back-to-back shmem_sync", "after the next shmem_barrier_all", sets[0]);

    shmem_free(slots);
    if (me == 0)
        printf("shmem_barrier/shmem_sync on %d active sets ok\n", nsets);
    shmem_finalize();
    return 0;
}
