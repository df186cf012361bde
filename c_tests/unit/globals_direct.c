/* rshmem-test
 * np: 1
 * launch: direct
 */
/* globals.c run as ./program, without oshrun: a valid 1-PE job with its own job file. */
#include "globals.c"
