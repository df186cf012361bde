/* rshmem-test
 * np: 2 4 8
 * timeout: 120
 */
/* Put-with-signal across nodes: the data is complete whenever the signal is seen. Each
 * PE sends to the PE half the job away (me + npes / 2: on another node when nodes hold
 * at most npes / 2 consecutive PEs) and receives from it, for ROUNDS rounds. Round r
 * carries r-dependent data of a size cycling from 8 bytes to 256 KiB, with a signal that
 * becomes r (SHMEM_SIGNAL_SET r or SHMEM_SIGNAL_ADD 1, blocking or non-blocking). The
 * receiver sees the signal by shmem_signal_wait_until, or by polling shmem_uint64_test
 * (round by round), checks every word, then acknowledges with an atomic add so the sender
 * does not overwrite the buffer too early. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ROUNDS 300
#define MAX_WORDS (256 * 1024 / 8)

static uint64_t sig, ack;

static size_t words_of(uint64_t r) {
    static const size_t sizes[] = {1, 3, 64, 512, 8192, MAX_WORDS};
    return sizes[r % (sizeof sizes / sizeof sizes[0])];
}

static uint64_t word(int pe, uint64_t r, size_t w) {
    return (r << 40) ^ ((uint64_t)pe << 32) ^ ((uint64_t)w * 0x9E3779B97F4A7C15ull >> 24) ^ w;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int peer = npes == 1 ? 0 : (me + (npes + 1) / 2) % npes;
    int from = npes == 1 ? 0 : (me + npes - (npes + 1) / 2) % npes;
    uint64_t *dest = shmem_calloc(MAX_WORDS, sizeof(uint64_t));
    uint64_t *src = malloc(MAX_WORDS * sizeof(uint64_t));
    CHECK(dest && src, "allocation failed");
    shmem_barrier_all();
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        /* sender: the peer has checked round r - 1, so its buffer may be overwritten */
        shmem_uint64_wait_until(&ack, SHMEM_CMP_GE, r - 1);
        shmem_quiet(); /* round r - 1's non-blocking put no longer reads src */
        size_t n = words_of(r);
        for (size_t w = 0; w < n; w++)
            src[w] = word(me, r, w);
        int set = r % 2 == 0;
        uint64_t sv = set ? r : 1;
        int op = set ? SHMEM_SIGNAL_SET : SHMEM_SIGNAL_ADD;
        if (r % 3 == 0)
            shmem_uint64_put_signal_nbi(dest, src, n, &sig, sv, op, peer);
        else
            shmem_putmem_signal(dest, src, n * 8, &sig, sv, op, peer);

        /* receiver */
        if (r % 4 == 1) {
            while (!shmem_uint64_test(&sig, SHMEM_CMP_GE, r))
                ;
        } else {
            uint64_t got = shmem_signal_wait_until(&sig, SHMEM_CMP_GE, r);
            CHECK(got == r, "round %llu: the signal is %llu", (unsigned long long)r,
                  (unsigned long long)got);
        }
        size_t m = words_of(r);
        for (size_t w = 0; w < m; w++)
            CHECK(dest[w] == word(from, r, w),
                  "round %llu: word %zu of %zu from PE %d is 0x%016llx, expected 0x%016llx "
                  "(data of round %llu): the signal arrived before the data",
                  (unsigned long long)r, w, m, from, (unsigned long long)dest[w],
                  (unsigned long long)word(from, r, w), (unsigned long long)(dest[w] >> 40));
        shmem_uint64_atomic_add(&ack, 1, from);
    }
    shmem_quiet();
    shmem_barrier_all();
    CHECK(ack == ROUNDS, "final ack is %llu", (unsigned long long)ack);
    CHECK(sig == ROUNDS, "final signal is %llu", (unsigned long long)sig);
    free(src);
    shmem_free(dest);
    if (me == 0)
        printf("cross-node put-with-signal: %d rounds up to 256 KiB ok\n", ROUNDS);
    shmem_finalize();
    return 0;
}
