/* rshmem-test
 * np: 1 2 4
 * stdout: sessions ok
 */
/* OpenSHMEM 1.6 sessions, after the specification's example (a GUPS-like loop of
 * non-fetching atomic XOR updates to a distributed table): a session with
 * SHMEM_CTX_SESSION_BATCH and a total_ops hint on a created context, started twice (the
 * options combine) and stopped twice (the second stop does nothing), a session on
 * SHMEM_CTX_DEFAULT with mask 0 and a NULL config, and SHMEM_CTX_INVALID (no operation).
 * Sessions change no result: every PE XORs a known pattern into every PE's table, and
 * after shmem_ctx_quiet and a barrier each table holds the XOR of all PEs' patterns. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

#define N 64
static uint64_t table[N];

static uint64_t pattern(int pe, int i) { return ((uint64_t)pe + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)i; }

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        fprintf(stderr, "PE %d: shmem_ctx_create failed\n", me);
        return 1;
    }
    shmem_ctx_session_config_t cfg = {.total_ops = (size_t)N * n};
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &cfg, SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_ctx_session_start(ctx, 0, NULL, 0); /* combines: still a batch */
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, 0, NULL, 0);
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, NULL, SHMEM_CTX_SESSION_TOTAL_OPS);
    for (int k = 0; k < n; k++) {
        int pe = (me + k) % n;
        for (int i = 0; i < N; i++)
            shmem_ctx_uint64_atomic_xor(ctx, &table[i], pattern(me, i), pe);
    }
    shmem_ctx_session_stop(ctx);
    shmem_ctx_session_stop(ctx); /* no effect */
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        uint64_t want = 0;
        for (int pe = 0; pe < n; pe++)
            want ^= pattern(pe, i);
        if (table[i] != want) {
            fprintf(stderr, "PE %d: table[%d] is %llx, want %llx\n", me, i, (unsigned long long)table[i],
                    (unsigned long long)want);
            return 1;
        }
    }
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        printf("sessions ok\n");
    shmem_finalize();
    return 0;
}
