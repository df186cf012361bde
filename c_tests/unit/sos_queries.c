/* rshmem-test
 * np: 1 2
 * stdout: sos queries ok
 */
/* Sandia OpenSHMEM's shmemx_wtime and shmemx_nodename, and the deprecated cache routines
 * both peers still export (OpenSHMEM 1.0's shmem_set_cache_inv & co):
 *  - shmemx_wtime goes forward: two readings 20 ms apart differ by 15 ms to 2 s;
 *  - shmemx_nodename is this machine's host name (gethostname), the same pointer each time;
 *  - the cache routines return and change nothing. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long x = 42;

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    double t0 = shmemx_wtime();
    struct timespec ts = {0, 20 * 1000000L};
    nanosleep(&ts, NULL);
    double t1 = shmemx_wtime();
    if (!(t1 - t0 >= 0.015 && t1 - t0 < 2.0)) {
        fprintf(stderr, "PE %d: shmemx_wtime went from %f to %f over 20 ms\n", me, t0, t1);
        return 1;
    }
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    char *name = shmemx_nodename();
    if (name == NULL || strcmp(name, host) != 0 || shmemx_nodename() != name) {
        fprintf(stderr, "PE %d: shmemx_nodename gave %s, want %s\n", me, name ? name : "(null)", host);
        return 1;
    }
    shmem_set_cache_inv();
    shmem_clear_cache_inv();
    shmem_udcflush();
    shmem_set_cache_line_inv(&x);
    shmem_clear_cache_line_inv(&x);
    shmem_udcflush_line(&x);
    if (x != 42) {
        fprintf(stderr, "PE %d: a cache routine changed x to %ld\n", me, x);
        return 1;
    }
    shmem_barrier_all();
    if (me == 0)
        printf("sos queries ok\n");
    shmem_finalize();
    return 0;
}
