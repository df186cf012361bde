/* rshmem-test
 * np: 2 4
 * variant: SHMEM_PROGRESS_THREAD=1
 */
/* Progress while the target computes. The PEs of the upper half compute for COMPUTE_MS
 * (a loop making no library call) while each PE of the lower half puts to its partner
 * in the upper half (me + npes / 2), a flag with shmem_p, then shmem_quiet, and reads a
 * word of the partner with shmem_g. Then the computing PE waits for the flag with
 * shmem_long_wait_until and checks the data. Across nodes over a software engine (MPI
 * RMA over TCP) a put lands only when the target enters the library, so quiet and g may
 * take until the target's wait, but everything must complete: the test hangs (and its
 * timeout fails it) if waits do not progress the engine. Then the roles swap (the lower
 * half computes) and all of it repeats ROUNDS times. With SHMEM_PROGRESS_THREAD=1 the
 * put and quiet need not wait for the computing PE (the times printed show it). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "../common.h"

#define COMPUTE_MS 200
#define ROUNDS 2
#define WORDS 1024

static long data[WORDS];
static long flag;
static long mark; /* set by its owner before the computing starts; read with shmem_g */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* a computation that makes no library call (clock_gettime is the vDSO, not rshmem) */
static unsigned long compute(double ms) {
    volatile unsigned long x = 1;
    double end = now_ms() + ms;
    while (now_ms() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}

static long value(int pe, int round, int i) { return (long)pe * 1000003 + round * 7919 + i; }

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), half = npes / 2;
    CHECK(npes % 2 == 0, "needs an even number of PEs, got %d", npes);
    int partner = me < half ? me + half : me - half;
    long src[WORDS];
    for (int round = 0; round < 2 * ROUNDS; round++) {
        int computing = (me >= half) == (round % 2 == 0);
        flag = 0;
        mark = value(me, round, -1);
        shmem_barrier_all();
        if (computing) {
            double t0 = now_ms();
            (void)compute(COMPUTE_MS);
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, round + 1);
            CHECK(flag == round + 1, "round %d: flag is %ld after wait_until", round, flag);
            for (int i = 0; i < WORDS; i++)
                CHECK(data[i] == value(partner, round, i),
                      "round %d: word %d from PE %d is %ld, expected %ld (flag seen before data)",
                      round, i, partner, data[i], value(partner, round, i));
            if (me == half && round == 0)
                printf("computing PE %d: flag seen %.0f ms after computing began\n", me,
                       now_ms() - t0);
        } else {
            for (int i = 0; i < WORDS; i++)
                src[i] = value(me, round, i);
            double t0 = now_ms();
            shmem_long_put(data, src, WORDS, partner);
            shmem_fence();
            shmem_long_p(&flag, round + 1, partner);
            shmem_quiet();
            double t1 = now_ms();
            long m = shmem_long_g(&mark, partner);
            CHECK(m == value(partner, round, -1), "round %d: shmem_g of PE %d's word gave %ld, "
                  "expected %ld", round, partner, m, value(partner, round, -1));
            if (me == 0 && round == 0)
                printf("PE 0: put+quiet to a computing PE took %.1f ms, then g %.1f ms\n",
                       t1 - t0, now_ms() - t1);
        }
        shmem_barrier_all();
    }
    if (me == 0)
        printf("progress: %d rounds with a computing target ok\n", 2 * ROUNDS);
    shmem_finalize();
    return 0;
}
