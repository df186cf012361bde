/* rshmem-test
 * np: 1 2 4
 * env: RSHMEM_PCNTR=1
 * variant: RSHMEM_PCNTR=0
 * stdout: performance counters ok
 */
/* Sandia OpenSHMEM's performance counters (shmemx_pcntr_*), counted under
 * RSHMEM_PCNTR=1 (and all 0 under RSHMEM_PCNTR=0, the variant):
 *  - on a private context, a known mix of calls to the right neighbour: writes (putmem,
 *    putmem_nbi, p, iput of 5 elements = 5, ibput of 3 blocks = 3, atomic add, atomic set,
 *    put_signal, signal_add) and reads (getmem, getmem_nbi, g, iget of 4 = 4, fetch-add,
 *    compare-swap, swap, atomic fetch_nbi) are counted exactly as issued; completed =
 *    issued at once on one node, and across nodes but for the four deferred ones (the nbi
 *    forms and put_signal), which the quiet completes;
 *  - those calls leave the default context's counters alone, and calls on the default
 *    context leave the private one's alone: the counters are per context;
 *  - shmemx_pcntr_get_all agrees with the single getters;
 *  - target: every PE's operations above and TARGET_OPS more are all on its right
 *    neighbour, so each PE's target count ends at exactly their number (polled for a
 *    while: across nodes the count is a posted add that may land after the barrier),
 *    and at 0 on one PE (a PE's operations on itself are not counted). */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define TARGET_OPS 37

static long buf[64], word;
static uint64_t sig;

static shmemx_pcntr_t all_of(shmem_ctx_t ctx) {
    shmemx_pcntr_t p;
    memset(&p, 0xff, sizeof p);
    shmemx_pcntr_get_all(ctx, &p);
    uint64_t v[5];
    shmemx_pcntr_get_issued_write(ctx, &v[0]);
    shmemx_pcntr_get_issued_read(ctx, &v[1]);
    shmemx_pcntr_get_completed_write(ctx, &v[2]);
    shmemx_pcntr_get_completed_read(ctx, &v[3]);
    shmemx_pcntr_get_completed_target(&v[4]);
    CHECK(v[0] == p.pending_put && v[1] == p.pending_get, "get_all and the issued getters differ");
    CHECK(v[2] == p.completed_put && v[3] == p.completed_get, "get_all and the completed getters differ");
    CHECK(v[4] >= p.target, "the target count went down");
    return p;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes;
    const char *env = getenv("RSHMEM_PCNTR");
    int on = env && strcmp(env, "1") == 0;

    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create failed");
    shmemx_pcntr_t c0 = all_of(ctx);
    CHECK(c0.pending_put == 0 && c0.pending_get == 0 && c0.completed_put == 0 && c0.completed_get == 0,
          "a new context's counters are not 0");
    shmemx_pcntr_t d0 = all_of(SHMEM_CTX_DEFAULT);

    long src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8], dst_nbi[2];
    long fetched = 0;
    shmem_ctx_putmem(ctx, &buf[0], src, sizeof(long), right);
    shmem_ctx_putmem_nbi(ctx, &buf[1], src, 2 * sizeof(long), right);
    shmem_ctx_long_p(ctx, &buf[3], 42, right);
    shmem_ctx_long_iput(ctx, &buf[8], src, 2, 1, 5, right);
    shmem_ctx_long_ibput(ctx, &buf[20], src, 3, 2, 1, 3, right);
    shmem_ctx_long_atomic_add(ctx, &word, 1, right);
    shmem_ctx_long_atomic_set(ctx, &word, 5, right);
    shmem_ctx_long_put_signal(ctx, &buf[30], src, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_signal_add(ctx, &sig, 1, right);
    uint64_t writes = 1 + 1 + 1 + 5 + 3 + 1 + 1 + 1 + 1;
    shmem_ctx_getmem(ctx, dst, &buf[40], sizeof(long), right);
    shmem_ctx_getmem_nbi(ctx, dst_nbi, &buf[40], 2 * sizeof(long), right);
    (void)shmem_ctx_long_g(ctx, &buf[40], right);
    shmem_ctx_long_iget(ctx, dst, &buf[40], 2, 1, 4, right);
    (void)shmem_ctx_long_atomic_fetch_add(ctx, &word, 0, right);
    (void)shmem_ctx_long_atomic_compare_swap(ctx, &word, -1, -1, right);
    (void)shmem_ctx_long_atomic_swap(ctx, &buf[50], 3, right);
    shmem_ctx_long_atomic_fetch_nbi(ctx, &fetched, &word, right);
    uint64_t reads = 1 + 1 + 1 + 4 + 1 + 1 + 1 + 1;

    shmemx_pcntr_t c1 = all_of(ctx);
    uint64_t w = on ? writes : 0, r = on ? reads : 0;
    CHECK(c1.pending_put == w, "issued writes: %llu, not %llu", (unsigned long long)c1.pending_put,
          (unsigned long long)w);
    CHECK(c1.pending_get == r, "issued reads: %llu, not %llu", (unsigned long long)c1.pending_get,
          (unsigned long long)r);
    /* Before the quiet: on this node everything is complete at once; across nodes the
     * deferred ones (putmem_nbi, put_signal; getmem_nbi, fetch_nbi) wait for it. */
    uint64_t deferred = on && shmem_ptr(&buf[0], right) == NULL ? 2 : 0;
    CHECK(c1.completed_put == w - deferred && c1.completed_get == r - deferred,
          "before the quiet: completed %llu writes and %llu reads, not %llu and %llu",
          (unsigned long long)c1.completed_put, (unsigned long long)c1.completed_get,
          (unsigned long long)(w - deferred), (unsigned long long)(r - deferred));
    shmem_ctx_quiet(ctx);
    shmemx_pcntr_t c2 = all_of(ctx);
    CHECK(c2.completed_put == w && c2.completed_get == r,
          "after the quiet: completed %llu writes and %llu reads, not %llu and %llu",
          (unsigned long long)c2.completed_put, (unsigned long long)c2.completed_get, (unsigned long long)w,
          (unsigned long long)r);
    shmemx_pcntr_t d1 = all_of(SHMEM_CTX_DEFAULT);
    CHECK(d1.pending_put == d0.pending_put && d1.pending_get == d0.pending_get,
          "the private context's calls counted on the default context");

    /* The default context's calls: its counters, not the private one's. */
    shmem_putmem(&buf[0], src, sizeof(long), right);
    shmem_long_p(&buf[1], 1, right);
    (void)shmem_long_g(&buf[1], right);
    shmem_quiet();
    shmemx_pcntr_t d2 = all_of(SHMEM_CTX_DEFAULT);
    CHECK(d2.pending_put == d1.pending_put + (on ? 2 : 0) && d2.pending_get == d1.pending_get + (on ? 1 : 0),
          "the default context counted %llu writes and %llu reads, not 2 and 1",
          (unsigned long long)(d2.pending_put - d1.pending_put),
          (unsigned long long)(d2.pending_get - d1.pending_get));
    CHECK(d2.completed_put == d2.pending_put && d2.completed_get == d2.pending_get,
          "the default context's calls are not all complete after a quiet");
    shmemx_pcntr_t c3 = all_of(ctx);
    CHECK(c3.pending_put == c2.pending_put && c3.pending_get == c2.pending_get,
          "the default context's calls counted on the private one");

    /* Target: every operation above, and TARGET_OPS more, on each PE by its left
     * neighbour (on one PE, by itself: not counted). */
    shmem_barrier_all();
    for (int i = 0; i < TARGET_OPS; i++) {
        if (i % 3 == 0)
            shmem_ctx_putmem_nbi(ctx, &buf[i], src, sizeof(long), right);
        else if (i % 3 == 1)
            (void)shmem_ctx_long_g(ctx, &buf[i], right);
        else
            shmem_ctx_long_atomic_inc(ctx, &word, right);
    }
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    uint64_t expect = on && npes > 1 ? writes + reads + 3 + TARGET_OPS : 0, t;
    for (long polls = 0;; polls++) {
        shmemx_pcntr_get_completed_target(&t);
        if (t >= expect || polls > 20000000L)
            break;
    }
    CHECK(t == expect, "target count is %llu, not %llu", (unsigned long long)t, (unsigned long long)expect);

    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        printf("performance counters ok\n");
    shmem_finalize();
    return 0;
}
