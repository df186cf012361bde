/* rshmem-test
 * np: 1 2 3 4 8
 * env: SHMEM_SPACE_ARENA_SIZE=8M
 * timeout: 60
 */
/* 300 cycles of: create a 1 MiB space, attach it (cycling through the world, a stride-2
 * team of the even PEs and the team of all PEs but the last), malloc the whole 1 MiB,
 * write it, read the right neighbour's copy (iget of one word per page and a g of the
 * last word), put a block into the end of the neighbour's copy, free, detach, destroy.
 * With SHMEM_SPACE_ARENA_SIZE=8M, the arena holds fewer than 8 such spaces at once: all
 * 300 cycles completing shows that every detach gives the extent back. Teams come and
 * go in between (the sync memory of every team comes from the same arena): the two
 * persistent teams are destroyed and split anew every 10 cycles, and on odd cycles a
 * temporary team is split before the attach and destroyed while the space is still
 * attached (so extents are given back out of order).
 * shmemx_space_get_team returns 0 and the attached team (same handle, size and rank)
 * while attached, and non-zero with SHMEM_TEAM_INVALID before attach, after detach, and
 * on a PE outside the team (which creates and destroys its space without attaching).
 * Every fifth cycle the space, once detached (or never attached, outside the team), is
 * attached again to the world, used and detached before it is destroyed. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define CYCLES 300
#define MIB (1u << 20)
#define NLONG (MIB / sizeof(long))
#define PAGE_LONGS 512 /* one word checked every 4 KiB */
#define NPAGES (NLONG / PAGE_LONGS)
#define TAIL 64

static int me, npes;
static shmem_team_t even = SHMEM_TEAM_INVALID, allbutlast = SHMEM_TEAM_INVALID;

static void split_teams(void) {
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    CHECK(rc == 0 && (even != SHMEM_TEAM_INVALID) == (me % 2 == 0), "stride-2 split: rc %d, handle %p", rc,
          (void *)even);
    if (npes > 1) {
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes - 1, NULL, 0, &allbutlast);
        CHECK(rc == 0 && (allbutlast != SHMEM_TEAM_INVALID) == (me < npes - 1), "all-but-last split: rc %d, handle %p",
              rc, (void *)allbutlast);
    } else {
        allbutlast = SHMEM_TEAM_WORLD; /* no such team at 1 PE */
    }
}

static void destroy_teams(void) {
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    if (allbutlast != SHMEM_TEAM_INVALID && allbutlast != SHMEM_TEAM_WORLD)
        shmem_team_destroy(allbutlast);
    even = allbutlast = SHMEM_TEAM_INVALID;
}

static void check_unattached(shmemx_space_t s, int cycle, const char *when) {
    shmem_team_t got = SHMEM_TEAM_WORLD;
    int rc = shmemx_space_get_team(s, &got);
    CHECK(rc != 0 && got == SHMEM_TEAM_INVALID, "cycle %d: shmemx_space_get_team %s returned %d, team %p", cycle, when,
          rc, (void *)got);
}

/* Every fifth cycle the detached (or never attached) space is attached again, to the
 * world, used and detached before it is destroyed. */
static void reattach_to_world(shmemx_space_t s, int cycle) {
    shmemx_space_attach(s);
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int rc = shmemx_space_get_team(s, &t);
    CHECK(rc == 0 && t == SHMEM_TEAM_WORLD, "cycle %d: space attached again to the world: get_team returned %d, %p",
          cycle, rc, (void *)t);
    int *x = shmemx_space_malloc(s, MIB);
    CHECK(x != NULL, "cycle %d: malloc(1 MiB) in the space attached again gave NULL", cycle);
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_int_p(&x[MIB / sizeof(int) - 1], cycle * 100 + me, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(x[MIB / sizeof(int) - 1] == cycle * 100 + left, "cycle %d: the space attached again holds %d, want %d",
          cycle, x[MIB / sizeof(int) - 1], cycle * 100 + left);
    shmemx_space_free(s, x);
    shmemx_space_detach(s);
    check_unattached(s, cycle, "after the second detach");
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    split_teams();
    static long mine[NPAGES], got[NPAGES], tail[TAIL];

    for (int cycle = 0; cycle < CYCLES; cycle++) {
        if (cycle > 0 && cycle % 10 == 0) {
            destroy_teams();
            split_teams();
        }
        shmem_team_t team = cycle % 3 == 0 ? SHMEM_TEAM_WORLD : cycle % 3 == 1 ? even : allbutlast;
        const char *tname = cycle % 3 == 0 ? "world" : cycle % 3 == 1 ? "stride-2" : "all-but-last";

        shmem_team_t temp = SHMEM_TEAM_INVALID;
        if (cycle % 2) {
            int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &temp);
            CHECK(rc == 0 && temp != SHMEM_TEAM_INVALID, "cycle %d: temporary split returned %d", cycle, rc);
        }

        shmemx_space_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.sheap_size = MIB;
        cfg.memkind = SHMEMX_MEM_HOST;
        shmemx_space_t s = NULL;
        shmemx_space_create(cfg, &s);
        check_unattached(s, cycle, "before attach");

        if (team != SHMEM_TEAM_INVALID) {
            shmemx_space_attach_team(s, team);
            shmem_team_t t = SHMEM_TEAM_INVALID;
            int rc = shmemx_space_get_team(s, &t);
            CHECK(rc == 0 && t == team, "cycle %d: shmemx_space_get_team on a space attached to %s returned %d, team %p "
                  "(want %p)", cycle, tname, rc, (void *)t, (void *)team);
            CHECK(shmem_team_n_pes(t) == shmem_team_n_pes(team) && shmem_team_my_pe(t) == shmem_team_my_pe(team),
                  "cycle %d: the team of the space has %d PEs, rank %d", cycle, shmem_team_n_pes(t),
                  shmem_team_my_pe(t));
            int n = shmem_team_n_pes(team), r = shmem_team_my_pe(team);
            int right = shmem_team_translate_pe(team, (r + 1) % n, SHMEM_TEAM_WORLD);
            int left = shmem_team_translate_pe(team, (r + n - 1) % n, SHMEM_TEAM_WORLD);

            long *buf = shmemx_space_malloc(s, MIB);
            CHECK(buf != NULL, "cycle %d (%s): shmemx_space_malloc(1 MiB) in a 1 MiB space gave NULL", cycle, tname);
            long stamp = (long)cycle * 1000 + me;
            for (size_t p = 0; p < NPAGES; p++) {
                mine[p] = stamp * 4096 + (long)p;
                buf[p * PAGE_LONGS] = mine[p];
            }
            buf[NLONG - 1] = -stamp;
            for (int i = 0; i < TAIL; i++)
                tail[i] = stamp + i;
            CHECK(shmem_team_sync(team) == 0, "cycle %d: team sync failed", cycle);
            /* Read the neighbour's copy, write the end of it. */
            shmem_long_iget(got, buf, 1, PAGE_LONGS, NPAGES, right);
            long rstamp = (long)cycle * 1000 + right;
            for (size_t p = 0; p < NPAGES; p++)
                CHECK(got[p] == rstamp * 4096 + (long)p, "cycle %d (%s): page %zu of PE %d's copy holds %ld, want %ld",
                      cycle, tname, p, right, got[p], rstamp * 4096 + (long)p);
            long last = shmem_long_g(&buf[NLONG - 1], right);
            CHECK(last == -rstamp, "cycle %d (%s): last word of PE %d's copy is %ld, want %ld", cycle, tname, right,
                  last, -rstamp);
            CHECK(shmem_team_sync(team) == 0, "cycle %d: team sync failed", cycle);
            shmem_long_put(&buf[NLONG - TAIL], tail, TAIL, right);
            shmem_quiet();
            CHECK(shmem_team_sync(team) == 0, "cycle %d: team sync failed", cycle);
            long lstamp = (long)cycle * 1000 + left;
            for (int i = 0; i < TAIL; i++)
                CHECK(buf[NLONG - TAIL + i] == lstamp + i, "cycle %d (%s): word %d of the tail is %ld, want %ld from PE %d",
                      cycle, tname, i, buf[NLONG - TAIL + i], lstamp + i, left);

            if (cycle % 2)
                shmemx_space_free(s, buf);
            else
                shmem_free(buf);
            if (temp != SHMEM_TEAM_INVALID) {
                shmem_team_destroy(temp); /* collective over the world: every PE does it here */
                temp = SHMEM_TEAM_INVALID;
            }
            shmemx_space_detach_team(s, team);
            check_unattached(s, cycle, "after detach_team");
            if (cycle % 5 == 4)
                reattach_to_world(s, cycle);
        } else if (temp != SHMEM_TEAM_INVALID) {
            /* Outside the team: never attached. */
            check_unattached(s, cycle, "on a PE outside the team");
            shmem_team_destroy(temp);
            temp = SHMEM_TEAM_INVALID;
        } else {
            check_unattached(s, cycle, "on a PE outside the team");
        }
        if (team == SHMEM_TEAM_INVALID && cycle % 5 == 4)
            reattach_to_world(s, cycle);
        shmemx_space_destroy(s);
    }
    destroy_teams();

    shmem_barrier_all();
    if (me == 0)
        printf("space attach cycles ok: %d cycles\n", CYCLES);
    shmem_finalize();
    return 0;
}
