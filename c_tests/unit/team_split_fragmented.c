/* rshmem-test
 * np: 2 4
 * stdout: fragmented splits ok
 */
/* Team splits whose members' lists of used memory are long and differ. 24 times, a split
 * of the world, then a split that gives the last PE alone a team: each world team's sync
 * memory starts after the last PE's one-PE team, so the other PEs' lists are runs with
 * holes between them. Then the last PE destroys all its one-PE teams but the latest: its
 * list is 24 runs and more, the last of them (that team) above every other PE's memory.
 * Then 4 more world splits: every member must read the last PE's whole list to agree on
 * the same offset (across nodes, a list longer than the first get is read again in full);
 * a member that missed the top run would put the new team where the last PE's one-PE
 * team is, the last PE above it, and the new team's barrier and sum would hang or go
 * wrong. Every team is used (sync and a sum) when created and again at the end. */
#include <shmem.h>
#include <stdio.h>

#include "../common.h"

#define ROUNDS 24
#define LAST 4

static int src, dst;

static void use(shmem_team_t t, const char *what, int i) {
    int n = shmem_team_n_pes(t);
    shmem_team_sync(t);
    src = shmem_team_my_pe(t) + 1;
    CHECK(shmem_int_sum_reduce(t, &dst, &src, 1) == 0, "%s %d: the sum failed", what, i);
    CHECK(dst == n * (n + 1) / 2, "%s %d: the sum over %d PEs is %d, want %d", what, i, n, dst, n * (n + 1) / 2);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    static shmem_team_t world[ROUNDS + LAST], alone[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &world[i]) == 0, "world split %d", i);
        use(world[i], "world team", i);
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, last, 1, 1, NULL, 0, &alone[i]) == 0, "one-PE split %d", i);
        CHECK((alone[i] != SHMEM_TEAM_INVALID) == (me == last), "one-PE split %d: PE %d %s a team", i, me,
              alone[i] != SHMEM_TEAM_INVALID ? "got" : "did not get");
        if (me == last)
            use(alone[i], "one-PE team", i);
    }
    if (me == last)
        for (int i = 0; i < ROUNDS - 1; i++)
            shmem_team_destroy(alone[i]);
    for (int i = ROUNDS; i < ROUNDS + LAST; i++) {
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &world[i]) == 0, "world split %d", i);
        use(world[i], "world team", i);
    }
    /* Every team once more: none was given another team's memory. */
    for (int i = 0; i < ROUNDS + LAST; i++)
        use(world[i], "world team (again)", i);
    if (me == last)
        use(alone[ROUNDS - 1], "one-PE team (again)", ROUNDS - 1);
    for (int i = ROUNDS + LAST - 1; i >= 0; i--)
        shmem_team_destroy(world[i]);
    if (me == last)
        shmem_team_destroy(alone[ROUNDS - 1]);
    shmem_barrier_all();
    if (me == 0)
        printf("fragmented splits ok\n");
    shmem_finalize();
    return 0;
}
