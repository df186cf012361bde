/* rshmem-test
 * np: 2 4 8
 * args: 150
 * ignored-args: 3000
 */
/* The pattern of the GUPS benchmark with locks: one lock per PE in the symmetric heap
 * (locks[t] guards PE t's table), and every PE updates entries of pseudo-random PEs'
 * tables under that PE's lock, with a non-atomic read-modify-write (get, xor, put,
 * quiet), interleaved with atomic xors on a second table and an occasional
 * shmem_test_lock. Many locks are live at once, each word a different queue. At the
 * end both tables must equal what a serial replay of every PE's updates gives, and every
 * lock word is 0 again. The argument is the number of updates per PE. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ENTRIES 8 /* per PE and table */

static uint64_t next_random(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int updates = argc > 1 ? atoi(argv[1]) : 150;
    CHECK(updates > 0, "updates must be positive");
    long *locks = shmem_calloc((size_t)npes, sizeof(long));
    uint64_t *locked = shmem_calloc(ENTRIES, sizeof(uint64_t));
    uint64_t *atomic = shmem_calloc(ENTRIES, sizeof(uint64_t));
    CHECK(locks && locked && atomic, "allocation failed");
    shmem_barrier_all();

    uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(me + 1);
    int tested = 0, won = 0;
    for (int i = 0; i < updates; i++) {
        uint64_t r = next_random(&seed);
        int pe = (int)(r % (uint64_t)npes);
        int at = (int)((r >> 16) % ENTRIES);
        if (i % 16 == 7) {
            tested++;
            if (shmem_test_lock(&locks[pe]))
                shmem_set_lock(&locks[pe]);
            else
                won++;
        } else {
            shmem_set_lock(&locks[pe]);
        }
        uint64_t v = shmem_uint64_g(&locked[at], pe);
        shmem_uint64_p(&locked[at], v ^ r, pe);
        shmem_quiet();
        shmem_clear_lock(&locks[pe]);
        shmem_uint64_atomic_xor(&atomic[at], r, pe);
    }
    shmem_barrier_all();

    /* replay every PE's updates for this PE's entries */
    uint64_t want[ENTRIES] = {0};
    for (int p = 0; p < npes; p++) {
        uint64_t s = 0x9e3779b97f4a7c15ULL * (uint64_t)(p + 1);
        for (int i = 0; i < updates; i++) {
            uint64_t r = next_random(&s);
            if ((int)(r % (uint64_t)npes) == me)
                want[(r >> 16) % ENTRIES] ^= r;
        }
    }
    for (int e = 0; e < ENTRIES; e++) {
        CHECK(locked[e] == want[e], "entry %d of the locked table is %#llx, want %#llx (an update was lost)",
              e, (unsigned long long)locked[e], (unsigned long long)want[e]);
        CHECK(atomic[e] == want[e], "entry %d of the atomic table is %#llx, want %#llx", e,
              (unsigned long long)atomic[e], (unsigned long long)want[e]);
    }
    for (int p = 0; p < npes; p++)
        CHECK(locks[p] == 0, "lock %d's word on PE %d is %#lx after every clear", p, me, (unsigned long)locks[p]);
    shmem_barrier_all();
    if (me == 0)
        printf("lock table: %d PEs x %d updates exact (%d test_lock, %d won at once)\n", npes, updates, tested,
               won);
    shmem_free(atomic);
    shmem_free(locked);
    shmem_free(locks);
    shmem_finalize();
    return 0;
}
