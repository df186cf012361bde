/* rshmem-test
 * np: 1 2 4 8
 */
/* RMA, atomics and put-with-signal through created contexts of every option set (and
 * SHMEM_CTX_DEFAULT): the data lands after shmem_ctx_quiet / shmem_ctx_pe_quiet and a
 * barrier, and shmem_ctx_fence orders a data put before a flag put. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define N 16

static long src[N], dst[4 * N], flag;
static int idst[N];
static long counter, fcounter, swapper, setter;
static unsigned long bits;
static uint64_t sig, sig2;

static long val(int pe, int k, int i) { return 100000L * (pe + 1) + 1000L * k + i; }

static void test_ctx(shmem_ctx_t ctx, int k, const char *what, int me, int npes) {
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    for (int i = 0; i < N; i++)
        src[i] = val(me, k, i);
    for (int i = 0; i < 4 * N; i++)
        dst[i] = -1;
    for (int i = 0; i < N; i++)
        idst[i] = -1;
    counter = fcounter = swapper = setter = 0;
    bits = 0;
    flag = 0;
    sig = sig2 = 0;
    shmem_barrier_all();

    /* Puts of every kind to the right neighbour. */
    shmem_ctx_long_put(ctx, dst, src, N, right);
    shmem_ctx_long_put_nbi(ctx, dst + N, src, N, right);
    for (int i = 0; i < N; i++)
        shmem_ctx_long_p(ctx, &dst[2 * N + i], src[i], right);
    shmem_ctx_long_iput(ctx, dst + 3 * N, src, 2, 1, N / 2, right);
    shmem_ctx_putmem(ctx, idst, src, sizeof(int) * 2, right); /* raw bytes of src[0] */
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        CHECK(dst[i] == val(left, k, i), "%s: shmem_ctx_long_put dst[%d] = %ld, want %ld", what, i, dst[i],
              val(left, k, i));
        CHECK(dst[N + i] == val(left, k, i), "%s: shmem_ctx_long_put_nbi dst[%d] = %ld, want %ld", what, i,
              dst[N + i], val(left, k, i));
        CHECK(dst[2 * N + i] == val(left, k, i), "%s: shmem_ctx_long_p dst[%d] = %ld, want %ld", what, i,
              dst[2 * N + i], val(left, k, i));
        long want = i % 2 == 0 ? val(left, k, i / 2) : -1;
        CHECK(dst[3 * N + i] == want, "%s: shmem_ctx_long_iput dst[%d] = %ld, want %ld", what, i, dst[3 * N + i],
              want);
    }
    {
        long l = val(left, k, 0);
        const int *w = (const int *)&l;
        CHECK(idst[0] == w[0] && idst[1] == w[1] && idst[2] == -1, "%s: shmem_ctx_putmem", what);
    }

    /* Gets of every kind from the left neighbour. */
    long got[2 * N];
    for (int i = 0; i < 2 * N; i++)
        got[i] = -1;
    shmem_ctx_long_get(ctx, got, src, N, left);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == val(left, k, i), "%s: shmem_ctx_long_get got[%d] = %ld", what, i, got[i]);
    for (int i = 0; i < 2 * N; i++)
        got[i] = -1;
    shmem_ctx_long_get_nbi(ctx, got, src, N, left);
    shmem_ctx_quiet(ctx);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == val(left, k, i), "%s: shmem_ctx_long_get_nbi got[%d] = %ld", what, i, got[i]);
    for (int i = 0; i < N; i++)
        CHECK(shmem_ctx_long_g(ctx, &src[i], right) == val(right, k, i), "%s: shmem_ctx_long_g element %d", what, i);
    for (int i = 0; i < 2 * N; i++)
        got[i] = -1;
    shmem_ctx_long_iget(ctx, got, src, 2, 1, N, left);
    for (int i = 0; i < 2 * N; i++)
        CHECK(got[i] == (i % 2 ? -1 : val(left, k, i / 2)), "%s: shmem_ctx_long_iget got[%d] = %ld", what, i,
              got[i]);
    shmem_barrier_all();

    /* Atomics on PE 0 from every PE. */
    shmem_ctx_long_atomic_add(ctx, &counter, me + 1, 0);
    shmem_ctx_long_atomic_inc(ctx, &counter, 0);
    long old = shmem_ctx_long_atomic_fetch_add(ctx, &fcounter, 10, 0);
    CHECK(old >= 0 && old < 111L * npes, "%s: shmem_ctx_long_atomic_fetch_add fetched %ld", what, old);
    old = shmem_ctx_long_atomic_fetch_inc(ctx, &fcounter, 0);
    CHECK(old >= 10 && old < 111L * npes, "%s: shmem_ctx_long_atomic_fetch_inc fetched %ld", what, old);
    long nbi_fetch = -1;
    shmem_ctx_long_atomic_fetch_add_nbi(ctx, &nbi_fetch, &fcounter, 100, 0);
    shmem_ctx_quiet(ctx);
    CHECK(nbi_fetch >= 0 && nbi_fetch < 111L * npes, "%s: shmem_ctx_long_atomic_fetch_add_nbi fetched %ld", what,
          nbi_fetch);
    shmem_ctx_ulong_atomic_or(ctx, &bits, 1UL << me, 0);
    unsigned long ob = shmem_ctx_ulong_atomic_fetch_or(ctx, &bits, 1UL << (me + 16), 0);
    CHECK((ob & (1UL << (me + 16))) == 0, "%s: shmem_ctx_ulong_atomic_fetch_or: my bit already set in %#lx", what,
          ob);
    /* compare_swap: exactly one PE wins. */
    long cs = shmem_ctx_long_atomic_compare_swap(ctx, &swapper, 0, me + 1, 0);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    if (me == 0) {
        long want = 0;
        for (int p = 0; p < npes; p++)
            want += p + 1 + 1;
        CHECK(counter == want, "%s: atomic add+inc counter = %ld, want %ld", what, counter, want);
        CHECK(fcounter == 111L * npes, "%s: fetch_add+fetch_inc+fetch_add_nbi counter = %ld, want %ld", what,
              fcounter, 111L * npes);
        unsigned long wb = 0;
        for (int p = 0; p < npes; p++)
            wb |= (1UL << p) | (1UL << (p + 16));
        CHECK(bits == wb, "%s: atomic or bits = %#lx, want %#lx", what, bits, wb);
        CHECK(swapper >= 1 && swapper <= npes, "%s: compare_swap result %ld", what, swapper);
    }
    int winners = shmem_ctx_long_atomic_fetch(ctx, &swapper, 0) == me + 1;
    CHECK(winners == (cs == 0), "%s: compare_swap returned %ld but the word holds %ld", what, cs,
          shmem_ctx_long_atomic_fetch(ctx, &swapper, 0));
    shmem_barrier_all();
    /* set / swap / fetch / and / xor to the right neighbour. */
    shmem_ctx_long_atomic_set(ctx, &setter, val(me, k, 1), right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(setter == val(left, k, 1), "%s: shmem_ctx_long_atomic_set gave %ld", what, setter);
    CHECK(shmem_ctx_long_atomic_fetch(ctx, &setter, right) == val(me, k, 1), "%s: shmem_ctx_long_atomic_fetch",
          what);
    shmem_barrier_all();
    long sw = shmem_ctx_long_atomic_swap(ctx, &setter, -5, right);
    CHECK(sw == val(me, k, 1), "%s: shmem_ctx_long_atomic_swap fetched %ld", what, sw);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(setter == -5, "%s: after shmem_ctx_long_atomic_swap the word is %ld", what, setter);
    bits = 0xF0F0UL;
    shmem_barrier_all();
    shmem_ctx_ulong_atomic_and(ctx, &bits, 0xFF00UL, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(bits == 0xF000UL, "%s: shmem_ctx_ulong_atomic_and gave %#lx", what, bits);
    shmem_barrier_all();
    unsigned long ox = shmem_ctx_ulong_atomic_fetch_xor(ctx, &bits, 0x0FFFUL, right);
    CHECK(ox == 0xF000UL, "%s: shmem_ctx_ulong_atomic_fetch_xor fetched %#lx", what, ox);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(bits == 0xFFFFUL, "%s: shmem_ctx_ulong_atomic_fetch_xor left %#lx", what, bits);
    shmem_barrier_all();

    /* put_signal (SET) and put_signal_nbi (ADD) to the right neighbour. */
    for (int i = 0; i < 4 * N; i++)
        dst[i] = -1;
    shmem_barrier_all();
    shmem_ctx_long_put_signal(ctx, dst, src, N, &sig, (uint64_t)(k + 1), SHMEM_SIGNAL_SET, right);
    shmem_ctx_long_put_signal_nbi(ctx, dst + N, src, N, &sig2, 5, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_long_put_signal_nbi(ctx, dst + 2 * N, src, N, &sig2, 7, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_quiet(ctx);
    uint64_t s = shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)(k + 1));
    CHECK(s == (uint64_t)(k + 1), "%s: put_signal signal %llu", what, (unsigned long long)s);
    s = shmem_signal_wait_until(&sig2, SHMEM_CMP_EQ, 12);
    CHECK(s == 12, "%s: put_signal_nbi signal %llu", what, (unsigned long long)s);
    for (int i = 0; i < 3 * N; i++)
        CHECK(dst[i] == val(left, k, i % N), "%s: put_signal data dst[%d] = %ld, want %ld", what, i, dst[i],
              val(left, k, i % N));
    shmem_barrier_all();
    /* shmem_ctx_signal_set / signal_add. */
    shmem_ctx_signal_set(ctx, &sig, 40, right);
    shmem_ctx_fence(ctx);
    shmem_ctx_signal_add(ctx, &sig, 2, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&sig) == 42, "%s: signal_set+signal_add gave %llu", what,
          (unsigned long long)shmem_signal_fetch(&sig));
    shmem_barrier_all();

    /* fence: data put, fence, flag put; the receiver sees the data once it sees the flag. */
    for (int i = 0; i < N; i++)
        shmem_ctx_long_p(ctx, &dst[i], val(me, k, i) + 1, right);
    shmem_ctx_fence(ctx);
    shmem_ctx_long_p(ctx, &flag, 1, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == val(left, k, i) + 1, "%s: fenced data dst[%d] = %ld", what, i, dst[i]);
    shmem_barrier_all();

    /* pe_quiet on the target. */
    shmem_ctx_long_put_nbi(ctx, dst + N, src, N, right);
    shmem_ctx_pe_quiet(ctx, &right, 1);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        CHECK(dst[N + i] == val(left, k, i), "%s: after shmem_ctx_pe_quiet dst[%d] = %ld", what, N + i, dst[N + i]);
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    static const long opts[] = {0,
                                SHMEM_CTX_PRIVATE,
                                SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);

    test_ctx(SHMEM_CTX_DEFAULT, 0, "SHMEM_CTX_DEFAULT", me, npes);
    for (int k = 0; k < nopts; k++) {
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        int rc = shmem_ctx_create(opts[k], &ctx);
        CHECK(rc == 0, "shmem_ctx_create(%#lx) returned %d", opts[k], rc);
        char what[64];
        snprintf(what, sizeof what, "ctx with options %#lx", opts[k]);
        test_ctx(ctx, k + 1, what, me, npes);
        shmem_ctx_destroy(ctx);
    }

    /* Two contexts used at once, each quieted on its own. */
    shmem_ctx_t a, b;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &a) == 0, "create a");
    CHECK(shmem_ctx_create(SHMEM_CTX_SERIALIZED, &b) == 0, "create b");
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int i = 0; i < 4 * N; i++)
        dst[i] = -1;
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        src[i] = val(me, 50, i);
    shmem_ctx_long_put_nbi(a, dst, src, N, right);
    shmem_ctx_long_put_nbi(b, dst + N, src, N, left);
    shmem_ctx_quiet(a);
    shmem_ctx_quiet(b);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        CHECK(dst[i] == val(left, 50, i), "ctx a: dst[%d] = %ld", i, dst[i]);
        CHECK(dst[N + i] == val(right, 50, i), "ctx b: dst[%d] = %ld", N + i, dst[N + i]);
    }
    shmem_ctx_destroy(a);
    shmem_ctx_destroy(b);

    shmem_barrier_all();
    if (me == 0)
        printf("ctx ops ok\n");
    shmem_finalize();
    return 0;
}
