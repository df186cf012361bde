/* rshmem-test
 * np: 1 2
 * cflags: -fsanitize=address -fno-omit-frame-pointer
 */
/* A program built with AddressSanitizer: ASan puts poisoned redzones between the
 * globals, and shmem_init's move of the data segment into shared memory must not read
 * them through an intercepted memcpy (which reports an overflow and aborts). Symmetric
 * globals then work as usual: initialised values survive, atomics and puts land. */
#include <shmem.h>

#include "../common.h"

static long counter[16];
static int table[100] = {1, 2, 3};

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(table[2] == 3, "table[2] is %d after shmem_init", table[2]);
    shmem_long_atomic_add(&counter[3], me + 1, 0);
    shmem_int_p(&table[50], 7, (me + 1) % n);
    shmem_barrier_all();
    if (me == 0)
        CHECK(counter[3] == n * (n + 1) / 2, "counter %ld", counter[3]);
    CHECK(table[50] == 7, "table[50] is %d", table[50]);
    shmem_finalize();
    return 0;
}
