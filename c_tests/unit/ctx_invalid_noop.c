/* rshmem-test
 * np: 1 2 4
 */
/* The specification's team-context pattern: every PE calls shmem_team_split_strided for
 * the even PEs and shmem_team_create_ctx on the result; the odd PEs get SHMEM_TEAM_INVALID
 * and so SHMEM_CTX_INVALID, and still call shmem_ctx_quiet, shmem_ctx_fence,
 * shmem_ctx_pe_quiet and shmem_ctx_destroy on it, which must do nothing. The even PEs
 * put through their context; every PE then checks the puts arrived. */
#include <shmem.h>
#include <stdio.h>

#include "../common.h"

static int slot = -1;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int evens = (npes + 1) / 2;
    shmem_team_t team = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, evens, NULL, 0, &team);
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (team != SHMEM_TEAM_INVALID) {
        int rc = shmem_team_create_ctx(team, 0, &ctx);
        CHECK(rc == 0, "shmem_team_create_ctx returned %d", rc);
        int rank = shmem_team_my_pe(team);
        shmem_ctx_int_p(ctx, &slot, me, (rank + 1) % evens);
    } else {
        CHECK(me % 2 == 1, "even PE %d got SHMEM_TEAM_INVALID", me);
    }
    /* On the odd PEs ctx is SHMEM_CTX_INVALID: no effect, no error. */
    int target = 0;
    shmem_ctx_fence(ctx);
    shmem_ctx_quiet(ctx);
    shmem_ctx_pe_quiet(ctx, &target, 1);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, &target, 1);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me % 2 == 0) {
        int from = 2 * (((me / 2) + evens - 1) % evens);
        CHECK(slot == from, "PE %d: slot is %d, want %d (put by the even PEs' context)", me, slot, from);
    } else {
        CHECK(slot == -1, "odd PE %d: slot is %d, want -1", me, slot);
    }
    if (team != SHMEM_TEAM_INVALID)
        shmem_team_destroy(team);
    shmem_finalize();
    printf("PE %d: ok\n", me);
    return 0;
}
