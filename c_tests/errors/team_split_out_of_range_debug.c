/* rshmem-test
 * np: 1 2 4 8
 * env: SHMEM_DEBUG=1
 * stderr: rshmem debug: shmem_team_split_strided (PE 0 of {np}):
 * stderr: argument #2 'start' is -1, outside [0,
 * stderr: argument #4 'size' is 0
 */
/* team_split_out_of_range.c with SHMEM_DEBUG: the failed splits say why. */
#include "team_split_out_of_range.c"
