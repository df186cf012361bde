/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_pcontrol is a no-op at every level, with or without extra arguments, and
 * communication keeps working around it. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

static int box;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_pcontrol(0);
    shmem_int_p(&box, me + 1, (me + 1) % npes);
    shmem_pcontrol(1);
    shmem_pcontrol(2);
    shmem_pcontrol(3, "user event", 42);
    shmem_pcontrol(-1);
    shmem_barrier_all();
    CHECK(box == (me + npes - 1) % npes + 1, "box is %d", box);
    shmem_pcontrol(1);
    shmem_finalize();
    return 0;
}
