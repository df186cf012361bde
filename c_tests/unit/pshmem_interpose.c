/* rshmem-test
 * np: 1 2 4
 */
/* The profiling interface: the program defines its own shmem_long_p and
 * shmem_barrier_all, which count their calls and forward to pshmem_long_p and
 * pshmem_barrier_all. The program's definitions take the place of the shared library's
 * (the counts are exact: the library does not call them itself) and the data arrives.
 * A few pshmem_ routines are also called directly. */
#include <pshmem.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define N 10

static long p_calls, barrier_calls;

void shmem_long_p(long *dest, long value, int pe) {
    p_calls++;
    pshmem_long_p(dest, value, pe);
}

void shmem_barrier_all(void) {
    barrier_calls++;
    pshmem_barrier_all();
}

static long dst[N];
static int ctr;
static long via_ctx;

int main(void) {
    shmem_init();
    CHECK(p_calls == 0 && barrier_calls == 0, "after shmem_init: %ld shmem_long_p and %ld shmem_barrier_all calls",
          p_calls, barrier_calls);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    CHECK(pshmem_my_pe() == me, "pshmem_my_pe() = %d, shmem_my_pe() = %d", pshmem_my_pe(), me);
    CHECK(pshmem_n_pes() == npes, "pshmem_n_pes() = %d, shmem_n_pes() = %d", pshmem_n_pes(), npes);

    for (int i = 0; i < N; i++)
        dst[i] = -1;
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        shmem_long_p(&dst[i], 100L * me + i, right);
    shmem_barrier_all();
    CHECK(p_calls == N, "shmem_long_p wrapper counted %ld calls, want %d", p_calls, N);
    CHECK(barrier_calls == 2, "shmem_barrier_all wrapper counted %ld calls, want 2", barrier_calls);
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == 100L * left + i, "dst[%d] = %ld, want %ld (the forwarded put did not arrive)", i, dst[i],
              100L * left + i);
    shmem_barrier_all(); /* 3 */

    /* Routines the program did not wrap are the library's, and do not call the wrappers. */
    long src[N];
    for (int i = 0; i < N; i++)
        src[i] = 7L * me + i;
    shmem_long_put(dst, src, N, right);
    shmem_quiet();
    pshmem_barrier_all(); /* not counted */
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == 7L * left + i, "after shmem_long_put dst[%d] = %ld", i, dst[i]);
    shmem_sync_all();
    CHECK(p_calls == N, "after shmem_long_put and shmem_sync_all the p wrapper counts %ld, want %d", p_calls, N);
    CHECK(barrier_calls == 3, "after pshmem_barrier_all and shmem_sync_all the barrier wrapper counts %ld, want 3",
          barrier_calls);

    /* pshmem_int_atomic_fetch_add on PE 0 from every PE. */
    int old = pshmem_int_atomic_fetch_add(&ctr, me + 1, 0);
    CHECK(old >= 0 && old < npes * (npes + 1) / 2, "pshmem_int_atomic_fetch_add fetched %d", old);
    shmem_barrier_all();
    CHECK(barrier_calls == 4, "barrier wrapper counts %ld, want 4", barrier_calls);
    if (me == 0)
        CHECK(ctr == npes * (npes + 1) / 2, "pshmem_int_atomic_fetch_add total %d, want %d", ctr,
              npes * (npes + 1) / 2);

    /* pshmem_ctx_create / pshmem_ctx_get_team / pshmem_ctx_destroy, with a put through the context. */
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    int rc = pshmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx);
    CHECK(rc == 0 && ctx != SHMEM_CTX_INVALID, "pshmem_ctx_create returned %d", rc);
    shmem_team_t team = SHMEM_TEAM_INVALID;
    CHECK(pshmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD, "pshmem_ctx_get_team");
    pshmem_ctx_long_p(ctx, &via_ctx, 1000L + me, right);
    pshmem_ctx_quiet(ctx);
    pshmem_ctx_destroy(ctx);
    shmem_barrier_all();
    CHECK(via_ctx == 1000L + left, "put through a pshmem_ctx_create context: %ld, want %ld", via_ctx, 1000L + left);
    CHECK(p_calls == N, "pshmem_ctx_long_p went through the shmem_long_p wrapper (%ld calls)", p_calls);
    CHECK(barrier_calls == 5, "barrier wrapper counts %ld, want 5", barrier_calls);

    /* Counts across all PEs, gathered with pshmem_ routines. */
    static long total_p;
    pshmem_long_atomic_add(&total_p, p_calls, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(total_p == (long)N * npes, "sum of p counts %ld, want %ld", total_p, (long)N * npes);

    shmem_barrier_all();
    if (me == 0)
        printf("pshmem interpose ok\n");
    shmem_finalize();
    /* shmem_finalize does not call the program's shmem_barrier_all (its implicit barrier is
     * the library's own). */
    if (barrier_calls != 7) {
        fprintf(stderr, "FAIL: after shmem_finalize the barrier wrapper counts %ld, want 7\n", barrier_calls);
        return 1;
    }
    return 0;
}
