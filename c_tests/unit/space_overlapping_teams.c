/* rshmem-test
 * np: 1 2 3 4 5 8
 * timeout: 30
 */
/* Four spaces attached at the same time to overlapping teams: W to the world, E to the
 * even PEs (stride-2 split), X to the x-axis team and Y to the y-axis team of
 * shmem_team_split_2d(xrange 2) (pairs of neighbours, and the PEs of one parity). Every
 * PE is in three or four of them; allocations are interleaved across the spaces (in
 * the same order on every PE, as collectives must be). Checks:
 * - the blocks of the four spaces do not overlap on a PE, and each holds its own
 *   pattern after the others were written (locally and by RMA);
 * - RMA into W memory through a context of the even team (team ranks), into E memory
 *   with the default context (world PEs), put_nbi on a context of X (x-team ranks)
 *   completed by shmem_ctx_quiet, fetch_add on a context of Y by every y-team member
 *   on rank 0's word (exact total);
 * - shmem_ctx_get_team of the X and Y contexts are their spaces' teams;
 * - shmem_addr_accessible of X memory is 1 exactly for the x-team's PEs;
 * - num_contexts 2: a third context of X fails (SHMEM_CTX_INVALID), and after one is
 *   destroyed a new one can be created;
 * - the spaces are detached in another order than they were attached. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define NB 64 /* longs per block */

static shmemx_space_t make(size_t size, int nctx) {
    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = size;
    cfg.num_contexts = nctx;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t s;
    shmemx_space_create(cfg, &s);
    return s;
}

static long *get_block(shmemx_space_t s, const char *name) {
    long *p = shmemx_space_malloc(s, NB * sizeof(long));
    CHECK(p != NULL, "space %s: shmemx_space_malloc gave NULL", name);
    return p;
}

/* Pattern of space k (0..3) on world PE pe, word i. */
static long pat(int k, int pe, int i) {
    return 1000000L * (k + 1) + 1000L * pe + i;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t even = SHMEM_TEAM_INVALID, xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0, "even split failed");
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt) == 0, "2d split failed");
    int in_even = me % 2 == 0;
    CHECK((even != SHMEM_TEAM_INVALID) == in_even && xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID,
          "team handles: even %p, x %p, y %p", (void *)even, (void *)xt, (void *)yt);

    shmemx_space_t w = make(64 << 10, 0), e = make(32 << 10, 0), x = make(16 << 10, 2), y = make(8 << 10, 1);
    shmemx_space_attach(w);
    shmemx_space_attach_team(x, xt);
    if (in_even)
        shmemx_space_attach_team(e, even);
    shmemx_space_attach_team(y, yt);

    /* Interleaved allocations: W, X, E, Y, W. */
    long *wa = get_block(w, "W");
    long *xa = get_block(x, "X");
    long *ea = in_even ? get_block(e, "E") : NULL;
    long *ya = get_block(y, "Y");
    long *wb = get_block(w, "W");
    long *blocks[5] = {wa, xa, ea, ya, wb};
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (blocks[i] && blocks[j])
                CHECK(blocks[i] + NB <= blocks[j] || blocks[j] + NB <= blocks[i], "blocks %d (%p) and %d (%p) overlap",
                      i, (void *)blocks[i], j, (void *)blocks[j]);
    for (int i = 0; i < NB; i++) {
        wa[i] = xa[i] = ya[i] = wb[i] = -1;
        if (ea)
            ea[i] = -1;
    }
    shmem_barrier_all();

    /* W through a context of the even team; E with the default context. */
    if (in_even) {
        shmem_ctx_t c = SHMEM_CTX_INVALID;
        CHECK(shmem_team_create_ctx(even, 0, &c) == 0, "shmem_team_create_ctx(even) failed");
        int ne = shmem_team_n_pes(even), r = shmem_team_my_pe(even);
        long v[NB];
        for (int i = 0; i < NB; i++)
            v[i] = pat(0, me, i);
        shmem_ctx_long_put(c, wa, v, NB, (r + 1) % ne);
        for (int i = 0; i < NB; i++)
            v[i] = pat(2, me, i);
        shmem_long_put(ea, v, NB, 2 * ((r + 1) % ne));
        shmem_ctx_quiet(c);
        shmem_quiet();
        shmem_ctx_destroy(c);
    } else {
        for (int i = 0; i < NB; i++)
            wa[i] = pat(0, me, i); /* written locally on the odd PEs */
    }

    /* X: put_nbi on its space context, to the right neighbour in the x-team. */
    shmem_ctx_t cx = SHMEM_CTX_INVALID, cx2 = SHMEM_CTX_INVALID, cx3 = SHMEM_CTX_DEFAULT, cy = SHMEM_CTX_INVALID;
    CHECK(shmemx_space_create_ctx(x, 0, &cx) == 0, "shmemx_space_create_ctx(X) failed");
    shmem_team_t ct = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(cx, &ct) == 0 && ct == xt, "shmem_ctx_get_team of X's context is %p, not the x team",
          (void *)ct);
    int nx = shmem_team_n_pes(xt), rx = shmem_team_my_pe(xt);
    long v[NB];
    for (int i = 0; i < NB; i++)
        v[i] = pat(1, me, i);
    shmem_ctx_long_put_nbi(cx, xa, v, NB, (rx + 1) % nx);
    shmem_ctx_quiet(cx);

    /* Y: every member adds to rank 0's word on Y's context; W's second block locally. */
    CHECK(shmemx_space_create_ctx(y, 0, &cy) == 0, "shmemx_space_create_ctx(Y) failed");
    CHECK(shmem_ctx_get_team(cy, &ct) == 0 && ct == yt, "shmem_ctx_get_team of Y's context is %p, not the y team",
          (void *)ct);
    int ny = shmem_team_n_pes(yt), ry = shmem_team_my_pe(yt);
    for (int i = 1; i < NB; i++)
        ya[i] = pat(3, me, i);
    if (ry == 0)
        ya[0] = 0;
    for (int i = 0; i < NB; i++)
        wb[i] = pat(4, me, i);
    shmem_barrier_all();
    for (int k = 0; k < 10; k++)
        shmem_ctx_long_atomic_fetch_add(cy, &ya[0], 1, 0);
    shmem_ctx_quiet(cy);
    shmem_barrier_all();

    /* Check every block. */
    int wleft = in_even ? shmem_team_translate_pe(even, (shmem_team_my_pe(even) + shmem_team_n_pes(even) - 1) %
                                                            shmem_team_n_pes(even),
                                                  SHMEM_TEAM_WORLD)
                        : me;
    int xleft = shmem_team_translate_pe(xt, (rx + nx - 1) % nx, SHMEM_TEAM_WORLD);
    for (int i = 0; i < NB; i++) {
        CHECK(wa[i] == pat(0, wleft, i), "W block 1 word %d = %ld, want %ld", i, wa[i], pat(0, wleft, i));
        CHECK(xa[i] == pat(1, xleft, i), "X block word %d = %ld, want %ld (from PE %d)", i, xa[i], pat(1, xleft, i),
              xleft);
        if (ea)
            CHECK(ea[i] == pat(2, wleft, i), "E block word %d = %ld, want %ld", i, ea[i], pat(2, wleft, i));
        if (i > 0)
            CHECK(ya[i] == pat(3, me, i), "Y block word %d = %ld, want %ld", i, ya[i], pat(3, me, i));
        CHECK(wb[i] == pat(4, me, i), "W block 2 word %d = %ld, want %ld", i, wb[i], pat(4, me, i));
    }
    if (ry == 0)
        CHECK(ya[0] == 10L * ny, "Y counter is %ld after %d x 10 fetch_adds", ya[0], ny);
    else
        CHECK(ya[0] == -1, "Y word 0 of rank %d is %ld, want -1", ry, ya[0]);

    /* Accessibility of X memory. */
    for (int pe = 0; pe < npes; pe++) {
        int want = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, xt) >= 0;
        CHECK(shmem_addr_accessible(xa, pe) == want, "X memory accessible on PE %d: %d, want %d", pe,
              shmem_addr_accessible(xa, pe), want);
    }

    /* Context limit of X (num_contexts 2). */
    CHECK(shmemx_space_create_ctx(x, 0, &cx2) == 0, "second context of X failed");
    CHECK(shmemx_space_create_ctx(x, 0, &cx3) != 0 && cx3 == SHMEM_CTX_INVALID,
          "third context of X (num_contexts 2): handle %p", (void *)cx3);
    shmem_ctx_destroy(cx);
    CHECK(shmemx_space_create_ctx(x, SHMEM_CTX_PRIVATE, &cx) == 0, "context of X after destroying one failed");
    shmem_ctx_destroy(cx);
    shmem_ctx_destroy(cx2);
    shmem_ctx_destroy(cy);

    /* Free and detach in another order. */
    shmemx_space_free(w, wb);
    shmem_free(ya);
    shmemx_space_free(x, xa);
    if (in_even)
        shmemx_space_free(e, ea);
    shmem_free(wa);
    shmemx_space_detach_team(y, yt);
    shmemx_space_detach(w);
    if (in_even)
        shmemx_space_detach_team(e, even);
    shmemx_space_detach_team(x, xt);
    shmemx_space_destroy(x);
    shmemx_space_destroy(e);
    shmemx_space_destroy(y);
    shmemx_space_destroy(w);
    shmem_team_destroy(yt);
    shmem_team_destroy(xt);
    if (in_even)
        shmem_team_destroy(even);

    shmem_barrier_all();
    if (me == 0)
        printf("overlapping team spaces ok\n");
    shmem_finalize();
    return 0;
}
