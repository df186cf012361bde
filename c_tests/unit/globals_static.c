/* rshmem-test
 * np: 1 2 4
 * link: static
 */
/* globals.c linked with librshmem.a: the library's own statics now live in the data
 * segment that shmem_init moves into shared memory. */
#include "globals.c"
