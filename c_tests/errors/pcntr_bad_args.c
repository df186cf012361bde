/* rshmem-test
 * np: 1
 * exit: 1
 * timeout: 20
 * variant: PCNTR_CALL=ctx null_value null_all
 * stderr: rshmem: shmemx_pcntr_get_
 * stderr: (PE 0 of 1): argument #
 */
/* The performance counters' getters with SHMEM_CTX_INVALID, and with NULL for the
 * result: fatal errors naming the argument, counting on or off. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    shmem_init();
    const char *call = getenv("PCNTR_CALL");
    uint64_t v;
    if (!call || strcmp(call, "ctx") == 0)
        shmemx_pcntr_get_issued_write(SHMEM_CTX_INVALID, &v);
    else if (strcmp(call, "null_value") == 0)
        shmemx_pcntr_get_completed_target(NULL);
    else
        shmemx_pcntr_get_all(SHMEM_CTX_DEFAULT, NULL);
    fprintf(stderr, "FAIL: shmemx_pcntr accepted a bad argument (%s)\n", call ? call : "ctx");
    return 2;
}
