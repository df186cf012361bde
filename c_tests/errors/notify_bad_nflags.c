/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * variant: NOTIFY_N=zero huge
 * stderr: rshmem: shmemx_notify_alloc (PE 
 * stderr: of {np}): argument #1 'nflags' is 
 * stderr: a notification set has 1 to 1048576 flags
 */
/* A set of no flags, or of more than the maximum (SIZE_MAX, a negative count passed as
 * size_t): a fatal error naming the count. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    shmem_init();
    const char *n = getenv("NOTIFY_N");
    size_t count = (n && strcmp(n, "huge") == 0) ? SIZE_MAX : 0;
    shmemx_notify_alloc(count);
    fprintf(stderr, "FAIL: PE %d: shmemx_notify_alloc(%zu) returned\n", shmem_my_pe(), count);
    return 2;
}
