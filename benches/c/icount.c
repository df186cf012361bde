/* Instruction counts of single OpenSHMEM calls, for benches/icount.py (valgrind's callgrind).
 *
 * Usage: icount <operation> <n>
 * Runs <operation> n times in the loop of its own function (run_<operation>, never inlined),
 * after one untimed warm-up call (first-touch and lazy set-up costs stay outside). Run it
 * as a 1-PE job; every operation targets PE 0, i.e. the PE itself:
 *
 *   empty       nothing: the loop itself (a compiler barrier per iteration)
 *   put_quiet   shmem_putmem of 8 bytes, then shmem_quiet
 *   putmem      shmem_putmem of 8 bytes (no quiet)
 *   quiet       shmem_quiet alone
 *   long_p      shmem_long_p
 *   getmem      shmem_getmem of 8 bytes
 *   fetch_add   shmem_long_atomic_fetch_add(w, 1, 0)
 *
 * Under `valgrind --tool=callgrind --toggle-collect=run_<operation>` only run_<operation>
 * and what it calls is counted; icount.py takes (I(2n) - I(n)) / n, which leaves out
 * everything done once, and subtracts the `empty` loop's count per iteration.
 * Only OpenSHMEM 1.4 routines, so any implementation's oshcc builds it.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noipa))
#define BARRIER() __asm__ __volatile__("" ::: "memory")

static char *src, *dst; /* symmetric, 64 bytes each */
static long *word;      /* symmetric */
static long sink;

NOINLINE void run_empty(long n) {
    for (long i = 0; i < n; i++) BARRIER();
}

NOINLINE void run_put_quiet(long n) {
    for (long i = 0; i < n; i++) {
        shmem_putmem(dst, src, 8, 0);
        shmem_quiet();
        BARRIER();
    }
}

NOINLINE void run_putmem(long n) {
    for (long i = 0; i < n; i++) {
        shmem_putmem(dst, src, 8, 0);
        BARRIER();
    }
}

NOINLINE void run_quiet(long n) {
    for (long i = 0; i < n; i++) {
        shmem_quiet();
        BARRIER();
    }
}

NOINLINE void run_long_p(long n) {
    for (long i = 0; i < n; i++) {
        shmem_long_p(word, i, 0);
        BARRIER();
    }
}

NOINLINE void run_getmem(long n) {
    for (long i = 0; i < n; i++) {
        shmem_getmem(dst, src, 8, 0);
        BARRIER();
    }
}

NOINLINE void run_fetch_add(long n) {
    long s = 0;
    for (long i = 0; i < n; i++) {
        s += shmem_long_atomic_fetch_add(word, 1, 0);
        BARRIER();
    }
    sink += s;
}

/* A wait whose condition already holds: the word fetch_add counts up is
 * never below 0, so SHMEM_CMP_GE 0 holds at the first look. */
NOINLINE void run_wait_until(long n) {
    for (long i = 0; i < n; i++) {
        shmem_long_wait_until(word, SHMEM_CMP_GE, 0);
        BARRIER();
    }
}

static const struct {
    const char *name;
    void (*fn)(long);
} OPS[] = {
    {"empty", run_empty},   {"put_quiet", run_put_quiet}, {"putmem", run_putmem},
    {"quiet", run_quiet},   {"long_p", run_long_p},       {"getmem", run_getmem},
    {"fetch_add", run_fetch_add}, {"wait_until", run_wait_until},
};

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: icount <operation> <n>\n");
        return 2;
    }
    long n = atol(argv[2]);
    void (*fn)(long) = NULL;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (strcmp(argv[1], OPS[i].name) == 0) fn = OPS[i].fn;
    if (!fn || n < 0) {
        fprintf(stderr, "icount: unknown operation '%s' or bad n\n", argv[1]);
        return 2;
    }
    shmem_init();
    src = shmem_malloc(64);
    dst = shmem_malloc(64);
    word = shmem_malloc(sizeof(long));
    if (!src || !dst || !word) {
        fprintf(stderr, "icount: shmem_malloc failed\n");
        return 1;
    }
    memset(src, 1, 64);
    memset(dst, 0, 64);
    *word = 0;
    shmem_barrier_all();
    fn(1); /* warm-up: counted too (it is in run_<op>), but the same in both runs of icount.py */
    fn(n);
    shmem_barrier_all();
    printf("OK %s %ld %ld\n", argv[1], n, sink);
    shmem_free(word);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
