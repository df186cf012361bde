/* rshmem-test
 * np: 1 2 3 4 8
 * timeout: 60
 */
/* shmemx_memput_signal: the data is all there when the post is seen.
 *
 * Every PE streams messages to its right neighbour around the ring (at np 1, to
 * itself) into SLOTS slots of a destination buffer: message `it` goes to slot
 * it % SLOTS with shmemx_memput_signal(..., data, n, right), n = 1 + it % 3; the
 * receiver takes n from `data` (waitN, n waits, a tryN spin; in turns) and checks every
 * byte of the slot right away against the pattern only message `it` of that sender
 * has, then posts `ack` back to the sender, which waits for it before reusing the slot.
 * After a stream both semaphores are empty on every PE, and the guard bytes after
 * every slot are untouched. Streams:
 * - heap: 5000 x 8 bytes, 300 x 64 KiB, 300 of random sizes in 1..100000;
 * - a global array: 200 random sizes and 300 x 8 bytes;
 * - the memory of a space attached to the world (shmemx_space_attach): 200 random sizes;
 * - shmemx_memput_signal_async (heap), the source reused only after shmem_quiet;
 * - a boolean data semaphore (one slot, n = 1);
 * - teams: the even and the odd PEs each attach a space to their team and stream
 *   around their team's ring with team semaphores (world PE numbers from
 *   shmem_team_translate_pe);
 * - shmem_putmem, shmem_putmem_nbi and shmem_int_p followed by shmemx_sem_post (the
 *   post's implied fence), and memput_signal with n = 0 followed by a post;
 * - nbytes = 0: just posts (dest left alone; also with NULL dest and src). */
#define _POSIX_C_SOURCE 200809L /* sched_yield */
#include <sched.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define SLOTS 2
#define MAXB 100000
#define STRIDE (MAXB + 64) /* 64 guard bytes after every slot */
#define GUARD 0xEE

static unsigned char gbuf[SLOTS * STRIDE]; /* a global destination */

static int me, npes;

enum kind { FIXED, RANDOM };

static uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Size of message it from world PE p. */
static size_t msg_size(enum kind k, size_t fixed, int p, int it) {
    if (k == FIXED)
        return fixed;
    return 1 + mix((uint32_t)p * 7919U + (uint32_t)it * 104729U + 17U) % MAXB;
}

/* Byte j of message it from world PE p, in stream `salt`. */
static unsigned char pattern(int salt, int p, int it, size_t j) {
    return (unsigned char)(j * 13 + (j >> 8) * 5 + (size_t)it * 7 + (size_t)p * 101 + (size_t)salt * 37 + 1);
}

static void fill(unsigned char *b, size_t n, int salt, int p, int it) {
    for (size_t j = 0; j < n; j++)
        b[j] = pattern(salt, p, it, j);
}

static void verify(const char *what, const unsigned char *b, size_t n, int salt, int p, int it) {
    for (size_t j = 0; j < n; j++) {
        unsigned char want = pattern(salt, p, it, j);
        if (b[j] != want) {
            size_t bad = 0;
            for (size_t k = j; k < n; k++)
                bad += b[k] != pattern(salt, p, it, k);
            CHECK(0, "%s: message %d (%zu bytes) from PE %d: byte %zu is %#x, want %#x (%zu bytes wrong)", what, it, n,
                  p, j, b[j], pattern(salt, p, it, j), bad);
        }
    }
}

struct chan {
    const char *name;
    int salt;
    unsigned char *dest; /* SLOTS * STRIDE bytes, symmetric on right */
    int slots;
    shmemx_sem_t *data, *ack;
    int right, left; /* world PEs */
    int boolean;     /* data is boolean: n is always 1 */
    int async;       /* use the _async form, reuse the source after shmem_quiet */
};

static void sync_chan(shmem_team_t team) {
    if (team == SHMEM_TEAM_WORLD)
        shmem_barrier_all();
    else
        CHECK(shmem_team_sync(team) == 0, "shmem_team_sync failed");
}

static void stream(const struct chan *c, shmem_team_t team, int iters, enum kind k, size_t fixed) {
    unsigned char *src[2];
    for (int i = 0; i < 2; i++) {
        src[i] = malloc(MAXB);
        CHECK(src[i] != NULL, "malloc failed");
    }
    memset(c->dest, GUARD, (size_t)c->slots * STRIDE);
    sync_chan(team); /* nobody writes before the guard bytes are set everywhere */
    for (int it = 0; it < iters; it++) {
        int slot = it % c->slots;
        size_t n = c->boolean ? 1 : 1 + (size_t)it % 3;
        /* send message it */
        if (it >= c->slots)
            shmemx_sem_wait(c->ack); /* message it - slots is consumed */
        size_t sz = msg_size(k, fixed, me, it);
        unsigned char *s = src[it % 2];
        if (c->async && it >= 2)
            shmem_quiet(); /* s was the source of message it - 2: now it may be reused */
        fill(s, sz, c->salt, me, it);
        if (c->async) {
            shmemx_memput_signal_async(c->dest + (size_t)slot * STRIDE, s, sz, c->data, n, c->right);
        } else {
            shmemx_memput_signal(c->dest + (size_t)slot * STRIDE, s, sz, c->data, n, c->right);
            /* the source may be reused at once: scribble on it */
            memset(s, 0xA5, sz);
        }
        /* receive message it from the left */
        size_t rsz = msg_size(k, fixed, c->left, it);
        switch (it % 4) {
        case 0:
        case 3:
            shmemx_sem_waitN(c->data, n);
            break;
        case 1:
            for (size_t i = 0; i < n; i++)
                shmemx_sem_wait(c->data);
            break;
        default:
            while (!shmemx_sem_tryN(c->data, n))
                sched_yield(); /* PEs may outnumber cores */
            break;
        }
        verify(c->name, c->dest + (size_t)slot * STRIDE, rsz, c->salt, c->left, it);
        shmemx_sem_post(c->ack, c->left);
    }
    if (c->async)
        shmem_quiet();
    /* the acks of the last messages */
    int outstanding = iters < c->slots ? iters : c->slots;
    shmemx_sem_waitN(c->ack, (size_t)outstanding);
    sync_chan(team);
    CHECK(shmemx_sem_try(c->ack) == 0, "%s: an ack is left over", c->name);
    CHECK(shmemx_sem_try(c->data) == 0, "%s: a data unit is left over", c->name);
    for (int s = 0; s < c->slots; s++)
        for (size_t j = MAXB; j < STRIDE; j++)
            CHECK(c->dest[(size_t)s * STRIDE + j] == GUARD, "%s: guard byte %zu after slot %d is %#x", c->name,
                  j - MAXB, s, c->dest[(size_t)s * STRIDE + j]);
    sync_chan(team);
    free(src[0]);
    free(src[1]);
}

/* put/putmem_nbi/p then post; memput_signal with n = 0 then post; nbytes = 0. */
static void fences(unsigned char *dest, shmemx_sem_t *data, int right, int left) {
    enum { SZ = 4096, ROUNDS = 300 };
    unsigned char *src = malloc(SZ);
    CHECK(src != NULL, "malloc failed");
    int *ints = (int *)(void *)(dest + STRIDE); /* slot 1, as ints */
    for (int it = 0; it < ROUNDS; it++) {
        int way = it % 4;
        fill(src, SZ, 50 + way, me, it);
        shmem_barrier_all(); /* the previous round is checked everywhere */
        switch (way) {
        case 0:
            shmem_putmem(dest, src, SZ, right);
            shmemx_sem_post(data, right);
            break;
        case 1:
            shmem_putmem_nbi(dest, src, SZ, right);
            shmemx_sem_postN(data, 1, right);
            break;
        case 2:
            shmemx_memput_signal(dest, src, SZ, data, 0, right);
            shmemx_sem_post(data, right);
            break;
        default:
            for (int i = 0; i < SZ / (int)sizeof(int); i++) {
                int v;
                memcpy(&v, src + (size_t)i * sizeof(int), sizeof v);
                shmem_int_p(&ints[i], v, right);
            }
            shmemx_sem_post(data, right);
            break;
        }
        shmemx_sem_wait(data);
        verify(way == 0   ? "shmem_putmem + post"
               : way == 1 ? "shmem_putmem_nbi + postN"
               : way == 2 ? "memput_signal n=0 + post"
                          : "shmem_int_p + post",
               way == 3 ? (unsigned char *)ints : dest, SZ, 50 + way, left, it);
        CHECK(shmemx_sem_try(data) == 0, "%s round %d: more than one unit", "fences", it);
        shmem_quiet(); /* src of the nbi put is reusable */
    }
    /* nbytes = 0: a post and nothing else */
    memset(dest, GUARD, STRIDE);
    shmem_barrier_all();
    for (int i = 0; i < 100; i++) {
        shmemx_memput_signal(dest, src, 0, data, 1 + (size_t)i % 2, right);
        shmemx_memput_signal_async(dest + 8, src, 0, data, 1, right);
        shmemx_memput_signal(NULL, NULL, 0, data, 1, right);
    }
    shmemx_sem_waitN(data, 100 + 50 + 100 + 100);
    shmem_barrier_all();
    CHECK(shmemx_sem_try(data) == 0, "nbytes 0: more units than posted");
    for (size_t j = 0; j < STRIDE; j++)
        CHECK(dest[j] == GUARD, "nbytes 0: destination byte %zu changed to %#x", j, dest[j]);
    shmem_barrier_all();
    free(src);
}

static void teams(void) {
    shmem_team_t even = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0, "even split failed");
    if (npes > 1)
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd) == 0, "odd split failed");
    shmem_team_t team = me % 2 ? odd : even;
    CHECK(team != SHMEM_TEAM_INVALID, "no team handle");
    int n = shmem_team_n_pes(team), r = shmem_team_my_pe(team);

    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = 2 * SLOTS * STRIDE;
    cfg.num_contexts = 0;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t sp;
    shmemx_space_create(cfg, &sp);
    shmemx_space_attach_team(sp, team);
    unsigned char *dest = shmemx_space_malloc(sp, SLOTS * STRIDE);
    CHECK(dest != NULL, "shmemx_space_malloc in the team's space gave NULL");
    struct chan c = {me % 2 ? "odd team's space" : "even team's space",
                     me % 2 ? 7 : 8,
                     dest,
                     SLOTS,
                     shmemx_team_sem_alloc(team, 0),
                     shmemx_team_sem_alloc(team, SHMEMX_SEM_INTEGER),
                     shmem_team_translate_pe(team, (r + 1) % n, SHMEM_TEAM_WORLD),
                     shmem_team_translate_pe(team, (r + n - 1) % n, SHMEM_TEAM_WORLD),
                     0,
                     0};
    CHECK(c.data != NULL && c.ack != NULL, "team semaphores: NULL");
    stream(&c, team, 200, RANDOM, 0);
    shmemx_sem_free(c.ack);
    shmemx_sem_free(c.data);
    shmemx_space_free(sp, dest);
    shmemx_space_detach_team(sp, team);
    shmemx_space_destroy(sp);
    shmem_barrier_all();
    shmem_team_destroy(team);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    unsigned char *heap = shmem_malloc(SLOTS * STRIDE);
    CHECK(heap != NULL, "shmem_malloc failed");
    shmemx_sem_t *data = shmemx_sem_alloc(0), *ack = shmemx_sem_alloc(0);
    CHECK(data != NULL && ack != NULL, "shmemx_sem_alloc gave NULL");

    struct chan c = {"heap", 1, heap, SLOTS, data, ack, right, left, 0, 0};
    stream(&c, SHMEM_TEAM_WORLD, 5000, FIXED, 8);
    c.salt = 2;
    stream(&c, SHMEM_TEAM_WORLD, 300, FIXED, 64 << 10);
    c.salt = 3;
    stream(&c, SHMEM_TEAM_WORLD, 300, RANDOM, 0);

    c.name = "global array";
    c.dest = gbuf;
    c.salt = 4;
    stream(&c, SHMEM_TEAM_WORLD, 200, RANDOM, 0);
    stream(&c, SHMEM_TEAM_WORLD, 300, FIXED, 8);

    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = 2 * SLOTS * STRIDE;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t sp;
    shmemx_space_create(cfg, &sp);
    shmemx_space_attach(sp);
    unsigned char *smem = shmemx_space_malloc(sp, SLOTS * STRIDE);
    CHECK(smem != NULL, "shmemx_space_malloc gave NULL");
    c.name = "space";
    c.dest = smem;
    c.salt = 5;
    stream(&c, SHMEM_TEAM_WORLD, 200, RANDOM, 0);

    c.name = "async";
    c.dest = heap;
    c.salt = 6;
    c.async = 1;
    stream(&c, SHMEM_TEAM_WORLD, 250, RANDOM, 0);
    c.async = 0;

    shmemx_sem_t *bdata = shmemx_sem_alloc(SHMEMX_SEM_BOOLEAN);
    CHECK(bdata != NULL, "boolean shmemx_sem_alloc gave NULL");
    struct chan b = {"boolean, space", 9, smem, 1, bdata, ack, right, left, 1, 0};
    stream(&b, SHMEM_TEAM_WORLD, 250, RANDOM, 0);
    shmemx_sem_free(bdata);

    teams();
    fences(heap, data, right, left);

    shmemx_space_free(sp, smem);
    shmemx_space_detach(sp);
    shmemx_space_destroy(sp);
    shmemx_sem_free(ack);
    shmemx_sem_free(data);
    shmem_free(heap);
    shmem_barrier_all();
    if (me == 0)
        printf("sem memput_signal ok\n");
    shmem_finalize();
    return 0;
}
