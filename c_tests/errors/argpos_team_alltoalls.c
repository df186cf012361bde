/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_long_alltoalls (PE
 * stderr:  of {np}): argument #4 'dst' is 0: strides must be at least 1
 */
/* Argument positions and names come from the prototype: in shmem_long_alltoalls(team,
 * dest, source, dst, sst, nelems) a zero destination stride is argument #4 'dst'.
 * Every PE makes the call (a collective); the first to report ends the job. */
#include <shmem.h>
#include <stdio.h>

static long dest[64], source[64];

int main(void) {
    shmem_init();
    int rc = shmem_long_alltoalls(SHMEM_TEAM_WORLD, dest, source, 0, 1, 1);
    fprintf(stderr, "FAIL: shmem_long_alltoalls with dst 0 returned %d\n", rc);
    return 2;
}
