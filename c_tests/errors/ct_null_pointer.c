/* rshmem-test
 * np: 1
 * exit: 1
 * timeout: 20
 * variant: CT_CALL=create free
 * stderr: rshmem: shmemx_ct_
 * stderr: (PE 0 of 1): argument #1 'ct' is NULL: a NULL pointer where the routine needs one to a variable
 */
/* shmemx_ct_create and shmemx_ct_free with a NULL shmemx_ct_t pointer: a fatal error, not
 * a store through NULL. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    shmem_init();
    const char *call = getenv("CT_CALL");
    if (!call || strcmp(call, "create") == 0)
        shmemx_ct_create(NULL);
    else
        shmemx_ct_free(NULL);
    fprintf(stderr, "FAIL: shmemx_ct_%s accepted NULL\n", call ? call : "create");
    return 2;
}
