/* rshmem-test
 * np: 1 2
 * exit: 1
 * env: SHMEM_NETWORK_TIMEOUT=0.5
 * stderr: rshmem: shmem_init (PE
 * stderr: of {np}): environment variable SHMEM_NETWORK_TIMEOUT="0.5" is invalid: expected 0 (no bound) or 1 to 86400 seconds
 */
/* Half a second is below what the network watch can measure (the kernel's
 * keepalive probes go at most once a second): a named error at shmem_init,
 * on one node as on several, rather than a bound silently rounded. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    fprintf(stderr, "FAIL: shmem_init accepted SHMEM_NETWORK_TIMEOUT=0.5\n");
    return 2;
}
