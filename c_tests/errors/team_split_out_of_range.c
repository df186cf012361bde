/* rshmem-test
 * np: 1 2 4 8
 */
/* Invalid (start, stride, size) triplets for shmem_team_split_strided: a member outside
 * the parent at either end, a negative stride walking below 0, size 0 and negative, and
 * strides so large that start + stride * i overflows an int (some wrap back into the
 * parent at the last member; those need 4 or 8 PEs, as a size above the parent's is
 * refused before). Each returns nonzero and SHMEM_TEAM_INVALID on every PE, without a
 * message unless SHMEM_DEBUG is set (team_split_out_of_range_debug.c); a valid split
 * still works afterwards. */
#include <limits.h>
#include <shmem.h>
#include <stdio.h>

#include "../common.h"

int main(void) {
    shmem_init();
    int npes = shmem_n_pes();
    const struct {
        int start, stride, size;
        const char *what;
    } cases[] = {
        {0, 1, npes + 1, "one more PE than the parent"},
        {npes, 1, 1, "start = parent size"},
        {-1, 1, 1, "start -1"},
        {-1, 1, npes, "start -1, reaching into the parent"},
        {npes - 1, 1, 2, "last member one past the end"},
        {0, -1, 2, "negative stride below 0"},
        {npes - 1, -1, npes + 1, "negative stride, one PE too many"},
        {0, npes, 2, "stride = parent size"},
        {0, 1, 0, "size 0"},
        {0, 1, -1, "size -1"},
        {0, 1, INT_MIN, "size INT_MIN"},
        {0, INT_MAX, 2, "stride INT_MAX"},
        {npes - 1, INT_MAX, 2, "start + stride overflows"},
        {npes - 1, INT_MAX, 3, "start + stride * 2 overflows"},
        {0, INT_MIN, 2, "stride INT_MIN"},
        {0, INT_MIN, 3, "stride INT_MIN: member 1 negative, member 2 wraps to 0"},
        {0, 1 << 30, 5, "stride 2^30, size 5: the last member wraps to 0"},
        {npes - 1, -(1 << 30), 5, "stride -2^30, size 5: the last member wraps to start"},
        {INT_MAX, -1, 2, "start INT_MAX"},
        {INT_MIN, 1, 1, "start INT_MIN"},
    };
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        shmem_team_t team = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, cases[k].start, cases[k].stride, cases[k].size, NULL, 0,
                                          &team);
        CHECK(rc != 0, "split (start %d, stride %d, size %d: %s) returned 0", cases[k].start, cases[k].stride,
              cases[k].size, cases[k].what);
        CHECK(team == SHMEM_TEAM_INVALID, "split (start %d, stride %d, size %d: %s) gave %p, not SHMEM_TEAM_INVALID",
              cases[k].start, cases[k].stride, cases[k].size, cases[k].what, (void *)team);
    }
    shmem_team_t team = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &team);
    CHECK(rc == 0 && team != SHMEM_TEAM_INVALID, "a valid split after the failed ones returned %d", rc);
    CHECK(shmem_team_my_pe(team) == npes - 1 - shmem_my_pe(), "reversed team: my_pe is %d", shmem_team_my_pe(team));
    CHECK(shmem_team_sync(team) == 0, "shmem_team_sync on the valid team failed");
    shmem_team_destroy(team);
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        printf("team split out of range ok\n");
    shmem_finalize();
    return 0;
}
