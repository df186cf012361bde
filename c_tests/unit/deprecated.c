/* rshmem-test
 * np: 1 2 4 8
 * cflags: -Wno-deprecated-declarations
 * stdout: deprecated routines ok
 */
/* The deprecated names still work: start_pes, _my_pe, _num_pes, shmalloc, shfree,
 * shrealloc, shmemalign. Like programs of that era, it never calls shmem_finalize. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

int main(void) {
    start_pes(0);
    int me = _my_pe(), npes = _num_pes();
    CHECK(me == shmem_my_pe() && npes == shmem_n_pes(), "_my_pe/_num_pes disagree with shmem_my_pe/shmem_n_pes");
    CHECK(me >= 0 && me < npes, "_my_pe %d, _num_pes %d", me, npes);
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    long *a = shmalloc(16 * sizeof(long));
    CHECK(a != NULL, "shmalloc failed");
    for (int i = 0; i < 16; i++)
        a[i] = 100L * me + i;
    a = shrealloc(a, 4096 * sizeof(long));
    CHECK(a != NULL, "shrealloc failed");
    for (int i = 0; i < 16; i++)
        CHECK(a[i] == 100L * me + i, "shrealloc lost element %d", i);
    shmem_barrier_all(); /* an in-place shrealloc need not synchronise on exit */
    shmem_long_p(&a[4095], me, right);
    shmem_barrier_all();
    CHECK(a[4095] == left, "put into a shrealloc'd block");

    double *b = shmemalign(256, 10 * sizeof(double));
    CHECK(b != NULL && (uintptr_t)b % 256 == 0, "shmemalign(256) gave %p", (void *)b);
    shmem_double_p(&b[9], 0.5 + me, right);
    shmem_barrier_all();
    CHECK(b[9] == 0.5 + left, "put into a shmemalign'd block");

    shfree(b);
    shfree(a);
    if (me == 0)
        printf("deprecated routines ok\n");
    return 0;
}
