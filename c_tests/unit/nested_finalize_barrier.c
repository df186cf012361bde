/* rshmem-test
 * np: 2 4
 * stdout: nested finalize ok
 */
/* OpenSHMEM 1.6: with matching shmem_init/shmem_finalize calls, every shmem_finalize but
 * the last performs an operation equivalent to shmem_barrier_all (it completes the
 * caller's puts and waits for every PE) and frees nothing. Each PE initialises twice,
 * puts (non-blocking) its number to its right neighbour, the left neighbour only after
 * 200 ms, and calls the inner shmem_finalize: on return the neighbour's value must be
 * there (before, the inner finalize returned at once). The library then still works
 * (a symmetric allocation and a barrier) until the last shmem_finalize. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <time.h>

static long box = -1;

int main(void) {
    shmem_init();
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (me == 1) {
        struct timespec ts = {0, 200 * 1000000L};
        nanosleep(&ts, NULL);
    }
    long mine = me;
    shmem_long_put_nbi(&box, &mine, 1, (me + 1) % n);
    shmem_finalize(); /* not the last: a barrier_all */
    if (box != (me + n - 1) % n) {
        fprintf(stderr, "PE %d: after the inner shmem_finalize box is %ld, want %d\n", me, box, (me + n - 1) % n);
        return 1;
    }
    long *p = shmem_malloc(sizeof(long));
    if (p == NULL) {
        fprintf(stderr, "PE %d: shmem_malloc failed after the inner shmem_finalize\n", me);
        return 1;
    }
    shmem_free(p);
    shmem_barrier_all();
    if (me == 0)
        printf("nested finalize ok\n");
    shmem_finalize();
    return 0;
}
