/* rshmem-test
 * np: 1 2 4
 * cflags: -no-pie
 */
/* globals.c in a position-dependent (non-PIE) executable: the data segment sits at
 * fixed link-time addresses instead of being relocated. */
#include "globals.c"
