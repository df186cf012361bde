/* rshmem-test
 * np: 1 2 3 4 8
 * args: --chunks 1001 --bytes 3000 --slots 6 --batch 4
 * stdout: pipeline ok
 * stdout-not: FAILED
 * timeout: 60
 */
#include "../../examples/pipeline/pipeline.c"
