/* rshmem-test
 * np: 1 2
 * link: static
 */
/* The profiling interface with the static library: the program's own shmem_long_p and
 * shmem_barrier_all (forwarding to pshmem_long_p / pshmem_barrier_all) must link against
 * librshmem.a without clashing with the library's definitions (OpenSHMEM 1.5 section
 * 10: routines that are not replaced still link without name clashes), and replace them. */
#include <pshmem.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common.h"

static long p_calls, barrier_calls;

void shmem_long_p(long *dest, long value, int pe) {
    p_calls++;
    pshmem_long_p(dest, value, pe);
}

void shmem_barrier_all(void) {
    barrier_calls++;
    pshmem_barrier_all();
}

static long dst[4];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        shmem_long_p(&dst[i], 10L * me + i, right);
    shmem_barrier_all();
    CHECK(p_calls == 4, "shmem_long_p wrapper counted %ld calls, want 4", p_calls);
    CHECK(barrier_calls == 2, "shmem_barrier_all wrapper counted %ld calls, want 2", barrier_calls);
    for (int i = 0; i < 4; i++)
        CHECK(dst[i] == 10L * left + i, "dst[%d] = %ld, want %ld", i, dst[i], 10L * left + i);
    CHECK(pshmem_my_pe() == me, "pshmem_my_pe");
    shmem_barrier_all();
    if (me == 0)
        printf("pshmem static ok\n");
    shmem_finalize();
    return 0;
}
