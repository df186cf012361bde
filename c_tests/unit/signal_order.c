/* rshmem-test
 * np: 2 4
 * timeout: 120
 */
/* Put-with-signal ordering: the data of a put_signal is never older than its signal.
 * Every PE produces for its right neighbour and consumes from its left one, for 2000
 * rounds. In round r the producer fills a 64 KiB buffer and a small one (1..32 bytes)
 * with contents that depend on r and its PE, and delivers each with a put-with-signal
 * that makes the signal r (SHMEM_SIGNAL_SET r or SHMEM_SIGNAL_ADD 1, blocking or
 * non-blocking, typed, sized or putmem, default or created context, by round). The
 * consumer waits with shmem_signal_wait_until for r, checks the returned value and every
 * word of both buffers, then acknowledges with shmem_signal_set / shmem_signal_add on the
 * producer's ack signal; the producer does not overwrite the destination before that. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define ROUNDS 2000
#define BIG_WORDS (65536 / 8)
#define SMALL_MAX 32

static uint64_t sig_big, sig_small, ack;
static unsigned char small_dest[SMALL_MAX + 8];

static uint64_t word(int pe, uint64_t r, size_t w) {
    return (r << 40) ^ ((uint64_t)pe << 32) ^ ((uint64_t)w * 0x9E3779B97F4A7C15ull >> 20) ^ w;
}
static unsigned char byte(int pe, uint64_t r, size_t b) { return (unsigned char)(r * 7 + (uint64_t)pe * 61 + b * 13 + 5); }

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
    uint64_t *big_dest = shmem_malloc(BIG_WORDS * sizeof(uint64_t));
    uint64_t *big_src = malloc(BIG_WORDS * sizeof(uint64_t));
    unsigned char small_src[SMALL_MAX];
    CHECK(big_dest && big_src, "allocation failed");
    memset(big_dest, 0, BIG_WORDS * sizeof(uint64_t));
    memset(small_dest, 0, sizeof small_dest);
    shmem_barrier_all();

    for (uint64_t r = 1; r <= ROUNDS; r++) {
        /* producer: wait until the right neighbour has checked round r - 1 */
        uint64_t a = shmem_signal_wait_until(&ack, SHMEM_CMP_GE, r - 1);
        CHECK(a == r - 1, "round %llu: ack wait returned %llu", (unsigned long long)r, (unsigned long long)a);
        shmem_quiet();
        shmem_ctx_quiet(ctx); /* the sources of round r - 1's non-blocking puts may be reused */
        for (size_t w = 0; w < BIG_WORDS; w++)
            big_src[w] = word(me, r, w);
        size_t small_len = 1 + r % SMALL_MAX;
        for (size_t b = 0; b < small_len; b++)
            small_src[b] = byte(me, r, b);
        int set = r % 2 == 0;
        uint64_t sv = set ? r : 1;
        int op = set ? SHMEM_SIGNAL_SET : SHMEM_SIGNAL_ADD;
        switch (r % 6) {
        case 0: shmem_uint64_put_signal(big_dest, big_src, BIG_WORDS, &sig_big, sv, op, right); break;
        case 1: shmem_putmem_signal_nbi(big_dest, big_src, BIG_WORDS * 8, &sig_big, sv, op, right); break;
        case 2: shmem_ctx_put64_signal(ctx, big_dest, big_src, BIG_WORDS, &sig_big, sv, op, right); break;
        case 3: shmem_ctx_uint64_put_signal_nbi(ctx, big_dest, big_src, BIG_WORDS, &sig_big, sv, op, right); break;
        case 4: shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, big_dest, big_src, BIG_WORDS * 8, &sig_big, sv, op, right); break;
        default: shmem_put128_signal_nbi(big_dest, big_src, BIG_WORDS / 2, &sig_big, sv, op, right); break;
        }
        /* the small put uses the other operation */
        if (r % 3 == 0)
            shmem_putmem_signal(small_dest, small_src, small_len, &sig_small, set ? 1 : r,
                                set ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET, right);
        else if (r % 3 == 1)
            shmem_ctx_putmem_signal_nbi(ctx, small_dest, small_src, small_len, &sig_small, set ? 1 : r,
                                        set ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET, right);
        else
            shmem_uchar_put_signal_nbi(small_dest, small_src, small_len, &sig_small, set ? 1 : r,
                                       set ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET, right);

        /* consumer: round r from the left neighbour */
        uint64_t got = shmem_signal_wait_until(&sig_big, r % 4 ? SHMEM_CMP_GE : SHMEM_CMP_EQ, r);
        CHECK(got == r, "round %llu: shmem_signal_wait_until on the 64 KiB signal returned %llu",
              (unsigned long long)r, (unsigned long long)got);
        for (size_t w = 0; w < BIG_WORDS; w++)
            CHECK(big_dest[w] == word(left, r, w),
                  "round %llu: 64 KiB buffer word %zu is 0x%016llx, expected 0x%016llx (round of the "
                  "data %llu): data older than its signal",
                  (unsigned long long)r, w, (unsigned long long)big_dest[w],
                  (unsigned long long)word(left, r, w), (unsigned long long)(big_dest[w] >> 40));
        got = shmem_signal_wait_until(&sig_small, SHMEM_CMP_GE, r);
        CHECK(got == r, "round %llu: shmem_signal_wait_until on the small signal returned %llu",
              (unsigned long long)r, (unsigned long long)got);
        for (size_t b = 0; b < small_len; b++)
            CHECK(small_dest[b] == byte(left, r, b), "round %llu: small buffer byte %zu (of %zu) is 0x%02x, expected 0x%02x",
                  (unsigned long long)r, b, small_len, small_dest[b], byte(left, r, b));
        for (size_t b = SMALL_MAX; b < sizeof small_dest; b++)
            CHECK(small_dest[b] == 0, "round %llu: small buffer byte %zu past the puts changed", (unsigned long long)r, b);
        if (r % 2)
            shmem_signal_add(&ack, 1, left);
        else
            shmem_ctx_signal_set(ctx, &ack, r, left);
    }
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&ack) == ROUNDS, "final ack is %llu", (unsigned long long)shmem_signal_fetch(&ack));
    shmem_ctx_destroy(ctx);
    free(big_src);
    shmem_free(big_dest);
    if (me == 0)
        printf("signal ordering: %d rounds of 64 KiB and small put-with-signal ok\n", ROUNDS);
    shmem_finalize();
    return 0;
}
