/* rshmem-test
 * np: 1 2 4
 * stdout: counting puts ok
 */
/* Sandia OpenSHMEM's counting puts (shmemx_ct_*, shmemx_putmem_ct, shmemx_getmem_ct):
 *  - a new counter reads 0; every PE's putmem_ct to PE 0 adds 1 to PE 0's counter, and
 *    once PE 0's ct_wait(npes) returns, every PE's data is there; the origins' own
 *    counters do not move;
 *  - ct_set(0) resets; every PE's getmem_ct from PE 0 reads PE 0's data and adds 1 to
 *    PE 0's counter;
 *  - every PE puts to every PE (itself included), a zero-length put too, and waits for
 *    its own count: 2 * npes;
 *  - two counters are two counts: a put through one leaves the other alone;
 *  - 200 rounds of a ring (each put waited for by its target before the next round's,
 *    counts wake sleeping waiters), and a put whose target polls ct_get alone;
 *  - ct_free sets the handle to NULL; a counter created again reads 0, and 64 live
 *    counters at once are allowed. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ROUNDS 200

static long slots[64], got, ring[ROUNDS];
static long source_word = -7;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long mine = 1000 + me;

    shmemx_ct_t ct, other;
    shmemx_ct_create(&ct);
    shmemx_ct_create(&other);
    CHECK(ct != NULL && other != NULL && ct != other, "two counters, two handles");
    CHECK(shmemx_ct_get(ct) == 0 && shmemx_ct_get(other) == 0, "new counters read %ld and %ld",
          shmemx_ct_get(ct), shmemx_ct_get(other));

    /* Everyone to PE 0. */
    shmem_barrier_all();
    shmemx_putmem_ct(ct, &slots[me], &mine, sizeof mine, 0);
    if (me == 0) {
        shmemx_ct_wait(ct, npes);
        CHECK(shmemx_ct_get(ct) == npes, "PE 0's counter is %ld, not %d", shmemx_ct_get(ct), npes);
        for (int i = 0; i < npes; i++)
            CHECK(slots[i] == 1000 + i, "after the wait, PE %d's put reads %ld", i, slots[i]);
    }
    shmem_barrier_all();
    if (me != 0)
        CHECK(shmemx_ct_get(ct) == 0, "an origin's own counter moved: %ld", shmemx_ct_get(ct));
    CHECK(shmemx_ct_get(other) == 0, "the other counter moved: %ld", shmemx_ct_get(other));

    /* Everyone gets from PE 0. */
    shmemx_ct_set(ct, 0);
    CHECK(shmemx_ct_get(ct) == 0, "reset counter reads %ld", shmemx_ct_get(ct));
    shmem_barrier_all();
    got = 0;
    shmemx_getmem_ct(ct, &got, &source_word, sizeof got, 0);
    CHECK(got == -7, "getmem_ct read %ld", got);
    if (me == 0) {
        shmemx_ct_wait(ct, npes);
        CHECK(shmemx_ct_get(ct) == npes, "after the gets PE 0's counter is %ld", shmemx_ct_get(ct));
    }
    shmem_barrier_all();

    /* Everyone to everyone, itself included, with a put of nothing each. */
    shmemx_ct_set(ct, 0);
    shmem_barrier_all();
    for (int i = 0; i < npes; i++) {
        int pe = (me + i) % npes;
        shmemx_putmem_ct(ct, &slots[me], &mine, sizeof mine, pe);
        shmemx_putmem_ct(ct, &slots[me], &mine, 0, pe);
    }
    shmemx_ct_wait(ct, 2L * npes);
    for (int i = 0; i < npes; i++)
        CHECK(slots[i] == 1000 + i, "all to all: PE %d's put reads %ld", i, slots[i]);
    shmem_barrier_all();
    CHECK(shmemx_ct_get(ct) == 2L * npes, "all to all: counter %ld, not %d", shmemx_ct_get(ct), 2 * npes);

    /* Two counters: puts through `other` only. */
    shmemx_ct_set(ct, 0);
    shmem_barrier_all();
    shmemx_putmem_ct(other, &slots[me], &mine, sizeof mine, (me + 1) % npes);
    shmemx_ct_wait(other, 1);
    shmem_barrier_all();
    CHECK(shmemx_ct_get(ct) == 0, "a put through the other counter moved this one: %ld", shmemx_ct_get(ct));
    CHECK(shmemx_ct_get(other) == 1, "the other counter is %ld", shmemx_ct_get(other));

    /* A ring, each round waited for by its target. */
    shmemx_ct_set(ct, 0);
    shmem_barrier_all();
    int right = (me + 1) % npes;
    for (long r = 0; r < ROUNDS; r++) {
        long v = r * npes + me;
        shmemx_putmem_ct(ct, &ring[r], &v, sizeof v, right);
        shmemx_ct_wait(ct, r + 1);
        int left = (me + npes - 1) % npes;
        CHECK(ring[r] == r * npes + left, "ring round %ld reads %ld", r, ring[r]);
    }
    shmem_barrier_all();
    CHECK(shmemx_ct_get(ct) == ROUNDS, "ring: counter %ld", shmemx_ct_get(ct));

    /* Polled with ct_get alone (no ct_wait): the count still moves across nodes. */
    shmemx_ct_set(ct, 0);
    shmem_barrier_all();
    shmemx_putmem_ct(ct, &slots[me], &mine, sizeof mine, right);
    for (long polls = 0; shmemx_ct_get(ct) < 1; polls++)
        CHECK(polls < 200000000L, "ct_get polled alone never saw the put");
    shmem_barrier_all();

    /* Free, create again, and 64 at once. */
    shmemx_ct_free(&other);
    CHECK(other == NULL, "ct_free left the handle %p", (void *)other);
    shmemx_ct_free(&ct);
    shmemx_ct_t all[64];
    for (int i = 0; i < 64; i++) {
        shmemx_ct_create(&all[i]);
        CHECK(shmemx_ct_get(all[i]) == 0, "counter %d created again reads %ld", i, shmemx_ct_get(all[i]));
    }
    shmem_barrier_all();
    shmemx_putmem_ct(all[63], &slots[me], &mine, sizeof mine, right);
    shmemx_ct_wait(all[63], 1);
    for (int i = 0; i < 64; i++)
        shmemx_ct_free(&all[i]);

    shmem_barrier_all();
    if (me == 0)
        printf("counting puts ok\n");
    shmem_finalize();
    return 0;
}
