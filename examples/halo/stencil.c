/* Initial values, the 27-point stencil and the checksum. */
#include "halo.h"

#include <string.h>

/* splitmix64's finaliser: a bijective 64-bit mix. */
static uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* A value in [0, 1) that depends only on the global cell and the variable,
 * so every decomposition starts from the same domain. */
double initial_value(long gidx, int v) {
    return (double)(mix64((uint64_t)gidx * NVARS + (uint64_t)v) >> 11) * 0x1p-53;
}

/* The interior of this PE's array from the global initial values; ghosts 0.
 * perturb >= 0 adds 1 to variable 0 of that global cell. */
void init_values(const halo_t *h, double *u, long perturb) {
    memset(u, 0, h->cells * NVARS * sizeof(double));
    for (int k = 1; k <= h->n[2]; k++)
        for (int j = 1; j <= h->n[1]; j++)
            for (int i = 1; i <= h->n[0]; i++) {
                long gx = (long)h->coord[0] * h->n[0] + i - 1;
                long gy = (long)h->coord[1] * h->n[1] + j - 1;
                long gz = (long)h->coord[2] * h->n[2] + k - 1;
                long g = (gz * h->global[1] + gy) * h->global[0] + gx;
                double *c = &u[cell_index(h->n, i, j, k) * NVARS];
                for (int v = 0; v < NVARS; v++) c[v] = initial_value(g, v);
                if (g == perturb) c[0] += 1.0;
            }
}

/* out = 27-point stencil of in on interior planes k0..k1 (1-based,
 * inclusive). Weights by distance class (centre, face, edge, corner); each
 * variable's sum runs over the 27 neighbours in one fixed order (z, then y,
 * then x), so a cell's result does not depend on how the domain is split. */
void stencil(const int n[3], double *out, const double *in, int k0, int k1) {
    static const double wc[4] = {0.25, 0.05, 0.025, 0.0125};
    const ptrdiff_t sy = (ptrdiff_t)(n[0] + 2) * NVARS, sz = sy * (n[1] + 2);
    ptrdiff_t off[27];
    double w[27];
    int t = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++, t++) {
                off[t] = dz * sz + dy * sy + dx * NVARS;
                w[t] = wc[(dx != 0) + (dy != 0) + (dz != 0)];
            }
    for (int k = k0; k <= k1; k++)
        for (int j = 1; j <= n[1]; j++) {
            const double *c = &in[cell_index(n, 1, j, k) * NVARS];
            double *o = &out[cell_index(n, 1, j, k) * NVARS];
            for (int i = 0; i < n[0]; i++, c += NVARS, o += NVARS) {
                double s0 = 0.0, s1 = 0.0, s2 = 0.0;
                for (t = 0; t < 27; t++) {
                    const double *q = c + off[t];
                    s0 += w[t] * q[0];
                    s1 += w[t] * q[1];
                    s2 += w[t] * q[2];
                }
                o[0] = s0;
                o[1] = s1;
                o[2] = s2;
            }
        }
}

/* One cell's and variable's term of the checksum: it depends on the bit
 * pattern of the value and on where it is, so a value in the wrong cell
 * changes the sum. */
uint64_t cell_mix(long gidx, int v, double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return mix64(bits ^ mix64((uint64_t)gidx * NVARS + (uint64_t)v + 1));
}

/* The wrapping sum of cell_mix over this PE's interior: order-independent,
 * so the global sum is the same however the domain is split. Without the
 * stencil the interior never changes, so the ghost cells count too (each as
 * the cell it mirrors): the sum then checks what the exchange delivered, and
 * is the same in every mode, but differs between PE grids. */
uint64_t local_checksum(const halo_t *h, const double *u) {
    uint64_t sum = 0;
    int lo = h->stencil ? 1 : 0;
    for (int k = lo; k <= h->n[2] + 1 - lo; k++)
        for (int j = lo; j <= h->n[1] + 1 - lo; j++)
            for (int i = lo; i <= h->n[0] + 1 - lo; i++) {
                long gx = global_coord(h, h->coord[0], 0, i);
                long gy = global_coord(h, h->coord[1], 1, j);
                long gz = global_coord(h, h->coord[2], 2, k);
                long g = (gz * h->global[1] + gy) * h->global[0] + gx;
                const double *c = &u[cell_index(h->n, i, j, k) * NVARS];
                for (int v = 0; v < NVARS; v++) sum += cell_mix(g, v, c[v]);
            }
    return sum;
}
