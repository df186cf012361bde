/* The PE grid, the 26 neighbours of a PE and the regions of its messages. */
#include "halo.h"

#include <stdlib.h>

/* As MPI_Dims_create: the factorisation of npes into px >= py >= pz that is
 * as cubic as possible (the smallest px, then the smallest py). */
void grid_dims(int npes, int grid[3]) {
    grid[0] = npes;
    grid[1] = grid[2] = 1;
    for (int px = 1; px <= npes; px++) {
        if (npes % px) continue;
        for (int py = 1; py <= px; py++) {
            if ((npes / px) % py) continue;
            int pz = npes / px / py;
            if (pz > py) continue;
            if (px < grid[0] || (px == grid[0] && py < grid[1])) {
                grid[0] = px;
                grid[1] = py;
                grid[2] = pz;
            }
        }
    }
}

size_t cell_index(const int n[3], int i, int j, int k) {
    return ((size_t)k * (size_t)(n[1] + 2) + (size_t)j) * (size_t)(n[0] + 2) + (size_t)i;
}

/* The global cell (0-based, wrapped periodically) that local coordinate
 * `local` (0..n+1, ghosts included) of dimension d stands for on the PE at
 * grid coordinate pe_coord. */
long global_coord(const halo_t *h, int pe_coord, int d, int local) {
    long g = (long)pe_coord * h->n[d] + local - 1;
    return (g + h->global[d]) % h->global[d];
}

static int pe_of(const int grid[3], const int c[3]) { return (c[2] * grid[1] + c[1]) * grid[0] + c[0]; }

static size_t box_cells(const box_t *b) {
    size_t c = 1;
    for (int d = 0; d < 3; d++) c *= (size_t)(b->hi[d] - b->lo[d] + 1);
    return c;
}

/* Larger messages first; equal sizes in index order (a stable order). */
static const halo_t *sort_h;
static int larger_first(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    size_t dx = sort_h->msg[x].doubles, dy = sort_h->msg[y].doubles;
    if (dx != dy) return dx > dy ? -1 : 1;
    return x - y;
}

/* Fills in the PE's coordinates, its neighbours and the message regions;
 * needs h->me, h->grid and h->n. */
void grid_setup(halo_t *h) {
    h->coord[0] = h->me % h->grid[0];
    h->coord[1] = h->me / h->grid[0] % h->grid[1];
    h->coord[2] = h->me / h->grid[0] / h->grid[1];
    for (int d = 0; d < 3; d++) h->global[d] = (long)h->grid[d] * h->n[d];
    h->cells = (size_t)(h->n[0] + 2) * (size_t)(h->n[1] + 2) * (size_t)(h->n[2] + 2);
    int k = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                if (!dx && !dy && !dz) continue;
                message_t *m = &h->msg[k++];
                m->dir[0] = dx;
                m->dir[1] = dy;
                m->dir[2] = dz;
            }
    size_t offset = 0;
    h->bytes = 0;
    for (k = 0; k < NDIRS; k++) {
        message_t *m = &h->msg[k];
        /* Directions are enumerated symmetrically: -dir has index 25 - k. */
        m->opposite = NDIRS - 1 - k;
        int c[3];
        for (int d = 0; d < 3; d++) {
            c[d] = (h->coord[d] + m->dir[d] + h->grid[d]) % h->grid[d];
            int n = h->n[d];
            /* Sent: the interior layer next to the face/edge/corner. Received:
             * the ghost layer beyond it, filled by the neighbour there. */
            m->send.lo[d] = m->dir[d] > 0 ? n : 1;
            m->send.hi[d] = m->dir[d] < 0 ? 1 : n;
            m->recv.lo[d] = m->dir[d] < 0 ? 0 : m->dir[d] > 0 ? n + 1 : 1;
            m->recv.hi[d] = m->dir[d] < 0 ? 0 : m->dir[d] > 0 ? n + 1 : n;
        }
        m->pe = pe_of(h->grid, c);
        m->doubles = box_cells(&m->send) * NVARS;
        m->offset = offset;
        offset += m->doubles;
        h->bytes += m->doubles * sizeof(double);
        h->order[k] = k;
    }
    h->area = offset;
    sort_h = h;
    qsort(h->order, NDIRS, sizeof h->order[0], larger_first);
}
