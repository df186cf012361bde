/* Instruction counts of rshmem's collective entry paths, for `benches/icount.py --coll`
 * (valgrind's callgrind). Uses OpenSHMEM 1.5 teams: built for rshmem only.
 *
 * Usage: icount_coll <operation> <n>
 * Runs <operation> n times in the loop of its own function (run_<operation>, never
 * inlined), after one warm-up call, as icount.c does:
 *
 *   empty          nothing: the loop itself (a compiler barrier per iteration)
 *   malloc_free    shmem_malloc(64), then shmem_free of it (a 1-PE job: each call's
 *                  barrier has nobody to wait for)
 *   split_destroy  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes), then
 *                  shmem_team_destroy of the new team (a 1-PE job)
 *   bcast          a 2-PE job of shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, 8, 0):
 *                  PE 0, the root, makes all its calls first (they go through the
 *                  team's inbox, which holds 511 such messages at 2 PEs, so none
 *                  waits: 1 + n <= 511); only then does PE 1 make its calls, each
 *                  finding its message there. Neither waits inside the counted loop,
 *                  so both counts are exact: PE 0's is the root's path, PE 1's the
 *                  receiver's. The two hand over with flags they poll outside the
 *                  loop, without any rshmem wait that could sleep.
 *
 * Under `valgrind --tool=callgrind --toggle-collect=run_<operation>` only run_<operation>
 * and what it calls is counted; icount.py takes (I(2n) - I(n)) / n and subtracts the
 * `empty` loop's count per iteration.
 */
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noipa))
#define BARRIER() __asm__ __volatile__("" ::: "memory")

static char *src, *dst; /* symmetric, 64 bytes each */
static long *flag;      /* symmetric: set by the other PE of the bcast operation */
static long sink;

NOINLINE void run_empty(long n) {
    for (long i = 0; i < n; i++) BARRIER();
}

NOINLINE void run_malloc_free(long n) {
    for (long i = 0; i < n; i++) {
        void *p = shmem_malloc(64);
        sink += p != NULL;
        shmem_free(p);
        BARRIER();
    }
}

NOINLINE void run_split_destroy(long n) {
    int npes = shmem_n_pes();
    for (long i = 0; i < n; i++) {
        shmem_team_t t;
        sink += shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
        shmem_team_destroy(t);
        BARRIER();
    }
}

NOINLINE void run_bcast(long n) {
    for (long i = 0; i < n; i++) {
        sink += shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, 8, 0);
        BARRIER();
    }
}

/* Polls this PE's flag until the other PE sets it (no rshmem wait: nothing sleeps on a
 * bell that a broadcast rings). */
static void await_flag(void) {
    while (*(volatile long *)flag == 0) sched_yield();
}

static const struct {
    const char *name;
    void (*fn)(long);
    int npes; /* the job size it is counted at */
} OPS[] = {
    {"empty", run_empty, 1},
    {"malloc_free", run_malloc_free, 1},
    {"split_destroy", run_split_destroy, 1},
    {"bcast", run_bcast, 2},
};

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: icount_coll <operation> <n>\n");
        return 2;
    }
    long n = atol(argv[2]);
    void (*fn)(long) = NULL;
    int want = 0;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (strcmp(argv[1], OPS[i].name) == 0) fn = OPS[i].fn, want = OPS[i].npes;
    if (!fn || n < 0) {
        fprintf(stderr, "icount_coll: unknown operation '%s' or bad n\n", argv[1]);
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes != want) {
        fprintf(stderr, "icount_coll: %s is counted at %d PEs, not %d\n", argv[1], want, npes);
        shmem_global_exit(2);
    }
    if (fn == run_bcast && n + 1 > 511) {
        fprintf(stderr, "icount_coll: bcast needs n <= 510 (the inbox holds 511 messages)\n");
        shmem_global_exit(2);
    }
    src = shmem_malloc(64);
    dst = shmem_malloc(64);
    flag = shmem_malloc(sizeof(long));
    if (!src || !dst || !flag) {
        fprintf(stderr, "icount_coll: shmem_malloc failed\n");
        return 1;
    }
    memset(src, 1, 64);
    memset(dst, 0, 64);
    *flag = 0;
    shmem_barrier_all();
    if (fn == run_bcast) {
        int other = 1 - me;
        if (me == 1) await_flag();
        fn(1); /* warm-up, as in icount.c */
        fn(n);
        shmem_long_p(flag, 1, other);
        shmem_quiet();
        if (me == 0) await_flag();
    } else {
        fn(1);
        fn(n);
    }
    shmem_barrier_all();
    if (me == 0) printf("OK %s %ld %ld\n", argv[1], n, sink);
    shmem_free(flag);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
