/* rshmem-test
 * np: 1 2 4
 */
/* One of each kind of call the timeline trace records (tests/trace.rs runs it
 * with SHMEM_TRACE and checks the JSON; here it runs untraced): on every PE
 *   shmem_int_put of 100 ints (400 bytes) to the right neighbour,
 *   shmem_long_atomic_fetch_add on PE 0,
 *   shmem_putmem_signal of 64 bytes to the right, shmem_signal_wait_until,
 *   shmem_int_p to the left, shmem_int_wait_until,
 *   shmem_long_broadcast (root 0, 4 longs), shmem_long_sum_reduce (4 longs),
 *   shmem_barrier_all.
 * With the argument "no-finalize" it returns from main without shmem_finalize. */
#include <shmem.h>
#include <string.h>

#include "../common.h"

static int ints[100];
static int flag;
static long counter;
static char bytes[64];
static uint64_t sig;
static long bsrc[4], bdst[4], rsrc[4], rdst[4];

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    int src[100];
    for (int i = 0; i < 100; i++)
        src[i] = me * 1000 + i;
    char msg[64];
    memset(msg, 'a' + me % 26, sizeof msg);
    for (int i = 0; i < 4; i++) {
        bsrc[i] = me == 0 ? 7 + i : -1;
        rsrc[i] = me + i;
    }
    shmem_barrier_all();

    shmem_int_put(ints, src, 100, right);
    long old = shmem_long_atomic_fetch_add(&counter, 1, 0);
    CHECK(old >= 0 && old < npes, "fetch_add returned %ld", old);
    shmem_putmem_signal(bytes, msg, sizeof msg, &sig, 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
    CHECK(bytes[0] == 'a' + left % 26 && bytes[63] == bytes[0], "signalled bytes are '%c'", bytes[0]);
    shmem_int_p(&flag, 1, left);
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
    shmem_long_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, 4, 0);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, rdst, rsrc, 4);
    shmem_barrier_all();

    for (int i = 0; i < 100; i++)
        CHECK(ints[i] == left * 1000 + i, "ints[%d] is %d", i, ints[i]);
    if (me == 0)
        CHECK(counter == npes, "counter is %ld", counter);
    for (int i = 0; i < 4; i++) {
        CHECK(bdst[i] == 7 + i, "broadcast element %d is %ld", i, bdst[i]);
        long want = (long)npes * (npes - 1) / 2 + (long)npes * i;
        CHECK(rdst[i] == want, "sum element %d is %ld, want %ld", i, rdst[i], want);
    }
    if (argc > 1 && strcmp(argv[1], "no-finalize") == 0)
        return 0;
    shmem_finalize();
    return 0;
}
