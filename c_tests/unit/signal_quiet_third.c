/* rshmem-test
 * np: 3 4
 * timeout: 120
 */
/* shmem_quiet completes a put-with-signal at its target for every PE, not only for the
 * target's own waits. The sender (the last PE) puts round-dependent data with a signal to
 * the target (PE 0), quiets, then tells a third PE (PE 1) by a flag; PE 1 waits for the
 * flag and reads the data and the signal from PE 0. Meanwhile PE 0 computes without
 * calling the library, so a transport that applies a put-with-signal only when the
 * target progresses (UCX over TCP: an active message) must not let quiet return before
 * the target has applied it. Across nodes in pairs (4 PEs, RSHMEM_NODE_SIZE=2) PE 1
 * reads PE 0's memory directly, the case a quiet that does not wait would fail. Sizes
 * cycle from 8 bytes to 8 KiB (one message) and 64 KiB (put, fence, atomic); blocking
 * and non-blocking, set and add. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "../common.h"

#define ROUNDS 120
#define COMPUTE_US 2000
#define MAX_WORDS (64 * 1024 / 8)

static uint64_t dest[MAX_WORDS];
static uint64_t src[MAX_WORDS];
static uint64_t sig;
static long flag;

static size_t words_of(int r) {
    static const size_t sizes[] = {1, 7, 128, 1024, MAX_WORDS};
    return sizes[r % (int)(sizeof sizes / sizeof sizes[0])];
}

static uint64_t word(int r, size_t w) { return ((uint64_t)r << 40) ^ (w * 0x9E3779B97F4A7C15ull >> 20) ^ w; }

static void compute(void) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < COMPUTE_US);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes >= 3, "needs 3 PEs, has %d", npes);
    int target = 0, reader = 1, sender = npes - 1;
    static uint64_t got[MAX_WORDS];
    for (int r = 1; r <= ROUNDS; r++) {
        size_t n = words_of(r);
        int set = r % 2 == 0;
        shmem_barrier_all();
        if (me == target) {
            compute();
        } else if (me == sender) {
            for (size_t w = 0; w < n; w++)
                src[w] = word(r, w);
            if (r % 3 == 0)
                shmem_uint64_put_signal_nbi(dest, src, n, &sig, set ? (uint64_t)r : 1,
                                            set ? SHMEM_SIGNAL_SET : SHMEM_SIGNAL_ADD, target);
            else
                shmem_putmem_signal(dest, src, n * 8, &sig, set ? (uint64_t)r : 1,
                                    set ? SHMEM_SIGNAL_SET : SHMEM_SIGNAL_ADD, target);
            shmem_quiet();
            shmem_long_p(&flag, r, reader);
        } else if (me == reader) {
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, r);
            shmem_getmem(got, dest, n * 8, target);
            uint64_t s = shmem_uint64_g(&sig, target);
            CHECK(s == (uint64_t)r, "round %d: PE %d's signal is %llu after the sender's quiet, expected %d", r,
                  target, (unsigned long long)s, r);
            for (size_t w = 0; w < n; w++)
                CHECK(got[w] == word(r, w),
                      "round %d: word %zu of %zu on PE %d is 0x%016llx after the sender's quiet, expected "
                      "0x%016llx",
                      r, w, n, target, (unsigned long long)got[w], (unsigned long long)word(r, w));
        }
        shmem_barrier_all();
    }
    if (me == 0) printf("%d rounds: every put-with-signal complete at the sender's quiet\n", ROUNDS);
    shmem_finalize();
    return 0;
}
