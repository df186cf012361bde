/* rshmem-test
 * np: 1 2 4 8
 */
/* Notification sets: the state machine on the caller's own flags (set, test, test_any,
 * wait_some, reset), remote notifications with data (shmemx_notify_put and _nbi, and the
 * user's own shmem_putmem_signal on shmemx_notify_flag), flags reused for many rounds
 * without a reset, and a set on a team with the ctx forms' team-relative PE numbers. */
#include <shmem.h>
#include <shmemx.h>
#include <string.h>

#include "../common.h"

#define N 512
#define ROUNDS 300

static long inbox[2][64][N];

static void local_states(void) {
    shmemx_notify_t *s = shmemx_notify_alloc(8);
    CHECK(s != NULL, "alloc returned NULL");
    CHECK(shmemx_notify_count(s) == 8, "count %zu", shmemx_notify_count(s));
    for (size_t i = 0; i < 8; i++)
        CHECK(shmemx_notify_state(s, i) == SHMEMX_NOTIFY_EMPTY, "flag %zu starts %d", i,
              shmemx_notify_state(s, i));
    CHECK(shmemx_notify_test_any(s) == SHMEMX_NOTIFY_NONE, "test_any on an empty set");
    CHECK(shmemx_notify_test(s, 3) == 0, "test of an EMPTY flag consumed it");
    shmemx_notify_set(s, 3);
    CHECK(shmemx_notify_state(s, 3) == SHMEMX_NOTIFY_READY, "set: state %d", shmemx_notify_state(s, 3));
    CHECK(shmemx_notify_test(s, 3) == 1, "test of a READY flag");
    CHECK(shmemx_notify_state(s, 3) == SHMEMX_NOTIFY_CONSUMED, "consumed: state %d",
          shmemx_notify_state(s, 3));
    CHECK(shmemx_notify_test(s, 3) == 0, "a notification was consumed twice");
    shmemx_notify_set(s, 5);
    shmemx_notify_set(s, 2);
    shmemx_notify_set(s, 3); /* CONSUMED -> READY: reuse without reset */
    CHECK(shmemx_notify_test_any(s) == 2, "test_any takes the lowest first");
    shmemx_notify_wait(s, 5);
    size_t idx[8] = {99, 99};
    CHECK(shmemx_notify_wait_some(s, idx, 8) == 1 && idx[0] == 3, "wait_some: %zu", idx[0]);
    CHECK(shmemx_notify_test_any(s) == SHMEMX_NOTIFY_NONE, "test_any after all consumed");
    shmemx_notify_set(s, 7);
    shmemx_notify_reset(s, 7);
    CHECK(shmemx_notify_state(s, 7) == SHMEMX_NOTIFY_EMPTY, "reset: state %d", shmemx_notify_state(s, 7));
    for (size_t i = 0; i < 8; i++)
        shmemx_notify_set(s, i);
    shmemx_notify_reset_all(s);
    CHECK(shmemx_notify_test_any(s) == SHMEMX_NOTIFY_NONE, "reset_all left a READY flag");
    /* The flag's address is its copy's: a store seen through it is the state. */
    uint64_t *f = shmemx_notify_flag(s, 4);
    CHECK(((uintptr_t)f & 63) == 0, "flag %p is not on its own cache line", (void *)f);
    CHECK(shmemx_notify_flag(s, 5) - f == 8, "flags are not one cache line apart");
    shmemx_notify_free(s);
}

/* Every PE sends one message to every PE (itself included) each round, flag = sender,
 * double-buffered by round parity; receivers consume with wait_any/wait_some. */
static void all_to_all(void) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_notify_t *arrive[2] = {shmemx_notify_alloc((size_t)npes), shmemx_notify_alloc((size_t)npes)};
    static long out[N];
    for (int r = 0; r < ROUNDS; r++) {
        int b = r & 1;
        for (int k = 0; k < N; k++)
            out[k] = (long)r * 1000003 + me * 1009 + k;
        for (int j = 0; j < npes; j++) {
            int pe = (me + j) % npes;
            switch ((r + j) % 3) {
            case 0:
                shmemx_notify_put(arrive[b], (size_t)me, inbox[b][me], out, sizeof out, pe);
                break;
            case 1:
                shmemx_notify_put_nbi(arrive[b], (size_t)me, inbox[b][me], out, sizeof out, pe);
                shmem_quiet(); /* out is rewritten next round */
                break;
            default:
                shmem_putmem_signal(inbox[b][me], out, sizeof out, shmemx_notify_flag(arrive[b], (size_t)me),
                                    SHMEMX_NOTIFY_READY, SHMEM_SIGNAL_SET, pe);
            }
        }
        int got = 0;
        while (got < npes) {
            size_t idx[64];
            size_t n = (r & 2) ? shmemx_notify_wait_some(arrive[b], idx, 64)
                               : (idx[0] = shmemx_notify_wait_any(arrive[b]), 1);
            for (size_t q = 0; q < n; q++) {
                long src = (long)idx[q];
                CHECK(src >= 0 && src < npes, "index %ld", src);
                for (int k = 0; k < N; k++)
                    CHECK(inbox[b][src][k] == (long)r * 1000003 + src * 1009 + k,
                          "round %d from PE %ld word %d: %ld", r, src, k, inbox[b][src][k]);
                got++;
            }
        }
        CHECK(shmemx_notify_test_any(arrive[b]) == SHMEMX_NOTIFY_NONE, "round %d: an extra notification", r);
    }
    shmemx_notify_free(arrive[0]);
    shmemx_notify_free(arrive[1]);
}

/* A set on the even PEs: world PE numbers on the default context, team ones on a team
 * context. */
static void on_a_team(void) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t even;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    if (even == SHMEM_TEAM_INVALID)
        return;
    int tme = shmem_team_my_pe(even), tn = shmem_team_n_pes(even);
    shmemx_notify_t *s = shmemx_team_notify_alloc(even, 2);
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(even, 0, &ctx) == 0, "team ctx");
    int right = (tme + 1) % tn;
    static long v[2];
    long mine[2] = {me * 10L, me * 10L + 1};
    shmemx_notify_put(s, 0, &v[0], &mine[0], sizeof(long), right * 2);  /* world number */
    shmemx_ctx_notify_put_nbi(ctx, s, 1, &v[1], &mine[1], sizeof(long), right); /* team number */
    shmem_ctx_quiet(ctx);
    shmemx_notify_wait(s, 0);
    shmemx_notify_wait(s, 1);
    int left = ((tme + tn - 1) % tn) * 2;
    CHECK(v[0] == left * 10L && v[1] == left * 10L + 1, "team: got %ld %ld from PE %d", v[0], v[1], left);
    shmem_ctx_destroy(ctx);
    shmemx_notify_free(s);
    shmem_team_destroy(even);
}

int main(void) {
    shmem_init();
    local_states();
    all_to_all();
    on_a_team();
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        printf("notify semantics ok\n");
    shmem_finalize();
    return 0;
}
