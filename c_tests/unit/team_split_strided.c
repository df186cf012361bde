/* rshmem-test
 * np: 1 2 3 4 7 8
 * variant: SHMEM_CHECK_COLLECTIVES=1
 */
/* shmem_team_split_strided of SHMEM_TEAM_WORLD with strides 1, 2, 3, -1 (reversed order),
 * -2, and 0 (size 1), and of two of those teams again (grandchildren). For every team and
 * every PE: members get a valid handle, their rank and the team size; non-members get
 * SHMEM_TEAM_INVALID and return value 0 too; shmem_team_translate_pe maps every rank to
 * its world PE and back, answers -1 for non-members and out-of-range ranks, and maps
 * between any two teams; shmem_team_ptr(team, x, rank) equals shmem_ptr(x, world PE);
 * shmem_team_sync works and, after shmem_quiet, puts addressed through translated PE
 * numbers have arrived. The num_contexts configuration comes back from
 * shmem_team_get_config when its mask bit was given and is the default (0) otherwise.
 * A split of SHMEM_TEAM_INVALID fails. */
#include <limits.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define MAXPE 64
#define NTEAMS 10

static int me, npes;
static int global_var;
static int *heap_var;
static int slots[NTEAMS][MAXPE]; /* slots[team][rank] on the team's rank 0 */

struct team {
    const char *name;
    shmem_team_t handle;
    int n;
    int members[MAXPE]; /* world PE of each rank */
};

static int index_of(const struct team *t, int pe) {
    for (int i = 0; i < t->n; i++)
        if (t->members[i] == pe)
            return i;
    return -1;
}

/* The members of start + stride * i (i < size) of parent, as world PEs. */
static void expect(struct team *t, const char *name, const struct team *parent, int start, int stride, int size) {
    t->name = name;
    t->handle = SHMEM_TEAM_WORLD; /* must be overwritten by the split */
    t->n = size;
    for (int i = 0; i < size; i++) {
        int pr = start + stride * i;
        if (parent == NULL) {
            t->members[i] = pr;
        } else {
            CHECK(pr >= 0 && pr < parent->n, "test bug: %s rank %d of the parent is outside [0, %d)", name, pr,
                  parent->n);
            t->members[i] = parent->members[pr];
        }
    }
}

static void split(struct team *t, shmem_team_t parent, int start, int stride, int size) {
    int rc = shmem_team_split_strided(parent, start, stride, size, NULL, 0, &t->handle);
    CHECK(rc == 0, "shmem_team_split_strided(%s: start %d, stride %d, size %d) returned %d", t->name, start, stride,
          size, rc);
}

static void check_team(const struct team *t) {
    int r = index_of(t, me);
    if (r < 0) {
        CHECK(t->handle == SHMEM_TEAM_INVALID, "%s: not a member, but the new team handle is %p, not SHMEM_TEAM_INVALID",
              t->name, (void *)t->handle);
        CHECK(shmem_team_my_pe(t->handle) == -1 && shmem_team_n_pes(t->handle) == -1,
              "%s: non-member's my_pe/n_pes are not -1", t->name);
        return;
    }
    shmem_team_t h = t->handle;
    CHECK(h != SHMEM_TEAM_INVALID, "%s: a member (rank %d) got SHMEM_TEAM_INVALID", t->name, r);
    CHECK(h != SHMEM_TEAM_WORLD, "%s: a member got SHMEM_TEAM_WORLD (or the handle was never written)", t->name);
    CHECK(shmem_team_my_pe(h) == r, "%s: shmem_team_my_pe is %d, want %d", t->name, shmem_team_my_pe(h), r);
    CHECK(shmem_team_n_pes(h) == t->n, "%s: shmem_team_n_pes is %d, want %d", t->name, shmem_team_n_pes(h), t->n);
    for (int i = 0; i < t->n; i++) {
        int w = shmem_team_translate_pe(h, i, SHMEM_TEAM_WORLD);
        CHECK(w == t->members[i], "%s: translate_pe(team, %d, WORLD) is %d, want %d", t->name, i, w, t->members[i]);
        int back = shmem_team_translate_pe(SHMEM_TEAM_WORLD, t->members[i], h);
        CHECK(back == i, "%s: translate_pe(WORLD, %d, team) is %d, want %d", t->name, t->members[i], back, i);
        int self = shmem_team_translate_pe(h, i, h);
        CHECK(self == i, "%s: translate_pe(team, %d, team) is %d", t->name, i, self);
        void *p = shmem_team_ptr(h, &global_var, i), *q = shmem_ptr(&global_var, t->members[i]);
        CHECK(p == q, "%s: shmem_team_ptr(team, &global_var, %d) = %p, shmem_ptr(&global_var, %d) = %p", t->name, i,
              p, t->members[i], q);
        p = shmem_team_ptr(h, heap_var, i);
        q = shmem_ptr(heap_var, t->members[i]);
        CHECK(p == q, "%s: shmem_team_ptr(team, heap_var, %d) = %p, shmem_ptr(heap_var, %d) = %p", t->name, i, p,
              t->members[i], q);
    }
    for (int pe = 0; pe < npes; pe++) {
        if (index_of(t, pe) >= 0)
            continue;
        int x = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, h);
        CHECK(x == -1, "%s: translate_pe(WORLD, %d, team) is %d for a non-member, want -1", t->name, pe, x);
    }
    static const int bad[] = {-1, INT_MIN, INT_MAX};
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++)
        CHECK(shmem_team_translate_pe(h, bad[k], SHMEM_TEAM_WORLD) == -1, "%s: translate_pe(team, %d, WORLD) is %d",
              t->name, bad[k], shmem_team_translate_pe(h, bad[k], SHMEM_TEAM_WORLD));
    CHECK(shmem_team_translate_pe(h, t->n, SHMEM_TEAM_WORLD) == -1, "%s: translate_pe(team, n=%d, WORLD) is %d",
          t->name, t->n, shmem_team_translate_pe(h, t->n, SHMEM_TEAM_WORLD));
    CHECK(shmem_team_translate_pe(h, r, SHMEM_TEAM_INVALID) == -1, "%s: translate_pe(team, %d, INVALID) is not -1",
          t->name, r);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, r, h) == -1, "%s: translate_pe(INVALID, %d, team) is not -1",
          t->name, r);
    shmem_team_config_t cfg = {.num_contexts = -5};
    int rc = shmem_team_get_config(h, SHMEM_TEAM_NUM_CONTEXTS, &cfg);
    CHECK(rc == 0, "%s: shmem_team_get_config returned %d", t->name, rc);
    CHECK(cfg.num_contexts == 0, "%s: created with mask 0, num_contexts is %d, want the default 0", t->name,
          cfg.num_contexts);
}

/* translate_pe from every rank of a to b, as seen by this PE (which holds SHMEM_TEAM_INVALID
 * for a team it is not in). */
static void check_pair(const struct team *a, const struct team *b) {
    if (a->handle == SHMEM_TEAM_INVALID)
        return;
    for (int i = 0; i < a->n; i++) {
        int want = b->handle == SHMEM_TEAM_INVALID ? -1 : index_of(b, a->members[i]);
        int got = shmem_team_translate_pe(a->handle, i, b->handle);
        CHECK(got == want, "translate_pe(%s, %d, %s) is %d, want %d", a->name, i, b->name, got, want);
    }
}

/* Every member puts world PE number + 1000 into slot [k][rank] on the team's rank 0,
 * addressing it by the world PE translate_pe gives. */
static void put_to_root(const struct team *t, int k) {
    if (t->handle == SHMEM_TEAM_INVALID)
        return;
    int r = shmem_team_my_pe(t->handle);
    int root = shmem_team_translate_pe(t->handle, 0, SHMEM_TEAM_WORLD);
    shmem_int_p(&slots[k][r], me + 1000, root);
    shmem_quiet();
    int rc = shmem_team_sync(t->handle);
    CHECK(rc == 0, "%s: shmem_team_sync returned %d", t->name, rc);
    if (r == 0)
        for (int i = 0; i < t->n; i++)
            CHECK(slots[k][i] == t->members[i] + 1000, "%s: slot of rank %d on rank 0 is %d, want %d", t->name, i,
                  slots[k][i], t->members[i] + 1000);
    rc = shmem_team_sync(t->handle);
    CHECK(rc == 0, "%s: second shmem_team_sync returned %d", t->name, rc);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPE, "at most %d PEs", MAXPE);
    heap_var = shmem_malloc(sizeof(int));
    CHECK(heap_var != NULL, "shmem_malloc failed");

    static struct team world, t[NTEAMS];
    world.name = "WORLD";
    world.handle = SHMEM_TEAM_WORLD;
    world.n = npes;
    for (int i = 0; i < npes; i++)
        world.members[i] = i;

    int nt = 0;
    struct team *all = &t[nt++], *even = &t[nt++], *three = &t[nt++], *rev = &t[nt++], *rev2 = &t[nt++],
                *one = &t[nt++];
    int start3 = npes > 1 ? 1 : 0;
    int size3 = (npes - 1 - start3) / 3 + 1;
    expect(all, "stride 1", NULL, 0, 1, npes);
    expect(even, "stride 2 (even PEs)", NULL, 0, 2, (npes + 1) / 2);
    expect(three, "stride 3", NULL, start3, 3, size3);
    expect(rev, "stride -1 (reversed)", NULL, npes - 1, -1, npes);
    expect(rev2, "stride -2", NULL, npes - 1, -2, (npes + 1) / 2);
    expect(one, "stride 0, size 1", NULL, npes - 1, 0, 1);
    split(all, SHMEM_TEAM_WORLD, 0, 1, npes);
    split(even, SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2);
    split(three, SHMEM_TEAM_WORLD, start3, 3, size3);
    split(rev, SHMEM_TEAM_WORLD, npes - 1, -1, npes);
    split(rev2, SHMEM_TEAM_WORLD, npes - 1, -2, (npes + 1) / 2);
    split(one, SHMEM_TEAM_WORLD, npes - 1, 0, 1);

    /* Grandchildren: odd ranks of the even team (or its rank 0), and the reversed team
     * reversed again (world order). Only the parent's members call. */
    struct team *gc_even = &t[nt++], *gc_rev = &t[nt++];
    int ne = even->n;
    int gs = ne >= 2 ? 1 : 0, gstride = ne >= 2 ? 2 : 1, gsize = ne >= 2 ? (ne - 2) / 2 + 1 : 1;
    expect(gc_even, "grandchild of stride 2", even, gs, gstride, gsize);
    gc_even->handle = SHMEM_TEAM_INVALID;
    if (even->handle != SHMEM_TEAM_INVALID)
        split(gc_even, even->handle, gs, gstride, gsize);
    expect(gc_rev, "reversed reversed", rev, npes - 1, -1, npes);
    split(gc_rev, rev->handle, npes - 1, -1, npes);
    /* Great-grandchild: last two ranks of the doubly reversed team, reversed. */
    struct team *ggc = &t[nt++];
    int gg_n = npes >= 2 ? 2 : 1;
    expect(ggc, "great-grandchild", gc_rev, npes - 1, -1, gg_n);
    split(ggc, gc_rev->handle, npes - 1, -1, gg_n);

    for (int k = 0; k < nt; k++)
        check_team(&t[k]);
    for (int a = -1; a < nt; a++)
        for (int b = -1; b < nt; b++)
            check_pair(a < 0 ? &world : &t[a], b < 0 ? &world : &t[b]);

    /* Communication within each team, one team after another. */
    for (int k = 0; k < nt; k++)
        for (int i = 0; i < MAXPE; i++)
            slots[k][i] = -1;
    shmem_barrier_all();
    for (int k = 0; k < nt; k++)
        put_to_root(&t[k], k);
    shmem_barrier_all();

    /* num_contexts configuration round trip. */
    shmem_team_config_t cfg = {.num_contexts = 4};
    shmem_team_t tcfg = SHMEM_TEAM_INVALID, tmask0 = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &tcfg);
    CHECK(rc == 0, "split with num_contexts 4 returned %d", rc);
    cfg.num_contexts = 9; /* not used: mask 0 */
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, 0, &tmask0);
    CHECK(rc == 0, "split with a config and mask 0 returned %d", rc);
    CHECK(tmask0 != SHMEM_TEAM_INVALID, "split with a config and mask 0 gave SHMEM_TEAM_INVALID");
    if (me % 2 == 0) {
        CHECK(tcfg != SHMEM_TEAM_INVALID, "split with num_contexts 4: an even PE got SHMEM_TEAM_INVALID");
        shmem_team_config_t got = {.num_contexts = -1};
        rc = shmem_team_get_config(tcfg, SHMEM_TEAM_NUM_CONTEXTS, &got);
        CHECK(rc == 0, "shmem_team_get_config(team with num_contexts 4) returned %d", rc);
        CHECK(got.num_contexts == 4, "num_contexts of a team created with 4 is %d", got.num_contexts);
    } else {
        CHECK(tcfg == SHMEM_TEAM_INVALID, "split with num_contexts 4: an odd PE got a team");
    }
    {
        shmem_team_config_t got = {.num_contexts = -1};
        rc = shmem_team_get_config(tmask0, SHMEM_TEAM_NUM_CONTEXTS, &got);
        CHECK(rc == 0 && got.num_contexts == 0,
              "team created with num_contexts 9 but mask 0: get_config returned %d, num_contexts %d (want 0)", rc,
              got.num_contexts);
    }
    if (tcfg != SHMEM_TEAM_INVALID)
        shmem_team_destroy(tcfg);
    shmem_team_destroy(tmask0);

    /* A split of SHMEM_TEAM_INVALID fails locally. */
    shmem_team_t bad = SHMEM_TEAM_WORLD;
    rc = shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &bad);
    CHECK(rc != 0, "shmem_team_split_strided(SHMEM_TEAM_INVALID, ...) returned 0");
    CHECK(bad == SHMEM_TEAM_INVALID, "shmem_team_split_strided(SHMEM_TEAM_INVALID, ...) gave a team handle");

    /* Destroy, descendants first (team_basics.c checks that SHMEM_TEAM_INVALID is a no-op). */
    for (int k = nt - 1; k >= 0; k--)
        if (t[k].handle != SHMEM_TEAM_INVALID)
            shmem_team_destroy(t[k].handle);

    shmem_free(heap_var);
    shmem_barrier_all();
    if (me == 0)
        printf("team split strided ok\n");
    shmem_finalize();
    return 0;
}
