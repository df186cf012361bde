/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * variant: CT_CALL=putmem getmem
 * stderr: rshmem: shmemx_
 * stderr: mem_ct (PE 0 of {np}): argument #
 * stderr: is not symmetric
 */
/* shmemx_putmem_ct to a stack address, and shmemx_getmem_ct from one: a fatal error
 * naming the address (argument #2 'target' of the put, #3 'source' of the get). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    shmem_init();
    shmemx_ct_t ct;
    shmemx_ct_create(&ct);
    if (shmem_my_pe() == 0) {
        const char *call = getenv("CT_CALL");
        long on_stack = 0, v = 1;
        if (!call || strcmp(call, "putmem") == 0)
            shmemx_putmem_ct(ct, &on_stack, &v, sizeof v, shmem_n_pes() - 1);
        else
            shmemx_getmem_ct(ct, &v, &on_stack, sizeof v, shmem_n_pes() - 1);
        fprintf(stderr, "FAIL: a stack address accepted\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", shmem_my_pe());
    return 2;
}
