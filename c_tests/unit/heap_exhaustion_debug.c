/* rshmem-test
 * np: 1 2
 * env: SHMEM_SYMMETRIC_SIZE=1M
 * env: SHMEM_DEBUG=1
 * stderr: rshmem debug: shmem_malloc (PE 0 of {np}): cannot allocate
 * stderr: raise SHMEM_SYMMETRIC_SIZE
 */
/* heap_exhaustion.c with SHMEM_DEBUG: the NULL results come with a message saying why. */
#include "heap_exhaustion.c"
