/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_putmem (PE
 * stderr: of {np}): called before shmem_init
 */
/* Every PE calls shmem_putmem before shmem_init: a fatal usage error on each of them. */
#include <shmem.h>
#include <stdio.h>

static char dest[8];

int main(void) {
    char src[8] = "abcdefg";
    shmem_putmem(dest, src, sizeof src, 0);
    fprintf(stderr, "FAIL: shmem_putmem before shmem_init returned\n");
    return 2;
}
