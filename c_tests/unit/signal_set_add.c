/* rshmem-test
 * np: 1 2 4
 */
/* OpenSHMEM 1.6 shmem_signal_set / shmem_signal_add and their shmem_ctx_ forms (with
 * SHMEM_CTX_DEFAULT and a created context), read back with shmem_signal_fetch and
 * shmem_signal_wait_until:
 *  - set: the right neighbour's signal becomes a full 64-bit value, also 0 and UINT64_MAX;
 *  - add: every PE adds many times (three forms) to one root's signal that starts near
 *    UINT64_MAX; the result is the exact sum modulo 2^64; adding UINT64_MAX subtracts one;
 *  - set and add mixed with put_signal on the same signal, and on the calling PE itself;
 *  - shmem_signal_wait_until with each SHMEM_CMP_* operator while the left neighbour
 *    first writes a value that does not satisfy it and then one that does (values above
 *    2^63, so a signed comparison gives a different answer); the return value is the
 *    satisfying value. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../common.h"

#define ADDS 1000

static uint64_t sig_a, sig_b;
static long data[4];

static void pause_ms(int ms) {
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static const char *const ctx_names[3] = {"shmem_signal_", "shmem_ctx_signal_(SHMEM_CTX_DEFAULT)",
                                         "shmem_ctx_signal_(created ctx)"};
static void do_set(int form, shmem_ctx_t ctx, uint64_t *s, uint64_t v, int pe) {
    if (form == 0)
        shmem_signal_set(s, v, pe);
    else
        shmem_ctx_signal_set(form == 1 ? SHMEM_CTX_DEFAULT : ctx, s, v, pe);
}
static void do_add(int form, shmem_ctx_t ctx, uint64_t *s, uint64_t v, int pe) {
    if (form == 0)
        shmem_signal_add(s, v, pe);
    else
        shmem_ctx_signal_add(form == 1 ? SHMEM_CTX_DEFAULT : ctx, s, v, pe);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");

    /* set: several values, each form */
    const uint64_t values[] = {0xFEDCBA9876543210ull, 0, UINT64_MAX, 1, 0x8000000000000000ull};
    for (int form = 0; form < 3; form++)
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            sig_a = 0x5555;
            shmem_barrier_all();
            uint64_t v = values[k] ^ (uint64_t)me; /* distinct per sender */
            do_set(form, ctx, &sig_a, v, right);
            shmem_ctx_quiet(ctx);
            uint64_t want = values[k] ^ (uint64_t)left;
            uint64_t got = shmem_signal_wait_until(&sig_a, SHMEM_CMP_EQ, want);
            CHECK(got == want, "%sset value #%zu: wait returned 0x%llx, expected 0x%llx", ctx_names[form], k,
                  (unsigned long long)got, (unsigned long long)want);
            CHECK(shmem_signal_fetch(&sig_a) == want, "%sset value #%zu: fetch is 0x%llx", ctx_names[form], k,
                  (unsigned long long)shmem_signal_fetch(&sig_a));
            shmem_barrier_all();
        }

    /* add: every PE adds ADDS times to the root, cycling over the three forms */
    for (int root = 0; root < npes && root < 2; root++) {
        const uint64_t base = UINT64_MAX - 1000;
        sig_b = base;
        shmem_barrier_all();
        for (int i = 0; i < ADDS; i++)
            do_add(i % 3, ctx, &sig_b, ((uint64_t)(me + 1) << 33) + (uint64_t)i, root);
        shmem_ctx_quiet(ctx);
        if (me == root) {
            uint64_t want = base;
            for (int p = 0; p < npes; p++)
                for (int i = 0; i < ADDS; i++)
                    want += ((uint64_t)(p + 1) << 33) + (uint64_t)i;
            uint64_t got = shmem_signal_wait_until(&sig_b, SHMEM_CMP_EQ, want);
            CHECK(got == want, "concurrent adds: wait returned 0x%llx, expected 0x%llx", (unsigned long long)got,
                  (unsigned long long)want);
        }
        shmem_barrier_all();
        if (me == root) {
            uint64_t before = shmem_signal_fetch(&sig_b);
            /* adding UINT64_MAX is subtracting one (modulo 2^64) */
            for (int form = 0; form < 3; form++) {
                do_add(form, ctx, &sig_b, UINT64_MAX, me);
                shmem_ctx_quiet(ctx);
                uint64_t got = shmem_signal_wait_until(&sig_b, SHMEM_CMP_EQ, before - 1 - (uint64_t)form);
                CHECK(got == before - 1 - (uint64_t)form, "%sadd(UINT64_MAX) to self gives 0x%llx",
                      ctx_names[form], (unsigned long long)got);
            }
        }
        shmem_barrier_all();
    }

    /* set / add / put_signal mixed on one signal: left sends put_signal SET 100, then
     * signal_add 5, ctx add 7, put_signal ADD 1000, and finally a signal_set to 2^63 + 12 */
    sig_a = 0;
    data[0] = data[1] = 0;
    shmem_barrier_all();
    long one = 11 + me, two = 22 + me;
    shmem_long_put_signal(&data[0], &one, 1, &sig_a, 100, SHMEM_SIGNAL_SET, right);
    shmem_quiet(); /* the SET completes before the additions */
    shmem_signal_add(&sig_a, 5, right);
    shmem_ctx_signal_add(ctx, &sig_a, 7, right);
    shmem_ctx_quiet(ctx);
    shmem_long_put_signal_nbi(&data[1], &two, 1, &sig_a, 1000, SHMEM_SIGNAL_ADD, right);
    shmem_quiet();
    uint64_t got = shmem_signal_wait_until(&sig_a, SHMEM_CMP_EQ, 1112);
    CHECK(got == 1112, "mixed put_signal/signal_add: signal 0x%llx, expected 1112", (unsigned long long)got);
    CHECK(data[0] == 11 + left && data[1] == 22 + left, "mixed put_signal/signal_add: data %ld %ld", data[0], data[1]);
    shmem_barrier_all();
    shmem_signal_set(&sig_a, 0x800000000000000Cull, right);
    got = shmem_signal_wait_until(&sig_a, SHMEM_CMP_NE, 1112);
    CHECK(got == 0x800000000000000Cull, "signal_set after adds: signal 0x%llx", (unsigned long long)got);
    shmem_barrier_all();

    /* shmem_signal_wait_until with each operator, remote updates: start, then a value that
     * does not satisfy, then one that does (as unsigned 64-bit; signed they would not) */
    if (npes > 1) {
        const uint64_t LO = 5, MID = 0x8000000000000005ull, HI = UINT64_MAX - 1;
        const int ops[6] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
        const char *const names[6] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
        const uint64_t init[6] = {LO, MID, LO, LO, HI, HI};
        const uint64_t cmp[6] = {HI, MID, MID, MID, MID, MID};
        const uint64_t inter[6] = {MID, MID, MID, LO, MID, HI};
        const uint64_t fin[6] = {HI, LO, HI, MID, LO, MID};
        for (int k = 0; k < 6; k++)
            for (int form = 0; form < 3; form++) {
                sig_b = init[k];
                shmem_barrier_all();
                pause_ms(1);
                do_set(form, ctx, &sig_b, inter[k], right);
                shmem_ctx_quiet(ctx);
                pause_ms(2);
                if (k == 3 || k == 5) { /* reach the final value by adding to the intermediate one */
                    do_add(form, ctx, &sig_b, fin[k] - inter[k], right);
                } else {
                    do_set(form, ctx, &sig_b, fin[k], right);
                }
                shmem_ctx_quiet(ctx);
                got = shmem_signal_wait_until(&sig_b, ops[k], cmp[k]);
                CHECK(got == fin[k], "signal_wait_until(%s) with %sset/add returned 0x%llx, expected 0x%llx",
                      names[k], ctx_names[form], (unsigned long long)got, (unsigned long long)fin[k]);
                shmem_barrier_all();
            }
    }

    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("signal_set/signal_add ok\n");
    shmem_finalize();
    return 0;
}
