/* The multi-node smoke job (tests/netns.rs): at 4 PEs on two nodes of 2, every
 * PE works with a PE of the other node (me + 2) and of its own (me ^ 1): RMA,
 * atomics, barriers, a reduction on a team split across the nodes, and what
 * the node looks like (SHMEM_TEAM_SHARED, shmem_ptr). Prints "smoke ok" from
 * PE 0 when every check passed; a failed check exits 1 naming it. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024
#define ROUNDS 200

static long dst[N], src[N];
static long counter, swapped;
static long total;

static void check(int ok, const char *what, int me) {
    if (!ok) {
        printf("PE %d: FAILED %s\n", me, what);
        fflush(stdout);
        shmem_global_exit(1);
    }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes != 4) {
        printf("PE %d: FAILED this job needs 4 PEs, not %d\n", me, npes);
        shmem_global_exit(1);
    }
    int far = (me + 2) % npes, near = me ^ 1;

    /* The node: two PEs, the near one mapped, the far one not. */
    check(shmem_team_n_pes(SHMEM_TEAM_SHARED) == 2, "SHMEM_TEAM_SHARED has 2 PEs", me);
    check(shmem_ptr(dst, near) != NULL, "shmem_ptr to the PE of this node", me);
    check(shmem_ptr(dst, far) == NULL, "shmem_ptr to a PE of the other node is NULL", me);

    /* RMA: put to the far PE and to the near one, get back. */
    for (int i = 0; i < N; i++)
        src[i] = 1000000L * me + i;
    shmem_long_put(dst, src, N, far);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        check(dst[i] == 1000000L * ((me + 2) % npes) + i, "put from the other node", me);
    long got[N];
    shmem_long_get(got, dst, N, near);
    for (int i = 0; i < N; i++)
        check(got[i] == 1000000L * ((near + 2) % npes) + i, "get from this node", me);
    shmem_barrier_all(); /* everyone has checked dst before it changes */
    shmem_long_p(&dst[0], -me, far);
    shmem_quiet();
    shmem_barrier_all();
    check(dst[0] == -((me + 2) % npes), "p and quiet", me);

    /* Atomics: every PE adds to PE 0's counter; one cswap wins. */
    for (int r = 0; r < ROUNDS; r++)
        shmem_long_atomic_add(&counter, 1, 0);
    long old = shmem_long_atomic_compare_swap(&swapped, 0, me + 1, 3);
    shmem_barrier_all();
    if (me == 0)
        check(counter == (long)ROUNDS * npes, "atomic adds from both nodes", me);
    long winner = shmem_long_atomic_fetch(&swapped, 3);
    check(winner >= 1 && winner <= npes, "one compare_swap wins", me);
    check((old == 0) == (winner == me + 1), "compare_swap's old value", me);
    check(shmem_long_atomic_fetch_add(&counter, 0, 0) == (long)ROUNDS * npes, "fetch_add 0", me);

    /* Barriers in a loop: each round reads what the other node wrote. */
    for (int r = 1; r <= ROUNDS; r++) {
        shmem_long_p(&dst[1], r, far);
        shmem_barrier_all();
        check(dst[1] == r, "barrier_all orders puts", me);
        shmem_barrier_all();
    }

    /* A team collective on a team across the nodes: PEs 1 and 2. */
    shmem_team_t pair;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, 2, NULL, 0, &pair);
    if (pair != SHMEM_TEAM_INVALID) {
        src[0] = me * 10;
        shmem_long_sum_reduce(pair, &total, src, 1);
        check(total == 30, "sum_reduce over a team of PEs 1 and 2", me);
        shmem_team_destroy(pair);
    }
    src[0] = me + 1;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total, src, 1);
    check(total == 10, "sum_reduce over the world", me);

    shmem_barrier_all();
    if (me == 0)
        printf("smoke ok\n");
    shmem_finalize();
    return 0;
}
