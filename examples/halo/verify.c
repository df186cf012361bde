/* Verification on PE 0: the same run done serially on the whole (periodic)
 * domain, then every PE's final array fetched and compared cell by cell,
 * bit for bit. With the stencil the interiors are compared; without it
 * (-s 0) the ghost cells too, which then hold exactly what the exchange
 * delivered. */
#include "halo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies the periodic images of the interior into the ghost layer. */
static void fill_ghosts(const int gn[3], double *a) {
    for (int k = 0; k <= gn[2] + 1; k++)
        for (int j = 0; j <= gn[1] + 1; j++)
            for (int i = 0; i <= gn[0] + 1; i++) {
                int c[3] = {i, j, k}, s[3];
                int ghost = 0;
                for (int d = 0; d < 3; d++) {
                    s[d] = c[d] == 0 ? gn[d] : c[d] == gn[d] + 1 ? 1 : c[d];
                    ghost |= s[d] != c[d];
                }
                if (ghost)
                    memcpy(&a[cell_index(gn, i, j, k) * NVARS], &a[cell_index(gn, s[0], s[1], s[2]) * NVARS],
                           NVARS * sizeof(double));
            }
}

/* The serial run: the unperturbed initial values, w + i iterations. Returns
 * the final array (ghosts filled), or NULL without memory. */
static double *reference(const halo_t *h, const int gn[3]) {
    size_t cells = (size_t)(gn[0] + 2) * (size_t)(gn[1] + 2) * (size_t)(gn[2] + 2);
    double *a = calloc(cells * NVARS, sizeof(double)), *b = calloc(cells * NVARS, sizeof(double));
    if (!a || !b) {
        free(a);
        free(b);
        return NULL;
    }
    for (int k = 1; k <= gn[2]; k++)
        for (int j = 1; j <= gn[1]; j++)
            for (int i = 1; i <= gn[0]; i++) {
                long g = ((long)(k - 1) * gn[1] + (j - 1)) * gn[0] + (i - 1);
                for (int v = 0; v < NVARS; v++) a[cell_index(gn, i, j, k) * NVARS + (size_t)v] = initial_value(g, v);
            }
    int total = h->warmup + h->iters;
    for (int it = 0; it < (h->stencil ? total : 1); it++) {
        fill_ghosts(gn, a);
        if (h->stencil) {
            stencil(gn, b, a, 1, gn[2]);
            double *t = a;
            a = b;
            b = t;
        }
    }
    fill_ghosts(gn, a);
    free(b);
    return a;
}

/* Compares PE pe's array `got` with the reference; prints the first
 * difference. Returns 1 when they agree. */
static int compare(const halo_t *h, int pe, const double *got, const double *ref, const int gn[3]) {
    int pc[3] = {pe % h->grid[0], pe / h->grid[0] % h->grid[1], pe / h->grid[0] / h->grid[1]};
    int lo = h->stencil ? 1 : 0;
    for (int k = lo; k <= h->n[2] + 1 - lo; k++)
        for (int j = lo; j <= h->n[1] + 1 - lo; j++)
            for (int i = lo; i <= h->n[0] + 1 - lo; i++) {
                long g[3] = {global_coord(h, pc[0], 0, i), global_coord(h, pc[1], 1, j), global_coord(h, pc[2], 2, k)};
                const double *want = &ref[cell_index(gn, (int)g[0] + 1, (int)g[1] + 1, (int)g[2] + 1) * NVARS];
                const double *have = &got[cell_index(h->n, i, j, k) * NVARS];
                for (int v = 0; v < NVARS; v++) {
                    if (!memcmp(&want[v], &have[v], sizeof(double))) continue;
                    int ghost = !i || !j || !k || i > h->n[0] || j > h->n[1] || k > h->n[2];
                    printf(" first difference: PE %d, local cell (%d,%d,%d)%s = global cell %ld (%ld,%ld,%ld), "
                           "variable %d: %.17g, expected %.17g\n",
                           pe, i, j, k, ghost ? " (a ghost)" : "", (g[2] * h->global[1] + g[1]) * h->global[0] + g[0],
                           g[0], g[1], g[2], v, have[v], want[v]);
                    return 0;
                }
            }
    return 1;
}

int verify(const halo_t *h, const double *final_u) {
    const int gn[3] = {(int)h->global[0], (int)h->global[1], (int)h->global[2]};
    double *ref = reference(h, gn);
    double *got = malloc(h->cells * NVARS * sizeof(double));
    if (!ref || !got) {
        fprintf(stderr, "halo: PE 0 has no memory for the serial reference run\n");
        free(ref);
        free(got);
        return 0;
    }
    int ok = 1;
    for (int pe = 0; pe < h->npes && ok; pe++) {
        shmem_getmem(got, final_u, h->cells * NVARS * sizeof(double), pe);
        ok = compare(h, pe, got, ref, gn);
    }
    free(ref);
    free(got);
    return ok;
}
