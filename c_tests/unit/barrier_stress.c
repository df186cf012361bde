/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_barrier_all, thousands of times. In round r every PE stores r into its slot on
 * PE r % npes (and on its right neighbour); after the barrier those PEs must see r from
 * every writer: a barrier that let a PE through early, or did not complete the puts,
 * shows up as a stale slot. Two buffers alternate so a round's writes never race with
 * the previous round's reads. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

#define ROUNDS 3000

static int from_left[2];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes;
    int *slots = shmem_malloc(2 * (size_t)npes * sizeof(int)); /* slots[buf * npes + writer] */
    CHECK(slots != NULL, "shmem_malloc failed");
    for (int i = 0; i < 2 * npes; i++)
        slots[i] = 0;
    shmem_barrier_all();

    long seen = 0;
    for (int r = 1; r <= ROUNDS; r++) {
        int buf = r % 2, root = r % npes;
        shmem_int_p(&slots[buf * npes + me], r, root);
        shmem_int_p(&from_left[buf], r, right);
        shmem_barrier_all();
        CHECK(from_left[buf] == r, "round %d: value from the left neighbour is %d", r, from_left[buf]);
        if (me == root) {
            for (int pe = 0; pe < npes; pe++)
                CHECK(slots[buf * npes + pe] == r, "round %d: slot of PE %d is %d", r, pe, slots[buf * npes + pe]);
            seen++;
        }
    }
    long want = ROUNDS / npes + (me >= 1 && me <= ROUNDS % npes ? 1 : 0);
    CHECK(seen == want, "was root in %ld rounds, wanted %ld", seen, want);
    shmem_free(slots);
    if (me == 0)
        printf("%d barriers ok\n", ROUNDS);
    shmem_finalize();
    return 0;
}
