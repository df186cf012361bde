/* rshmem-test
 * np: 1 2 4
 * exit: 0
 * env: SHMEM_DEBUG=1
 * stdout: space exhaustion ok
 * stderr: rshmem debug: shmemx_space_malloc (PE 0 of {np}): cannot allocate 64 bytes
 * stderr: rshmem debug: shmemx_space_calloc (PE 0 of {np}): cannot allocate 8192 bytes
 * stderr: rshmem debug: shmemx_space_calloc (PE 0 of {np}): 18446744073709551615 x 18446744073709551615 bytes overflows
 * stderr: rshmem debug: shmemx_space_align (PE 0 of {np}): alignment 4194304 exceeds 4096
 * stderr: rshmem debug: shmemx_space_align (PE 0 of {np}): alignment 3 is not a power of two
 */
/* space_exhaustion.c under SHMEM_DEBUG=1: every NULL from a full space says why (on
 * every member; PE 0 is checked here), and the program still passes. */
#include "../unit/space_exhaustion.c"
