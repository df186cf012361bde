/* rshmem-test
 * np: 1 2 4 8
 */
/* 1-D heat equation, explicit Jacobi steps, on a rod split evenly over the PEs. Each
 * PE's slice lives in two symmetric heap arrays (this step's and the next step's) with
 * one halo cell at each end; after computing a step a PE puts its edge values into its
 * neighbours' halos for the next step, and one barrier per step completes the exchange.
 * The result is compared with a serial computation of the whole rod. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define N 240 /* cells; divisible by 1, 2, 4 and 8 */
#define STEPS 400
#define ALPHA 0.25
#define LEFT_TEMP 1.0  /* fixed boundary temperatures */
#define RIGHT_TEMP 0.0

static int close_to(double a, double b) { return a - b <= 1e-12 && b - a <= 1e-12; }

static double initial(int cell) { return 0.1 * (cell % 7) + (cell > N / 2 ? 0.5 : 0.0); }

static void step(const double *cur, double *nxt, int from, int to) {
    for (int i = from; i <= to; i++)
        nxt[i] = cur[i] + ALPHA * (cur[i - 1] - 2.0 * cur[i] + cur[i + 1]);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int n = N / npes, first = me * n; /* my cells are first .. first + n - 1 */
    double *buf[2];
    for (int b = 0; b < 2; b++) {
        buf[b] = shmem_malloc((n + 2) * sizeof(double)); /* [0] and [n + 1] are halos */
        CHECK(buf[b] != NULL, "shmem_malloc failed");
        buf[b][0] = LEFT_TEMP; /* stays only on PE 0; others get halos from neighbours */
        buf[b][n + 1] = RIGHT_TEMP;
        for (int i = 1; i <= n; i++)
            buf[b][i] = initial(first + i - 1);
    }
    shmem_barrier_all();
    if (me > 0)
        shmem_double_p(&buf[0][n + 1], buf[0][1], me - 1);
    if (me < npes - 1)
        shmem_double_p(&buf[0][0], buf[0][n], me + 1);
    shmem_barrier_all();

    for (int t = 0; t < STEPS; t++) {
        double *cur = buf[t % 2], *nxt = buf[(t + 1) % 2];
        step(cur, nxt, 1, n);
        if (me > 0)
            shmem_double_p(&nxt[n + 1], nxt[1], me - 1);
        if (me < npes - 1)
            shmem_double_p(&nxt[0], nxt[n], me + 1);
        shmem_barrier_all();
    }
    const double *mine = buf[STEPS % 2];

    /* Serial reference. */
    static double ref[2][N + 2];
    for (int b = 0; b < 2; b++) {
        ref[b][0] = LEFT_TEMP;
        ref[b][N + 1] = RIGHT_TEMP;
        for (int c = 0; c < N; c++)
            ref[b][c + 1] = initial(c);
    }
    for (int t = 0; t < STEPS; t++)
        step(ref[t % 2], ref[(t + 1) % 2], 1, N);
    const double *want = ref[STEPS % 2];

    for (int i = 1; i <= n; i++)
        CHECK(close_to(mine[i], want[first + i]), "cell %d: %.17g, serial %.17g", first + i - 1, mine[i],
              want[first + i]);
    if (me == 0) { /* gather the whole rod */
        double rod[N];
        for (int pe = 0; pe < npes; pe++)
            shmem_double_get(rod + pe * n, buf[STEPS % 2] + 1, n, pe);
        for (int c = 0; c < N; c++)
            CHECK(close_to(rod[c], want[c + 1]), "gathered cell %d: %.17g, serial %.17g", c, rod[c],
                  want[c + 1]);
        printf("heat1d: %d cells, %d steps on %d PEs ok (middle cell %.6f)\n", N, STEPS, npes, rod[N / 2]);
    }
    shmem_barrier_all();
    shmem_free(buf[1]);
    shmem_free(buf[0]);
    shmem_finalize();
    return 0;
}
