/* rshmem-test
 * np: 1 2
 * link: static
 * env: SHMEM_TRACE=/nonexistent/trace_static.json
 * stdout: traced calls ran
 * stderr: rshmem: SHMEM_TRACE=/nonexistent/trace_static.json is set, but this program's calls do not go through the trace layer, so no trace is written
 */
/* SHMEM_TRACE with a statically linked program: oshrun preloads the trace
 * layer, but the program's calls are bound to its own copy of the library
 * and never reach it. The library says so (once, on PE 0) and the program
 * runs as usual. */
#include <shmem.h>
#include <stdio.h>

#include "../common.h"

static long x;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_long_p(&x, me, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(x == (me + npes - 1) % npes, "x is %ld", x);
    shmem_finalize();
    if (me == 0)
        printf("traced calls ran\n");
    return 0;
}
